//! `include=internal_transactions` on the Data API: the calls a
//! transaction made inside the EVM, on a transaction, its verbose form, its
//! block and its sender's transactions, all from the same trace.

use super::*;

const TRANSACTION: &str = "/api/v2.2/transaction/{transaction_hash}";

fn internal_of(session: &Session<'_>, template: &str, path: &str) -> Value {
    let answer = session.get(template, path);
    assert_eq!(answer.status, 200, "{}", answer.text);
    answer.body
}

#[test]
fn a_transactions_inner_calls_are_listed_where_its_answers_are() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, paid } = withdrawal(&session);
    let hash = receipt["transactionHash"].as_str().unwrap();
    let asked = format!("/api/v2.2/transaction/{hash}?chain=eth&include=internal_transactions");
    let answer = internal_of(&session, TRANSACTION, &asked);
    let internal = answer["internal_transactions"].as_array().expect("asked for");
    let [withdraw, payment] = internal.as_slice() else { panic!("two inner calls: {answer}") };
    let withdraw_input =
        format!("0x{}", alloy_primitives::hex::encode(WrappedNative::withdrawCall { wad: paid }.abi_encode()));
    assert_eq!(
        (&withdraw["type"], &withdraw["from"], &withdraw["to"]),
        (&json!("CALL"), &json!(forwarder), &json!(weth))
    );
    assert_eq!((&withdraw["value"], &withdraw["input"]), (&json!("0"), &json!(withdraw_input)));
    assert_eq!(
        (&payment["from"], &payment["to"], &payment["value"]),
        (&json!(weth), &json!(forwarder), &json!(paid.to_string()))
    );
    let number = block_of(&receipt).to_string();
    for call in internal {
        assert_eq!((&call["transaction_hash"], &call["block_hash"]), (&json!(hash), &receipt["blockHash"]));
        assert_eq!(call["block_number"], number);
        assert!(call.get("error").is_none(), "{call}");
        let (gas, used) = (call["gas"].as_str().unwrap(), call["gas_used"].as_str().unwrap());
        assert!(used.parse::<u64>().unwrap() <= gas.parse::<u64>().unwrap(), "{call}");
    }
    // Left out unless asked for.
    let plain = internal_of(&session, TRANSACTION, &format!("/api/v2.2/transaction/{hash}?chain=eth"));
    assert!(plain.get("internal_transactions").is_none(), "{plain}");

    // The same calls on the verbose form, the block and the sender's transactions.
    let verbose = format!("/api/v2.2/transaction/{hash}/verbose?chain=eth&include=internal_transactions");
    let verbose = internal_of(&session, "/api/v2.2/transaction/{transaction_hash}/verbose", &verbose);
    assert_eq!(verbose["internal_transactions"], answer["internal_transactions"]);
    let block = format!("/api/v2.2/block/{number}?chain=eth&include=internal_transactions");
    let block = internal_of(&session, "/api/v2.2/block/{block_number_or_hash}", &block);
    let [in_block] = block["transactions"].as_array().unwrap().as_slice() else { panic!("one transaction: {block}") };
    assert_eq!(in_block["internal_transactions"], answer["internal_transactions"]);
    let genesis = "/api/v2.2/block/0?chain=eth&include=internal_transactions";
    let genesis = internal_of(&session, "/api/v2.2/block/{block_number_or_hash}", genesis);
    assert_eq!(genesis["transactions"], json!([]), "the genesis, which no trace runs, has nothing inside");
    let sent = format!("/api/v2.2/{}?chain=eth&limit=2&include=internal_transactions", sender());
    let sent = internal_of(&session, "/api/v2.2/{address}", &sent);
    let newest = &sent["result"][0];
    assert_eq!(newest["hash"], hash);
    assert_eq!(newest["internal_transactions"], answer["internal_transactions"]);
    // The RPC twin gives the same page.
    let twin = session
        .call("eth_getTransactions", json!([{"address": sender(), "limit": 2, "include": "internal_transactions"}]));
    assert_eq!(twin["result"][0]["internal_transactions"], answer["internal_transactions"]);
    let plain = session.call("eth_getTransactions", json!([{"address": sender(), "limit": 1}]));
    assert!(plain["result"][0].get("internal_transactions").is_none(), "{plain}");
    // The deposit before it called WETH once, with the ether.
    assert_eq!(sent["result"][1]["internal_transactions"].as_array().unwrap().len(), 1, "{sent}");
}

