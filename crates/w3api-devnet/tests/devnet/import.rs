//! A chain another node made, served as the devnet's (`--import`):
//! `ethereum/execution-apis`' test chain over its genesis. Its blocks are
//! the node's, hash for hash, and the ledger follows what they did: at every
//! block, each account's native balance in the ledger is the EVM's.

use alloy_genesis::Genesis;
use alloy_primitives::{B256, b256};
use w3api_devnet::{Devnet, Scale};
use w3api_ledger::Asset;
use w3api_source::BlockRef;

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/execution-apis");

/// The head the suite's `headfcu.json` names.
const HEAD: B256 = b256!("0xd226371d0b1551adb03fb52b71f08e3e11247fe9b1af994768af8cdaa8e7dcd7");

fn genesis() -> Genesis {
    serde_json::from_str(&std::fs::read_to_string(format!("{FIXTURES}/genesis.json")).unwrap()).unwrap()
}

fn imported(bytes: &[u8]) -> Result<Devnet, String> {
    Devnet::new(1, Scale::TINY).with_chain(genesis(), bytes)
}

#[test]
fn the_imported_chain_is_the_nodes_block_for_block_and_the_ledger_follows_its_balances() {
    let bytes = std::fs::read(format!("{FIXTURES}/chain.rlp")).unwrap();
    let devnet = imported(&bytes).unwrap_or_else(|refused| panic!("{refused}"));
    let chain = devnet.genesis_chain().unwrap();
    let data = devnet.chain(chain);
    assert_eq!((data.latest(), data.blocks.last().unwrap().hash), (54, HEAD));
    for number in 0..=54 {
        let block = data.rpc_block(BlockRef::Number(number), true).unwrap();
        assert_eq!(block.hash, data.blocks[number as usize].header.hash_slow(), "block {number}");
        let receipts = data.rpc_block_receipts(BlockRef::Number(number)).unwrap();
        assert_eq!(receipts.len(), data.blocks[number as usize].tx_count as usize, "block {number}");
        // The ledger counts the zero address (this chain's coinbase) as
        // nobody: what mints come from and burns go to.
        let accounts = data.state.archive().accounts_at(number).filter(|(address, _)| !address.is_zero());
        for (address, account) in accounts {
            let held = data
                .ledger
                .find(address)
                .map_or(0, |holder| data.ledger.balance_at(holder, Asset::NATIVE, number as u32));
            assert_eq!(held, account.balance.saturating_to::<u128>(), "{address} at block {number}");
        }
    }
    assert!(data.transactions.len() > 50, "{} transactions", data.transactions.len());
}

#[test]
fn a_chain_that_does_not_continue_the_genesis_is_refused_naming_the_block() {
    let bytes = std::fs::read(format!("{FIXTURES}/chain.rlp")).unwrap();
    let mut other = genesis();
    other.extra_data = alloy_primitives::Bytes::from_static(b"another chain");
    let refused = Devnet::new(1, Scale::TINY).with_chain(other, &bytes).err().unwrap();
    assert!(refused.starts_with("block 1 (0x") && refused.contains("parentHash"), "{refused}");
    let refused = imported(&bytes[..bytes.len() - 1]).err().unwrap();
    assert!(refused.contains("does not decode"), "{refused}");
}
