//! `w3api serve` as a user runs it: what it prints, the book's curl
//! examples run as printed, keys from the environment, and SIGTERM.
#![cfg(unix)]

use std::io::{BufRead, BufReader, Read};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;
use w3api_rpc::method;
use w3api_spec_check::spec::Document;
use w3api_types::Address;

use crate::book;

/// A runtime for a test's client calls, two threads.
pub(crate) fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

/// A database of the test's own on the cluster the environment names, if
/// it names one (the tests of `what` skip, saying so, otherwise): a
/// devnet chain's journal is one per database.
pub(crate) fn database(what: &str) -> Option<String> {
    let url = w3api_store::testing::database_url(what)?;
    Some(runtime().block_on(w3api_store::testing::fresh_database(&url)))
}

/// Longest wait for a line of output or for the process to exit.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running `w3api serve`.
pub(crate) struct Server {
    child: Child,
    stdout: Receiver<String>,
    /// Everything written to stderr, read as it comes: a pipe nobody reads
    /// fills, and the server then blocks on its next log line.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    pub(crate) base: String,
}

impl Server {
    /// Starts `w3api serve --listen 127.0.0.1:0 <args>` and waits for its
    /// `listening on` line.
    pub(crate) fn start(args: &[&str], env: &[(&str, &str)]) -> Server {
        let mut command = Command::new(env!("CARGO_BIN_EXE_w3api"));
        command.args(["serve", "--listen", "127.0.0.1:0", "--index-delay", "1s"]).args(args);
        command
            .env_remove("W3API_API_KEYS")
            .env_remove("W3API_API_KEY")
            .env("RUST_LOG", "debug")
            .envs(env.iter().copied());
        let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("w3api starts");
        let stdout = lines(child.stdout.take().expect("piped stdout"));
        let stderr = drain(child.stderr.take().expect("piped stderr"));
        let mut server = Server { child, stdout, stderr, base: String::new() };
        let first = server.line();
        server.base =
            first.strip_prefix("listening on ").unwrap_or_else(|| panic!("first line: {first:?}")).to_string();
        server
    }

    /// The next line on stdout.
    pub(crate) fn line(&mut self) -> String {
        match self.stdout.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(RecvTimeoutError::Timeout) => panic!("w3api printed nothing for {PATIENCE:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("w3api closed stdout: {:?}", self.child.try_wait()),
        }
    }

    /// Sends SIGTERM; returns whether it exited successfully, and its stderr.
    pub(crate) fn terminate(mut self) -> (bool, String) {
        let status = Command::new("kill").args(["-TERM", &self.child.id().to_string()]).status().expect("kill runs");
        assert!(status.success(), "kill -TERM failed");
        let started = Instant::now();
        let exit = loop {
            if let Some(exit) = self.child.try_wait().expect("waiting for w3api") {
                break exit;
            }
            assert!(started.elapsed() < PATIENCE, "w3api did not exit after SIGTERM");
            std::thread::sleep(Duration::from_millis(20));
        };
        // The drain ends with the process; give it a moment to read the last of it.
        let drained = Instant::now();
        while std::sync::Arc::strong_count(&self.stderr) > 1 && drained.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(10));
        }
        let stderr = self.stderr.lock().unwrap().clone();
        (exit.success(), stderr)
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Reads `stream` to its end on a thread of its own, into the text returned.
fn drain(mut stream: impl Read + Send + 'static) -> std::sync::Arc<std::sync::Mutex<String>> {
    let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let kept = text.clone();
    std::thread::spawn(move || {
        let mut chunk = [0u8; 8192];
        while let Ok(read) = stream.read(&mut chunk) {
            if read == 0 {
                break;
            }
            kept.lock().unwrap().push_str(&String::from_utf8_lossy(&chunk[..read]));
        }
    });
    text
}

pub(crate) fn lines(stream: impl Read + Send + 'static) -> Receiver<String> {
    let (send, receive) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    receive
}

