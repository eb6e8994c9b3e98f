//! How long a restart takes to make a chain's kept changes again, against
//! generating the chain: `TRANSACTIONS` (default 10,000) signed transfers
//! from the dev accounts, each automined into a block of its own, kept in
//! a data directory's store; then a devnet started again on it restores.
//!
//! `cargo bench -p w3api-devnet --bench replay` (`TRANSACTIONS=1000` for a
//! short run). Prints the figures; one run, as a restart is one event.

// Dependencies of the package's other targets.
use {
    alloy_dyn_abi as _, alloy_genesis as _, alloy_rlp as _, alloy_rpc_types_eth as _, alloy_sol_types as _,
    alloy_trie as _, bs58 as _, chrono as _, criterion as _, ed25519_dalek as _, fastrand as _, parking_lot as _,
    proptest as _, rayon as _, serde as _, serde_json as _, tracing as _, uuid as _, w3api_chain as _,
    w3api_contracts as _, w3api_ledger as _, w3api_query as _, w3api_types as _,
};

use std::time::Instant;

use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_primitives::{Address, TxKind, U256};
use alloy_signer::SignerSync;
use w3api_devnet::{Devnet, Scale, dev_signers};
use w3api_source::prelude::*;
use w3api_store::Location;
use w3api_types::Chain;

fn transfer(signer: &alloy_signer_local::PrivateKeySigner, nonce: u64) -> w3api_types::rpc::Bytes {
    let unsigned = TxEip1559 {
        chain_id: 1,
        nonce,
        gas_limit: 21_000,
        max_fee_per_gas: 100_000_000_000,
        max_priority_fee_per_gas: 1_000_000_000,
        to: TxKind::Call(Address::repeat_byte(0x42)),
        value: U256::from(1_000 + nonce),
        access_list: Default::default(),
        input: Default::default(),
    };
    let signature = signer.sign_hash_sync(&unsigned.signature_hash()).expect("a dev key signs");
    TxEnvelope::from(unsigned.into_signed(signature)).encoded_2718().into()
}

fn main() {
    let transactions: u64 = std::env::var("TRANSACTIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("a runtime");
    let dir = tempfile::tempdir().expect("a temporary directory");
    let location = Location::Directory(dir.path().to_owned());
    runtime.block_on(async {
        // Twice: the first pays for deriving the accounts' keys, as a restart does too.
        let mut generation = std::time::Duration::MAX;
        for _ in 0..2 {
            let started = Instant::now();
            Devnet::new(0, Scale::DEFAULT).latest_block(Chain::Eth).await.expect("the chain");
            generation = generation.min(started.elapsed());
        }

        let store = w3api_store::open(&location, 100).await.expect("the store");
        let devnet = Devnet::new(0, Scale::DEFAULT).with_store(store);
        devnet.latest_block(Chain::Eth).await.expect("the chain");
        let signers = &dev_signers()[..10];
        let started = Instant::now();
        for n in 0..transactions {
            let signer = &signers[(n % 10) as usize];
            devnet.send_raw_transaction(Chain::Eth, transfer(signer, n / 10)).await.expect("a transfer");
        }
        let sending = started.elapsed();
        drop(devnet);

        let store = w3api_store::open(&location, 100).await.expect("the store");
        let started = Instant::now();
        let restored = Devnet::new(0, Scale::DEFAULT).with_store(store).restore().await.expect("a restore");
        let restore = started.elapsed();
        let replay = restore.saturating_sub(generation);
        println!("generation of eth (default scale, the faster of two): {:.3} s", generation.as_secs_f64());
        println!(
            "{transactions} transactions sent and kept: {:.3} s ({:.0} tx/s)",
            sending.as_secs_f64(),
            transactions as f64 / sending.as_secs_f64()
        );
        println!(
            "restore (generation + replay of {} changes): {:.3} s; replay alone {:.3} s ({:.0} tx/s), {:.2}x generation",
            restored[0].changes,
            restore.as_secs_f64(),
            replay.as_secs_f64(),
            transactions as f64 / replay.as_secs_f64(),
            restore.as_secs_f64() / generation.as_secs_f64()
        );
    });
}
