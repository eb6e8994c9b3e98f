//! The test data of `tests/fixtures` decodes into the types of the operations they answer:
//! every published production response, and every Ethereum execution-API
//! result (which must also re-encode to the same JSON and match the spec).

use serde::de::DeserializeOwned;
use serde_json::Value;
use w3api_spec_check::fixtures::{self, RealWorldSample};
use w3api_spec_check::spec::Document;
use w3api_types::rpc::{Block, BlockNumberOrTag, Hash32, TokenPrice, Transaction, TransactionIndex};
use w3api_types::*;

fn decode<T: DeserializeOwned>(what: &str, json: &Value) -> Result<T, String> {
    serde_json::from_value(json.clone()).map_err(|e| format!("{what} does not decode: {e}"))
}

/// The `result`s of a JSON-RPC response, or of each response of a batch.
/// Results of other methods in a batch (plain strings, such as balances) are
/// not this operation's and are left out.
fn rpc_results(json: &Value) -> Vec<&Value> {
    let responses: Vec<&Value> = match json {
        Value::Array(batch) => batch.iter().collect(),
        single => vec![single],
    };
    responses.into_iter().map(|r| &r["result"]).filter(|result| !result.is_string()).collect()
}

fn decode_results<T: DeserializeOwned>(json: &Value) -> Result<(), String> {
    let results = rpc_results(json);
    if results.is_empty() {
        return Err("no result of this operation in the sample".into());
    }
    results.into_iter().try_for_each(|result| decode::<Option<T>>("result", result).map(drop))
}

/// Decodes a sample with the type of the operation its folder names.
fn decode_sample(sample: &RealWorldSample) -> Result<(), String> {
    let json = &sample.json;
    match sample.group.as_str() {
        // Error samples are `{status, body}` or the bare body.
        "errors" => decode::<Error>("error body", json.get("body").unwrap_or(json)).map(drop),
        "eth_getBlockByNumber" => decode_results::<Block>(json),
        "eth_getTransactionByBlock" => decode_results::<Transaction>(json),
        "eth_getTokenPrice" => decode::<TokenPrice>("token price", json).map(drop),
        "get_stream" => decode::<EvmStream>("stream", json).map(drop),
        "nft_collections" => decode::<NftCollectionPage>("collection page", json).map(drop),
        "wallet_nfts" => decode::<NftPage>("NFT page", json).map(drop),
        "wallet_tokens" => decode::<TokenBalancePage>("token balance page", json).map(drop),
        "solana_request" => {
            decode::<SolanaChallengeRequest>("request", &json["request"])?;
            decode::<SolanaChallengeResponse>("response", &json["response"]).map(drop)
        }
        "solana_verify" => match json.get("response") {
            Some(response) => {
                decode::<SolanaVerifyRequest>("request", &json["request"])?;
                decode::<SolanaVerifiedChallenge>("response", response).map(drop)
            }
            None => decode::<SolanaVerifiedChallenge>("verified challenge", json).map(drop),
        },
        other => Err(format!("no operation is known for the folder {other:?}; add it to decode_sample")),
    }
}

/// The repository is the nearest folder above the running package that holds
/// the specs and the lock file: what a test binary run in a copy of the clone
/// (as `.ci/run` does) reads instead of the clone it was built in.
#[test]
fn the_repository_is_found_above_the_running_package() {
    let root = w3api_spec_check::repository_root();
    assert!(root.join("spec/openapi.yaml").is_file() && root.join("Cargo.lock").is_file(), "{}", root.display());
    let package = std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo test names the package");
    assert!(std::path::Path::new(&package).starts_with(&root), "{} is below {}", package.display(), root.display());
    assert!(fixtures::fixtures_dir().join("README.md").is_file(), "the test data says where it came from");
}