/// A free port below the ephemeral range (32768 and up on Linux), which no
/// other test's bind to port 0 can take before the curl page's receiver binds it.
fn unleased_port() -> u16 {
    let start = 20_000 + u16::try_from(std::process::id() % 10_000).unwrap_or(0);
    (start..30_000)
        .chain(20_000..start)
        .find(|port| std::net::TcpListener::bind(("127.0.0.1", *port)).is_ok())
        .expect("a free port between 20000 and 30000")
}

/// `PATH` with the directory of the binary under test first, so that the
/// book's `w3api` is this build.
fn path_with_the_binary() -> std::ffi::OsString {
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_w3api"));
    let dirs = std::iter::once(binary.parent().expect("the binary is in a directory").to_path_buf());
    let rest =
        std::env::var_os("PATH").map(|path| std::env::split_paths(&path).collect::<Vec<_>>()).unwrap_or_default();
    std::env::join_paths(dirs.chain(rest)).expect("PATH entries join")
}

/// What the curl page's examples answer, in the order they are printed; the
/// sign-in challenge goes to a file rather than stdout.
const CURL_PAGE_ANSWERS: [Answer; 129] = [
    Answer::Rest("GET", "/api/v2.2/wallets/{address}/tokens", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/nft", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/nft/collections", 200),
    Answer::Rest("GET", "/api/v2.2/nft/{address}/{token_id}", 200),
    Answer::Rest("POST", "/api/v2.2/nft/getMultipleNFTs", 200),
    Answer::Rest("GET", "/api/v2.2/nft/{address}", 200),
    Answer::Rest("GET", "/api/v2.2/nft/{address}/owners", 200),
    Answer::Rest("GET", "/api/v2.2/nft/{address}/{token_id}/owners", 200),
    Answer::Rest("GET", "/api/v2.2/block/{block_number_or_hash}", 200),
    Answer::Rest("GET", "/api/v2.2/transaction/{transaction_hash}", 200),
    Answer::Rest("GET", "/api/v2.2/transaction/{transaction_hash}/verbose", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/erc20", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/balance", 200),
    Answer::Rest("GET", "/api/v2.2/wallets/balances", 200),
    Answer::Rest("GET", "/api/v2.2/erc20/{address}/price", 200),
    Answer::Rest("POST", "/api/v2.2/erc20/prices", 200),
    Answer::Rest("GET", "/api/v2.2/erc20/metadata", 200),
    Answer::Rest("GET", "/api/v2.2/dateToBlock", 200),
    Answer::Rest("GET", "/api/v2.2/wallets/{address}/net-worth", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/erc20/transfers", 200),
    Answer::Rest("GET", "/api/v2.2/erc20/{address}/transfers", 200),
    Answer::Rest("GET", "/api/v2.2/{address}/nft/transfers", 200),
    Answer::Rest("GET", "/api/v2.2/nft/{address}/transfers", 200),
    Answer::Rest("GET", "/api/v2.2/{address}", 200),
    Answer::Rest("GET", "/api/v2.2/wallets/{address}/history", 200),
    Answer::Rest("GET", "/api/v2.2/wallets/{address}/stats", 200),
    Answer::Rest("GET", "/api/v2.2/wallets/{address}/chains", 200),
    Answer::Rest("PUT", "/streams/evm", 200),
    Answer::Rest("GET", "/streams/evm", 200),
    Answer::Rest("GET", "/streams/evm/{id}", 200),
    Answer::Rest("POST", "/streams/evm/{id}", 200),
    Answer::Rest("POST", "/streams/evm/{id}/status", 200),
    Answer::Rest("POST", "/streams/evm/{id}/address", 200),
    Answer::Rest("DELETE", "/streams/evm/{id}/address", 200),
    Answer::Rest("PATCH", "/streams/evm/{id}/address", 200),
    Answer::Rest("GET", "/streams/evm/{id}/address", 200),
    Answer::Rest("POST", "/streams/evm/{id}/status", 200),
    Answer::Rest("POST", "/streams/evm/{id}/duplicate", 200),
    Answer::Rest("POST", "/streams/evm/{chainId}/block/{blockNumber}", 200),
    Answer::Rest("GET", "/settings", 200),
    Answer::Rest("POST", "/settings", 200),
    Answer::Rest("GET", "/history", 200),
    Answer::Rest("POST", "/history/replay/{streamId}/{id}", 200),
    Answer::Rest("GET", "/history/logs", 200),
    Answer::Rest("GET", "/stats", 200),
    Answer::Rest("GET", "/stats/{streamId}", 200),
    Answer::Rest("DELETE", "/streams/evm/{id}", 200),
    Answer::Rest("POST", "/challenge/verify/solana", 201),
    Answer::Rpc("eth_getBlockByNumber"),
    Answer::Rpc("eth_getTransactionByBlockHashAndIndex"),
    Answer::Rpc("eth_getTransactionByBlockNumberAndIndex"),
    Answer::Rpc("eth_getTokenPrice"),
    Answer::Rpc("eth_getTokenBalances"),
    Answer::Rpc("eth_getTokenMetadata"),
    Answer::Rpc("eth_getNFTBalances"),
    Answer::Rpc("eth_getNFTCollections"),
    Answer::Rpc("eth_getTransactions"),
    Answer::Rpc("eth_getDecodedTransactions"),
    Answer::Rpc("eth_chainId"),
    Answer::Rpc("net_version"),
    Answer::Rpc("web3_clientVersion"),
    Answer::Rpc("eth_syncing"),
    Answer::Rpc("eth_blockNumber"),
    Answer::Rpc("eth_getBlockByHash"),
    Answer::Rpc("eth_getBlockTransactionCountByHash"),
    Answer::Rpc("eth_getBlockTransactionCountByNumber"),
    Answer::Rpc("eth_getTransactionByHash"),
    Answer::Rpc("eth_getTransactionReceipt"),
    Answer::Rpc("eth_getBlockReceipts"),
    Answer::Rpc("eth_getLogs"),
    Answer::Rpc("eth_getBalance"),
    Answer::Rpc("eth_getTransactionCount"),
    Answer::Rpc("eth_gasPrice"),
    Answer::Rpc("eth_maxPriorityFeePerGas"),
    Answer::Rpc(method::ETH_BASE_FEE),
    Answer::Rpc(method::ETH_BLOB_BASE_FEE),
    Answer::Rpc(method::ETH_CONFIG),
    Answer::Rpc(method::ETH_CAPABILITIES),
    Answer::Rpc("eth_feeHistory"),
    Answer::Rpc(method::ETH_CALL),
    Answer::Rpc(method::ETH_ESTIMATE_GAS),
    Answer::Rpc(method::ETH_CREATE_ACCESS_LIST),
    Answer::Rpc(method::ETH_SIMULATE_V1),
    Answer::Rpc(method::TESTING_BUILD_BLOCK_V1),
    Answer::Rpc(method::ETH_GET_CODE),
    Answer::Rpc(method::ETH_GET_STORAGE_AT),
    Answer::Rpc(method::ETH_GET_PROOF),
    Answer::Rpc(method::ETH_GET_STORAGE_VALUES),
    Answer::Rpc(method::ETH_SEND_RAW_TRANSACTION),
    Answer::Rpc(method::ETH_NEW_FILTER),
    Answer::Rpc(method::ETH_NEW_BLOCK_FILTER),
    Answer::Rpc(method::ETH_NEW_PENDING_TRANSACTION_FILTER),
    Answer::Rpc(method::ETH_GET_FILTER_CHANGES),
    Answer::Rpc(method::ETH_GET_FILTER_LOGS),
    Answer::Rpc(method::ETH_UNINSTALL_FILTER),
    Answer::Rpc(method::ETH_ACCOUNTS),
    Answer::Rpc(method::ETH_SEND_TRANSACTION),
    Answer::Rpc(method::ETH_SIGN),
    Answer::Rpc(method::PERSONAL_SIGN),
    Answer::Rpc(method::ETH_SIGN_TYPED_DATA_V4),
    Answer::Rpc(method::TXPOOL_STATUS),
    Answer::Rpc(method::TXPOOL_CONTENT),
    Answer::Rpc(method::TXPOOL_CONTENT_FROM),
    Answer::Rpc(method::TXPOOL_INSPECT),
    Answer::Rpc(method::DEBUG_TRACE_TRANSACTION),
    Answer::Rpc(method::DEBUG_TRACE_BLOCK_BY_NUMBER),
    Answer::Rpc(method::DEBUG_TRACE_CALL),
    Answer::Rpc(method::DEBUG_TRACE_BLOCK_BY_HASH),
    Answer::Rpc(method::DEBUG_GET_RAW_HEADER),
    Answer::Rpc(method::DEBUG_GET_RAW_BLOCK),
    Answer::Rpc(method::DEBUG_GET_RAW_RECEIPTS),
    Answer::Rpc(method::DEBUG_GET_RAW_TRANSACTION),
    Answer::Rpc(method::TRACE_TRANSACTION),
    Answer::Rpc(method::TRACE_BLOCK),
    Answer::Rpc(method::TRACE_FILTER),
    Answer::Rpc(method::TRACE_CALL),
    Answer::Rpc(method::TRACE_REPLAY_TRANSACTION),
    Answer::Rpc(method::OTS_GET_API_LEVEL),
    Answer::Rpc(method::OTS_HAS_CODE),
    Answer::Rpc(method::OTS_GET_INTERNAL_OPERATIONS),
    Answer::Rpc(method::OTS_GET_TRANSACTION_ERROR),
    Answer::Rpc(method::OTS_TRACE_TRANSACTION),
    Answer::Rpc(method::OTS_GET_BLOCK_DETAILS),
    Answer::Rpc(method::OTS_GET_BLOCK_DETAILS_BY_HASH),
    Answer::Rpc(method::OTS_GET_BLOCK_TRANSACTIONS),
    Answer::Rpc(method::OTS_SEARCH_TRANSACTIONS_BEFORE),
    Answer::Rpc(method::OTS_SEARCH_TRANSACTIONS_AFTER),
    Answer::Rpc(method::OTS_GET_TRANSACTION_BY_SENDER_AND_NONCE),
    Answer::Rpc(method::OTS_GET_CONTRACT_CREATOR),
];

enum Answer {
    Rest(&'static str, &'static str, u16),
    Rpc(&'static str),
}

impl Answer {
    fn check(&self, body: &Value) -> Result<(), String> {
        match self {
            Answer::Rest(method, template, status) => Document::check_response(template, method, *status, body),
            Answer::Rpc(method) => match body.get("result") {
                Some(result) if !result.is_null() => Document::check_rpc_result(method, result),
                _ => Err(format!("{method} answered without a result: {body}")),
            },
        }
    }
}

#[test]
fn the_curl_page_covers_every_operation() {
    let mut covered: Vec<String> = CURL_PAGE_ANSWERS
        .iter()
        .map(|answer| match answer {
            Answer::Rest(method, template, _) => format!("{method} {template}"),
            Answer::Rpc(method) => (*method).to_string(),
        })
        .collect();
    covered.push("POST /challenge/request/solana".into());
    covered.sort();
    covered.dedup();
    let mut operations: Vec<String> =
        w3api_spec_check::spec::rest_operations().iter().map(|(method, path)| format!("{method} {path}")).collect();
    // curl speaks HTTP: the methods of a WebSocket are on the subscriptions page.
    let over_http = |name: &&str| !method::WEBSOCKET_ONLY.contains(name);
    operations.extend(
        Document::OpenRpc.raw()["methods"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["name"].as_str().unwrap())
            .filter(over_http)
            .map(str::to_string),
    );
    operations.sort();
    assert_eq!(covered, operations);
}

#[test]
fn serve_prints_what_a_user_needs_runs_the_curl_page_and_stops_on_sigterm() {
    let mut server = Server::start(&[], &[]);
    let page = server.line();
    assert_eq!(page, format!("stream deliveries at {}/dashboard", server.base));
    let key_line = server.line();
    let key = key_line.strip_prefix("api key ").and_then(|rest| rest.split(' ').next()).expect("a generated key");
    assert_eq!(key.len(), 32, "{key_line}");
    let key = key.to_string();

    let workdir = tempfile::tempdir().unwrap();
    // Each answer on its own line; the blocks themselves run unchanged, with
    // the binary under test first on the PATH. Whatever the page leaves
    // running when a line fails (the webhook receiver) is stopped with it.
    let script = format!(
        "trap 'status=$?; kill $(jobs -p) 2>/dev/null || true; exit $status' EXIT\n\
         curl() {{ command curl -w '\\n' \"$@\"; }}\n{}",
        book::blocks(&book::section("curl.md", "curl"), "sh").join("\n")
    );
    let output = Command::new("bash")
        .args(["-euo", "pipefail", "-c", &script])
        .current_dir(workdir.path())
        .env("PATH", path_with_the_binary())
        .env("W3API_URL", &server.base)
        .env("W3API_API_KEY", &key)
        .env("W3API_HOOK_PORT", unleased_port().to_string())
        .output()
        .expect("bash runs (and curl is installed)");
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        output.status.success(),
        "the curl page failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    let answers: Vec<Value> =
        stdout.lines().filter(|l| !l.is_empty()).map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(answers.len(), CURL_PAGE_ANSWERS.len(), "one answer per example:\n{stdout}");
    for (expected, body) in CURL_PAGE_ANSWERS.iter().zip(&answers) {
        expected.check(body).unwrap();
    }
    assert_eq!(answers[0]["result"].as_array().map(Vec::len), Some(5), "limit=5 gives five tokens");
    for page in &answers[19..25] {
        assert_eq!(page["result"].as_array().map(Vec::len), Some(2), "limit=2 gives two items: {page}");
    }
    assert_eq!(answers[26]["active_chains"].as_array().map(Vec::len), Some(2), "two chains asked");
    let challenge: Value =
        serde_json::from_slice(&std::fs::read(workdir.path().join("challenge.json")).unwrap()).unwrap();
    Document::check_response("/challenge/request/solana", "POST", 201, &challenge).unwrap();
    assert_eq!(answers[47]["id"], challenge["id"], "the verified challenge is the one requested");
    let history = &answers[41];
    assert_eq!(history["total"], 1, "the wallet's ether is one delivery: {history}");
    assert_eq!(history["result"][0]["payload"]["txs"][0]["toAddress"], "0x1111111111111111111111111111111111111111");

    let (clean_exit, stderr) = server.terminate();
    assert!(clean_exit, "SIGTERM ends w3api serve with status 0; stderr:\n{stderr}");
    assert!(stderr.contains("/eth/<redacted>"), "RPC requests are logged at debug, key redacted:\n{stderr}");
    assert!(!stderr.contains(&key), "the API key appears in the logs");
}

#[test]
fn keys_come_from_flags_and_the_environment() {
    let server =
        Server::start(&["--api-key", "flag-one", "--api-key", "flag-two", "--api-keys", "list-one,list-two"], &[]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let http = w3api_tests::http_client();
    let status = |server: &Server, key: &str| {
        let url = format!("{}/streams/evm?limit=1", server.base);
        runtime.block_on(async { http.get(url).header("X-API-Key", key).send().await.unwrap().status().as_u16() })
    };
    for (key, expected) in [("flag-one", 200), ("flag-two", 200), ("list-one", 200), ("list-two", 200), ("other", 401)]
    {
        assert_eq!(status(&server, key), expected, "flags: key {key:?}");
    }
    drop(server);

    // Both variables count: the server's list and the key a client on the same shell sends.
    let mut server = Server::start(&[], &[("W3API_API_KEYS", "env-one, env-two"), ("W3API_API_KEY", "client-key")]);
    let printed = server.line();
    assert!(printed.starts_with("stream deliveries at "), "no generated key is printed: {printed:?}");
    for (key, expected) in [("env-one", 200), ("env-two", 200), ("client-key", 200), ("flag-one", 401), ("", 401)] {
        assert_eq!(status(&server, key), expected, "environment: key {key:?}");
    }
}

#[test]
fn bad_options_are_named_and_fail() {
    for (args, named) in [
        (&["serve", "--index-delay", "soon"][..], "--index-delay"),
        (&["serve", "--listen", "localhost"][..], "--listen"),
        (&["serve", "--scale", "huge"][..], "--scale"),
        (&["serve", "--cors-origin", "localhost:3000"][..], "--cors-origin"),
        (&["serve", "--cors-origin", "http://localhost:3000/app"][..], "an origin has no path"),
        (&["serve", "--upstream", "http://127.0.0.1:8545"][..], "CHAIN=VALUE"),
        (&["serve", "--wrapped", "eth=0x12"][..], "--wrapped"),
        (&["serve", "--fetch-batch", "0"][..], "--fetch-batch"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_w3api")).args(args).output().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?} names {named}: {stderr}");
    }
    // Node-mode options that read, but do not fit together.
    let node = "eth=http://127.0.0.1:1";
    for (args, named) in [
        (
            &["serve", "--upstream", node, "--stablecoin", "polygon=0x0000000000000000000000000000000000000001"][..],
            "--stablecoin: chain polygon has no --upstream",
        ),
        (&["serve", "--upstream", node, "--upstream", node][..], "chain eth is given twice"),
        (&["serve", "--upstream", node, "--block-time", "1s"][..], "shape the devnet"),
        (&["serve", "--upstream", "eth=127.0.0.1:8545"][..], "\"127.0.0.1:8545\" is not a URL"),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_w3api"))
            .args(["serve", "--listen", "127.0.0.1:0"])
            .args(&args[1..])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{args:?}: {stderr}");
        assert!(stderr.contains(named), "{args:?} names {named}: {stderr}");
    }
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = taken.local_addr().unwrap().to_string();
    let output = Command::new(env!("CARGO_BIN_EXE_w3api")).args(["serve", "--listen", &address]).output().unwrap();
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains(&address), "names the address in use");
}

/// Prints lines until one starts with `prefix`, and returns it.
pub(crate) fn line_starting(server: &mut Server, prefix: &str) -> String {
    loop {
        let line = server.line();
        if line.starts_with(prefix) {
            return line;
        }
    }
}

/// POSTs a JSON `body` to `base` + `path` with the key `k`; the status and body.
pub(crate) async fn post_json(base: &str, path: &str, body: &str) -> (u16, String) {
    let response = w3api_tests::http_client()
        .post(format!("{base}{path}"))
        .header("X-API-Key", "k")
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

/// A challenge request for devnet Solana account 0.
pub(crate) const CHALLENGE_REQUEST: &str = r#"{"domain":"example.com","address":"3fbvSBt23R6TbSkPQoyi56XSaFE6mYHxQyQwqnMa93fK",
    "uri":"https://example.com/login","network":"mainnet","timeout":60}"#;

/// A challenge issued by the server at `base`, and the verify body that
/// signs it with devnet Solana account 0 (`w3api devnet solana-sign`).
pub(crate) async fn signed_challenge(base: &str) -> String {
    let (status, challenge) = post_json(base, "/challenge/request/solana", CHALLENGE_REQUEST).await;
    assert_eq!(status, 201, "{challenge}");
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), &challenge).unwrap();
    let signed = Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["devnet", "solana-sign", "--challenge", file.path().to_str().unwrap()])
        .output()
        .unwrap();
    assert!(signed.status.success(), "{}", String::from_utf8_lossy(&signed.stderr));
    String::from_utf8(signed.stdout).unwrap()
}

