//! The structure of the two spec documents: what codegen and clients rely on.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;
use w3api_spec_check::spec::Document;
use w3api_types::Chain;

/// `(method, path, operation)` for every operation of the OpenAPI document.
fn operations() -> Vec<(String, String, &'static Value)> {
    let paths = Document::OpenApi.raw()["paths"].as_object().unwrap();
    let mut out = Vec::new();
    for (path, item) in paths {
        for (method, operation) in item.as_object().unwrap() {
            if ["get", "put", "post", "delete", "patch", "head", "options", "trace"].contains(&method.as_str()) {
                out.push((method.clone(), path.clone(), operation));
            }
        }
    }
    out
}

#[test]
fn every_operation_of_the_interface_is_there_once() {
    let found: BTreeSet<(String, String)> = operations().into_iter().map(|(m, p, _)| (m, p)).collect();
    let expected: BTreeSet<(String, String)> = [
        ("post", "/challenge/request/solana"),
        ("post", "/challenge/verify/solana"),
        ("get", "/api/v2.2/wallets/{address}/tokens"),
        ("get", "/api/v2.2/{address}/nft"),
        ("get", "/api/v2.2/{address}/nft/collections"),
        ("get", "/api/v2.2/{address}/balance"),
        ("get", "/api/v2.2/wallets/balances"),
        ("get", "/api/v2.2/{address}/erc20"),
        ("get", "/api/v2.2/erc20/{address}/price"),
        ("post", "/api/v2.2/erc20/prices"),
        ("get", "/api/v2.2/erc20/metadata"),
        ("get", "/api/v2.2/dateToBlock"),
        ("get", "/api/v2.2/wallets/{address}/net-worth"),
        ("get", "/api/v2.2/block/{block_number_or_hash}"),
        ("get", "/api/v2.2/transaction/{transaction_hash}"),
        ("get", "/api/v2.2/transaction/{transaction_hash}/verbose"),
        ("get", "/api/v2.2/nft/{address}/{token_id}"),
        ("post", "/api/v2.2/nft/getMultipleNFTs"),
        ("get", "/api/v2.2/nft/{address}"),
        ("get", "/api/v2.2/nft/{address}/owners"),
        ("get", "/api/v2.2/nft/{address}/{token_id}/owners"),
        ("get", "/api/v2.2/{address}/erc20/transfers"),
        ("get", "/api/v2.2/erc20/{address}/transfers"),
        ("get", "/api/v2.2/{address}/nft/transfers"),
        ("get", "/api/v2.2/nft/{address}/transfers"),
        ("get", "/api/v2.2/{address}"),
        ("get", "/api/v2.2/wallets/{address}/stats"),
        ("get", "/api/v2.2/wallets/{address}/history"),
        ("get", "/api/v2.2/wallets/{address}/chains"),
        ("get", "/streams/evm"),
        ("put", "/streams/evm"),
        ("get", "/streams/evm/{id}"),
        ("post", "/streams/evm/{id}"),
        ("delete", "/streams/evm/{id}"),
        ("post", "/streams/evm/{id}/status"),
        ("post", "/streams/evm/{id}/duplicate"),
        ("get", "/streams/evm/{id}/address"),
        ("post", "/streams/evm/{id}/address"),
        ("patch", "/streams/evm/{id}/address"),
        ("delete", "/streams/evm/{id}/address"),
        ("post", "/streams/evm/{chainId}/block/{blockNumber}"),
        ("get", "/settings"),
        ("post", "/settings"),
        ("get", "/history"),
        ("get", "/history/logs"),
        ("post", "/history/replay/{streamId}/{id}"),
        ("get", "/stats"),
        ("get", "/stats/{streamId}"),
    ]
    .into_iter()
    .map(|(m, p)| (m.to_string(), p.to_string()))
    .collect();
    assert_eq!(found, expected);
}

#[test]
fn operation_ids_are_unique_camel_case() {
    let mut seen = BTreeSet::new();
    for (method, path, operation) in operations() {
        let id = operation["operationId"].as_str().unwrap_or_else(|| panic!("{method} {path}: no operationId"));
        let camel =
            id.chars().next().is_some_and(|c| c.is_ascii_lowercase()) && id.chars().all(|c| c.is_ascii_alphanumeric());
        assert!(camel, "{method} {path}: operationId {id} is not camelCase");
        assert!(seen.insert(id), "operationId {id} is used twice");
    }
}

