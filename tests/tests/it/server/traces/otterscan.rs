//! Otterscan's `ots_*` methods on the devnet: internal operations and call
//! lists that agree with the call tracer, a block's details and pages, an
//! address's transactions page by page both ways, nonces and creators found
//! by search, and bad pages refused.

use super::*;

/// A factory whose runtime runs `CREATE2` (salt 0) on its call data with
/// the value sent, and returns the new address.
const FACTORY_INIT: &str = "0x600f600a5f39600f5ff3365f5f375f365f34f55f5260205ff3";
/// Init code of a contract that, called, self-destructs to its caller.
const SELF_DESTRUCT_INIT: &str = "0x6002600a5f3960025ff333ff";

fn ots(session: &Session<'_>, method: &str, params: Value) -> Value {
    session.call(method, params)
}

fn number(value: &Value) -> u64 {
    u64::from_str_radix(&value.as_str().unwrap()[2..], 16).unwrap()
}

/// The call tracer's tree, flattened as ots_traceTransaction lists it.
fn flattened(frame: &Value, depth: u64, entries: &mut Vec<Value>) {
    let kind = frame["type"].as_str().unwrap();
    let value = match kind {
        "DELEGATECALL" | "STATICCALL" => Value::Null,
        _ => frame.get("value").cloned().unwrap_or(json!("0x0")),
    };
    entries.push(json!({
        "type": kind, "depth": depth, "from": frame["from"], "to": frame["to"], "value": value,
        "input": frame["input"], "output": frame.get("output").cloned().unwrap_or(json!("0x")),
    }));
    for call in calls(frame) {
        flattened(call, depth + 1, entries);
    }
}

#[test]
fn inner_operations_and_the_call_list_agree_with_the_call_tracer() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, paid } = withdrawal(&session);
    let hash = &receipt["transactionHash"];
    let operations = ots(&session, "ots_getInternalOperations", json!([hash]));
    assert_eq!(operations, json!([{"type": 0, "from": weth, "to": forwarder, "value": hex(paid)}]));
    let tree = trace(&session, hash, json!({"tracer": "callTracer"}));
    let mut expected = Vec::new();
    flattened(&tree, 0, &mut expected);
    assert_eq!(expected.len(), 3, "{tree}");
    assert_eq!(ots(&session, "ots_traceTransaction", json!([hash])), Value::Array(expected));

    // A factory's CREATE2 with value, then the child destroying itself.
    let factory = deploy(&session, FACTORY_INIT.into());
    let created = send(&session, json!({"to": factory, "value": "0x7", "data": SELF_DESTRUCT_INIT}));
    assert_eq!(created["status"], "0x1", "{created}");
    let tree = trace(&session, &created["transactionHash"], json!({"tracer": "callTracer"}));
    let child = tree["output"].as_str().unwrap();
    let child = format!("0x{}", &child[child.len() - 40..]);
    let operations = ots(&session, "ots_getInternalOperations", json!([created["transactionHash"]]));
    assert_eq!(operations, json!([{"type": 3, "from": factory, "to": child, "value": "0x7"}]));
    let destroyed = send(&session, json!({"to": child}));
    let operations = ots(&session, "ots_getInternalOperations", json!([destroyed["transactionHash"]]));
    assert_eq!(operations, json!([{"type": 1, "from": child, "to": sender(), "value": "0x7"}]));

    // Who created each: the sender deployed the factory, the factory the child.
    let creator = ots(&session, "ots_getContractCreator", json!([factory]));
    let deployment = session.call("eth_getBlockByNumber", json!([format!("{:#x}", block_of(&created) - 1), false]));
    assert_eq!(creator, json!({"hash": deployment["transactions"][0], "creator": sender()}));
    let creator = ots(&session, "ots_getContractCreator", json!([child]));
    assert_eq!(creator, json!({"hash": created["transactionHash"], "creator": factory}));
    assert_eq!(ots(&session, "ots_getContractCreator", json!([sender()])), Value::Null, "an account without code");
    assert_eq!(ots(&session, "ots_hasCode", json!([factory, "latest"])), json!(true));
    let before = format!("{:#x}", block_of(&created) - 2);
    assert_eq!(ots(&session, "ots_hasCode", json!([factory, before])), json!(false), "before its deployment");

    let nothing = format!("0x{}", "ab".repeat(32));
    for method in ["ots_getInternalOperations", "ots_traceTransaction", "ots_getTransactionError"] {
        assert_eq!(ots(&session, method, json!([nothing])), Value::Null, "{method} of no transaction");
    }
}

