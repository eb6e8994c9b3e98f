//! Load of stream deliveries: `--streams` streams of every ERC20 transfer
//! on eth deliver to a receiver here that answers 200 at once, while the
//! server makes a block a second (`w3api serve --block-time 1s`).
//!
//! 1. Latency, for `--duration`: each block's arrival is seen by polling
//!    `eth_blockNumber` every 2 ms; a delivery's latency is from then to its
//!    arrival at the receiver (unconfirmed deliveries; the confirmed ones go
//!    out with a later block). The baseline is a POST of the same body from
//!    here to the receiver.
//! 2. Throughput: every delivery made so far is replayed at once
//!    (`POST /history/replay/…`, `--connections` in flight), and the
//!    receiver's arrival rate is measured from the first replayed delivery
//!    to the last; the baseline is the rate of POSTs from here to the
//!    receiver with as many in flight.
//!
//! Prints `key=value` lines: `latency p50_ms=… p99_ms=… max_ms=…
//! deliveries=… baseline_p50_ms=… baseline_p99_ms=…` and `throughput
//! deliveries=… per_s=… baseline_per_s=…`.
//!
//! `w3api-load-streams --target http://127.0.0.1:8080 --key k`

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::post;
use clap::Parser;
use futures::StreamExt;
use serde_json::{Value, json};

#[derive(Parser)]
struct Args {
    /// The server's base URL.
    #[arg(long)]
    target: String,
    /// API key the server accepts.
    #[arg(long)]
    key: String,
    /// Streams to create.
    #[arg(long, default_value_t = 50)]
    streams: usize,
    /// How long to measure latency (e.g. 30s).
    #[arg(long, default_value = "30s", value_parser = humantime::parse_duration)]
    duration: Duration,
    /// Replays (and baseline POSTs) in flight at once.
    #[arg(long, default_value_t = 32)]
    connections: usize,
}

/// A delivery as the receiver saw it.
struct Arrival {
    at: Instant,
    block: u64,
    confirmed: bool,
}

#[derive(Default)]
struct Receiver {
    arrivals: Mutex<Vec<Arrival>>,
}

async fn receive(State(receiver): State<Arc<Receiver>>, body: Bytes) -> StatusCode {
    let at = Instant::now();
    if let Ok(payload) = serde_json::from_slice::<Value>(&body)
        && let Some(block) = payload["block"]["number"].as_str().and_then(|n| n.parse().ok())
    {
        let confirmed = payload["confirmed"] == true;
        receiver.arrivals.lock().unwrap_or_else(PoisonError::into_inner).push(Arrival { at, block, confirmed });
    }
    StatusCode::OK
}

