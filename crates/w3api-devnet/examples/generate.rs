//! Generates one chain and reports time and peak memory: the figures of the
//! devnet README that criterion cannot take (resident memory).
//!
//! `cargo run --release -p w3api-devnet --example generate -- [default|large|tiny] [chain]`

use std::time::Instant;

use w3api_devnet::{Devnet, Scale};
use w3api_types::Chain;

fn main() {
    let mut args = std::env::args().skip(1);
    let scale = match args.next().as_deref() {
        None | Some("default") => Scale::DEFAULT,
        Some("large") => Scale::LARGE,
        Some("tiny") => Scale::TINY,
        Some(other) => {
            eprintln!("unknown scale {other:?}: default, large or tiny");
            std::process::exit(2);
        }
    };
    let chain: Chain = match args.next().map(|c| c.parse()) {
        None => Chain::Eth,
        Some(Ok(chain)) => chain,
        Some(Err(e)) => {
            eprintln!("{e}");
            std::process::exit(2);
        }
    };
    let devnet = Devnet::new(0, scale);
    let started = Instant::now();
    let accounts = devnet.accounts().len();
    let keys = started.elapsed();
    let data = devnet.chain(chain);
    let total = started.elapsed();
    println!(
        "{chain}: {} blocks, {} transactions, {} ledger movements, {accounts} accounts",
        data.blocks.len(),
        data.transactions.len(),
        data.ledger.movements().len()
    );
    println!("keys derived in {keys:.2?}; chain generated in {:.2?}; total {total:.2?}", total - keys);
    println!("peak resident memory: {} MiB", peak_rss_kib() / 1024);
}

/// Peak resident set size of this process (Linux).
fn peak_rss_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}
