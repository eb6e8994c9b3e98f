//! The engine's shared state: what the façade ([`crate::Streams`]), the
//! follower ([`crate::follow`]) and the deliverer ([`crate::deliver`]) read
//! and wake each other through, and the handle that stops the engine.

use std::sync::Arc;

use tokio::sync::Notify;
use w3api_source::DataSource;
use w3api_store::{Settings, Store, StoreCell};

use crate::config::StreamsConfig;
use crate::error::StreamsError;
use crate::{deliver, follow};

/// What the streams of a project share, once per server.
pub(crate) struct Inner<S> {
    pub(crate) source: Arc<S>,
    pub(crate) store: Arc<StoreCell>,
    pub(crate) config: StreamsConfig,
    pub(crate) http: reqwest::Client,
    /// Rung when deliveries are queued or replayed here.
    pub(crate) wake: Notify,
    /// The secret deliveries are signed with until the project sets one.
    pub(crate) default_secret: String,
}

impl<S: DataSource> Inner<S> {
    /// The store, once it is open.
    pub(crate) async fn store(&self) -> Result<&Arc<dyn Store>, StreamsError> {
        Ok(self.store.get().await?)
    }

    /// The project's settings, the defaults kept if none were.
    pub(crate) async fn settings(&self) -> Result<Settings, StreamsError> {
        let store = self.store().await?;
        if let Some(settings) = store.settings().await? {
            return Ok(settings);
        }
        let defaults = Settings { secret_key: self.default_secret.clone(), region: "us-east-1".into() };
        Ok(store.init_settings(&defaults).await?)
    }
}

/// Starts the follower and the deliverer over `inner`.
pub(crate) fn start<S: DataSource>(inner: &Arc<Inner<S>>) -> Engine {
    let follower = tokio::spawn(follow::run(inner.clone()));
    let deliverer = tokio::spawn(deliver::run(inner.clone()));
    Engine { tasks: vec![follower, deliverer] }
}

/// Stops the engine's tasks when dropped.
pub struct Engine {
    tasks: Vec<tokio::task::JoinHandle<()>>,
}

impl Drop for Engine {
    fn drop(&mut self) {
        for task in &self.tasks {
            task.abort();
        }
    }
}