#[test]
fn a_failed_transaction_gives_its_revert_data_and_a_success_none() {
    let local = server();
    let session = local.session();
    let weth = deploy_weth(&session);
    let withdraw = WrappedNative::withdrawCall { wad: U256::from(1) }.abi_encode();
    let failed = send(&session, json!({"to": weth, "data": format!("0x{}", alloy_primitives::hex::encode(withdraw))}));
    assert_eq!(failed["status"], "0x0", "{failed}");
    let tree = trace(&session, &failed["transactionHash"], json!({"tracer": "callTracer"}));
    let data = ots(&session, "ots_getTransactionError", json!([failed["transactionHash"]]));
    assert_eq!(data, tree["output"], "{tree}");
    assert!(data.as_str().unwrap().len() > 2, "WETH reverts with data: {tree}");
    let paid = send(&session, json!({"to": weth, "value": "0x1"}));
    assert_eq!(ots(&session, "ots_getTransactionError", json!([paid["transactionHash"]])), json!("0x"));
}

/// The seeded block with the most transactions among the first ones.
fn busiest_block(session: &Session<'_>) -> (u64, Value) {
    (1..=40)
        .map(|n| (n, session.call("eth_getBlockByNumber", json!([format!("{n:#x}"), true]))))
        .max_by_key(|(_, block)| block["transactions"].as_array().unwrap().len())
        .unwrap()
}

#[test]
fn a_blocks_details_and_its_pages_from_the_end() {
    let local = server();
    let session = local.session();
    let (n, block) = busiest_block(&session);
    let transactions = block["transactions"].as_array().unwrap();
    assert!(transactions.len() >= 3, "a block of several transactions: {}", transactions.len());
    let receipts = session.call("eth_getBlockReceipts", json!([format!("{n:#x}")]));
    let receipts = receipts.as_array().unwrap();
    let fees: U256 = receipts.iter().fold(U256::ZERO, |sum, r| {
        sum + U256::from(number(&r["gasUsed"])) * U256::from(number(&r["effectiveGasPrice"]))
    });
    let details = ots(&session, "ots_getBlockDetails", json!([n]));
    assert_eq!(details["totalFees"], json!(hex(fees)));
    assert_eq!(details["issuance"], json!({"blockReward": "0x0", "uncleReward": "0x0", "issuance": "0x0"}));
    assert_eq!(details["block"]["transactionCount"], json!(transactions.len()));
    let mut header = block.clone();
    header["transactions"] = json!([]);
    header["transactionCount"] = json!(transactions.len());
    assert_eq!(details["block"], header);
    assert_eq!(ots(&session, "ots_getBlockDetailsByHash", json!([block["hash"]])), details);
    assert_eq!(ots(&session, "ots_getBlockDetails", json!([1u64 << 40])), Value::Null);

    // Pages of two from the end, in block order within each, back to the first.
    let mut seen: Vec<Value> = Vec::new();
    for page in 0.. {
        let answer = ots(&session, "ots_getBlockTransactions", json!([n, page, 2]));
        let listed = answer["fullblock"]["transactions"].as_array().unwrap().clone();
        if listed.is_empty() {
            break;
        }
        assert_eq!(answer["fullblock"]["transactionCount"], json!(transactions.len()));
        let page_receipts = answer["receipts"].as_array().unwrap();
        for (transaction, receipt) in listed.iter().zip(page_receipts) {
            assert_eq!(receipt["transactionHash"], transaction["hash"]);
            assert_eq!((&receipt["logs"], &receipt["logsBloom"]), (&Value::Null, &Value::Null));
        }
        seen.splice(0..0, listed);
    }
    assert_eq!(seen.len(), transactions.len());
    for (page, whole) in seen.iter().zip(transactions) {
        let input = whole["input"].as_str().unwrap();
        assert_eq!(page["input"].as_str().unwrap(), &input[..input.len().min(10)], "the selector only");
        assert_eq!(page["hash"], whole["hash"]);
    }
}

