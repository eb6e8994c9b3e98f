//! The full-node read surface through `w3api-rpc`: identity, tags, lookups
//! by hash, receipts, logs, balances, nonces and fees, with the errors the
//! spec documents for each.

use w3api_rpc::{ErrorCode, RpcClient, RpcError};
use w3api_tests::local::Session;
use w3api_types::rpc::{
    AddressFilter, Block, BlockCount, BlockId, BlockNumberOrTag, BlockTransactions, LogFilter, Receipt, SyncingStatus,
    TopicFilter, Transaction, Uint64,
};
use w3api_types::{B256, Chain, U256};

/// A block that exists.
async fn block(rpc: &RpcClient, block: BlockNumberOrTag, full: bool) -> Block {
    rpc.get_block_by_number(block, full).await.unwrap().unwrap_or_else(|| panic!("block {block} exists"))
}

/// Asserts that a call failed with an error of `kind` whose message has `fragment`.
fn expect_error<T>(result: Result<T, RpcError>, kind: ErrorCode, fragment: &str) {
    let Err(error) = result else { panic!("expected {kind:?} mentioning {fragment:?}, got a result") };
    assert_eq!(error.kind(), Some(kind), "{error}");
    assert!(error.to_string().contains(fragment), "{error} does not mention {fragment:?}");
}

/// The transactions of a block read with full transactions (an empty list
/// reads back as hashes: JSON `[]` cannot say which).
fn full_transactions(block: &Block) -> Vec<Transaction> {
    match &block.transactions {
        BlockTransactions::Full(transactions) => transactions.clone(),
        BlockTransactions::Hashes(hashes) if hashes.is_empty() => Vec::new(),
        BlockTransactions::Hashes(_) => panic!("asked for full transactions"),
    }
}

/// The busiest block of the first few, with full transactions and receipts.
async fn busy_block(rpc: &RpcClient) -> (Block, Vec<Transaction>, Vec<Receipt>) {
    let mut best = block(rpc, BlockNumberOrTag::Number(1), true).await;
    for number in 2..20 {
        let candidate = block(rpc, BlockNumberOrTag::Number(number), true).await;
        if candidate.transactions.len() > best.transactions.len() {
            best = candidate;
        }
    }
    let transactions = full_transactions(&best);
    let receipts = rpc.get_block_receipts(BlockId::Number(best.number.into())).await.unwrap().unwrap();
    (best, transactions, receipts)
}

#[test]
fn each_chain_says_who_it_is_and_that_it_is_in_sync() {
    let session = Session::new();
    session.run(async {
        for chain in [Chain::Eth, Chain::Polygon, Chain::Base] {
            let rpc = RpcClient::new(session.base(), chain, session.key()).unwrap();
            let id = chain.id().expect("a chain of the table has an id");
            assert_eq!(rpc.chain_id().await.unwrap(), Uint64(id));
            assert_eq!(rpc.net_version().await.unwrap(), id.to_string());
            assert!(rpc.web3_client_version().await.unwrap().starts_with("w3api/v"));
            assert_eq!(rpc.syncing().await.unwrap(), SyncingStatus::NotSyncing);
            let head = rpc.block_number().await.unwrap();
            assert_eq!(block(&rpc, BlockNumberOrTag::Latest, false).await.number, head.0);
        }
    });
    session.finish();
}

#[test]
fn safe_and_finalized_stand_one_and_two_epochs_below_the_head() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let head = rpc.block_number().await.unwrap().0;
        assert_eq!(block(&rpc, BlockNumberOrTag::Safe, false).await.number, head - 32);
        assert_eq!(block(&rpc, BlockNumberOrTag::Finalized, false).await.number, head - 64);
        let count = rpc.get_block_transaction_count_by_number(BlockNumberOrTag::Finalized).await.unwrap();
        assert_eq!(
            count.map(|c| c.0 as usize),
            Some(block(&rpc, BlockNumberOrTag::Finalized, false).await.transactions.len())
        );
    });
    session.finish();
}

