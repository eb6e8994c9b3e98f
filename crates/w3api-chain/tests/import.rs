//! Importing `ethereum/execution-apis`' test chain (`tests/chain.rlp` over
//! its `genesis.json`, Homestead through the merge to Osaka and its blob
//! forks): every block executes to the header its producer sealed, and a
//! chain with one byte changed is refused, naming the block and the field.

// The library's own dependencies, named so that `unused_crate_dependencies`
// keeps watching this suite's.
use {
    alloy_eip2124 as _, alloy_eips as _, alloy_evm as _, alloy_hardforks as _, alloy_rpc_types_trace as _,
    alloy_trie as _, revm as _, revm_inspectors as _, thiserror as _, w3api_trie as _,
};

use alloy_consensus::Header;
use alloy_genesis::Genesis;
use std::collections::HashMap;

use alloy_primitives::{Address, B256, U256, b256};
use w3api_chain::ChainState;
use w3api_chain::import::{Block, Executed, ImportError, decode_chain, forks_of};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/execution-apis");

/// The head the suite's `headfcu.json` names.
const HEAD: B256 = b256!("0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7");

fn genesis() -> Genesis {
    let text = std::fs::read_to_string(format!("{FIXTURES}/genesis.json")).expect("the fixture's genesis.json");
    serde_json::from_str(&text).expect("a geth genesis")
}

fn chain_bytes() -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}/chain.rlp")).expect("the fixture's chain.rlp")
}

/// Imports `bytes` over the fixture's genesis; the state, the last header,
/// and what each block's execution answered.
fn import(bytes: &[u8]) -> Result<(ChainState, Header, Vec<Executed>), ImportError> {
    let genesis = genesis();
    let (mut state, mut parent) = w3api_chain::genesis::start(&genesis);
    let blocks = decode_chain(bytes)?;
    let forks = forks_of(&genesis.config, &parent, &blocks);
    let mut executed = Vec::new();
    for block in &blocks {
        executed.push(state.import_block(&forks, &parent, block)?);
        parent = block.header.clone();
    }
    Ok((state, parent, executed))
}

#[test]
fn the_suites_chain_executes_to_every_header_it_holds() {
    let bytes = chain_bytes();
    let blocks = decode_chain(&bytes).unwrap();
    assert_eq!(blocks.len(), 54);
    // Each block's state root, receipts root, bloom and gas are checked as it is imported.
    let (state, head, executed) = import(&bytes).unwrap_or_else(|refused| panic!("{refused}"));
    assert_eq!(head.hash_slow(), HEAD);
    assert_eq!(head.number, 54);
    // The balance changes each block reports, followed from the genesis's
    // allocations, end at the balances the head's state holds.
    let mut balances: HashMap<Address, U256> =
        genesis().alloc.iter().map(|(address, account)| (*address, account.balance)).collect();
    let changes = executed.iter().flat_map(|block| block.balances.iter().flatten().chain(&block.block_balances));
    for change in changes {
        let now = balances.entry(change.address).or_default();
        assert_eq!(*now, change.before, "{change:?}");
        *now = change.after;
    }
    for (address, account) in state.archive().accounts_at(54) {
        assert_eq!(balances.get(&address).copied().unwrap_or_default(), account.balance, "{address}");
    }
    let rewarded = executed[0].block_balances.iter().find(|change| change.address == blocks[0].header.beneficiary);
    assert!(rewarded.is_some_and(|change| change.after > change.before), "block 1's miner is paid its reward");
    let transactions: usize = blocks.iter().map(|block: &Block| block.body.transactions.len()).sum();
    assert!(transactions > 50, "the chain has transactions to execute: {transactions}");
}

/// The file with the first occurrence of `field` (32 bytes or more of a
/// header) changed in its last byte.
fn tampered(bytes: &[u8], field: &[u8]) -> Vec<u8> {
    let at = bytes.windows(field.len()).position(|window| window == field).expect("the field is in the file");
    let mut changed = bytes.to_vec();
    changed[at + field.len() - 1] ^= 1;
    changed
}

#[test]
fn a_chain_with_one_byte_of_a_receipt_field_changed_is_refused_naming_block_and_field() {
    let bytes = chain_bytes();
    let blocks = decode_chain(&bytes).unwrap();
    let busy = blocks.iter().find(|block| block.header.number >= 30 && !block.body.transactions.is_empty()).unwrap();
    let number = busy.header.number;
    for (field, value) in [
        ("receiptsRoot", busy.header.receipts_root.to_vec()),
        ("logsBloom", busy.header.logs_bloom.to_vec()),
        ("stateRoot", busy.header.state_root.to_vec()),
    ] {
        let refused = import(&tampered(&bytes, &value)).expect_err(field);
        match &refused {
            ImportError::Mismatch { number: at, field: named, .. } => {
                assert_eq!((*at, *named), (number, field), "{refused}");
            }
            other => panic!("{field}: {other}"),
        }
        let message = refused.to_string();
        assert!(message.starts_with(&format!("block {number} (0x")), "{message}");
    }
}

#[test]
fn a_file_that_is_not_rlp_blocks_is_refused_at_the_block_that_does_not_decode() {
    let mut bytes = chain_bytes();
    let first = decode_chain(&bytes).unwrap()[0].clone();
    let length = alloy_rlp::Encodable::length(&first);
    bytes.truncate(length + 10);
    match decode_chain(&bytes) {
        Err(ImportError::Decode { index: 1, .. }) => {}
        other => panic!("{other:?}"),
    }
}

/// `eth_config` of the suite's chain at its head is the one its
/// `eth_config` test expects: BPO2 since 540, fork id 0xe272ecbe, Osaka's
/// precompiles and Prague's system contracts; earlier, the forks to come.
#[test]
fn the_suites_chain_schedules_its_forks_as_eth_config_tells_them() {
    let genesis = genesis();
    let (_, genesis_header) = w3api_chain::genesis::start(&genesis);
    let blocks = decode_chain(&chain_bytes()).unwrap();
    let forks = forks_of(&genesis.config, &genesis_header, &blocks);
    let origin = (genesis_header.hash_slow(), genesis_header.timestamp);
    let head = blocks.last().unwrap().header.timestamp;
    let schedule = forks.schedule_at(origin, head);
    let current = &schedule.current;
    assert_eq!((current.activation_time, current.fork_id), (540, [0xe2, 0x72, 0xec, 0xbe]));
    let blobs = current.blobs.unwrap();
    assert_eq!((blobs.target_blob_count, blobs.max_blob_count, blobs.update_fraction), (14, 21, 11_684_671));
    assert_eq!(current.precompiles.len(), 18);
    let p256 = "0x0000000000000000000000000000000000000100".parse::<Address>().unwrap();
    assert!(current.precompiles.contains(&("P256VERIFY", p256)), "{:?}", current.precompiles);
    assert_eq!(current.system_contracts.len(), 5);
    assert_eq!((schedule.next, schedule.last), (None, None));
    // At Osaka's time, BPO1 comes next and BPO2 last.
    let earlier = forks.schedule_at(origin, 500);
    assert_eq!(earlier.current.activation_time, 480);
    assert_eq!(earlier.next.map(|fork| fork.activation_time), Some(510));
    assert_eq!(earlier.last.as_ref().map(|fork| fork.activation_time), Some(540));
    assert_eq!(earlier.last.unwrap().fork_id, current.fork_id, "the last fork's id is the head's");
    assert!(!earlier.current.precompiles.is_empty() && earlier.current.fork_id != current.fork_id);
}
