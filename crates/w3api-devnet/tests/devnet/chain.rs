//! The generated chain checks out with alloy: every transaction's hash and
//! sender, every block's hash and transactions root, the parent links, and
//! the header fields that follow from each other. And the same seed makes
//! the same chain.

use alloy_consensus::EMPTY_ROOT_HASH;
use alloy_consensus::proofs::{calculate_receipt_root, calculate_transaction_root};
use alloy_consensus::transaction::SignerRecoverable;
use alloy_eips::eip1559::{BaseFeeParams, calc_next_block_base_fee};
use w3api_devnet::{BLOCK_TIME, ChainData, ChainRead, Devnet, GENESIS_TIMESTAMP, Scale};
use w3api_source::BlockRef;
use w3api_types::Chain;

fn tiny(seed: u64, chain: Chain) -> ChainRead {
    Devnet::new(seed, Scale::TINY).chain(chain)
}

#[test]
fn the_same_seed_makes_the_same_chain() {
    let first = tiny(11, Chain::Base);
    let again = tiny(11, Chain::Base);
    assert_eq!(
        first.blocks.iter().map(|b| b.hash).collect::<Vec<_>>(),
        again.blocks.iter().map(|b| b.hash).collect::<Vec<_>>()
    );
    assert_eq!(
        first.transactions.iter().map(|t| t.hash).collect::<Vec<_>>(),
        again.transactions.iter().map(|t| t.hash).collect::<Vec<_>>()
    );
    let other_seed = tiny(12, Chain::Base);
    assert_ne!(first.blocks.last().unwrap().hash, other_seed.blocks.last().unwrap().hash);
    let other_chain = tiny(11, Chain::Polygon);
    assert_ne!(first.blocks.last().unwrap().hash, other_chain.blocks.last().unwrap().hash);
}

#[test]
fn every_transaction_hash_and_sender_rederive_from_the_rpc_form() {
    let data = tiny(3, Chain::Eth);
    assert!(data.transactions.len() >= 400, "{} transactions", data.transactions.len());
    check_transactions(&data, 0);
}

/// Every transaction of blocks `from` on re-derives its hash and sender
/// from its RPC form, and sits where its block says.
pub(crate) fn check_transactions(data: &ChainData, from: u64) {
    let mut checked = 0;
    for number in from..=data.latest() {
        let block = data.rpc_block(BlockRef::Number(number), true).unwrap();
        let w3api_types::rpc::BlockTransactions::Full(transactions) = &block.transactions else {
            panic!("asked for full transactions")
        };
        for (index, tx) in transactions.iter().enumerate() {
            let alloy = tx.to_alloy().unwrap_or_else(|e| panic!("block {number} tx {index}: {e}"));
            let envelope = alloy.inner.inner();
            assert_eq!(*envelope.tx_hash(), tx.hash, "block {number} tx {index}: hash");
            assert_eq!(envelope.recover_signer().unwrap(), tx.from, "block {number} tx {index}: sender");
            assert_eq!(alloy_consensus::Transaction::chain_id(envelope), data.chain.id());
            assert_eq!(tx.transaction_index, Some(index as u64));
            assert_eq!(tx.block_hash, Some(block.hash));
            assert_eq!(data.rpc_transaction_by_hash(&tx.hash).as_ref(), Some(tx), "block {number} tx {index}: by hash");
            checked += 1;
        }
    }
    let first = data.blocks.get(from as usize).map_or(data.transactions.len(), |b| b.first_tx as usize);
    assert_eq!(checked, data.transactions.len() - first);
}

#[test]
fn every_block_hash_root_and_link_rederives_from_the_rpc_form() {
    let data = tiny(3, Chain::Eth);
    check_blocks(&data, 0);
    for block in &data.blocks {
        assert_eq!(block.header.timestamp, GENESIS_TIMESTAMP + BLOCK_TIME * block.header.number);
    }
}