/// An answer's status, `Retry-After` and body.
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) retry_after: Option<String>,
    pub(crate) body: String,
}

impl Reply {
    pub(crate) fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }
}

/// `GET base + path` with the key `k`.
pub(crate) fn get(runtime: &tokio::runtime::Runtime, base: &str, path: &str) -> Reply {
    runtime.block_on(async {
        let response = w3api_tests::http_client().get(format!("{base}{path}")).header("X-API-Key", "k").send().await;
        let response = response.unwrap();
        let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
        Reply { status: response.status().as_u16(), retry_after, body: response.text().await.unwrap() }
    })
}

/// The first of the sample wallets of the devnet of `seed` that holds an NFT on eth, and
/// the collection of its first NFT, read from the server at `base` (which
/// must not be told to index anything by this).
pub(crate) fn nft_holder(runtime: &tokio::runtime::Runtime, base: &str, seed: u64) -> (Address, Address) {
    let devnet = w3api_devnet::Devnet::new(seed, w3api_devnet::Scale::DEFAULT);
    devnet
        .sample_wallets(20)
        .into_iter()
        .find_map(|wallet| {
            let held = get(runtime, base, &format!("/api/v2.2/{wallet:#x}/nft?chain=eth")).json();
            assert_eq!(held["status"], "SYNCED", "nothing requested by name yet: {held}");
            held["result"][0]["token_address"].as_str().map(|c| (wallet, c.parse().unwrap()))
        })
        .expect("a sample wallet holding an NFT")
}