#[test]
fn blocks_and_transactions_by_hash_are_those_by_number() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let (full, transactions, _) = busy_block(&rpc).await;
        assert_eq!(rpc.get_block_by_hash(full.hash, true).await.unwrap().as_ref(), Some(&full));
        let hashes = rpc.get_block_by_hash(full.hash, false).await.unwrap().unwrap();
        assert_eq!(hashes.transactions.hashes(), full.transactions.hashes());
        let count = rpc.get_block_transaction_count_by_hash(full.hash).await.unwrap();
        assert_eq!(count, Some(Uint64(transactions.len() as u64)));
        for tx in &transactions {
            assert_eq!(rpc.get_transaction_by_hash(tx.hash).await.unwrap().as_ref(), Some(tx));
        }
        let unknown = B256::repeat_byte(0x42);
        assert_eq!(rpc.get_block_by_hash(unknown, false).await.unwrap(), None);
        assert_eq!(rpc.get_block_transaction_count_by_hash(unknown).await.unwrap(), None);
        assert_eq!(rpc.get_transaction_by_hash(unknown).await.unwrap(), None);
        assert_eq!(rpc.get_transaction_receipt(unknown).await.unwrap(), None);
        let head = rpc.block_number().await.unwrap().0;
        let beyond = BlockNumberOrTag::Number(head + 1);
        assert_eq!(rpc.get_block_transaction_count_by_number(beyond).await.unwrap(), None);
        assert_eq!(rpc.get_block_receipts(BlockId::Number(beyond)).await.unwrap(), None);
    });
    session.finish();
}

#[test]
fn receipts_account_for_the_block_gas_and_logs() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let (full, transactions, receipts) = busy_block(&rpc).await;
        assert_eq!(receipts.len(), transactions.len());
        let by_hash = rpc.get_block_receipts(BlockId::Hash { block_hash: full.hash, require_canonical: true }).await;
        assert_eq!(by_hash.unwrap().as_ref(), Some(&receipts));
        let mut cumulative = 0;
        let mut log_index = 0;
        let mut bloom = w3api_types::Bloom::ZERO;
        for (index, (tx, receipt)) in transactions.iter().zip(&receipts).enumerate() {
            assert_eq!(rpc.get_transaction_receipt(tx.hash).await.unwrap().as_ref(), Some(receipt));
            assert_eq!((receipt.transaction_hash, receipt.transaction_index), (tx.hash, index as u64));
            assert_eq!((receipt.block_hash, receipt.block_number), (full.hash, full.number));
            assert_eq!((receipt.from, receipt.to, receipt.tx_type), (tx.from, tx.to, tx.tx_type));
            assert_eq!(receipt.status, Some(1));
            assert!(receipt.gas_used <= tx.gas, "a transaction uses at most its gas limit");
            cumulative += receipt.gas_used;
            assert_eq!(receipt.cumulative_gas_used, cumulative);
            assert_eq!(Some(receipt.effective_gas_price), tx.gas_price, "the price the transaction paid");
            assert_eq!(receipt.contract_address.is_some(), tx.to.is_none(), "only a creation makes a contract");
            for log in &receipt.logs {
                assert_eq!(log.log_index, Some(log_index), "log indexes count the whole block");
                assert_eq!((log.transaction_hash, log.block_hash), (Some(tx.hash), Some(full.hash)));
                log_index += 1;
            }
            bloom |= receipt.logs_bloom;
        }
        assert_eq!(cumulative, full.gas_used, "the receipts use the block's gas");
        assert_eq!(Some(&bloom), full.logs_bloom.get(), "the receipts' blooms make the block's");
    });
    session.finish();
}

