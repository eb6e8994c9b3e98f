//! The execution clients' RPC suite (`ethereum/execution-apis`' `tests/`,
//! as hive's `rpc-compat` runs it) replayed against a server whose devnet
//! imported the suite's chain (`--init genesis.json --import chain.rlp`).
//!
//! Each test's answers must equal the suite's, compared as hive compares
//! them: exact JSON, but for error messages, which clients word their own
//! way (the codes must agree), and for the tests marked `speconly`, whose
//! answers depend on the node: a result is checked against the method's
//! schema in `spec/openrpc.json`, and an error answers an error. As in hive, sent transactions are not mined: no consensus client
//! drives the node, so they wait in the pool.
//!
//! The tests that do not pass yet are listed in `execution_apis_open.txt`,
//! each with the reason. A listed test that passes fails this one, so the
//! list only shrinks.

use std::collections::BTreeMap;

use serde_json::Value;
use w3api_server::ServerConfig;
use w3api_spec_check::fixtures::{self, ExecutionApiTest};
use w3api_spec_check::spec::Document;
use w3api_tests::local::Setup;
use w3api_types::Chain;

/// The tests that do not pass yet: `<method>/<case>` and why.
const OPEN: &str = include_str!("execution_apis_open.txt");

fn open_tests() -> BTreeMap<&'static str, &'static str> {
    let lines = OPEN.lines().map(str::trim).filter(|line| !line.is_empty() && !line.starts_with('#'));
    lines
        .map(|line| {
            let (name, reason) = line.split_once(' ').unwrap_or_else(|| panic!("a test without a reason: {line}"));
            (name, reason.trim())
        })
        .collect()
}

/// What is wrong with `answer` to a request the suite answers `expected`;
/// nothing when they agree as hive requires.
fn disagreement(test: &ExecutionApiTest, method: &str, answer: &Value, expected: &Value) -> Option<String> {
    if test.speconly {
        return match (answer.get("result"), expected.get("error")) {
            // An error expected: an error is the answer's shape.
            (None, Some(_)) if answer.get("error").is_some() => None,
            (Some(result), None) => Document::check_rpc_result(method, result).err(),
            _ => Some(format!("answered {answer}, the suite {expected}")),
        };
    }
    let (mut answer, mut expected) = (answer.clone(), expected.clone());
    redact_error_messages(&mut answer, &mut expected);
    let mut differences = Vec::new();
    differ("", &answer, &expected, &mut differences);
    (!differences.is_empty()).then(|| differences.join("\n      "))
}

/// Where `ours` and `theirs` differ, by JSON path, at most a few.
fn differ(path: &str, ours: &Value, theirs: &Value, found: &mut Vec<String>) {
    const SHOWN: usize = 6;
    let short = |value: &Value| {
        let text = value.to_string();
        if text.len() > 160 { format!("{}...", &text[..160]) } else { text }
    };
    match (ours, theirs) {
        (Value::Object(a), Value::Object(b)) => {
            for key in a.keys().chain(b.keys().filter(|key| !a.contains_key(*key))) {
                let at = format!("{path}.{key}");
                match (a.get(key), b.get(key)) {
                    (Some(x), Some(y)) => differ(&at, x, y, found),
                    (Some(x), None) => found.push(format!("{at}: ours has {}, the suite's has none", short(x))),
                    (None, Some(y)) => found.push(format!("{at}: ours has none, the suite's has {}", short(y))),
                    (None, None) => {}
                }
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                differ(&format!("{path}[{index}]"), x, y, found);
            }
        }
        (a, b) if a != b => found.push(format!("{path}: ours {}, the suite's {}", short(a), short(b))),
        _ => {}
    }
    found.truncate(SHOWN);
}

/// Removes the `message` of every error object both sides have at the same
/// place, however deep (`eth_simulateV1` nests its calls' errors).
fn redact_error_messages(answer: &mut Value, expected: &mut Value) {
    match (answer, expected) {
        (Value::Object(ours), Value::Object(theirs)) => {
            if let (Some(Value::Object(our_error)), Some(Value::Object(their_error))) =
                (ours.get_mut("error"), theirs.get_mut("error"))
                && our_error.contains_key("message")
                && their_error.contains_key("message")
            {
                our_error.remove("message");
                their_error.remove("message");
            }
            for (key, value) in ours.iter_mut() {
                if let Some(theirs) = theirs.get_mut(key) {
                    redact_error_messages(value, theirs);
                }
            }
        }
        (Value::Array(ours), Value::Array(theirs)) => {
            for (ours, theirs) in ours.iter_mut().zip(theirs) {
                redact_error_messages(ours, theirs);
            }
        }
        _ => {}
    }
}

#[test]
fn the_execution_clients_suite_passes_on_its_imported_chain_but_for_the_tests_listed_open() {
    let dir = fixtures::fixtures_dir().join("execution-apis");
    let genesis = serde_json::from_slice(&std::fs::read(dir.join("genesis.json")).unwrap()).unwrap();
    let chain_rlp = std::fs::read(dir.join("chain.rlp")).unwrap();
    let chain: Chain = "0xc72dd9d5e883e".parse().unwrap();
    let local = Setup::new()
        .config(move |config| ServerConfig { extra_chains: vec![chain], ..config })
        .source(move |devnet| devnet.with_automine(false).with_chain(genesis, &chain_rlp).unwrap())
        .start();
    let session = local.session();
    let url = format!("{}/{chain}/{}", local.base(), session.key());
    let http = w3api_tests::http_client();
    let tests = fixtures::execution_api_tests(&fixtures::fixtures_dir());
    assert!(tests.len() >= 232, "{} tests", tests.len());
    let failing: BTreeMap<String, String> = local.run(async {
        let mut failing = BTreeMap::new();
        for test in &tests {
            for exchange in &test.exchanges {
                let sent = http.post(&url).json(&exchange.request).send().await.unwrap();
                let answer: Value = sent.json().await.unwrap();
                if let Some(why) = disagreement(test, exchange.method(), &answer, &exchange.response) {
                    failing.insert(test.name.clone(), format!("{}\n      {why}", exchange.request));
                    break;
                }
            }
        }
        failing
    });
    let open = open_tests();
    let unknown: Vec<_> = open.keys().filter(|name| !tests.iter().any(|test| test.name == **name)).collect();
    assert!(unknown.is_empty(), "listed open but not in the suite: {unknown:?}");
    let mut problems = Vec::new();
    for (name, why) in &failing {
        if !open.contains_key(name.as_str()) {
            problems.push(format!("{name} fails:\n      {why}"));
        }
    }
    for name in open.keys().filter(|name| !failing.contains_key(**name)) {
        problems.push(format!("{name} passes now: remove it from execution_apis_open.txt"));
    }
    let passed = tests.len() - failing.len();
    assert!(problems.is_empty(), "{passed} of {} pass\n{}", tests.len(), problems.join("\n"));
}