#[test]
fn each_group_has_its_tag_and_its_server_variable() {
    let groups = BTreeMap::from([("auth", "auth_url"), ("data", "base_url"), ("streams", "streams_url")]);
    let tags: BTreeSet<&str> =
        Document::OpenApi.raw()["tags"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(tags, groups.keys().copied().collect());
    let paths = &Document::OpenApi.raw()["paths"];
    for (method, path, operation) in operations() {
        let op_tags = operation["tags"].as_array().unwrap();
        assert_eq!(op_tags.len(), 1, "{method} {path}: one tag per operation");
        let variable = groups[op_tags[0].as_str().unwrap()];
        let servers = paths[&path]["servers"].as_array().unwrap_or_else(|| panic!("{path}: no servers"));
        let server = &servers[0];
        assert_eq!(server["url"], format!("{{{variable}}}"), "{path}");
        assert!(server["variables"][variable]["default"].as_str().unwrap().starts_with("https://"), "{path}");
    }
}

#[test]
fn the_api_key_header_secures_everything() {
    let doc = Document::OpenApi.raw();
    let scheme = &doc["components"]["securitySchemes"]["ApiKeyAuth"];
    assert_eq!(
        (scheme["type"].as_str(), scheme["in"].as_str(), scheme["name"].as_str()),
        (Some("apiKey"), Some("header"), Some("X-API-Key"))
    );
    assert_eq!(doc["security"], serde_json::json!([{ "ApiKeyAuth": [] }]));
    for (method, path, operation) in operations() {
        assert!(operation.get("security").is_none(), "{method} {path} overrides the global security");
    }
}

/// Parameters of an operation, with `$ref`s to shared parameters resolved.
fn parameters(operation: &'static Value) -> Vec<&'static Value> {
    let doc = Document::OpenApi.raw();
    let resolve = |p: &'static Value| match p["$ref"].as_str() {
        Some(r) => doc.pointer(r.trim_start_matches('#')).unwrap(),
        None => p,
    };
    operation["parameters"].as_array().map(|ps| ps.iter().map(resolve).collect()).unwrap_or_default()
}

#[test]
fn array_query_parameters_are_exploded_forms_of_bounded_length() {
    let mut arrays = BTreeMap::new();
    for (method, path, operation) in operations() {
        for parameter in parameters(operation) {
            if parameter["schema"]["type"] == "array" {
                let name = parameter["name"].as_str().unwrap();
                assert_eq!(parameter["style"], "form", "{method} {path} {name}");
                assert_eq!(parameter["explode"], true, "{method} {path} {name}");
                let most = parameter["schema"]["maxItems"].as_u64();
                arrays.entry(name).or_insert_with(Vec::new).push(most);
            }
        }
    }
    let expected = BTreeMap::from([
        ("token_addresses", vec![Some(10), Some(10), Some(10)]),
        ("contract_addresses", vec![Some(25), Some(25)]),
        ("wallet_addresses", vec![Some(25)]),
        ("addresses", vec![Some(10)]),
        ("chains", vec![Some(25), Some(25)]),
        ("chainId", vec![Some(100), Some(100)]),
        ("blockNumber", vec![Some(100), Some(100)]),
        ("deliveryStatus", vec![Some(100)]),
    ]);
    assert_eq!(
        arrays, expected,
        "token_addresses on wallet tokens (priced and not) and NFTs, the balance and metadata lists, the net-worth \
         chains, the history filters, the transfer listings' contracts"
    );
}

#[test]
fn every_query_parameter_of_the_interface_and_production_is_declared() {
    let expected: BTreeMap<&str, &[&str]> = BTreeMap::from([
        (
            "getWalletTokenBalancesPrice",
            &[
                "address",
                "chain",
                "to_block",
                "token_addresses",
                "exclude_spam",
                "exclude_unverified_contracts",
                "cursor",
                "limit",
                "exclude_native",
                "max_token_inactivity",
                "min_pair_side_liquidity_usd",
            ][..],
        ),
        (
            "getWalletNfts",
            &[
                "address",
                "chain",
                "format",
                "limit",
                "exclude_spam",
                "token_addresses",
                "cursor",
                "normalizeMetadata",
                "media_items",
                "include_prices",
            ][..],
        ),
        (
            "getWalletNftCollections",
            &["address", "chain", "limit", "token_counts", "exclude_spam", "cursor", "include_prices"][..],
        ),
        ("getNativeBalance", &["address", "chain", "to_block"][..]),
        ("getNativeBalancesForAddresses", &["chain", "to_block", "wallet_addresses"][..]),
        ("getWalletTokenBalances", &["address", "chain", "to_block", "token_addresses", "exclude_spam"][..]),
        (
            "getTokenPrice",
            &[
                "address",
                "chain",
                "exchange",
                "to_block",
                "include",
                "max_token_inactivity",
                "min_pair_side_liquidity_usd",
            ][..],
        ),
        ("getMultipleTokenPrices", &["chain", "include", "max_token_inactivity", "min_pair_side_liquidity_usd"][..]),
        ("getTokenMetadata", &["chain", "addresses"][..]),
        ("getDateToBlock", &["chain", "date"][..]),
        (
            "getWalletNetWorth",
            &[
                "address",
                "chains",
                "exclude_spam",
                "exclude_unverified_contracts",
                "max_token_inactivity",
                "min_pair_side_liquidity_usd",
            ][..],
        ),
        ("getBlock", &["chain", "block_number_or_hash", "include"][..]),
        ("getTransaction", &["chain", "transaction_hash", "include"][..]),
        ("getTransactionVerbose", &["chain", "transaction_hash", "include"][..]),
        (
            "getNftMetadata",
            &["chain", "address", "token_id", "format", "normalizeMetadata", "media_items", "include_prices"][..],
        ),
        ("getMultipleNfts", &["chain"][..]),
        (
            "getContractNfts",
            &[
                "chain",
                "address",
                "format",
                "limit",
                "totalRanges",
                "range",
                "cursor",
                "normalizeMetadata",
                "media_items",
                "include_prices",
            ][..],
        ),
        ("getNftOwners", &["chain", "address", "format", "limit", "cursor", "normalizeMetadata", "media_items"][..]),
        (
            "getNftTokenIdOwners",
            &["chain", "address", "token_id", "format", "limit", "cursor", "normalizeMetadata", "media_items"][..],
        ),
        ("getWalletStats", &["address", "chain"][..]),
        ("getWalletActiveChains", &["address", "chains"][..]),
        (
            "getWalletTransactions",
            &[
                "address",
                "chain",
                "from_block",
                "to_block",
                "from_date",
                "to_date",
                "cursor",
                "order",
                "limit",
                "include",
            ][..],
        ),
        (
            "getWalletHistory",
            &[
                "address",
                "chain",
                "from_block",
                "to_block",
                "from_date",
                "to_date",
                "nft_metadata",
                "include_input_data",
                "include_internal_transactions",
                "cursor",
                "order",
                "limit",
            ][..],
        ),
        (
            "getWalletTokenTransfers",
            &[
                "address",
                "chain",
                "from_block",
                "to_block",
                "from_date",
                "to_date",
                "contract_addresses",
                "limit",
                "order",
                "cursor",
            ][..],
        ),
        (
            "getTokenTransfers",
            &["address", "chain", "from_block", "to_block", "from_date", "to_date", "limit", "order", "cursor"][..],
        ),
        (
            "getWalletNftTransfers",
            &[
                "address",
                "chain",
                "contract_addresses",
                "format",
                "from_block",
                "to_block",
                "from_date",
                "to_date",
                "include_prices",
                "limit",
                "order",
                "cursor",
            ][..],
        ),
        (
            "getNftContractTransfers",
            &[
                "address",
                "chain",
                "from_block",
                "to_block",
                "from_date",
                "to_date",
                "format",
                "include_prices",
                "limit",
                "order",
                "cursor",
            ][..],
        ),
        ("getStream", &["id"][..]),
        ("getStreams", &["limit", "cursor", "status"][..]),
        ("updateStream", &["id"][..]),
        ("deleteStream", &["id"][..]),
        ("updateStreamStatus", &["id"][..]),
        ("duplicateStream", &["id"][..]),
        ("getStreamAddresses", &["id", "limit", "cursor"][..]),
        ("addAddressToStream", &["id"][..]),
        ("replaceStreamAddresses", &["id"][..]),
        ("deleteAddressFromStream", &["id"][..]),
        ("getStreamBlockData", &["chainId", "blockNumber"][..]),
        (
            "getHistory",
            &[
                "limit",
                "cursor",
                "excludePayload",
                "streamId",
                "transactionHash",
                "chainId",
                "blockNumber",
                "fromTimestamp",
                "toTimestamp",
            ][..],
        ),
        (
            "getDeliveryLogs",
            &[
                "limit",
                "cursor",
                "streamId",
                "transactionHash",
                "deliveryStatus",
                "chainId",
                "blockNumber",
                "fromTimestamp",
                "toTimestamp",
            ][..],
        ),
        ("replayHistory", &["streamId", "id"][..]),
        ("getStatsByStreamId", &["streamId"][..]),
    ]);
    for (_, _, operation) in operations() {
        let id = operation["operationId"].as_str().unwrap();
        let names: BTreeSet<&str> = parameters(operation).iter().map(|p| p["name"].as_str().unwrap()).collect();
        let want: BTreeSet<&str> = expected.get(id).copied().unwrap_or_default().iter().copied().collect();
        assert_eq!(names, want, "{id}");
    }
}

#[test]
fn limit_and_defaults_follow_production() {
    let doc = Document::OpenApi.raw();
    let limit = &doc["components"]["parameters"]["Limit"]["schema"];
    assert_eq!(
        (limit["minimum"].as_u64(), limit["maximum"].as_u64(), limit["default"].as_u64()),
        (Some(0), Some(100), Some(100))
    );
    let nfts = operations().into_iter().find(|(_, _, op)| op["operationId"] == "getWalletNfts").unwrap().2;
    let normalize = parameters(nfts).into_iter().find(|p| p["name"] == "normalizeMetadata").unwrap();
    assert_eq!(normalize["schema"]["default"], true);
    assert_eq!(doc["components"]["schemas"]["Chain"]["default"], "eth");
}

#[test]
fn the_chain_enum_is_the_data_api_chains_in_both_forms() {
    let values: BTreeSet<String> = Document::OpenApi.raw()["components"]["schemas"]["Chain"]["enum"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap().to_string())
        .collect();
    let expected: BTreeSet<String> = Chain::data_api()
        .flat_map(|c| {
            let forms = [c.data_api_name().unwrap().to_string(), c.hex_id().unwrap()];
            forms.into_iter().chain(c.aliases().iter().map(ToString::to_string))
        })
        .collect();
    assert_eq!(values, expected);
    assert_eq!(values.len(), 72, "35 names, 35 hex ids, the interface's 0xaa37d and production's newer 0x31769");
}

#[test]
fn the_rpc_server_lists_the_43_gateway_chains() {
    let server = &Document::OpenRpc.raw()["servers"][0];
    assert_eq!(server["url"], "{rpc_url}/{chain}/{apiKey}");
    let slugs: BTreeSet<&str> =
        server["variables"]["chain"]["enum"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
    let expected: BTreeSet<&str> = Chain::rpc().map(|c| c.rpc_slug().unwrap()).collect();
    assert_eq!(slugs, expected);
    assert_eq!(slugs.len(), 43);
}

#[test]
fn rpc_methods_take_positional_params_and_null_results_where_nothing_is_found() {
    let methods = Document::OpenRpc.raw()["methods"].as_array().unwrap();
    let names: BTreeSet<&str> = methods.iter().map(|m| m["name"].as_str().unwrap()).collect();
    // Lookups of one block, transaction or receipt answer null when there is none.
    let lookups = BTreeSet::from([
        "eth_getBlockByNumber",
        "eth_getBlockByHash",
        "eth_getBlockTransactionCountByHash",
        "eth_getBlockTransactionCountByNumber",
        "eth_getBlockReceipts",
        "eth_getTransactionByHash",
        "eth_getTransactionByBlockHashAndIndex",
        "eth_getTransactionByBlockNumberAndIndex",
        "eth_getTransactionReceipt",
        "trace_transaction",
        "trace_block",
        "ots_getInternalOperations",
        "ots_getTransactionError",
        "ots_traceTransaction",
        "ots_getBlockDetails",
        "ots_getBlockDetailsByHash",
        "ots_getBlockTransactions",
        "ots_getTransactionBySenderAndNonce",
        "ots_getContractCreator",
        "debug_getRawHeader",
        "debug_getRawBlock",
        "debug_getRawReceipts",
        "debug_getRawTransaction",
    ]);
    let others = BTreeSet::from([
        "eth_getTokenPrice",
        "eth_getTokenBalances",
        "eth_getTokenMetadata",
        "eth_getNFTBalances",
        "eth_getNFTCollections",
        "eth_chainId",
        "net_version",
        "web3_clientVersion",
        "eth_syncing",
        "eth_blockNumber",
        "eth_getLogs",
        "eth_getBalance",
        "eth_getTransactionCount",
        "eth_gasPrice",
        "eth_maxPriorityFeePerGas",
        "eth_baseFee",
        "eth_blobBaseFee",
        "eth_config",
        "eth_capabilities",
        "eth_feeHistory",
        "eth_call",
        "eth_estimateGas",
        "eth_createAccessList",
        "eth_simulateV1",
        "testing_buildBlockV1",
        "eth_getCode",
        "eth_getStorageAt",
        "eth_getProof",
        "eth_getStorageValues",
        "eth_sendRawTransaction",
        "eth_newFilter",
        "eth_newBlockFilter",
        "eth_newPendingTransactionFilter",
        "eth_getFilterChanges",
        "eth_getFilterLogs",
        "eth_uninstallFilter",
        "eth_subscribe",
        "eth_unsubscribe",
        "txpool_content",
        "txpool_contentFrom",
        "txpool_status",
        "txpool_inspect",
        "eth_accounts",
        "eth_sendTransaction",
        "eth_sign",
        "personal_sign",
        "eth_signTypedData_v4",
        "eth_getTransactions",
        "eth_getDecodedTransactions",
        "debug_traceTransaction",
        "debug_traceCall",
        "debug_traceBlockByNumber",
        "debug_traceBlockByHash",
        "trace_filter",
        "trace_call",
        "trace_replayTransaction",
        "ots_getApiLevel",
        "ots_hasCode",
        "ots_searchTransactionsBefore",
        "ots_searchTransactionsAfter",
    ]);
    assert_eq!(names, lookups.union(&others).copied().collect());
    for method in methods {
        let name = method["name"].as_str().unwrap();
        assert_eq!(method["paramStructure"], "by-position", "{name}");
        let nullable =
            method["result"]["schema"]["oneOf"].as_array().is_some_and(|alts| alts.iter().any(|a| a["type"] == "null"));
        assert_eq!(nullable, lookups.contains(name), "{name}: a null result exactly where nothing may be found");
    }
}

#[test]
fn unanswerable_methods_are_standard_names_apart_from_the_api() {
    let document = Document::OpenRpc.raw();
    let methods: BTreeSet<&str> =
        document["methods"].as_array().unwrap().iter().map(|m| m["name"].as_str().unwrap()).collect();
    let unanswerable = document["x-unanswerable-methods"].as_array().unwrap();
    assert!(!unanswerable.is_empty());
    for entry in unanswerable {
        let name = entry["name"].as_str().unwrap();
        assert!(name.starts_with("eth_") && !methods.contains(name), "{name}");
        assert!(!entry["reason"].as_str().unwrap().is_empty(), "{name} has a reason");
    }
    assert!(document["components"]["errors"]["MethodNotSupported"]["code"] == -32004);
}

#[test]
fn standard_json_rpc_errors_are_declared() {
    let errors = Document::OpenRpc.raw()["components"]["errors"].as_object().unwrap();
    let codes: BTreeSet<i64> = errors.values().map(|e| e["code"].as_i64().unwrap()).collect();
    for code in [-32700, -32600, -32601, -32602, -32603] {
        assert!(codes.contains(&code), "no error with code {code}");
    }
}
