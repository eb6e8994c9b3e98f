//! The server as a background task of the caller's tokio runtime, on a
//! listener the caller bound: what tests, examples and embedders need when
//! they want the address first and control of the end.

use std::net::SocketAddr;

use crate::Backend;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use crate::{HttpService, ServerConfig, serve, service};

/// A server started by [`spawn`] or [`spawn_service`].
///
/// [`shutdown`](RunningServer::shutdown) stops it and waits; dropping the
/// handle stops it too, without waiting (requests in flight still finish
/// on the runtime).
#[derive(Debug)]
pub struct RunningServer {
    addr: SocketAddr,
    // Dropped, it ends the wait as a sent signal does: dropping the handle
    // stops the server without waiting, which a `Drop` impl could not do
    // without blocking the runtime the server runs on.
    stop: oneshot::Sender<()>,
    task: JoinHandle<std::io::Result<()>>,
}

/// Serves the whole interface over `source` on `listener`, on a task of the
/// current tokio runtime (it panics outside one, as `tokio::spawn` does).
///
/// ```
/// use w3api_devnet::{Devnet, Scale};
/// use w3api_server::{ServerConfig, spawn};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
/// let config = ServerConfig::new(vec!["my-key".into()]);
/// let server = spawn(listener, Devnet::new(0, Scale::TINY), config)?;
/// assert!(server.url().starts_with("http://127.0.0.1:"));
/// // ... point a client at server.url() ...
/// server.shutdown().await
/// # }
/// ```
pub fn spawn<S: Backend>(listener: TcpListener, source: S, config: ServerConfig) -> std::io::Result<RunningServer> {
    spawn_service(listener, service(source, config))
}

/// Serves `service` on `listener`, on a task of the current tokio runtime:
/// the variant of [`spawn`] for a service the caller wrapped in layers of
/// its own (a test harness checking every exchange, say).
pub fn spawn_service(listener: TcpListener, service: HttpService) -> std::io::Result<RunningServer> {
    let addr = listener.local_addr()?;
    let (stop, stopped) = oneshot::channel::<()>();
    let task = tokio::spawn(serve(listener, service, async {
        let _ = stopped.await;
    }));
    Ok(RunningServer { addr, stop, task })
}

impl RunningServer {
    /// The address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://<ip>:<port>`; a listener on every interface is reached through loopback.
    pub fn url(&self) -> String {
        let mut addr = self.addr;
        if addr.ip().is_unspecified() {
            addr.set_ip(if addr.is_ipv4() { [127, 0, 0, 1].into() } else { std::net::Ipv6Addr::LOCALHOST.into() });
        }
        format!("http://{addr}")
    }

    /// Stops accepting connections, lets the requests in flight finish, and
    /// waits for the server's task to end.
    pub async fn shutdown(self) -> std::io::Result<()> {
        let RunningServer { stop, task, .. } = self;
        drop(stop);
        match task.await {
            Ok(served) => served,
            Err(join) if join.is_panic() => std::panic::resume_unwind(join.into_panic()),
            Err(join) => Err(std::io::Error::other(join)),
        }
    }
}
