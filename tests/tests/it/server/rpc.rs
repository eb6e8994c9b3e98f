//! The JSON-RPC gateway over real HTTP: the four methods, tags, null results,
//! batches, the standard errors, and the gateway's own refusals.

use serde_json::{Value, json};
use w3api_devnet::Scale;
use w3api_tests::local::{Session, Setup};
use w3api_types::Chain;
use w3api_types::rpc::{Block, Transaction};

#[test]
fn blocks_by_number_and_tag_with_hashes_or_transactions() {
    let h = Session::new();
    let latest = h.call("eth_getBlockByNumber", json!(["latest", false]));
    let number = latest["number"].as_str().unwrap().to_string();
    assert_eq!(h.call("eth_getBlockByNumber", json!(["pending", false])), latest);
    assert_eq!(h.call("eth_getBlockByNumber", json!([number, false])), latest);
    assert_eq!(h.call("eth_getBlockByNumber", json!(["earliest", false]))["number"], "0x0");
    let busy = h.devnet().chain(Chain::Eth).blocks.iter().find(|b| b.tx_count >= 3).unwrap().header.number;
    let full = h.call("eth_getBlockByNumber", json!([format!("{busy:#x}"), true]));
    let block: Block = serde_json::from_value(full.clone()).unwrap();
    assert!(block.transactions.len() >= 3);
    assert_eq!(block.to_alloy().unwrap().header.hash_slow(), block.hash);
    assert_eq!(h.call("eth_getBlockByNumber", json!(["0x3b9aca00", true])), Value::Null, "a block not yet made");
}

#[test]
fn transactions_by_hash_and_index_match_the_block() {
    let h = Session::new();
    let data = h.devnet().chain(Chain::Eth);
    let record = data.blocks.iter().find(|b| b.tx_count >= 2).unwrap();
    let number = format!("{:#x}", record.header.number);
    let full: Block = serde_json::from_value(h.call("eth_getBlockByNumber", json!([number, true]))).unwrap();
    let w3api_types::rpc::BlockTransactions::Full(transactions) = full.transactions else {
        panic!("full transactions")
    };
    for (index, expected) in transactions.iter().enumerate() {
        let index = format!("{index:#x}");
        let by_number: Transaction =
            serde_json::from_value(h.call("eth_getTransactionByBlockNumberAndIndex", json!([number, index]))).unwrap();
        let by_hash: Transaction = serde_json::from_value(
            h.call("eth_getTransactionByBlockHashAndIndex", json!([format!("{:#x}", record.hash), index])),
        )
        .unwrap();
        assert_eq!(&by_number, expected);
        assert_eq!(&by_hash, expected);
    }
    let past_end = format!("{:#x}", transactions.len());
    assert_eq!(h.call("eth_getTransactionByBlockNumberAndIndex", json!([number, past_end])), Value::Null);
    let unknown_hash = format!("0x{}", "12".repeat(32));
    assert_eq!(h.call("eth_getTransactionByBlockHashAndIndex", json!([unknown_hash, "0x0"])), Value::Null);
}

#[test]
fn token_prices_and_the_token_without_a_pair() {
    let h = Session::new();
    let data = h.devnet().chain(Chain::Eth);
    let token = &data.world.tokens[2];
    let price = h.call(
        "eth_getTokenPrice",
        json!([{ "address": format!("{:#x}", token.address), "include": "percent_change" }]),
    );
    assert_eq!(price["tokenSymbol"], token.symbol.as_str());
    assert!(price["usdPrice"].as_f64().unwrap() > 0.0);
    let exchange = price["exchangeName"].as_str().unwrap();
    let on_exchange = h.call(
        "eth_getTokenPrice",
        json!([{ "address": format!("{:#x}", token.address), "exchange": exchange, "toBlock": 100 }]),
    );
    assert_eq!(on_exchange["toBlock"], "100");
    let unpriced = format!("{:#x}", w3api_types::Address::repeat_byte(0x77));
    let error = h.call_error("eth_getTokenPrice", json!([{ "address": unpriced }]));
    assert_eq!(error["code"], -32001);
    assert!(error["message"].as_str().unwrap().contains("no DEX pair prices token"), "{error}");
    let error = h.call_error(
        "eth_getTokenPrice",
        json!([{ "address": format!("{:#x}", token.address), "exchange": "Nowhere" }]),
    );
    assert_eq!(error["code"], -32602);
    assert!(error["message"].as_str().unwrap().contains("unknown exchange \"Nowhere\""), "{error}");
}

