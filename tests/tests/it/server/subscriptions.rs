//! The gateway over a WebSocket: every method as over HTTP, `eth_subscribe`
//! for new heads, logs (dropped ones again, `removed: true`) and accepted
//! transactions, and bad frames answered or closed with a reason.

use std::collections::VecDeque;
use std::time::Duration;

use futures::{SinkExt, StreamExt};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use w3api_devnet::{Scale, dev_addresses};
use w3api_server::CorsOrigins;
use w3api_tests::local::{Local, Session, Setup};

type Stream = tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

/// How long a test waits for something the server should send at once.
const PROMPT: Duration = Duration::from_secs(20);

/// Runtime code that logs its call data under [`TOPIC`] (LOG1) and stops;
/// its init code returns it.
const EMITTER_INIT: &str = concat!(
    "0x6029600a5f3960295ff3",
    "365f5f37",
    "7f",
    "00000000000000000000000000000000000000000000000000000000000000e7",
    "365fa100"
);
const TOPIC: &str = "0x00000000000000000000000000000000000000000000000000000000000000e7";

fn server() -> Local {
    Setup::new().scale(Scale::TINY).start()
}

fn sender() -> String {
    format!("{:#x}", dev_addresses().next().unwrap())
}

/// A WebSocket on the gateway, with the notifications read while waiting
/// for answers kept for later.
struct Socket {
    stream: Stream,
    next_id: u64,
    notifications: VecDeque<Value>,
}

impl Socket {
    async fn open(session: &Session<'_>) -> Socket {
        let url = session.rpc_url().replacen("http://", "ws://", 1);
        let (stream, _) = tokio_tungstenite::connect_async(url).await.expect("the gateway upgrades to a WebSocket");
        Socket { stream, next_id: 1, notifications: VecDeque::new() }
    }

    async fn send_text(&mut self, text: String) {
        self.stream.send(Message::text(text)).await.expect("the socket takes a message");
    }

    /// The next message from the server, as JSON.
    async fn receive(&mut self) -> Value {
        loop {
            let message = tokio::time::timeout(PROMPT, self.stream.next())
                .await
                .expect("the server sends within the time")
                .expect("the socket is open")
                .expect("a message reads");
            match message {
                Message::Text(text) => return serde_json::from_str(&text).expect("the server sends JSON"),
                Message::Ping(_) | Message::Pong(_) => {}
                other => panic!("not a text message: {other:?}"),
            }
        }
    }

    /// The answer to one call (its result or its error object).
    async fn call(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send_text(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }).to_string()).await;
        loop {
            let message = self.receive().await;
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            assert_eq!(message["method"], "eth_subscription", "neither the answer nor a notification: {message}");
            self.notifications.push_back(message);
        }
    }

    async fn result(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params).await;
        assert!(answer.get("error").is_none(), "{method}: {answer}");
        answer["result"].clone()
    }

    async fn error(&mut self, method: &str, params: Value) -> Value {
        let answer = self.call(method, params).await;
        answer.get("error").cloned().unwrap_or_else(|| panic!("{method} should fail: {answer}"))
    }

    /// The next notification's result, checked to be of `subscription`.
    async fn notification(&mut self, subscription: &Value) -> Value {
        let message = match self.notifications.pop_front() {
            Some(message) => message,
            None => self.receive().await,
        };
        assert_eq!(message["method"], "eth_subscription", "{message}");
        assert_eq!(&message["params"]["subscription"], subscription, "{message}");
        message["params"]["result"].clone()
    }

    /// Nothing more arrives within a moment.
    async fn quiet(&mut self) {
        assert!(self.notifications.is_empty(), "{:?}", self.notifications);
        let next = tokio::time::timeout(Duration::from_millis(500), self.stream.next()).await;
        assert!(next.is_err(), "nothing more was due: {next:?}");
    }

    /// The close frame the server ends the connection with.
    async fn closed(&mut self) -> (CloseCode, String) {
        loop {
            let message = tokio::time::timeout(PROMPT, self.stream.next()).await.expect("the server closes in time");
            match message {
                Some(Ok(Message::Close(Some(frame)))) => return (frame.code, frame.reason.to_string()),
                Some(Ok(_)) => {}
                other => panic!("no close frame: {other:?}"),
            }
        }
    }
}

