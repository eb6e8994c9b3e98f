//! Whatever a client sends, the server never answers 5xx: random query
//! strings on every GET operation, random JSON bodies on every POST
//! operation and on the JSON-RPC gateway. Every error answer is an `Error`
//! body (a JSON-RPC error on the gateway).

use std::sync::OnceLock;

use proptest::collection::{btree_map, vec};
use proptest::prelude::*;
use proptest::sample::select;
use serde_json::Value;
use w3api_spec_check::spec::Document;
use w3api_tests::local::Session;

/// The session every case uses: a session per case would use up the server's keys.
fn session() -> &'static Session<'static> {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(Session::new)
}

/// Every query parameter of the spec, array ones also in their `[]` and
/// `[0]` forms.
fn parameters() -> Vec<String> {
    let mut names = Vec::new();
    for item in Document::OpenApi.raw()["paths"].as_object().expect("paths").values() {
        for operation in item.as_object().expect("path item").values() {
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let parameter = w3api_spec_check::spec::resolve(Document::OpenApi.raw(), parameter);
                if parameter["in"] != "query" {
                    continue;
                }
                let name = parameter["name"].as_str().expect("a parameter has a name").to_string();
                if parameter["schema"]["type"] == "array" {
                    names.extend([format!("{name}[]"), format!("{name}[0]")]);
                }
                names.push(name);
            }
        }
    }
    names.sort();
    names.dedup();
    names
}

/// Values near what the parameters take, and anything at all.
fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        select(vec!["true", "false", "0", "100", "101", "-1", "eth", "0x1", "hex", "decimal", "", "NaN", "1e308"])
            .prop_map(String::from),
        "0x[0-9a-fA-F]{0,44}",
        any::<u64>().prop_map(|n| n.to_string()),
        any::<String>(),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![select(parameters()), any::<String>(), "[a-z_]{1,8}\\[[0-9a-z]{0,3}\\]"]
}

fn encode(text: &str) -> String {
    form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

fn path() -> impl Strategy<Value = String> {
    let address = prop_oneof![
        Just("0xd8da6bf26964af9d7eed9e03e53415d37aa96045".to_string()),
        "0x[0-9a-f]{0,41}",
        "[a-zA-Z0-9%]{0,12}"
    ];
    (select(vec!["tokens", "nft", "collections", "stream"]), address).prop_map(|(operation, address)| match operation {
        "tokens" => format!("/api/v2.2/wallets/{address}/tokens"),
        "nft" => format!("/api/v2.2/{address}/nft"),
        "collections" => format!("/api/v2.2/{address}/nft/collections"),
        _ => format!("/streams/evm/{address}"),
    })
}

fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>().prop_filter("finite", |f| f.is_finite()).prop_map(Value::from),
        any::<String>().prop_map(Value::from),
        select(vec!["devnet", "defi.finance", "https://defi.finance/", "2.0", "latest", "0x0"]).prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 24, 6, |inner| {
        let keys = prop_oneof![
            select(vec![
                "domain",
                "uri",
                "address",
                "network",
                "timeout",
                "statement",
                "message",
                "signature",
                "jsonrpc",
                "id",
                "method",
                "params"
            ])
            .prop_map(String::from),
            any::<String>(),
        ];
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            btree_map(keys, inner, 0..6).prop_map(|m| Value::Object(m.into_iter().collect()))
        ]
    })
}

fn assert_error_body(status: u16, body: &Value, text: &str) -> Result<(), TestCaseError> {
    prop_assert!(status < 500, "status {} for {}", status, text);
    if status >= 400 {
        prop_assert!(Document::OpenApi.validate_component("Error", body).is_ok(), "not an Error body: {}", text);
    }
    Ok(())
}

#[test]
fn the_fuzzed_parameters_are_the_specs() {
    let names = parameters();
    for expected in ["chain", "cursor", "limit", "format", "token_addresses", "token_addresses[]", "token_counts"] {
        assert!(names.iter().any(|n| n == expected), "{expected} in {names:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_query_strings_never_fail_the_server(path in path(), pairs in vec((key(), value()), 0..6)) {
        let h = session();
        let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{}={}", encode(k), encode(v))).collect();
        let url = format!("{}{path}?{}", h.base(), query.join("&"));
        let answer = h.send(|c| c.get(&url).header("x-api-key", h.key()));
        assert_error_body(answer.status, &answer.body, &answer.text)?;
    }

    #[test]
    fn random_json_bodies_never_fail_the_server(operation in select(vec!["request", "verify"]), body in json()) {
        let h = session();
        let url = format!("{}/challenge/{operation}/solana", h.base());
        let answer = h.send(|c| c.post(&url).header("x-api-key", h.key()).json(&body));
        assert_error_body(answer.status, &answer.body, &answer.text)?;
    }

    #[test]
    fn random_json_rpc_bodies_never_fail_the_gateway(body in json(), method in select(vec![
        "eth_getTokenPrice", "eth_getBlockByNumber", "eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex",
        "eth_getTokenBalances", "eth_getTokenMetadata", "eth_getNFTBalances", "eth_getNFTCollections",
        "eth_getTransactions", "eth_getDecodedTransactions",
    ]), params in vec(json(), 0..3)) {
        let h = session();
        let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        for body in [body, call] {
            let answer = h.post_rpc("eth", &body);
            prop_assert!(answer.status < 500, "status {} for {}", answer.status, answer.text);
            prop_assert!(answer.body.is_object() || answer.body.is_array(), "not JSON-RPC: {}", answer.text);
        }
    }
}
