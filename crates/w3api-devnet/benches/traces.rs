//! What a trace of a whole block costs: `debug_traceBlockByNumber` with
//! `callTracer` on a block of 150 transactions, against the same block run
//! again without recording anything (`noopTracer`: the same replay, the
//! same state reads, no tracer), both in one run.
//!
//! The block: the ten dev accounts each deposit into a wrapped-native
//! contract, then withdraw, 75 of each, so that every withdrawal pays
//! ether back inside its transaction (a call frame within the top one).
//!
//! `cargo bench -p w3api-devnet --bench traces`; criterion prints each
//! time, and the last line the ratio of their medians.

// Dependencies this target reaches only through the library, or that other
// targets of the package use.
use {
    alloy_consensus as _, alloy_dyn_abi as _, alloy_eips as _, alloy_genesis as _, alloy_rlp as _,
    alloy_rpc_types_eth as _, alloy_signer as _, alloy_signer_local as _, alloy_trie as _, bs58 as _, chrono as _,
    ed25519_dalek as _, fastrand as _, parking_lot as _, proptest as _, rayon as _, serde as _, serde_json as _,
    tempfile as _, tracing as _, uuid as _, w3api_chain as _, w3api_ledger as _, w3api_query as _, w3api_store as _,
};

use std::time::{Duration, Instant};

use alloy_primitives::{Bytes, U256, hex};
use alloy_sol_types::{SolCall, SolConstructor};
use criterion::Criterion;
use w3api_contracts::WrappedNative;
use w3api_devnet::{Devnet, Scale, dev_addresses};
use w3api_source::prelude::*;
use w3api_source::{BlockRef, ChainControl, Tracing};
use w3api_types::Chain;
use w3api_types::rpc::{TraceConfig, TransactionRequest};

const TRANSACTIONS: usize = 150;

/// A devnet whose latest block holds the 150 transactions; its number.
async fn block_of_150(devnet: &Devnet) -> u64 {
    let senders: Vec<_> = dev_addresses().take(10).collect();
    let arguments = WrappedNative::constructorCall { name_: "Wrapped".into(), symbol_: "W".into() }.abi_encode();
    let init = format!("{}{}", WrappedNative::BYTECODE, hex::encode(arguments));
    let deploy = TransactionRequest {
        from: Some(senders[0]),
        input: Some(init.parse::<Bytes>().expect("hex")),
        gas: Some(3_000_000),
        ..TransactionRequest::default()
    };
    let hash = devnet.send_transaction(Chain::Eth, deploy).await.expect("the deployment");
    let receipt = devnet.receipt(Chain::Eth, hash).await.expect("its receipt").expect("mined");
    let weth = receipt.contract_address.expect("a contract");

    devnet.set_automine(Chain::Eth, false).await.expect("automine off");
    let ether = U256::from(10).pow(U256::from(18));
    for n in 0..TRANSACTIONS {
        let (input, value) = match n < TRANSACTIONS / 2 {
            true => (WrappedNative::depositCall {}.abi_encode(), ether),
            false => (WrappedNative::withdrawCall { wad: ether / U256::from(2) }.abi_encode(), U256::ZERO),
        };
        let call = TransactionRequest {
            from: Some(senders[n % senders.len()]),
            to: Some(weth),
            input: Some(input.into()),
            value: Some(value),
            gas: Some(200_000),
            ..TransactionRequest::default()
        };
        devnet.send_transaction(Chain::Eth, call).await.expect("a transaction");
    }
    devnet.mine(Chain::Eth, 1, None).await.expect("the block");
    let latest = devnet.latest_block(Chain::Eth).await.expect("the chain");
    let count = devnet.block_transaction_count(Chain::Eth, BlockRef::Number(latest)).await.expect("its count");
    assert_eq!(count, Some(TRANSACTIONS as u64), "every transaction in one block");
    latest
}

fn named(tracer: &str) -> TraceConfig {
    TraceConfig { tracer: Some(tracer.into()), ..TraceConfig::default() }
}

/// The median of `rounds` traces of the block with `config`.
fn median(runtime: &tokio::runtime::Runtime, devnet: &Devnet, block: u64, config: &TraceConfig) -> Duration {
    let mut times: Vec<Duration> = (0..21)
        .map(|_| {
            let started = Instant::now();
            let traces = runtime.block_on(devnet.trace_block(Chain::Eth, BlockRef::Number(block), config.clone()));
            assert_eq!(traces.expect("the block's traces").len(), TRANSACTIONS);
            started.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let devnet = Devnet::new(0, Scale::TINY);
    let block = runtime.block_on(block_of_150(&devnet));
    let mut criterion = Criterion::default().configure_from_args().measurement_time(Duration::from_secs(5));
    for tracer in ["noopTracer", "callTracer"] {
        let config = named(tracer);
        criterion.bench_function(&format!("trace/block of {TRANSACTIONS}/{tracer}"), |bench| {
            bench.iter(|| runtime.block_on(devnet.trace_block(Chain::Eth, BlockRef::Number(block), config.clone())));
        });
    }
    criterion.final_summary();
    let plain = median(&runtime, &devnet, block, &named("noopTracer"));
    let calls = median(&runtime, &devnet, block, &named("callTracer"));
    println!(
        "block of {TRANSACTIONS}: callTracer {:.2} ms, run again untraced (noopTracer) {:.2} ms: {:.2}x",
        calls.as_secs_f64() * 1e3,
        plain.as_secs_f64() * 1e3,
        calls.as_secs_f64() / plain.as_secs_f64()
    );
}