/// Deploys the emitter from the first dev account; its address.
async fn deploy_emitter(socket: &mut Socket) -> Value {
    let hash = socket.result("eth_sendTransaction", json!([{ "from": sender(), "data": EMITTER_INIT }])).await;
    let receipt = socket.result("eth_getTransactionReceipt", json!([hash])).await;
    receipt["contractAddress"].clone()
}

/// Has the emitter log `data`; the transaction's hash.
async fn emit(socket: &mut Socket, emitter: &Value, data: &str) -> Value {
    socket.result("eth_sendTransaction", json!([{ "from": sender(), "to": emitter, "data": data }])).await
}

#[test]
fn every_method_answers_over_the_socket_as_over_http() {
    let local = server();
    let session = local.session();
    let over_http = session.call("eth_getBlockByNumber", json!(["0x1", false]));
    local.run(async {
        let mut socket = Socket::open(&session).await;
        assert_eq!(socket.result("eth_chainId", json!([])).await, json!("0x1"));
        assert_eq!(socket.result("eth_getBlockByNumber", json!(["0x1", false])).await, over_http);
        // A batch, a subscription among its calls, answered in order.
        let batch = json!([
            { "jsonrpc": "2.0", "id": "a", "method": "eth_blockNumber", "params": [] },
            { "jsonrpc": "2.0", "id": "b", "method": "eth_subscribe", "params": ["newHeads"] },
            { "jsonrpc": "2.0", "id": "c", "method": "eth_getBalance", "params": [sender(), "latest"] }
        ]);
        socket.send_text(batch.to_string()).await;
        let answers = socket.receive().await;
        let ids: Vec<&Value> = answers.as_array().expect("a batch's answers").iter().map(|a| &a["id"]).collect();
        assert_eq!(ids, [&json!("a"), &json!("b"), &json!("c")], "{answers}");
        assert!(answers[1]["result"].as_str().is_some_and(|id| id.starts_with("0x")), "{answers}");
        assert!(answers[2]["result"].is_string(), "{answers}");
        // A notification (no id) is not answered.
        socket.send_text(json!({ "jsonrpc": "2.0", "method": "eth_chainId", "params": [] }).to_string()).await;
        socket.quiet().await;
    });
    // Over HTTP, as geth answers.
    let refused = session.call_error("eth_subscribe", json!(["newHeads"]));
    assert_eq!((&refused["code"], &refused["message"]), (&json!(-32601), &json!("notifications not supported")));
}

#[test]
fn new_heads_announce_each_new_block_once_in_order_and_end_when_unsubscribed() {
    let local = server();
    let session = local.session();
    local.run(async {
        let mut socket = Socket::open(&session).await;
        let subscription = socket.result("eth_subscribe", json!(["newHeads"])).await;
        let before: u64 = hex_number(&socket.result("eth_blockNumber", json!([])).await);
        socket.result("evm_mine", json!([])).await;
        socket.result("anvil_mine", json!(["0x3"])).await;
        let mut parent =
            socket.result("eth_getBlockByNumber", json!([format!("{before:#x}"), false])).await["hash"].clone();
        for number in before + 1..=before + 4 {
            let header = socket.notification(&subscription).await;
            assert_eq!(hex_number(&header["number"]), number, "{header}");
            assert_eq!(header["parentHash"], parent, "a block after its parent");
            let block = socket.result("eth_getBlockByNumber", json!([header["number"], false])).await;
            for field in ["hash", "stateRoot", "timestamp", "miner", "logsBloom", "gasUsed"] {
                assert_eq!(header[field], block[field], "{field}");
            }
            for left_out in ["transactions", "uncles", "size"] {
                assert!(header.get(left_out).is_none(), "{left_out} is not in a header: {header}");
            }
            parent = header["hash"].clone();
        }
        socket.quiet().await;
        assert_eq!(socket.result("eth_unsubscribe", json!([subscription])).await, json!(true));
        socket.result("evm_mine", json!([])).await;
        socket.quiet().await;
        let unknown = socket.error("eth_unsubscribe", json!([subscription])).await;
        assert_eq!((&unknown["code"], &unknown["message"]), (&json!(-32000), &json!("subscription not found")));
    });
}

