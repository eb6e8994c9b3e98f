//! `w3api streams …` as a user runs it, against a `w3api serve` of its own
//! and a webhook receiver on 127.0.0.1: a stream's whole life, its
//! addresses, the project's settings, deliveries and their history, and the
//! server's refusals reaching the user verbatim.
#![cfg(unix)]

use std::net::TcpListener;
use std::process::Output;
use std::time::{Duration, Instant};

use serde::de::DeserializeOwned;
use serde_json::Value;
use w3api_spec_check::spec::Document;
use w3api_testkit::Webhooks;
use w3api_types::{
    EvmStream, EvmStreamsPage, StreamAddressResponse, StreamAddressesPage, StreamDeliveryLogsPage, StreamHistoryItem,
    StreamHistoryPage, StreamSettings, StreamStatus, StreamUsageStats, StreamWebhook,
};

use crate::commands::{stdout, w3api_at};
use crate::serve::Server;

/// `w3api` against one server with the key `k`.
struct Cli {
    base: String,
}

impl Cli {
    fn run(&self, args: &[&str]) -> Output {
        w3api_at(&self.base, "k", args)
    }

    fn text(&self, args: &[&str]) -> String {
        stdout(&self.run(args))
    }

    /// `--json`: checked against the spec's answer of `method template`
    /// (status 200), and decoded as the spec type.
    fn json<T: DeserializeOwned>(&self, method: &str, template: &str, args: &[&str]) -> T {
        let output = self.run(&[args, &["--json"]].concat());
        let body: Value = serde_json::from_str(&stdout(&output)).expect("--json prints one JSON document");
        Document::check_response(template, method, 200, &body).unwrap();
        serde_json::from_value(body).unwrap()
    }

    fn stream(&self, id: &str) -> EvmStream {
        self.json("GET", "/streams/evm/{id}", &["streams", "get", id])
    }

    /// The addresses of stream `id`, every page.
    fn addresses(&self, id: &str) -> Vec<String> {
        let page: StreamAddressesPage = self.json("GET", "/streams/evm/{id}/address", &["streams", "addresses", id]);
        assert_eq!(page.total as usize, page.result.len(), "one page holds them all");
        page.result.into_iter().map(|a| a.address).collect()
    }

    /// A failure: exit status 1 and the error on stderr.
    fn failure(&self, args: &[&str]) -> String {
        let output = self.run(args);
        assert_eq!(output.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&output.stdout));
        String::from_utf8(output.stderr).unwrap()
    }
}

/// The words of a command line (none holds a space).
fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

const TRANSFER: &str = "Transfer(address,address,uint256)";
const ABI: &str = r#"[{"anonymous":false,"name":"Transfer","type":"event","inputs":[
    {"indexed":true,"name":"from","type":"address"},{"indexed":true,"name":"to","type":"address"},
    {"indexed":false,"name":"value","type":"uint256"}]}]"#;
const A: &str = "0x1111111111111111111111111111111111111111";
const B: &str = "0x2222222222222222222222222222222222222222";
const C: &str = "0x3333333333333333333333333333333333333333";
const D: &str = "0xdddddddddddddddddddddddddddddddddddddddd";

/// A server of tiny chains making a block a second (deliveries to see), its
/// logs kept quiet (nobody reads them); a webhook receiver answering 200,
/// on the runtime returned.
fn server() -> (Server, tokio::runtime::Runtime, Webhooks) {
    let server = Server::start(&["--scale", "tiny", "--api-key", "k", "--block-time", "1s"], &[("RUST_LOG", "warn")]);
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().unwrap();
    let webhooks = runtime.block_on(Webhooks::start());
    (server, runtime, webhooks)
}

/// The test webhooks `webhooks` got.
fn tests(webhooks: &Webhooks) -> Vec<w3api_testkit::Received> {
    webhooks.received().into_iter().filter(w3api_testkit::Received::is_test).collect()
}