#[test]
fn logs_are_the_receipts_logs_that_pass_the_filter() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let (full, _, receipts) = busy_block(&rpc).await;
        let all: Vec<_> = receipts.iter().flat_map(|r| r.logs.clone()).collect();
        assert!(all.len() > 10, "the busiest early block emits logs");
        let in_block = LogFilter { block_hash: Some(full.hash), ..LogFilter::default() };
        assert_eq!(rpc.get_logs(in_block).await.unwrap(), all);
        let range = LogFilter {
            from_block: Some(full.number.into()),
            to_block: Some(full.number.into()),
            ..LogFilter::default()
        };
        assert_eq!(rpc.get_logs(range.clone()).await.unwrap(), all);
        let first = &all[0];
        let by_address = LogFilter { address: Some(AddressFilter::One(first.address)), ..range.clone() };
        let expected: Vec<_> = all.iter().filter(|l| l.address == first.address).cloned().collect();
        assert_eq!(rpc.get_logs(by_address).await.unwrap(), expected);
        let by_topics = LogFilter {
            topics: Some(vec![
                TopicFilter::One(first.topics[0]),
                TopicFilter::Any,
                TopicFilter::AnyOf(vec![first.topics[2]]),
            ]),
            ..range.clone()
        };
        let expected: Vec<_> = all
            .iter()
            .filter(|l| l.topics.first() == first.topics.first() && l.topics.get(2) == first.topics.get(2))
            .cloned()
            .collect();
        assert_eq!(rpc.get_logs(by_topics).await.unwrap(), expected);
        // As geth reads them, an empty list of addresses, or of topics at a
        // position, names no condition.
        let any_address = LogFilter { address: Some(AddressFilter::AnyOf(vec![])), ..range.clone() };
        assert_eq!(rpc.get_logs(any_address).await.unwrap(), all, "an empty list of addresses matches any");
        let any_topic = LogFilter { topics: Some(vec![TopicFilter::AnyOf(vec![])]), ..range };
        let with_a_topic: Vec<_> = all.iter().filter(|l| !l.topics.is_empty()).cloned().collect();
        assert_eq!(rpc.get_logs(any_topic).await.unwrap(), with_a_topic, "an empty list of topics matches any topic");
    });
    session.finish();
}

#[test]
fn log_queries_past_the_documented_limits_say_what_to_change() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let range = |from: u64, to: u64| LogFilter {
            from_block: Some(from.into()),
            to_block: Some(to.into()),
            ..LogFilter::default()
        };
        expect_error(rpc.get_logs(range(0, 10_000)).await, ErrorCode::InvalidParams, "at most 10000");
        expect_error(rpc.get_logs(range(0, u64::MAX)).await, ErrorCode::InvalidParams, "at most 10000");
        expect_error(rpc.get_logs(range(9, 8)).await, ErrorCode::InvalidParams, "after toBlock");
        let head = rpc.block_number().await.unwrap().0;
        // Past the newest block, as geth: refused, not answered with nothing.
        expect_error(rpc.get_logs(range(head + 1, head + 100)).await, ErrorCode::InvalidParams, "beyond current head");
        let both = LogFilter { block_hash: Some(B256::repeat_byte(1)), ..range(1, 1) };
        expect_error(rpc.get_logs(both).await, ErrorCode::InvalidParams, "blockHash cannot be combined");
        let unknown = LogFilter { block_hash: Some(B256::repeat_byte(1)), ..LogFilter::default() };
        expect_error(rpc.get_logs(unknown).await, ErrorCode::InvalidParams, "no block has hash");
    });
    session.finish();
}

#[test]
fn balances_and_nonces_follow_the_blocks() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let (full, transactions, _) = busy_block(&rpc).await;
        let sender = transactions[0].from;
        let sent_before: u64 = {
            let mut count = 0;
            for number in 0..full.number {
                let txs = full_transactions(&block(&rpc, number.into(), true).await);
                count += txs.iter().filter(|tx| tx.from == sender).count() as u64;
            }
            count
        };
        let sent_in_block = transactions.iter().filter(|tx| tx.from == sender).count() as u64;
        let at = |number: u64| Some(BlockId::Number(number.into()));
        assert_eq!(rpc.get_transaction_count(sender, at(full.number - 1)).await.unwrap().0, sent_before);
        assert_eq!(rpc.get_transaction_count(sender, at(full.number)).await.unwrap().0, sent_before + sent_in_block);
        assert_eq!(transactions[0].nonce, sent_before, "the first transaction of the block uses the next nonce");
        let stranger = w3api_types::Address::repeat_byte(0x5a);
        assert_eq!(rpc.get_balance(stranger, None).await.unwrap(), U256::ZERO);
        assert_eq!(rpc.get_transaction_count(stranger, None).await.unwrap().0, 0);
        let before = rpc.get_balance(sender, at(full.number - 1)).await.unwrap();
        let after = rpc.get_balance(sender, at(full.number)).await.unwrap();
        let by_hash = Some(BlockId::Hash { block_hash: full.hash, require_canonical: false });
        assert_eq!(rpc.get_balance(sender, by_hash).await.unwrap(), after);
        let receipts = rpc.get_block_receipts(BlockId::Number(full.number.into())).await.unwrap().unwrap();
        let spent: U256 = transactions
            .iter()
            .zip(&receipts)
            .filter(|(tx, _)| tx.from == sender)
            .map(|(tx, receipt)| tx.value + U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price))
            .sum();
        let received: U256 = transactions.iter().filter(|tx| tx.to == Some(sender)).map(|tx| tx.value).sum();
        assert_eq!(after + spent, before + received, "the balance moves by value and fees");
        let head = rpc.block_number().await.unwrap().0;
        expect_error(rpc.get_balance(sender, at(head + 1)).await, ErrorCode::InvalidParams, "after the latest block");
        let unknown = Some(BlockId::Hash { block_hash: B256::repeat_byte(3), require_canonical: false });
        expect_error(rpc.get_transaction_count(sender, unknown).await, ErrorCode::InvalidParams, "no block has hash");
    });
    session.finish();
}

