//! Indexes a local node's chain from genesis to its head: in memory, in
//! memory with its journal in PostgreSQL, and into PostgreSQL tables
//! (`--index postgres`). Fetches the same blocks and logs raw (the same
//! JSON-RPC batches, answers left undecoded) before, between and after, as
//! the limit an indexer can approach. Prints one line per run and the ratio
//! of each indexing rate to the raw rate measured around it.

use std::sync::Arc;
use std::time::{Duration, Instant};

use alloy_rpc_client::RpcClient;
use clap::Parser;
use futures::StreamExt;
use serde_json::json;
use serde_json::value::RawValue;
use w3api_indexer::{Anchors, FetchLimits, FollowConfig, Followed, IndexPlace, Journal, LogsMethod, Node};
use w3api_store::Location;
use w3api_types::Chain;

#[derive(Parser)]
struct Args {
    /// The node's JSON-RPC URL.
    #[arg(long)]
    node: String,
    /// PostgreSQL for the second indexing run; without it, memory only.
    #[arg(long)]
    database: Option<String>,
    /// Blocks per JSON-RPC batch.
    #[arg(long, default_value_t = FetchLimits::default().batch)]
    batch: usize,
    /// Batches in flight.
    #[arg(long, default_value_t = FetchLimits::default().concurrency)]
    concurrency: usize,
    /// Logs on the chain (for logs/s), as the chain's builder counted them.
    #[arg(long)]
    logs: u64,
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args = Args::parse();
    let limits = FetchLimits { batch: args.batch, concurrency: args.concurrency };
    let node = Node::connect(&args.node, Duration::from_secs(60))?.wanting_batches_of(limits.calls_per_batch());
    let head = node.head().await?;
    let method = node.logs_method().await?;
    println!(
        "chain: blocks 0..={head}, {} logs, read by {method:?}, batch {}, {} in flight",
        args.logs, limits.batch, limits.concurrency
    );
    let blocks = head + 1;
    let mut raws = vec![raw_fetch(&args.node, head, limits, method).await?];
    report("raw fetch", blocks, args.logs, raws[0], None);
    let memory = index(&args.node, head, limits, None, IndexPlace::Memory).await?;
    raws.push(raw_fetch(&args.node, head, limits, method).await?);
    report("index (memory)", blocks, args.logs, memory, Some(mean(&raws[0..2])));
    if let Some(url) = &args.database {
        let store = w3api_store::open(&Location::Postgres(url.clone()), 1_000).await?;
        let journal = Journal::new(store, Duration::from_secs(60));
        let postgres = index(&args.node, head, limits, Some(journal.clone()), IndexPlace::Memory).await?;
        raws.push(raw_fetch(&args.node, head, limits, method).await?);
        report("index (memory, journal in PostgreSQL)", blocks, args.logs, postgres, Some(mean(&raws[1..3])));
        let tables = index(&args.node, head, limits, Some(journal), IndexPlace::Tables).await?;
        raws.push(raw_fetch(&args.node, head, limits, method).await?);
        report("index (PostgreSQL tables)", blocks, args.logs, tables, Some(mean(&raws[2..4])));
    }
    report("raw fetch (mean)", blocks, args.logs, mean(&raws), None);
    println!("peak memory of this process (all runs): {}", peak_memory());
    Ok(())
}

/// `VmHWM` of this process, as Linux reports it.
fn peak_memory() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|line| line.strip_prefix("VmHWM:")).map_or("unknown".into(), |kb| kb.trim().to_string())
}

fn mean(times: &[Duration]) -> Duration {
    times.iter().sum::<Duration>() / times.len() as u32
}

fn report(what: &str, blocks: u64, logs: u64, took: Duration, raw: Option<Duration>) {
    let seconds = took.as_secs_f64();
    let ratio = raw.map(|raw| format!(", {:.0}% of raw fetch speed", 100.0 * raw.as_secs_f64() / seconds));
    println!(
        "{what}: {seconds:.2} s, {:.0} blocks/s, {:.0} logs/s{}",
        blocks as f64 / seconds,
        logs as f64 / seconds,
        ratio.unwrap_or_default()
    );
}

/// The same batches the indexer sends, with answers kept as undecoded JSON.
async fn raw_fetch(url: &str, head: u64, limits: FetchLimits, method: LogsMethod) -> Result<Duration, String> {
    let client = RpcClient::new_http(url.parse().map_err(|e| format!("{url}: {e}"))?);
    let started = Instant::now();
    let size = limits.batch as u64;
    let ranges = (0..=head).step_by(limits.batch).map(|start| start..=head.min(start + size - 1));
    let mut reads = futures::stream::iter(ranges)
        .map(|range| {
            let client = &client;
            async move {
                let mut batch = client.new_batch();
                let mut waiters = Vec::new();
                for number in range.clone() {
                    let block = json!([format!("{number:#x}"), false]);
                    waiters.push(batch.add_call::<_, Box<RawValue>>("eth_getBlockByNumber", &block).map_err(|e| e.to_string())?);
                    if method == LogsMethod::BlockReceipts {
                        let receipts = json!([format!("{number:#x}")]);
                        waiters.push(batch.add_call("eth_getBlockReceipts", &receipts).map_err(|e| e.to_string())?);
                    }
                }
                if method == LogsMethod::Logs {
                    let filter = json!([{ "fromBlock": format!("{:#x}", range.start()), "toBlock": format!("{:#x}", range.end()) }]);
                    waiters.push(batch.add_call("eth_getLogs", &filter).map_err(|e| e.to_string())?);
                }
                batch.send().await.map_err(|e| e.to_string())?;
                let mut bytes = 0;
                for waiter in waiters {
                    bytes += waiter.await.map_err(|e| e.to_string())?.get().len();
                }
                Ok::<usize, String>(bytes)
            }
        })
        .buffered(limits.concurrency);
    while let Some(read) = reads.next().await {
        read?;
    }
    Ok(started.elapsed())
}

/// Indexes blocks 0..=head from a fresh index (kept in `journal` if given).
async fn index(
    url: &str,
    head: u64,
    limits: FetchLimits,
    journal: Option<Journal>,
    place: IndexPlace,
) -> Result<Duration, String> {
    let node = Node::connect(url, Duration::from_secs(60))
        .map_err(|e| e.to_string())?
        .wanting_batches_of(limits.calls_per_batch());
    let config = FollowConfig {
        start_block: 0,
        anchors: Anchors::default(),
        reorg_depth: 64,
        limits,
        poll: Duration::from_millis(100),
        place,
    };
    // A chain of its own for each run, so that a journal starts empty.
    let chain: Chain = format!("{:#x}", 0x7a69_0000_0000u64 + u64::from(uuid::Uuid::new_v4().as_u128() as u32))
        .parse()
        .map_err(|e| format!("{e}"))?;
    let (heads, _) = tokio::sync::broadcast::channel(16);
    let followed = Followed::new(chain, node, config, heads, journal).placed().map_err(|e| e.to_string())?;
    let followed = Arc::new(followed);
    let started = Instant::now();
    while followed.indexed_head().await.map_err(|e| e.to_string())? != Some(head) {
        followed.step().await.map_err(|e| e.to_string())?;
    }
    Ok(started.elapsed())
}