#[test]
fn invalid_params_and_unknown_methods_have_standard_errors() {
    let h = Session::new();
    for (method, params, fragment) in [
        ("eth_getBlockByNumber", json!(["0x01", false]), "leading zeros"),
        ("eth_getBlockByNumber", json!(["Safe", false]), "\"Safe\""),
        ("eth_getBlockByNumber", json!(["latest"]), ""),
        ("eth_getTransactionByBlockHashAndIndex", json!(["0x12", "0x0"]), ""),
        ("eth_getTokenPrice", json!([{ "address": "0xnope" }]), ""),
        (
            "eth_getTokenPrice",
            json!([{ "address": "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "include": "everything" }]),
            "",
        ),
        ("eth_getDecodedTransactions", json!([{ "nft_metadata": true }]), "address"),
        (
            "eth_getDecodedTransactions",
            json!([{ "address": "0x2260fac5e5542a773aa44fbcfedf7c193bc2c599", "order": "sideways" }]),
            "sideways",
        ),
    ] {
        let error = h.call_error(method, params.clone());
        assert_eq!(error["code"], -32602, "{method} {params}: {error}");
        // The reason is in the message, with no data, as geth gives it.
        let reason = error["message"].as_str().unwrap_or_default();
        assert!(reason.contains(fragment) && error.get("data").is_none(), "{method} {params}: {error}");
    }
    let stranger =
        h.call("eth_getDecodedTransactions", json!([{ "address": "0x000000000000000000000000000000000000dead" }]));
    assert_eq!(stranger, json!([]), "a wallet with no history has an empty one");
    assert_eq!(h.call_error("eth_signTransaction", json!([]))["code"], -32004, "refused by name");
    let unknown = h.call_error("eth_getFilterChanges", json!(["0xfeed"]));
    assert_eq!(unknown["code"], -32602, "a filter that was never installed: {unknown}");
    let malformed = h.call_error("eth_sendRawTransaction", json!(["0x00"]));
    // geth's code and words for a transaction it will not take.
    assert_eq!(malformed["code"], -32000, "a raw transaction that does not decode: {malformed}");
    assert!(malformed["message"].as_str().unwrap().starts_with("rlp:"), "{malformed}");
    assert_eq!(h.call_error("eth_notAMethod", json!([]))["code"], -32601);
}

#[test]
fn malformed_bodies_and_requests_have_standard_errors() {
    let h = Session::new();
    let raw = |body: &str| {
        h.send(|c| {
            c.post(format!("{}/eth/{}", h.base(), h.key()))
                .header("content-type", "application/json")
                .body(body.to_string())
        })
    };
    let parse = raw("{\"jsonrpc\": \"2.0\", ");
    assert_eq!(parse.body["error"]["code"], -32700, "{}", parse.text);
    let invalid = raw("{\"jsonrpc\": \"2.0\", \"id\": 1}");
    assert_eq!(invalid.body["error"]["code"], -32600, "{}", invalid.text);
    let empty_batch = raw("[]");
    assert_eq!(empty_batch.body["error"]["code"], -32600, "{}", empty_batch.text);
}

#[test]
fn a_batch_answers_every_call_in_one_response() {
    let h = Session::new();
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["earliest", false]},
        {"jsonrpc": "2.0", "id": 2, "method": "eth_nope", "params": []},
        {"jsonrpc": "2.0", "id": 3, "method": "eth_getTransactionByBlockNumberAndIndex", "params": ["latest", "0x99999"]},
    ]);
    let answer = h.post_rpc("eth", &batch);
    assert_eq!(answer.status, 200);
    let responses = answer.body.as_array().unwrap();
    assert_eq!(responses.len(), 3);
    let by_id = |id: u64| responses.iter().find(|r| r["id"] == id).unwrap();
    assert_eq!(by_id(1)["result"]["number"], "0x0");
    assert_eq!(by_id(2)["error"]["code"], -32601);
    assert_eq!(by_id(3)["result"], Value::Null);
}

#[test]
fn every_gateway_chain_answers_and_others_are_refused() {
    // Three more chains are generated: a tiny devnet keeps that to a moment.
    let server = Setup::new().scale(Scale::TINY).start();
    let h = server.session();
    let call = json!({"jsonrpc": "2.0", "id": 1, "method": "eth_getBlockByNumber", "params": ["earliest", false]});
    for chain in [Chain::Blast, Chain::PolygonAmoy, Chain::OpBnb] {
        let answer = h.post_rpc(chain.rpc_slug().unwrap(), &call);
        assert_eq!(answer.status, 200, "{chain}: {}", answer.text);
    }
    for slug in ["palm", "polygon amoy", "solana", "0x1"] {
        let answer = h.send(|c| c.post(format!("{}/{slug}/{}", h.base(), h.key())).json(&call));
        assert_eq!(answer.status, 400, "{slug}: {}", answer.text);
        assert_eq!(answer.body["error"]["code"], -32000);
        assert!(answer.body["error"]["message"].as_str().unwrap().contains("Unknown chain"));
    }
    let unauthorized = h.send(|c| c.post(format!("{}/eth/not-a-key", h.base())).json(&call));
    assert_eq!(unauthorized.status, 401);
    assert_eq!(
        unauthorized.body,
        json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32099, "message": "Unauthorized: unknown API key"}})
    );
}