#[test]
fn a_failed_inner_call_carries_its_error_and_a_plain_transfer_has_none() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, paid, .. } = withdrawal(&session);
    // More than the forwarder holds: WETH reverts inside, the forwarder goes on.
    let withdraw = WrappedNative::withdrawCall { wad: paid * U256::from(8) }.abi_encode();
    let input = format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(withdraw));
    let receipt = send(&session, json!({"to": forwarder, "data": input}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    let path =
        format!("/api/v2.2/transaction/{}?include=internal_transactions", receipt["transactionHash"].as_str().unwrap());
    let answer = internal_of(&session, TRANSACTION, &path);
    let [failed] = answer["internal_transactions"].as_array().unwrap().as_slice() else { panic!("one call: {answer}") };
    assert_eq!(failed["error"], "execution reverted", "{failed}");
    assert_ne!(failed["output"], "0x", "the revert data: {failed}");

    let transfer = send(&session, json!({"to": format!("{:#x}", Address::repeat_byte(5)), "value": "0x1"}));
    let path = format!(
        "/api/v2.2/transaction/{}?include=internal_transactions",
        transfer["transactionHash"].as_str().unwrap()
    );
    assert_eq!(internal_of(&session, TRANSACTION, &path)["internal_transactions"], json!([]));

    let path =
        format!("/api/v2.2/transaction/{}?include=internal_calls", transfer["transactionHash"].as_str().unwrap());
    let refused = session.get(TRANSACTION, &path);
    assert_eq!(refused.status, 400, "{}", refused.text);
    assert!(refused.text.contains("include"), "{}", refused.text);
}

#[test]
fn a_stream_with_internal_transactions_gets_the_value_moved_inside() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, paid } = withdrawal(&session);
    let block = block_of(&receipt);
    let path = format!("{}/streams/evm/0x1/block/{block}", session.base());
    let ask = |settings: Value| {
        let answer = session.send(|c| c.post(&path).header("x-api-key", session.key()).json(&settings));
        assert_eq!(answer.status, 200, "{}", answer.text);
        answer.body
    };
    // Watching the forwarder: WETH paid it inside a transaction it did not send.
    let watching = json!({"tag": "t", "includeInternalTxs": true, "addresses": [forwarder]});
    let delivered = ask(watching);
    let [moved] = delivered["txsInternal"].as_array().unwrap().as_slice() else { panic!("one transfer: {delivered}") };
    assert_eq!((&moved["from"], &moved["to"]), (&json!(weth), &json!(forwarder)));
    assert_eq!((&moved["value"], &moved["transactionHash"]), (&json!(paid.to_string()), &receipt["transactionHash"]));
    assert!(moved["gas"].as_str().unwrap().parse::<u64>().unwrap() > 0, "{moved}");
    // The balances of those paid inside, as getNativeBalances picks them from txsInternal.
    let balances = json!([{"selectors": ["$to"], "type": "internalTx"}]);
    let delivered =
        ask(json!({"tag": "t", "includeInternalTxs": true, "addresses": [forwarder], "getNativeBalances": balances}));
    let [held] = delivered["nativeBalances"].as_array().unwrap().as_slice() else { panic!("one balance: {delivered}") };
    assert_eq!(held["address"], json!(forwarder), "{delivered}");
    let balance = session.call("eth_getBalance", json!([forwarder, format!("{block:#x}")]));
    let wei = U256::from_str_radix(&balance.as_str().unwrap()[2..], 16).unwrap();
    assert_eq!(held["balance"], json!(wei.to_string()), "{delivered}");
    // Not asked for, or not watched: none.
    let unasked = ask(json!({"tag": "t", "includeNativeTxs": true, "addresses": [forwarder]}));
    assert_eq!(unasked["txsInternal"], json!([]), "{unasked}");
    let elsewhere =
        ask(json!({"tag": "t", "includeInternalTxs": true, "addresses": [format!("{:#x}", Address::repeat_byte(3))]}));
    assert_eq!(elsewhere["txsInternal"], json!([]), "{elsewhere}");
}