#[test]
fn logs_pass_their_filter_and_a_reverted_blocks_logs_come_again_removed() {
    let local = server();
    let session = local.session();
    local.run(async {
        let mut socket = Socket::open(&session).await;
        let emitter = deploy_emitter(&mut socket).await;
        let mine = socket.result("eth_subscribe", json!(["logs", { "address": emitter, "topics": [TOPIC] }])).await;
        let other_topic = format!("0x{}", "11".repeat(32));
        let none = socket.result("eth_subscribe", json!(["logs", { "topics": [other_topic] }])).await;
        let snapshot = socket.result("evm_snapshot", json!([])).await;
        let hash = emit(&mut socket, &emitter, "0x0102").await;
        let log = socket.notification(&mine).await;
        let receipt = socket.result("eth_getTransactionReceipt", json!([hash])).await;
        assert_eq!(log, receipt["logs"][0], "the log as the receipt has it");
        let got =
            socket.result("eth_getLogs", json!([{ "blockHash": receipt["blockHash"], "address": emitter }])).await;
        assert_eq!(got, json!([log]), "the log as eth_getLogs has it");
        assert_eq!((&log["data"], &log["removed"]), (&json!("0x0102"), &json!(false)));

        // The block goes: its log comes again, removed.
        assert_eq!(socket.result("evm_revert", json!([snapshot])).await, json!(true));
        let removed = socket.notification(&mine).await;
        let mut expected = log.clone();
        expected["removed"] = json!(true);
        assert_eq!(removed, expected);
        // The next block's log, once.
        emit(&mut socket, &emitter, "0x03").await;
        let again = socket.notification(&mine).await;
        assert_eq!((&again["data"], &again["removed"]), (&json!("0x03"), &json!(false)));
        socket.quiet().await;
        let _ = none;
    });
}

#[test]
fn accepted_transactions_are_announced_by_hash_or_in_full() {
    let local = server();
    let session = local.session();
    local.run(async {
        let mut socket = Socket::open(&session).await;
        let hashes = socket.result("eth_subscribe", json!(["newPendingTransactions"])).await;
        let full = socket.result("eth_subscribe", json!(["newPendingTransactions", true])).await;
        let to = format!("{:#x}", dev_addresses().nth(1).unwrap());
        let sent = socket.result("eth_sendTransaction", json!([{ "from": sender(), "to": to, "value": "0x1" }])).await;
        // Each subscription hears it once, in no order between the two.
        let mut heard = std::collections::HashMap::new();
        for _ in 0..2 {
            let message = match socket.notifications.pop_front() {
                Some(message) => message,
                None => socket.receive().await,
            };
            heard.insert(message["params"]["subscription"].clone(), message["params"]["result"].clone());
        }
        assert_eq!(heard[&hashes], sent);
        let transaction = &heard[&full];
        assert_eq!((&transaction["hash"], &transaction["to"]), (&sent, &json!(to)));
        socket.quiet().await;
    });
}

