//! The yardstick of the load tests: a minimal axum server, on the runtime
//! settings of `w3api serve`, that does nothing but send bytes it already
//! holds.
//!
//! `w3api-load-baseline ADDR [NAME=FILE]...`
//!
//! - `/` answers a fixed 10-byte body;
//! - `/body/NAME`, any method, answers FILE's bytes as `application/json`,
//!   read once at start.
//!
//! A benchmark hands it a copy of the answer it measures, so that the
//! baseline moves as many bytes through loopback as the server does, and the
//! ratio between them measures the server's own work.

use std::collections::HashMap;
use std::sync::Arc;

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{any, get};

type Bodies = Arc<HashMap<String, Bytes>>;

#[tokio::main]
async fn main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let address = args.next().unwrap_or_else(|| "127.0.0.1:0".into());
    let bodies = args.map(|arg| read_body(&arg)).collect::<Result<HashMap<_, _>, _>>()?;
    let app = Router::new()
        .route("/", get(|| async { "0123456789" }))
        .route("/body/{name}", any(body))
        .with_state(Arc::new(bodies));
    let listener = tokio::net::TcpListener::bind(&address).await.map_err(|e| format!("bind {address}: {e}"))?;
    println!("listening on http://{}", listener.local_addr().map_err(|e| e.to_string())?);
    axum::serve(listener, app).await.map_err(|e| e.to_string())
}

/// `NAME=FILE`: the body served at `/body/NAME`.
fn read_body(arg: &str) -> Result<(String, Bytes), String> {
    let (name, file) = arg.split_once('=').ok_or_else(|| format!("{arg:?}: expected NAME=FILE"))?;
    let bytes = std::fs::read(file).map_err(|e| format!("{file}: {e}"))?;
    Ok((name.to_string(), Bytes::from(bytes)))
}

async fn body(State(bodies): State<Bodies>, Path(name): Path<String>) -> Response {
    match bodies.get(&name) {
        Some(bytes) => ([(header::CONTENT_TYPE, "application/json")], bytes.clone()).into_response(),
        None => (StatusCode::NOT_FOUND, format!("no body named {name:?}")).into_response(),
    }
}