#[test]
fn an_addresses_transactions_page_by_page_both_ways_and_nonces_found() {
    let local = server();
    let session = local.session();
    for value in 1..=5 {
        send(&session, json!({"to": format!("0x{:040x}", 0xbeef), "value": format!("{value:#x}")}));
    }
    let listed = session.get("/api/v2.2/{address}", &format!("/api/v2.2/{}?chain=eth&limit=100", sender()));
    let hashes: Vec<Value> = listed.body["result"].as_array().unwrap().iter().map(|t| t["hash"].clone()).collect();
    assert!(hashes.len() >= 5, "{}", listed.text);

    // Backwards from the newest block, each page ending where the next starts.
    let (mut older, mut from, mut first) = (Vec::new(), 0u64, true);
    loop {
        let page = ots(&session, "ots_searchTransactionsBefore", json!([sender(), from, 2]));
        assert_eq!(page["firstPage"], json!(first));
        let txs = page["txs"].as_array().unwrap();
        for (tx, receipt) in txs.iter().zip(page["receipts"].as_array().unwrap()) {
            assert_eq!(receipt["transactionHash"], tx["hash"]);
            assert_eq!(receipt["timestamp"], tx["blockTimestamp"], "{receipt}");
        }
        older.extend(txs.iter().map(|tx| tx["hash"].clone()));
        if page["lastPage"] == json!(true) {
            break;
        }
        assert!(txs.len() >= 2, "a page that is not the last is full: {page}");
        from = number(&txs.last().unwrap()["blockNumber"]);
        first = false;
    }
    assert_eq!(older, hashes);

    // Forwards from the genesis: each page newest first, the pages oldest first.
    let (mut newer, mut from, mut last) = (Vec::new(), 0u64, true);
    loop {
        let page = ots(&session, "ots_searchTransactionsAfter", json!([sender(), from, 2]));
        assert_eq!(page["lastPage"], json!(last));
        let txs = page["txs"].as_array().unwrap();
        newer.splice(0..0, txs.iter().map(|tx| tx["hash"].clone()));
        if page["firstPage"] == json!(true) {
            break;
        }
        from = number(&txs.first().unwrap()["blockNumber"]);
        last = false;
    }
    assert_eq!(newer, hashes);

    let sent = number(&session.call("eth_getTransactionCount", json!([sender(), "latest"])));
    for nonce in 0..sent {
        let hash = ots(&session, "ots_getTransactionBySenderAndNonce", json!([sender(), nonce]));
        let transaction = session.call("eth_getTransactionByHash", json!([hash]));
        assert_eq!((&transaction["from"], number(&transaction["nonce"])), (&json!(sender()), nonce));
    }
    let next = ots(&session, "ots_getTransactionBySenderAndNonce", json!([sender(), sent]));
    assert_eq!(next, Value::Null, "a nonce not used yet");
}

#[test]
fn pages_out_of_bounds_are_refused_naming_the_size() {
    let local = server();
    let session = local.session();
    for (method, params) in [
        ("ots_getBlockTransactions", json!([1, 0, 0])),
        ("ots_getBlockTransactions", json!([1, 0, 256])),
        ("ots_searchTransactionsBefore", json!([sender(), 0, 0])),
        ("ots_searchTransactionsAfter", json!([sender(), 0, 1001])),
    ] {
        let error = session.call_error(method, params.clone());
        assert_eq!(error["code"], -32602, "{method} {params}: {error}");
        assert!(error["message"].as_str().unwrap().contains("pageSize"), "{error}");
    }
    assert_eq!(ots(&session, "ots_getApiLevel", json!([])), json!(8));
}
