//! A transaction is the same by block hash and index, by block number and
//! index, and in its block's full transaction list (every index of the
//! sampled blocks); one past the end is a null result both ways.

use std::collections::BTreeSet;

use w3api_tests::local::Session;
use w3api_types::rpc::{Block, BlockNumberOrTag};

use crate::coherence::history::{full, history};

/// Blocks spread over the chain: genesis, the first, the busiest, one
/// without transactions (if any), quarters, and the newest.
fn sampled_blocks(blocks: &[Block]) -> Vec<&Block> {
    let latest = blocks.len() - 1;
    let busiest = blocks.iter().max_by_key(|b| b.transactions.len()).unwrap();
    let empty = blocks.iter().skip(1).find(|b| b.transactions.is_empty());
    let numbers: BTreeSet<usize> = [0, 1, latest / 4, latest / 2, 3 * latest / 4, latest]
        .into_iter()
        .chain([busiest.number as usize])
        .chain(empty.map(|b| b.number as usize))
        .collect();
    numbers.into_iter().map(|n| &blocks[n]).collect()
}

/// Every index, and one past the end.
fn sampled_indices(count: usize) -> std::ops::RangeInclusive<usize> {
    0..=count
}

#[test]
fn by_hash_by_number_and_in_the_block_agree() {
    let history = history();
    let session = Session::new();
    let rpc = session.rpc();
    let mut batch = rpc.batch();
    let mut expectations = Vec::new();
    for block in sampled_blocks(&history.blocks) {
        let transactions = full(block);
        for index in sampled_indices(transactions.len()) {
            let by_hash = batch.get_transaction_by_block_hash_and_index(block.hash, (index as u64).into());
            let by_number = batch.get_transaction_by_block_number_and_index(
                BlockNumberOrTag::Number(block.number),
                (index as u64).into(),
            );
            expectations.push((block.number, index, transactions.get(index), by_hash, by_number));
        }
    }
    let answers = session.run(batch.send()).unwrap();
    let mut found = 0;
    for (number, index, expected, by_hash, by_number) in &expectations {
        let by_hash = answers.get(by_hash).unwrap();
        let by_number = answers.get(by_number).unwrap();
        assert_eq!(by_hash.as_ref(), *expected, "block {number} index {index} by hash vs the block's list");
        assert_eq!(by_number.as_ref(), *expected, "block {number} index {index} by number vs the block's list");
        found += usize::from(expected.is_some());
    }
    let past_end = expectations.iter().filter(|e| e.2.is_none()).count();
    assert!(found >= 12 && past_end >= 8, "{found} transactions and {past_end} misses compared");
    session.finish();
}