#[test]
fn a_stream_from_creation_to_deletion() {
    let (server, _runtime, webhooks) = server();
    let cli = Cli { base: server.base.clone() };
    let hook = webhooks.url();

    let line = format!(
        "streams create --webhook-url {hook} --description first --tag life --chain 0x1 --chain polygon --native-txs \
         --address {A} --address {B}"
    );
    let created: EvmStream = cli.json("GET", "/streams/evm/{id}", &words(&line));
    let id = created.id.to_string();
    assert_eq!(created.chain_ids, ["0x1", "0x89"], "a chain name is sent as its hex id");
    assert_eq!((created.include_native_txs, created.include_contract_logs), (Some(true), Some(false)));
    assert_eq!(created.amount_of_addresses, Some(2), "--address adds after creating");
    let posted = webhooks.received();
    assert_eq!(posted.len(), 1, "the server posted the test webhook first");
    assert_eq!(posted[0].webhook, Some(StreamWebhook::test()));

    let listed: EvmStreamsPage = cli.json("GET", "/streams/evm", &["streams", "list"]);
    assert!(listed.result.iter().any(|s| s.id == created.id), "{listed:?}");
    let table = cli.text(&["streams", "list"]);
    assert!(table.starts_with("ID") && table.contains(&format!("{id}  active  life  0x1,0x89")), "{table}");
    assert!(table.ends_with("1 of 1 streams\n"), "{table}");
    let shown = cli.text(&["streams", "get", &id]);
    assert_eq!(cli.text(&["stream", &id]), shown, "`stream <id>` is `streams get <id>`");
    assert!(shown.contains("description            first") && shown.contains("addresses              2"), "{shown}");

    // Addresses: added, replaced, removed; `addresses` follows each change.
    assert_eq!(cli.addresses(&id), [A, B]);
    let added: StreamAddressResponse =
        cli.json("POST", "/streams/evm/{id}/address", &["streams", "add-address", &id, C]);
    assert_eq!(added.address.as_slice(), [C]);
    assert_eq!(cli.addresses(&id), [A, B, C]);
    let replaced = cli.text(&["streams", "replace-addresses", &id, &D.to_uppercase().replace("0X", "0x"), B]);
    assert!(replaced.contains("now watches 2 addresses"), "{replaced}");
    assert_eq!(cli.addresses(&id), [B, D], "ascending, lowercase");
    let removed: StreamAddressResponse =
        cli.json("DELETE", "/streams/evm/{id}/address", &["streams", "remove-address", &id, B]);
    assert_eq!(removed.stream_id, created.id);
    assert_eq!(cli.addresses(&id), [D]);
    cli.text(&["streams", "add-address", &id, A, B, C]);
    let first: Vec<String> =
        cli.text(&["streams", "addresses", &id, "--limit", "2"]).lines().map(String::from).collect();
    assert_eq!(first[..2], [A, B]);
    assert!(first[2].starts_with("2 of 4 addresses; next page: --cursor "), "{first:?}");
    let walked: Vec<Value> =
        serde_json::from_str(&cli.text(&["streams", "addresses", &id, "--limit", "2", "--all", "--json"])).unwrap();
    assert_eq!(walked.iter().map(|a| a["address"].as_str().unwrap()).collect::<Vec<_>>(), [A, B, C, D]);

    // Settings change, and the stream posts the test webhook to its URL again.
    let updated: EvmStream =
        cli.json("POST", "/streams/evm/{id}", &["streams", "update", &id, "--description", "second"]);
    assert_eq!((updated.description.as_str(), updated.tag.as_str()), ("second", "life"), "the rest is kept");
    assert_eq!(cli.stream(&id).description, "second");
    assert_eq!(tests(&webhooks).len(), 2);

    let paused: EvmStream = cli.json("POST", "/streams/evm/{id}/status", &["streams", "pause", &id]);
    assert_eq!(paused.status, StreamStatus::Paused);
    assert_eq!(cli.stream(&id).status, StreamStatus::Paused);
    assert!(cli.text(&["streams", "resume", &id]).contains("status                 active (Stream is active)"));
    assert_eq!(cli.stream(&id).status, StreamStatus::Active);

    let copy: EvmStream = cli.json("POST", "/streams/evm/{id}/duplicate", &["streams", "duplicate", &id]);
    assert_ne!(copy.id, created.id);
    assert_eq!((copy.description.as_str(), &copy.chain_ids), ("second", &created.chain_ids));
    assert_eq!(cli.addresses(&copy.id.to_string()), [A, B, C, D], "the copy watches the same addresses");

    // The secret set signs what is posted from then on.
    let set: StreamSettings = cli.json("POST", "/settings", &["streams", "set-settings", "--secret-key", "s3cret"]);
    assert_eq!(set.secret_key.as_deref(), Some("s3cret"));
    let settings: StreamSettings = cli.json("GET", "/settings", &["streams", "settings"]);
    assert_eq!(settings, set);
    assert!(cli.text(&["streams", "settings"]).contains("secret key  s3cret"));
    cli.text(&["streams", "update", &id, "--tag", "life-2"]);
    let signed = tests(&webhooks).pop().unwrap();
    assert!(signed.verifies("s3cret"), "{signed:?}");

    let deleted = cli.text(&["streams", "delete", &id]);
    assert_eq!(deleted, format!("deleted stream {id} (life-2)\n"));
    for gone in
        [&["streams", "get", &id][..], &["stream", &id], &["streams", "delete", &id], &["streams", "pause", &id]]
    {
        let error = cli.failure(gone);
        assert_eq!(error, "error: 404 Not Found: Stream not found\n", "{gone:?}");
    }
    let remaining: EvmStreamsPage = cli.json("GET", "/streams/evm", &["streams", "list"]);
    assert_eq!(remaining.total, listed.total, "the copy stays, the original is gone");
    assert!(remaining.result.iter().all(|s| s.id != created.id));
}