#[test]
fn bad_frames_get_json_rpc_errors_or_a_close_with_a_reason() {
    let local = server();
    let session = local.session();
    local.run(async {
        let mut socket = Socket::open(&session).await;
        socket.send_text("not json".into()).await;
        assert_eq!(socket.receive().await["error"]["code"], -32700);
        // A binary frame is read as text, as geth reads it (web3.py sends them).
        let request = json!({ "jsonrpc": "2.0", "id": 7, "method": "eth_chainId", "params": [] }).to_string();
        socket.stream.send(Message::binary(request.into_bytes())).await.unwrap();
        assert_eq!(socket.receive().await, json!({ "jsonrpc": "2.0", "id": 7, "result": "0x1" }));
        socket.stream.send(Message::binary(vec![0xff, 0xfe])).await.unwrap();
        let binary = socket.receive().await;
        assert_eq!(binary["error"]["code"], -32700, "{binary}");
        assert!(binary["error"]["message"].as_str().unwrap().contains("not UTF-8"), "{binary}");
        for (params, fragment) in [
            (json!(["newBlocks"]), "is not one of newHeads"),
            (json!(["newHeads", true]), "takes no second parameter"),
            (json!(["logs", true]), "takes a filter object"),
            (json!(["logs", { "fromBlock": "0x1" }]), "fromBlock, toBlock and blockHash are not taken"),
            (json!([]), "a kind and at most one option"),
        ] {
            let refused = socket.error("eth_subscribe", params.clone()).await;
            assert_eq!(refused["code"], -32602, "{params}: {refused}");
            assert!(refused["message"].as_str().unwrap().contains(fragment), "{params}: {refused}");
        }
        let many: Vec<String> = (0..10_000u32).map(|i| format!("0x{i:040x}")).collect();
        let refused = socket.error("eth_subscribe", json!(["logs", { "address": many }])).await;
        assert_eq!(refused["code"], -32602, "{refused}");
        assert!(refused["message"].as_str().unwrap().contains("10000 addresses"), "{refused}");
        // Still answering.
        assert_eq!(socket.result("eth_chainId", json!([])).await, json!("0x1"));
        // A message past the body limit closes the socket, saying why. The
        // server stops reading at the frame's header, as geth does, so the
        // kernel may reset the connection while the rest is still being
        // written: the close frame, sent before, is read all the same.
        let oversized = Message::text(format!("\"{}\"", "a".repeat(w3api_server::BODY_LIMIT + 1)));
        if let Err(error) = socket.stream.send(oversized).await {
            assert!(
                matches!(&error, tokio_tungstenite::tungstenite::Error::Io(io) if io.kind() == std::io::ErrorKind::ConnectionReset),
                "{error}"
            );
        }
        let (code, reason) = socket.closed().await;
        assert_eq!(code, CloseCode::Size, "{reason}");
        assert!(reason.contains("too long") || reason.contains("Message too"), "{reason}");
    });
}

#[test]
fn a_page_of_an_origin_cors_refuses_cannot_open_a_socket() {
    let allowed = "http://localhost:3000";
    let local = Setup::new()
        .scale(Scale::TINY)
        .config(|config| w3api_server::ServerConfig { cors: CorsOrigins::only([allowed]).unwrap(), ..config })
        .start();
    let session = local.session();
    let url = session.rpc_url().replacen("http://", "ws://", 1);
    local.run(async {
        use tokio_tungstenite::tungstenite::client::IntoClientRequest;
        for (origin, opens) in [("http://evil.example", false), (allowed, true)] {
            let mut request = url.clone().into_client_request().unwrap();
            request.headers_mut().insert("origin", origin.parse().unwrap());
            match tokio_tungstenite::connect_async(request).await {
                Ok(_) => assert!(opens, "{origin} opened a socket"),
                Err(tokio_tungstenite::tungstenite::Error::Http(response)) => {
                    assert!(!opens, "{origin} was refused: {response:?}");
                    assert_eq!(response.status(), 403);
                }
                Err(other) => panic!("{origin}: {other}"),
            }
        }
        // An unknown key is refused as on HTTP.
        let wrong = url.replace(session.key(), &session.wrong_key());
        match tokio_tungstenite::connect_async(wrong).await {
            Err(tokio_tungstenite::tungstenite::Error::Http(response)) => assert_eq!(response.status(), 401),
            other => panic!("an unknown key opened a socket: {:?}", other.map(|_| ())),
        }
    });
}

fn hex_number(value: &Value) -> u64 {
    u64::from_str_radix(value.as_str().expect("a quantity").trim_start_matches("0x"), 16).expect("hex")
}