fn transfers_stream(url: &str, n: usize) -> Value {
    json!({
        "webhookUrl": url, "description": format!("load {n}"), "tag": format!("load-{n}"), "chainIds": ["0x1"],
        "topic0": ["Transfer(address,address,uint256)"], "allAddresses": true, "includeContractLogs": true,
        "abi": [{"anonymous": false, "name": "Transfer", "type": "event", "inputs": [
            {"indexed": true, "name": "from", "type": "address"},
            {"indexed": true, "name": "to", "type": "address"},
            {"indexed": false, "name": "value", "type": "uint256"}]}],
    })
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

#[tokio::main]
async fn main() {
    let args = Args::parse();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().timeout(Duration::from_secs(30)).build().expect("an HTTP client");
    let receiver = Arc::new(Receiver::default());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("binding the receiver");
    let hook = format!("http://{}/hook", listener.local_addr().expect("an address"));
    let app = Router::new().route("/hook", post(receive)).with_state(receiver.clone());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let mut ids = Vec::new();
    for n in 0..args.streams {
        let created: Value = http
            .put(format!("{}/streams/evm", args.target))
            .header("X-API-Key", &args.key)
            .json(&transfers_stream(&hook, n))
            .send()
            .await
            .and_then(reqwest::Response::error_for_status)
            .expect("a stream is created")
            .json()
            .await
            .expect("a stream answer");
        ids.push(created["id"].as_str().expect("an id").to_string());
    }
    let seen = watch_blocks(&http, &args).await;
    report_latency(&receiver, &seen, &http, &hook).await;
    report_throughput(&receiver, &http, &args, &hook).await;
}

/// When each block number was first seen, polling `eth_blockNumber`.
async fn watch_blocks(http: &reqwest::Client, args: &Args) -> HashMap<u64, Instant> {
    let mut seen = HashMap::new();
    let rpc = format!("{}/eth/{}", args.target, args.key);
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_blockNumber", "params": []});
    let started = Instant::now();
    let mut last = None;
    while started.elapsed() < args.duration {
        if let Ok(response) = http.post(&rpc).json(&call).send().await
            && let Ok(answer) = response.json::<Value>().await
            && let Some(hex) = answer["result"].as_str()
            && let Ok(number) = u64::from_str_radix(hex.trim_start_matches("0x"), 16)
        {
            let now = Instant::now();
            if let Some(previous) = last {
                for block in previous + 1..=number {
                    seen.entry(block).or_insert(now);
                }
            }
            last = Some(number);
        }
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    // The last deliveries are still on their way.
    tokio::time::sleep(Duration::from_secs(1)).await;
    seen
}

async fn report_latency(receiver: &Receiver, seen: &HashMap<u64, Instant>, http: &reqwest::Client, hook: &str) {
    let mut latencies: Vec<f64> = {
        let arrivals = receiver.arrivals.lock().unwrap_or_else(PoisonError::into_inner);
        arrivals
            .iter()
            .filter(|a| !a.confirmed)
            .filter_map(|a| seen.get(&a.block).map(|made| millis(a.at.saturating_duration_since(*made))))
            .collect()
    };
    latencies.sort_by(f64::total_cmp);
    // The floor: a POST of a delivery-sized body from here to the receiver.
    let body = json!({"confirmed": true, "block": {"number": "0"}, "logs": [], "padding": "x".repeat(4000)});
    let mut baseline = Vec::new();
    for _ in 0..200 {
        let started = Instant::now();
        let _ = http.post(hook).json(&body).send().await;
        baseline.push(millis(started.elapsed()));
    }
    baseline.sort_by(f64::total_cmp);
    println!(
        "latency deliveries={} p50_ms={:.1} p99_ms={:.1} max_ms={:.1} baseline_p50_ms={:.2} baseline_p99_ms={:.2}",
        latencies.len(),
        percentile(&latencies, 50.0),
        percentile(&latencies, 99.0),
        latencies.last().copied().unwrap_or(f64::NAN),
        percentile(&baseline, 50.0),
        percentile(&baseline, 99.0),
    );
}

/// Every delivery in the history, replayed at once; the rate they arrive at.
async fn report_throughput(receiver: &Arc<Receiver>, http: &reqwest::Client, args: &Args, hook: &str) {
    let mut deliveries = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{}/history?limit=100&excludePayload=true", args.target);
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let page: Value = http.get(url).header("X-API-Key", &args.key).send().await.unwrap().json().await.unwrap();
        for item in page["result"].as_array().into_iter().flatten() {
            deliveries.push((item["streamId"].as_str().unwrap().to_string(), item["id"].as_str().unwrap().to_string()));
        }
        match page["cursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    let before = receiver.arrivals.lock().unwrap_or_else(PoisonError::into_inner).len();
    let replayed = futures::stream::iter(deliveries.iter())
        .map(|(stream, id)| {
            http.post(format!("{}/history/replay/{stream}/{id}", args.target)).header("X-API-Key", &args.key).send()
        })
        .buffer_unordered(args.connections)
        .filter(|answer| std::future::ready(answer.as_ref().is_ok_and(|r| r.status().is_success())))
        .count()
        .await;
    let deadline = Instant::now() + Duration::from_secs(120);
    while receiver.arrivals.lock().unwrap_or_else(PoisonError::into_inner).len() < before + replayed
        && Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let (delivered, span) = {
        let arrivals = receiver.arrivals.lock().unwrap_or_else(PoisonError::into_inner);
        let burst = &arrivals[before..];
        let span = match (burst.first(), burst.last()) {
            (Some(first), Some(last)) => last.at.duration_since(first.at).as_secs_f64(),
            _ => f64::NAN,
        };
        (burst.len(), span)
    };
    let rate = delivered as f64 / span;
    // The floor: POSTs from here to the receiver, as many in flight.
    let body = json!({"confirmed": true, "block": {"number": "0"}, "logs": [], "padding": "x".repeat(4000)});
    let started = Instant::now();
    let posts = 5_000;
    futures::stream::iter(0..posts)
        .map(|_| http.post(hook).json(&body).send())
        .buffer_unordered(args.connections)
        .for_each(|_| std::future::ready(()))
        .await;
    let baseline = posts as f64 / started.elapsed().as_secs_f64();
    println!(
        "throughput replayed={replayed} delivered={delivered} per_s={rate:.0} baseline_per_s={baseline:.0} ratio={:.2}",
        rate / baseline
    );
}