#[test]
fn deliveries_their_history_and_the_refusals_of_the_server() {
    let (server, _runtime, webhooks) = server();
    let cli = Cli { base: server.base.clone() };
    let dir = tempfile::tempdir().unwrap();
    let abi = dir.path().join("abi.json");
    std::fs::write(&abi, ABI).unwrap();
    let abi = abi.to_str().unwrap();

    // A receiver that refuses: the server's 400 reaches the user, nothing is created.
    let closed = {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        format!("http://{}/hook", listener.local_addr().unwrap())
    };
    let create = format!("streams create --webhook-url {closed} --description d --tag t --chain 0x1");
    let refused = cli.failure(&[&words(&create)[..], &["--contract-logs"]].concat());
    let message = format!("error: 400 Bad Request: Could not POST to {closed}. Please check your webhook URL.\n");
    assert_eq!(refused, message);
    let invalid = cli.failure(&words(&create));
    assert!(invalid.contains("400 Bad Request: at least one of includeNativeTxs"), "{invalid}");
    let none: EvmStreamsPage = cli.json("GET", "/streams/evm", &["streams", "list"]);
    assert_eq!(none.total, 0);

    // Every ERC20 transfer on eth, the body from a file.
    let hook = webhooks.url();
    let body = dir.path().join("stream.json");
    let create = serde_json::json!({
        "webhookUrl": hook, "description": "transfers", "tag": "erc20", "chainIds": ["0x1"], "topic0": [TRANSFER],
        "allAddresses": true, "includeContractLogs": true, "abi": serde_json::from_str::<Value>(ABI).unwrap(),
    });
    std::fs::write(&body, create.to_string()).unwrap();
    let stream: EvmStream =
        cli.json("GET", "/streams/evm/{id}", &["streams", "create", "--from-json", body.to_str().unwrap()]);
    let id = stream.id.to_string();
    assert_eq!((stream.all_addresses, stream.abi.as_ref().map(Vec::len)), (Some(true), Some(1)));
    let refused = cli.failure(&["streams", "update", &id, "--webhook-url", &closed]);
    assert_eq!(refused, message);
    assert_eq!(cli.stream(&id).webhook_url, hook, "a refused change changes nothing");

    // Blocks come every second: wait for a delivery of the stream.
    let started = Instant::now();
    let stats: StreamUsageStats = loop {
        let stats: StreamUsageStats = cli.json("GET", "/stats/{streamId}", &["streams", "stats", &id]);
        if stats.total_webhooks_delivered > 0 {
            break stats;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no delivery in 30 s");
        std::thread::sleep(Duration::from_millis(300));
    };
    assert!(stats.total_logs_processed >= 1, "{stats:?}");
    assert!(webhooks.received().len() > tests(&webhooks).len(), "the test webhook, then deliveries");
    let history: StreamHistoryPage =
        cli.json("GET", "/history", &["streams", "history", "--stream", &id, "--limit", "5"]);
    let delivery = &history.result[0];
    assert!(delivery.payload.is_none(), "payloads only with --with-payload");
    assert_eq!((delivery.stream_id.as_str(), delivery.tag.as_str()), (id.as_str(), "erc20"));
    let with_payload: StreamHistoryPage =
        cli.json("GET", "/history", &["streams", "history", "--stream", &id, "--limit", "1", "--with-payload"]);
    let payload = with_payload.result[0].payload.as_ref().expect("--with-payload");
    assert!(!payload.erc20_transfers.is_empty(), "{payload:?}");
    let table = cli.text(&["streams", "history", "--stream", &id, "--with-payload", "--limit", "1"]);
    assert!(table.starts_with("DELIVERY") && table.contains("ERC20 transfers"), "{table}");

    let replayed: StreamHistoryItem =
        cli.json("POST", "/history/replay/{streamId}/{id}", &["streams", "replay", &id, &delivery.id.to_string()]);
    assert_eq!(replayed.id, delivery.id);
    let missing = cli.failure(&["streams", "replay", &id, &stream.id.to_string()]);
    assert_eq!(missing, "error: 404 Not Found: History not found\n");

    let logs: StreamDeliveryLogsPage = cli.json("GET", "/history/logs", &["streams", "logs", "--limit", "10"]);
    assert!(logs.result.iter().any(|l| l.stream_id == id && l.status_code == Some(200)), "{logs:?}");

    // Production's filters, as flags.
    let block = payload.block.number.as_str();
    let transaction = payload.erc20_transfers[0].transaction_hash.as_str();
    let carried: StreamHistoryPage =
        cli.json("GET", "/history", &["streams", "history", "--transaction", transaction, "--chain", "eth"]);
    assert!(!carried.result.is_empty(), "the delivery that carries {transaction}");
    assert!(carried.result.iter().all(|d| d.tiny_payload.block == block), "{carried:?}");
    let elsewhere: StreamHistoryPage = cli.json("GET", "/history", &["streams", "history", "--chain", "polygon"]);
    assert_eq!(elsewhere.total, 0, "no stream watches polygon");
    let failed: StreamDeliveryLogsPage =
        cli.json("GET", "/history/logs", &["streams", "logs", "--stream", &id, "--outcome", "failed"]);
    assert!(failed.result.is_empty(), "the receiver took every delivery: {failed:?}");
    let at_block: StreamDeliveryLogsPage = cli.json(
        "GET",
        "/history/logs",
        &["streams", "logs", "--outcome", "success", "--block", block, "--from", "0", "--to", "99999999999"],
    );
    assert!(!at_block.result.is_empty() && at_block.result.iter().all(|l| l.block_number.to_string() == block));
    let paused: EvmStreamsPage = cli.json("GET", "/streams/evm", &["streams", "list", "--status", "paused"]);
    assert_eq!(paused.total, 0, "the one stream is active");
    let unknown_status = cli.failure(&["streams", "list", "--status", "deleted"]);
    assert!(unknown_status.contains("400 Bad Request: status"), "{unknown_status}");
    let all: StreamUsageStats = cli.json("GET", "/stats", &["streams", "stats"]);
    assert!(all.total_webhooks_delivered >= stats.total_webhooks_delivered, "{all:?}");
    assert!(cli.text(&["streams", "stats"]).contains(&id));

    // What a stream of these settings gets for a block, without a stream.
    let line = format!(
        "streams preview --chain eth --block {block} --topic0 {TRANSFER} --all-addresses --contract-logs --abi {abi}"
    );
    let preview: StreamWebhook = cli.json("POST", "/streams/evm/{chainId}/block/{blockNumber}", &words(&line));
    assert_eq!(preview.erc20_transfers, payload.erc20_transfers, "the preview of block {block} is what was delivered");
    let unknown = cli.failure(&["streams", "preview", "--chain", "0x1", "--block", "99999999", "--contract-logs"]);
    assert_eq!(unknown, "error: 400 Bad Request: blockNumber: chain 0x1 has no block 99999999\n");

    // Mistakes the command line catches before calling.
    for (args, says) in [
        (&["streams", "add-address", &id, "0x12"][..], "invalid value '0x12'"),
        (&["streams", "get", "not-a-uuid"], "invalid value 'not-a-uuid'"),
        (&["streams", "set-settings"], "--secret-key"),
        (&["streams", "create", "--from-json", "x.json", "--tag", "t"], "cannot be used with"),
        (&["streams", "list", "--limit", "0"], "--limit"),
    ] {
        let output = cli.run(args);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
    let nothing = cli.failure(&["streams", "update", &id]);
    assert!(nothing.contains("nothing to change"), "{nothing}");
    let too_many = cli.failure(&["streams", "list", "--limit", "101"]);
    assert!(too_many.contains("400 Bad Request: limit"), "{too_many}");
}