const HISTORY: &str = "/api/v2.2/wallets/{address}/history";

/// The history items of `wallet`, newest first, with `query` added.
fn history_of(session: &Session<'_>, wallet: &str, query: &str) -> Vec<Value> {
    let answer = internal_of(session, HISTORY, &format!("/api/v2.2/wallets/{wallet}/history?chain=eth{query}"));
    answer["result"].as_array().unwrap().clone()
}

#[test]
fn value_paid_inside_a_transaction_is_in_the_payees_history_and_undone_value_is_not() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, .. } = withdrawal(&session);
    // The forwarder pays a new address all it is sent: the payee is no party to the transaction.
    let payee = format!("{:#x}", Address::repeat_byte(0x77));
    let paid = U256::from(12_345u64);
    let receipt =
        send(&session, json!({"to": forwarder, "value": hex(paid), "data": format!("0x{:0>64}", &payee[2..])}));
    let hash = receipt["transactionHash"].clone();
    let [item] = history_of(&session, &payee, "").try_into().unwrap_or_else(|h| panic!("one item: {h:?}"));
    assert_eq!(item["hash"], hash);
    let transfer = json!([{
        "from_address": forwarder, "to_address": payee, "value": paid.to_string(),
        "direction": "incoming", "internal_transaction": true,
    }]);
    let shown = |item: &Value| -> Value {
        let keys = ["from_address", "to_address", "value", "direction", "internal_transaction"];
        let each = |t: &Value| keys.iter().map(|k| (k.to_string(), t[k].clone())).collect::<serde_json::Map<_, _>>();
        item["native_transfers"].as_array().unwrap().iter().map(each).collect()
    };
    assert_eq!(shown(&item), transfer, "{item}");
    assert_eq!(
        (&item["category"], &item["summary"]),
        (&json!("receive"), &json!(format!("Received 0.000000000000012345 ETH from {forwarder}")))
    );
    assert!(item.get("internal_transactions").is_none(), "left out unless asked for: {item}");
    assert_eq!(session.call("eth_getBalance", json!([payee, "latest"])), json!(hex(paid)), "all it has");
    // Asked for, the calls inside are those of the transaction's own answer.
    let [asked] = history_of(&session, &payee, "&include_internal_transactions=true").try_into().unwrap();
    let path = format!("/api/v2.2/transaction/{}?chain=eth&include=internal_transactions", hash.as_str().unwrap());
    assert_eq!(asked["internal_transactions"], internal_of(&session, TRANSACTION, &path)["internal_transactions"]);
    assert_eq!(asked["internal_transactions"][0]["to"], json!(payee));
    // The sender's item lists only its own value: it paid nobody inside.
    let sent = history_of(&session, &sender(), "&limit=1");
    assert_eq!(sent[0]["hash"], hash);
    let own = json!([{
        "from_address": sender(), "to_address": forwarder, "value": paid.to_string(),
        "direction": "outgoing", "internal_transaction": false,
    }]);
    assert_eq!(shown(&sent[0]), own);

    // Value sent into a call that reverts never moved: WETH refuses a withdrawal of more than the forwarder holds.
    let refused = WrappedNative::withdrawCall { wad: U256::MAX }.abi_encode();
    let input = format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(refused));
    let receipt = send(&session, json!({"to": forwarder, "value": hex(paid), "data": input}));
    assert_eq!(receipt["status"], "0x1", "the forwarder goes on: {receipt}");
    let kept = history_of(&session, &forwarder, "&limit=1");
    assert_eq!(kept[0]["hash"], receipt["transactionHash"]);
    assert_eq!(kept[0]["native_transfers"].as_array().unwrap().len(), 1, "its own value alone: {}", kept[0]);
    let weth_history = history_of(&session, &weth, "");
    assert!(weth_history.iter().all(|i| i["hash"] != receipt["transactionHash"]), "WETH was paid nothing");
}