#[test]
fn fees_come_from_the_blocks_they_describe() {
    let session = Session::new();
    let rpc = session.rpc();
    session.run(async {
        let (full, _, _) = busy_block(&rpc).await;
        let count = 5;
        let history = rpc.fee_history(BlockCount(Uint64(count)), full.number.into(), Some(vec![10.0, 50.0, 90.0]));
        let history = history.await.unwrap();
        assert_eq!(history.oldest_block, full.number + 1 - count);
        assert_eq!(history.base_fee_per_gas.len() as u64, count + 1);
        let rewards = history.reward.as_ref().expect("percentiles were asked for");
        for (offset, number) in (history.oldest_block..=full.number).enumerate() {
            let block = block(&rpc, number.into(), false).await;
            assert_eq!(Some(history.base_fee_per_gas[offset] as u64), block.base_fee_per_gas);
            assert_eq!(history.gas_used_ratio[offset], block.gas_used as f64 / block.gas_limit as f64);
            assert!(rewards[offset].windows(2).all(|pair| pair[0] <= pair[1]), "tips grow with the percentile");
        }
        let next = block(&rpc, (full.number + 1).into(), false).await;
        assert_eq!(history.base_fee_per_gas.last().map(|fee| *fee as u64), next.base_fee_per_gas);
        let longer = rpc.fee_history(BlockCount(Uint64(1_024)), 3.into(), None).await.unwrap();
        assert_eq!((longer.oldest_block, longer.reward), (0, None), "a run longer than the chain starts at genesis");
        let tip = rpc.max_priority_fee_per_gas().await.unwrap();
        let head = rpc.fee_history(BlockCount(Uint64(1)), BlockNumberOrTag::Latest, None).await.unwrap();
        assert_eq!(rpc.gas_price().await.unwrap(), tip + U256::from(head.base_fee_per_gas[1]));
        assert!(tip > U256::ZERO);
        let bad = |count: u64, percentiles: Vec<f64>| {
            rpc.fee_history(BlockCount(Uint64(count)), BlockNumberOrTag::Latest, Some(percentiles))
        };
        expect_error(bad(0, vec![]).await, ErrorCode::InvalidParams, "blockCount");
        expect_error(bad(1_025, vec![]).await, ErrorCode::InvalidParams, "blockCount");
        expect_error(bad(4, vec![50.0, 10.0]).await, ErrorCode::InvalidParams, "must increase");
        expect_error(bad(4, vec![101.0]).await, ErrorCode::InvalidParams, "between 0 and 100");
    });
    session.finish();
}