#[test]
fn a_restart_on_the_same_data_directory_refuses_a_replay_and_remembers_nft_indexing() {
    let data = tempfile::tempdir().unwrap();
    let dir = data.path().to_str().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let mut server = Server::start(&["--api-key", "k", "--data-dir", dir], &[]);
    let kept = line_starting(&mut server, "state (chain changes, sign-in challenges, NFT indexing) kept in");
    assert!(kept.contains("SQLite file") && kept.contains(dir), "{kept}");
    let second = Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["serve", "--listen", "127.0.0.1:0", "--api-key", "k", "--data-dir", dir])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success() && stderr.contains("in use by another w3api server"), "{stderr}");
    let verify = runtime.block_on(signed_challenge(&server.base));
    assert_eq!(runtime.block_on(post_json(&server.base, "/challenge/verify/solana", &verify)).0, 201);
    let (owner, collection) = nft_holder(&runtime, &server.base, 0);
    let filtered = format!("/api/v2.2/{owner:#x}/nft?chain=eth&token_addresses={collection:#x}");
    assert_eq!(get(&runtime, &server.base, &filtered).json()["status"], "SYNCING");
    let requested = Instant::now();

    // SIGKILL: nothing is flushed on the way out.
    drop(server);
    let restarted = Server::start(&["--api-key", "k", "--data-dir", dir], &[]);
    let (status, body) = runtime.block_on(post_json(&restarted.base, "/challenge/verify/solana", &verify));
    assert_eq!(status, 400, "{body}");
    assert!(body.contains("already verified (replay)"), "{body}");
    // Past the 1 s indexing delay since the first request, a new request
    // finds the collection indexed rather than starting again.
    std::thread::sleep(Duration::from_millis(1_200).saturating_sub(requested.elapsed()));
    assert_eq!(get(&runtime, &restarted.base, &filtered).json()["status"], "SYNCED");
}
