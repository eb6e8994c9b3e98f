//! The yardstick of the load test: a minimal axum handler returning a fixed
//! 10-byte body, on the same runtime settings as `w3api serve`.
//!
//! `cargo run --release -p w3api-load-baseline -- 127.0.0.1:18081`

use axum::Router;
use axum::routing::get;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let address = std::env::args().nth(1).unwrap_or_else(|| "127.0.0.1:18081".into());
    let app = Router::new().route("/", get(|| async { "0123456789" }));
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("listening on http://{}", listener.local_addr()?);
    axum::serve(listener, app).await
}
