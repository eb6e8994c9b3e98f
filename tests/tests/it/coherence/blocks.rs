//! A REST block or transaction is the gateway's, rewritten: every field of
//! `getBlock` follows from `eth_getBlockByNumber` (full transactions) and
//! `eth_getBlockReceipts`, `getTransaction` is its block's item for the same
//! hash, and `getTransactionVerbose` adds the fee its receipt paid and the
//! events its logs' topics and data spell.

use alloy_primitives::{Address, B256, U256};
use w3api_tests::local::Session;
use w3api_types::rpc::{BlockId, Receipt, Transaction};
use w3api_types::{BlockNumberOrHash, BlockTransaction, ChainBlock, format_units};

use crate::coherence::history::{full, history};

/// The ERC20 and ERC721 `Transfer` topic.
const TRANSFER: B256 = alloy_primitives::b256!("ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef");

fn word_address(word: &B256) -> String {
    format!("{:#x}", Address::from_word(*word))
}

/// What a transaction and its receipt say, as the REST answer must write it.
fn assert_written(item: &BlockTransaction, transaction: &Transaction, receipt: &Receipt, what: &str) {
    let mined = &item.transaction;
    assert_eq!(mined.hash, transaction.hash, "{what}");
    assert_eq!((mined.from_address, mined.to_address), (transaction.from, transaction.to), "{what}");
    assert_eq!(
        (mined.nonce, mined.value, mined.gas),
        (transaction.nonce, transaction.value, transaction.gas),
        "{what}"
    );
    assert_eq!(Some(&mined.input), transaction.input.get(), "{what}");
    assert_eq!(mined.gas_price, U256::from(receipt.effective_gas_price), "{what}");
    assert_eq!(
        (mined.receipt_gas_used, mined.receipt_cumulative_gas_used),
        (receipt.gas_used, receipt.cumulative_gas_used)
    );
    assert_eq!(Some(mined.receipt_status), receipt.status, "{what}");
    assert_eq!(mined.receipt_contract_address, receipt.contract_address, "{what}");
    assert_eq!((mined.block_number, mined.block_hash), (receipt.block_number, receipt.block_hash), "{what}");
    assert_eq!(item.logs.len(), receipt.logs.len(), "{what}: logs");
    for (written, log) in item.logs.iter().zip(&receipt.logs) {
        let topics: Vec<B256> =
            [written.topic0, written.topic1, written.topic2, written.topic3].into_iter().flatten().collect();
        assert_eq!((written.address, &topics, &written.data), (log.address, &log.topics, &log.data), "{what}: a log");
        assert_eq!(Some(written.log_index), log.log_index, "{what}: a log's index");
    }
}

#[test]
fn rest_blocks_and_transactions_are_the_gateways() {
    let history = history();
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let busiest = history.blocks.iter().max_by_key(|b| b.transactions.len()).unwrap().number;
    let latest = history.blocks.len() as u64 - 1;
    let mut transfers = 0;
    for number in [1, busiest, latest / 2, latest] {
        let block = &history.blocks[number as usize];
        let receipts = session.run(rpc.get_block_receipts(BlockId::Number(number.into()))).unwrap().unwrap();
        let by_number: ChainBlock =
            session.run(rest.data().get_block().block_number_or_hash(number).send()).unwrap().into_inner();
        let by_hash =
            session.run(rest.data().get_block().block_number_or_hash(BlockNumberOrHash::Hash(block.hash)).send());
        assert_eq!(by_hash.unwrap().into_inner(), by_number, "block {number}: by hash and by number");
        assert_eq!(
            (by_number.hash, by_number.parent_hash, by_number.miner),
            (block.hash, block.parent_hash, block.miner)
        );
        assert_eq!(
            (by_number.gas_used, by_number.gas_limit, by_number.state_root),
            (block.gas_used, block.gas_limit, block.state_root)
        );
        assert_eq!(by_number.timestamp.timestamp() as u64, block.timestamp, "block {number}: its time");
        let transactions = full(block);
        assert_eq!(by_number.transaction_count, transactions.len() as u64);
        for ((item, transaction), receipt) in by_number.transactions.iter().zip(transactions).zip(&receipts) {
            let what = format!("block {number} transaction {:#x}", transaction.hash);
            assert_written(item, transaction, receipt, &what);
            let alone = session.run(rest.data().get_transaction().transaction_hash(transaction.hash).send());
            assert_eq!(&alone.unwrap().into_inner(), item, "{what}: getTransaction is its block's item");
            let verbose = session.run(rest.data().get_transaction_verbose().transaction_hash(transaction.hash).send());
            let verbose = verbose.unwrap().into_inner();
            assert_eq!(verbose.transaction, item.transaction, "{what}: the verbose form");
            let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
            assert_eq!(verbose.transaction_fee, format_units(fee, 18), "{what}: the fee");
            for log in verbose.logs.iter().filter(|l| l.log.topic0 == Some(TRANSFER)) {
                let event = log.decoded_event.as_ref().unwrap_or_else(|| panic!("{what}: a Transfer not decoded"));
                assert_eq!(event.label, "Transfer");
                assert_eq!(event.params[0].value, word_address(&log.log.topic1.unwrap()), "{what}: from");
                assert_eq!(event.params[1].value, word_address(&log.log.topic2.unwrap()), "{what}: to");
                transfers += 1;
            }
        }
    }
    assert!(transfers >= 5, "the sampled blocks hold few transfers ({transfers})");
    let missing = session.run(rest.data().get_block().block_number_or_hash(latest + 1_000_000).send());
    let missing = missing.unwrap_err();
    assert_eq!(missing.status().map(|s| s.as_u16()), Some(404), "a block the chain does not have: {missing}");
    session.finish();
}