/// Blocks `from` on re-derive their hash, transactions root and receipts
/// root from their RPC form, link to their parents, follow EIP-1559's base
/// fee and come later than their parents; each is found by its hash.
pub(crate) fn check_blocks(data: &ChainData, from: u64) {
    let mut parent: Option<alloy_rpc_types_eth::Block> =
        from.checked_sub(1).map(|n| data.rpc_block(BlockRef::Number(n), false).unwrap().to_alloy().unwrap());
    for number in from..=data.latest() {
        let block = data.rpc_block(BlockRef::Number(number), true).unwrap();
        let alloy = block.to_alloy().unwrap_or_else(|e| panic!("block {number}: {e}"));
        assert_eq!(alloy.header.hash_slow(), block.hash, "block {number}: hash of the header");
        let envelopes: Vec<_> = alloy.transactions.txns().map(|t| t.inner.inner().clone()).collect();
        assert_eq!(
            calculate_transaction_root(&envelopes),
            block.transactions_root,
            "block {number}: transactions root"
        );
        let receipts: Vec<_> = data
            .rpc_block_receipts(BlockRef::Number(number))
            .unwrap()
            .iter()
            .map(|r| r.to_alloy().unwrap().inner.into_primitives_receipt())
            .collect();
        let receipts_root = if receipts.is_empty() { EMPTY_ROOT_HASH } else { calculate_receipt_root(&receipts) };
        assert_eq!(receipts_root, block.receipts_root, "block {number}: receipts root");
        assert!(block.gas_used <= block.gas_limit);
        match &parent {
            None => assert_eq!(number, 0),
            Some(parent) => {
                assert_eq!(block.parent_hash, parent.header.hash, "block {number}: parent link");
                assert!(block.timestamp > parent.header.timestamp, "block {number}: timestamp");
                let expected = calc_next_block_base_fee(
                    parent.header.gas_used,
                    parent.header.gas_limit,
                    parent.header.base_fee_per_gas.unwrap(),
                    BaseFeeParams::ethereum(),
                );
                assert_eq!(block.base_fee_per_gas, Some(expected), "block {number}: base fee");
            }
        }
        // Looking a block up by its hash finds the same block.
        assert_eq!(data.rpc_block(BlockRef::Hash(block.hash), false).unwrap().number, number);
        parent = Some(alloy);
    }
}

#[test]
fn rpc_blocks_follow_their_fork_and_account_for_their_size() {
    let data = tiny(3, Chain::Eth);
    let block = data.rpc_block(BlockRef::Latest, false).unwrap();
    assert!(
        block.withdrawals_root.is_some() && block.blob_gas_used == Some(0) && block.parent_beacon_block_root.is_some()
    );
    assert_eq!(block.difficulty, alloy_primitives::U256::ZERO);
    assert!(block.size.unwrap() > 500);
    assert_eq!(data.rpc_block(BlockRef::Pending, false).unwrap().number, data.latest());
    assert_eq!(data.rpc_block(BlockRef::Earliest, false).unwrap().number, 0);
    assert!(data.rpc_block(BlockRef::Number(data.latest() + 1), false).is_none());
    assert!(data.rpc_block(BlockRef::Hash(Default::default()), false).is_none());
}

#[test]
fn transactions_by_number_and_hash_agree_with_the_block() {
    let data = tiny(5, Chain::Sepolia);
    let busy = data.blocks.iter().find(|b| b.tx_count >= 2).expect("a block with transactions");
    let number = busy.header.number;
    let full = data.rpc_block(BlockRef::Number(number), true).unwrap();
    let w3api_types::rpc::BlockTransactions::Full(transactions) = full.transactions else { unreachable!() };
    for (index, tx) in transactions.iter().enumerate() {
        assert_eq!(data.rpc_transaction(BlockRef::Number(number), index as u64).as_ref(), Some(tx));
        assert_eq!(data.rpc_transaction(BlockRef::Hash(busy.hash), index as u64).as_ref(), Some(tx));
    }
    assert_eq!(data.rpc_transaction(BlockRef::Number(number), transactions.len() as u64), None);
}

#[test]
fn both_transaction_types_and_contract_creations_occur() {
    let data = tiny(3, Chain::Eth);
    let types: std::collections::BTreeSet<u8> =
        data.transactions.iter().map(|t| alloy_consensus::Typed2718::ty(&t.envelope)).collect();
    assert_eq!(types, [0u8, 2].into_iter().collect());
    let creations =
        data.transactions.iter().filter(|t| alloy_consensus::Transaction::kind(&t.envelope).is_create()).count();
    assert!(creations >= 10, "{creations} contract creations");
    // Contracts sit at the addresses their creation transactions give them.
    for token in &data.world.tokens {
        let creation = data.transactions.iter().find(|t| {
            alloy_consensus::Transaction::kind(&t.envelope).is_create()
                && t.sender.create(alloy_consensus::Transaction::nonce(&t.envelope)) == token.address
        });
        assert!(creation.is_some(), "no creation for {} at {}", token.symbol, token.address);
    }
}