#[test]
fn every_real_world_sample_decodes() {
    let dir = fixtures::fixtures_dir();
    let samples = fixtures::real_world(&dir);
    assert!(samples.len() >= 30, "only {} samples under {}", samples.len(), dir.display());
    let failures: Vec<String> = samples
        .iter()
        .filter_map(|sample| decode_sample(sample).err().map(|e| format!("{}: {e}", sample.path.display())))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The documentation samples with elided data keep it verbatim.
#[test]
fn elided_hex_in_samples_is_kept_verbatim() {
    let dir = fixtures::fixtures_dir();
    let tx_sample = dir.join("real-world/eth_getTransactionByBlock/3.json");
    let json: Value = serde_json::from_str(&std::fs::read_to_string(tx_sample).unwrap()).unwrap();
    let tx: Transaction = serde_json::from_value(json["result"].clone()).unwrap();
    assert_eq!(tx.input.unparsed(), Some("0xa76dfc3b..."));
    assert_eq!(serde_json::to_value(&tx).unwrap()["input"], "0xa76dfc3b...");
    assert!(tx.to_alloy().is_err(), "alloy must refuse a transaction with elided input");
}

/// The params of a request, decoded into the method's parameter types.
fn decode_params(method: &str, params: &Value) -> Result<(), String> {
    let params = params.as_array().ok_or("params is not an array")?;
    match (method, params.as_slice()) {
        ("eth_getBlockByNumber", [block, hydrated]) => {
            decode::<BlockNumberOrTag>("block", block)?;
            decode::<bool>("hydrated", hydrated).map(drop)
        }
        ("eth_getTransactionByBlockHashAndIndex", [hash, index]) => {
            decode::<Hash32>("block hash", hash)?;
            decode::<TransactionIndex>("index", index).map(drop)
        }
        ("eth_getTransactionByBlockNumberAndIndex", [block, index]) => {
            decode::<BlockNumberOrTag>("block", block)?;
            decode::<TransactionIndex>("index", index).map(drop)
        }
        (method, params) => Err(format!("{method} with {} params is not an operation of the interface", params.len())),
    }
}

/// The result decoded into the method's result type and encoded again.
fn reencode_result(method: &str, result: &Value) -> Result<Value, String> {
    let encoded = match method {
        "eth_getBlockByNumber" => serde_json::to_value(decode::<Option<Block>>("block", result)?),
        "eth_getTransactionByBlockHashAndIndex" | "eth_getTransactionByBlockNumberAndIndex" => {
            serde_json::to_value(decode::<Option<Transaction>>("transaction", result)?)
        }
        other => return Err(format!("{other} is not an operation of the interface")),
    };
    encoded.map_err(|e| e.to_string())
}

/// The schemas of a method's params and result in `spec/openrpc.json`.
fn method_schemas(method: &str) -> (Vec<Value>, Value) {
    let doc = Document::OpenRpc.raw();
    let declared = doc["methods"].as_array().unwrap().iter().find(|m| m["name"] == method);
    let declared = declared.unwrap_or_else(|| panic!("{method} is not in spec/openrpc.json"));
    let params = declared["params"].as_array().unwrap().iter().map(|p| p["schema"].clone()).collect();
    (params, declared["result"]["schema"].clone())
}

#[test]
fn execution_api_results_decode_reencode_identically_and_match_the_spec() {
    let dir = fixtures::fixtures_dir();
    let cases = fixtures::typed_execution_apis(&dir);
    assert!(cases.len() >= 12, "{} execution-API cases under {}", cases.len(), dir.display());
    let mut failures = Vec::new();
    for case in &cases {
        let at = case.path.display();
        let method = case.method();
        let result = &case.response["result"];
        if let Err(e) = decode_params(method, &case.request["params"]) {
            failures.push(format!("{at}: {e}"));
        }
        match reencode_result(method, result) {
            Ok(encoded) if &encoded == result => {}
            Ok(encoded) => failures.push(format!("{at}: re-encodes differently:\n  was {result}\n  now {encoded}")),
            Err(e) => failures.push(format!("{at}: {e}")),
        }
        let (param_schemas, result_schema) = method_schemas(method);
        for (schema, param) in param_schemas.iter().zip(case.request["params"].as_array().unwrap()) {
            if let Err(e) = Document::OpenRpc.validate(schema, param) {
                failures.push(format!("{at}: param {param}: {e}"));
            }
        }
        if let Err(e) = Document::OpenRpc.validate(&result_schema, result) {
            failures.push(format!("{at}: result does not match the spec: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Blocks and transactions convert to alloy's types, which re-derive their hashes.
#[test]
fn execution_api_results_convert_to_alloy_and_rederive_hashes() {
    let dir = fixtures::fixtures_dir();
    for case in fixtures::execution_apis(&dir) {
        let result = &case.response["result"];
        if case.method() == "eth_getBlockByNumber" && !result.is_null() {
            let block: Block = serde_json::from_value(result.clone()).unwrap();
            let alloy = block.to_alloy().unwrap_or_else(|e| panic!("{}: {e}", case.path.display()));
            assert_eq!(alloy.header.hash_slow(), block.hash, "{}: header hash", case.path.display());
        }
    }
}