#[test]
fn execution_filter_and_dev_account_methods_answer_on_the_devnet() {
    let session = Session::new();
    session.run(async {
        let http = w3api_tests::http_client();
        let account = "0x00000000000000000000000000000000000000aa";
        let ask = |method: &str, params: serde_json::Value| {
            let call = serde_json::json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
            let request = http.post(session.rpc_url()).json(&call);
            async move { request.send().await.unwrap().json::<serde_json::Value>().await.unwrap() }
        };
        // An account without code: the call returns nothing, the code is
        // empty, the slot zero, and the proof shows the account absent.
        let reads = [
            (w3api_rpc::method::ETH_CALL, serde_json::json!([{ "to": account, "data": "0x18160ddd" }, "latest"]), "0x"),
            (w3api_rpc::method::ETH_ESTIMATE_GAS, serde_json::json!([{ "to": account }]), "0x5208"),
            (w3api_rpc::method::ETH_GET_CODE, serde_json::json!([account, "latest"]), "0x"),
            (
                w3api_rpc::method::ETH_GET_STORAGE_AT,
                serde_json::json!([account, "0x0", "latest"]),
                "0x0000000000000000000000000000000000000000000000000000000000000000",
            ),
        ];
        for (method, params, expected) in reads {
            let answer = ask(method, params).await;
            assert_eq!(answer["result"], expected, "{method}: {answer}");
        }
        let listed = ask(w3api_rpc::method::ETH_CREATE_ACCESS_LIST, serde_json::json!([{ "to": account }])).await;
        assert_eq!(listed["result"]["accessList"], serde_json::json!([]), "{listed}");
        let proof = ask(w3api_rpc::method::ETH_GET_PROOF, serde_json::json!([account, [], "latest"])).await;
        assert_eq!(proof["result"]["nonce"], "0x0", "{proof}");
        assert!(proof["result"]["accountProof"].as_array().is_some_and(|nodes| !nodes.is_empty()), "{proof}");
        // A raw transaction that does not decode is refused as geth refuses it.
        let malformed = ask(w3api_rpc::method::ETH_SEND_RAW_TRANSACTION, serde_json::json!(["0x02f8"])).await;
        assert_eq!(malformed["error"]["code"], ErrorCode::ServerError.code(), "{malformed}");
        assert!(malformed["error"]["message"].as_str().is_some_and(|m| m.starts_with("rlp:")), "{malformed}");
        // A filter installed, polled and removed; a poll of an unknown one is an error.
        let id = ask(w3api_rpc::method::ETH_NEW_FILTER, serde_json::json!([{ "address": account }])).await;
        let id = id["result"].as_str().expect("a filter id").to_string();
        let changes = ask(w3api_rpc::method::ETH_GET_FILTER_CHANGES, serde_json::json!([id])).await;
        assert_eq!(changes["result"], serde_json::json!([]), "nothing new: {changes}");
        let removed = ask(w3api_rpc::method::ETH_UNINSTALL_FILTER, serde_json::json!([id])).await;
        assert_eq!(removed["result"], true, "{removed}");
        let gone = ask(w3api_rpc::method::ETH_GET_FILTER_CHANGES, serde_json::json!([id])).await;
        assert!(gone["error"]["message"].as_str().is_some_and(|m| m.contains("not found")), "{gone}");
        // The standard test mnemonic's first account signs, as on Hardhat and Anvil.
        let accounts = ask(w3api_rpc::method::ETH_ACCOUNTS, serde_json::json!([])).await;
        assert_eq!(accounts["result"][0], "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "{accounts}");
        let first = accounts["result"][0].clone();
        let signed = ask(w3api_rpc::method::PERSONAL_SIGN, serde_json::json!(["0x68656c6c6f", first])).await;
        let expected = "0xf16ea9a3478698f695fd1401bfe27e9e4a7e8e3da94aa72b021125e31fa899cc573c48ea3fe1d4ab61a9db10c19032026e3ed2dbccba5a178235ac27f94504311c";
        assert_eq!(signed["result"], expected, "{signed}");
        // Parameters are checked before the source is asked: a bad one is named.
        let call =
            serde_json::json!({ "jsonrpc": "2.0", "id": 8, "method": "eth_getCode", "params": ["0x12", "latest"] });
        let answer: serde_json::Value =
            http.post(session.rpc_url()).json(&call).send().await.unwrap().json().await.unwrap();
        assert_eq!(answer["error"]["code"], ErrorCode::InvalidParams.code(), "{answer}");
    });
    session.finish();
}

#[test]
fn methods_that_need_evm_state_say_so() {
    let session = Session::new();
    session.run(async {
        let http = w3api_tests::http_client();
        for (method, reason) in w3api_rpc::UNANSWERABLE_METHODS {
            let call = serde_json::json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": [] });
            let answer: serde_json::Value =
                http.post(session.rpc_url()).json(&call).send().await.unwrap().json().await.unwrap();
            assert_eq!(answer["error"]["code"], ErrorCode::MethodNotSupported.code(), "{method}: {answer}");
            let message = answer["error"]["message"].as_str().unwrap();
            assert!(message.contains(method) && message.contains(reason), "{message}");
        }
    });
    session.finish();
}
