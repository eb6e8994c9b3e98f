//! EVM streams: a project's streams and their watched addresses, matching
//! each new block against them, and delivering signed webhooks at least
//! once, from the [`w3api_store::Store`] that several servers may share.
//!
//! - [`Streams`] answers the management API (create, update, addresses,
//!   settings, history, replays, statistics) and runs the engine:
//! - the follower ([`follow`]) hears of new heads from the
//!   [`w3api_source::DataSource`], builds each matching stream's payload
//!   ([`payload`]) for the new block (unconfirmed) and for the block that
//!   became deep enough (confirmed), and queues them in the store, where a
//!   block queued by two servers is queued once;
//! - the deliverer ([`deliver`]) claims due deliveries from the store, posts
//!   them signed ([`signature`]), and records every attempt; a failed one is
//!   retried on the configured schedule, and a delivery that runs out of
//!   retries puts its stream in status `error`.

mod config;
mod cursor;
pub mod deliver;
mod engine;
mod error;
mod filter;
pub mod follow;
pub mod payload;
mod records;
mod service;
mod settings;
mod sign;
mod triggers;

pub use config::{StreamsConfig, production_confirmations};
pub use engine::Engine;
pub use error::StreamsError;
pub use payload::BlockData;
pub use records::{DashboardAttempt, DashboardDelivery};
pub use service::Streams;
pub use settings::StreamSpec;
pub use sign::{SIGNATURE_HEADER, signature};
pub use w3api_store::{AttemptFilter, DeliveryFilter};
