//! The gateway over a WebSocket: `GET /{chain}/{apiKey}` upgraded.
//!
//! Every message is a JSON-RPC request or batch, answered by the chain's
//! own HTTP service (the same methods, cache and time budget; each call has
//! a budget of its own, as a socket has no request to share one), except
//! `eth_subscribe` and `eth_unsubscribe` (`method::WEBSOCKET_ONLY`), whose
//! subscriptions the connection holds.
//!
//! Bounds: a connection runs [`CALLS_IN_FLIGHT`] calls at once and reads no
//! more messages until one ends; it holds [`MAX_SUBSCRIPTIONS`]; what it
//! sends waits in a queue of [`QUEUE`] messages. A subscription that finds
//! the queue full for [`PATIENCE`], or falls behind its chain's feed, closes
//! the connection with code 1008 and the reason: a client that does not
//! read never makes the server hold more, nor slows anyone else.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Body;
use axum::extract::ws::{CloseFrame, Message, Utf8Bytes, WebSocket};
use futures::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::sync::{Notify, Semaphore, broadcast, mpsc};
use tower::ServiceExt;
use w3api_rpc::{ErrorCode, method};
use w3api_source::PendingTransaction;
use w3api_types::Chain;
use w3api_types::rpc::{LogFilter, SubscriptionKind, SubscriptionOptions};

use super::feed::{Event, Feeds};
use super::{CallerKey, MAX_RESPONSE, Service, check_filter_size};
use crate::Backend;

/// Calls of one connection running at once.
const CALLS_IN_FLIGHT: usize = 64;
/// Subscriptions one connection holds at most.
const MAX_SUBSCRIPTIONS: usize = 1_024;
/// Messages waiting to be written to one connection.
pub(crate) const QUEUE: usize = 1_024;
/// How long a notification waits for room in a full queue before the
/// connection is closed as too slow.
const PATIENCE: Duration = Duration::from_secs(5);
/// How long a closing connection waits to write its close frame.
const CLOSE_WRITE: Duration = Duration::from_secs(1);
/// Close codes (RFC 6455 §7.4.1).
const POLICY: u16 = 1008;
const TOO_BIG: u16 = 1009;

/// One WebSocket of the gateway.
pub(crate) struct Connection<S> {
    pub(crate) chain: Chain,
    pub(crate) key: Arc<str>,
    pub(crate) service: Service,
    pub(crate) feeds: Arc<Feeds<S>>,
    pub(crate) source: Arc<S>,
}

/// A subscription made, waiting for its id to be answered.
type Starting = tokio::sync::oneshot::Sender<()>;

/// What the connection's tasks share.
struct Shared {
    out: mpsc::Sender<Message>,
    closer: Closer,
    subscriptions: Mutex<HashMap<String, tokio::task::AbortHandle>>,
}

/// Ends the connection with a close frame's code and reason, once.
#[derive(Default)]
struct Closer {
    reason: Mutex<Option<(u16, String)>>,
    closed: Notify,
}

impl Closer {
    fn close(&self, code: u16, reason: String) {
        let mut held = self.reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if held.is_none() {
            tracing::info!(code, reason, "a WebSocket of the gateway is closed");
            *held = Some((code, reason));
        }
        self.closed.notify_waiters();
        self.closed.notify_one();
    }

    fn frame(&self) -> Option<CloseFrame> {
        let held = self.reason.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        held.as_ref().map(|(code, reason)| CloseFrame { code: *code, reason: close_reason(reason) })
    }
}

/// A close frame's reason: at most 123 bytes (RFC 6455 §5.5), cut at a character.
fn close_reason(reason: &str) -> Utf8Bytes {
    let mut end = reason.len().min(123);
    while !reason.is_char_boundary(end) {
        end -= 1;
    }
    Utf8Bytes::from(&reason[..end])
}

impl<S: Backend> Connection<S> {
    /// Serves the socket until either side closes it.
    pub(crate) async fn run(self, socket: WebSocket) {
        let (mut sink, mut stream) = socket.split();
        let (out, mut queue) = mpsc::channel::<Message>(QUEUE);
        let shared = Arc::new(Shared { out, closer: Closer::default(), subscriptions: Mutex::new(HashMap::new()) });
        let writer_shared = shared.clone();
        let writer = tokio::spawn(async move {
            loop {
                tokio::select! {
                    message = queue.recv() => {
                        let Some(message) = message else { return };
                        if sink.send(message).await.is_err() {
                            return;
                        }
                    }
                    () = writer_shared.closer.closed.notified() => break,
                }
            }
            if let Some(frame) = writer_shared.closer.frame() {
                let _ = tokio::time::timeout(CLOSE_WRITE, sink.send(Message::Close(Some(frame)))).await;
            }
        });
        let this = Arc::new(self);
        let calls = Arc::new(Semaphore::new(CALLS_IN_FLIGHT));
        loop {
            let frame = tokio::select! {
                frame = stream.next() => frame,
                () = shared.closer.closed.notified() => break,
            };
            let text = match frame {
                Some(Ok(Message::Text(text))) => text,
                // web3.py (its `websockets`) sends binary frames; geth reads them as text.
                Some(Ok(Message::Binary(bytes))) => match Utf8Bytes::try_from(bytes) {
                    Ok(text) => text,
                    Err(_) => {
                        let refusal = error_response(
                            &Value::Null,
                            ErrorCode::ParseError.code(),
                            "Parse error: a binary frame that is not UTF-8 text; send JSON-RPC as text",
                        );
                        if shared.out.send(Message::Text(refusal.into())).await.is_err() {
                            break;
                        }
                        continue;
                    }
                },
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                Some(Ok(Message::Close(_))) | None => break,
                Some(Err(error)) => {
                    shared.closer.close(TOO_BIG, format!("the frame was refused: {error}"));
                    break;
                }
            };
            let Ok(permit) = calls.clone().acquire_owned().await else { break };
            let (this, shared) = (this.clone(), shared.clone());
            tokio::spawn(async move {
                let (answer, starting) = this.answer(&shared, text).await;
                if let Some(answer) = answer {
                    let _ = shared.out.send(Message::Text(answer.into())).await;
                }
                for subscription in starting {
                    let _ = subscription.send(());
                }
                drop(permit);
            });
        }
        for (_, task) in shared.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner).drain() {
            task.abort();
        }
        shared.closer.closed.notify_one();
        let _ = writer.await;
    }

    /// The answer to one message (`None` when it asks for none: notifications),
    /// and the subscriptions it made, each to start once the answer is queued.
    async fn answer(&self, shared: &Arc<Shared>, text: Utf8Bytes) -> (Option<String>, Vec<Starting>) {
        let mut starting = Vec::new();
        // Most messages name no subscription method: they go through whole, unread.
        if !method::WEBSOCKET_ONLY.iter().any(|name| text.as_str().contains(name)) {
            return (self.forward(text.as_str().to_owned()).await, starting);
        }
        let answer = match serde_json::from_str::<Value>(text.as_str()) {
            Ok(Value::Array(calls)) if !calls.is_empty() => {
                let mut answers = Vec::new();
                for call in calls {
                    answers.extend(self.answer_call(shared, call, &mut starting).await);
                }
                (!answers.is_empty()).then(|| format!("[{}]", answers.join(",")))
            }
            Ok(call @ Value::Object(_)) => self.answer_call(shared, call, &mut starting).await,
            // Not a request: the HTTP service says what is wrong with it.
            _ => self.forward(text.as_str().to_owned()).await,
        };
        (answer, starting)
    }

    async fn answer_call(&self, shared: &Arc<Shared>, call: Value, starting: &mut Vec<Starting>) -> Option<String> {
        let name = call.get("method").and_then(Value::as_str).unwrap_or_default();
        if !method::WEBSOCKET_ONLY.contains(&name) {
            return self.forward(call.to_string()).await;
        }
        // A notification (no id) of these methods asks for nothing back, and gets nothing done.
        let id = call.get("id")?.clone();
        let params = call.get("params").cloned().unwrap_or(Value::Array(Vec::new()));
        if name != method::ETH_SUBSCRIBE {
            return Some(match unsubscribe(shared, params) {
                Ok(ended) => result_response(&id, &Value::Bool(ended)),
                Err((code, message)) => error_response(&id, code, &message),
            });
        }
        match self.subscribe(shared, params).await {
            Ok((subscription, listening)) => {
                // Held before its id is answered (an eth_unsubscribe may follow at
                // once), and silent until then (its first notification follows its id).
                let (answered, waiting) = tokio::sync::oneshot::channel::<()>();
                let (task_shared, chain, source) = (shared.clone(), self.chain, self.source.clone());
                let named = subscription.clone();
                let task = tokio::spawn(async move {
                    if waiting.await.is_ok() {
                        listening.run(&task_shared, chain, source.as_ref(), &named).await;
                    }
                });
                shared.held().insert(subscription.clone(), task.abort_handle());
                starting.push(answered);
                Some(result_response(&id, &Value::String(subscription)))
            }
            Err((code, message)) => Some(error_response(&id, code, &message)),
        }
    }

    /// A request through the chain's HTTP service; its answer's body.
    async fn forward(&self, body: String) -> Option<String> {
        let request = http::Request::builder()
            .method(http::Method::POST)
            .uri("/")
            .header(http::header::CONTENT_TYPE, "application/json")
            .extension(CallerKey(self.key.clone()))
            .body(Body::from(body))
            .expect("a request of constant parts builds");
        let response = match self.service.clone().oneshot(request).await {
            Ok(response) => response,
            Err(error) => {
                tracing::error!(%error, "JSON-RPC service failed on a WebSocket");
                return Some(error_response(&Value::Null, ErrorCode::InternalError.code(), "Internal error"));
            }
        };
        let body = axum::body::to_bytes(Body::new(response.into_body()), MAX_RESPONSE as usize).await;
        match body.map(|bytes| String::from_utf8(bytes.to_vec())) {
            // jsonrpsee's HTTP answer to notifications alone is empty, or `null`.
            Ok(Ok(text)) if text.is_empty() || text == "null" => None,
            Ok(Ok(text)) => Some(text),
            _ => Some(error_response(&Value::Null, ErrorCode::InternalError.code(), "Internal error")),
        }
    }

    /// A new subscription's id, and what it listens to from now on.
    async fn subscribe(&self, shared: &Shared, params: Value) -> Result<(String, Listening), (i32, String)> {
        let (kind, options) = read_subscribe(params)?;
        let listening = match (kind, options) {
            (SubscriptionKind::NewHeads | SubscriptionKind::Syncing, Some(_)) => {
                return Err(invalid(format!("options: a {} subscription takes no second parameter", kind_name(kind))));
            }
            (SubscriptionKind::NewHeads | SubscriptionKind::Syncing, None) => {
                Listening::Feed(self.feeds.subscribe(self.chain).await, kind, LogFilter::default())
            }
            (SubscriptionKind::Logs, options) => {
                let filter = match options {
                    None => LogFilter::default(),
                    Some(SubscriptionOptions::Filter(filter)) => log_filter(filter)?,
                    Some(SubscriptionOptions::FullTransactions(_)) => {
                        return Err(invalid(
                            "options: a logs subscription takes a filter object, not a boolean".into(),
                        ));
                    }
                };
                Listening::Feed(self.feeds.subscribe(self.chain).await, kind, filter)
            }
            (SubscriptionKind::NewPendingTransactions, Some(SubscriptionOptions::Filter(_))) => {
                return Err(invalid("options: newPendingTransactions takes true or false, not a filter".into()));
            }
            (SubscriptionKind::NewPendingTransactions, full) => {
                let full = matches!(full, Some(SubscriptionOptions::FullTransactions(true)));
                let Some(pending) = self.source.pending_transactions() else {
                    return Err((
                        ErrorCode::MethodNotSupported.code(),
                        "newPendingTransactions is not supported: this server hears of no pending transactions \
                         (node mode does not follow its node's pool)"
                            .into(),
                    ));
                };
                Listening::Pending(pending, full)
            }
        };
        if shared.held().len() >= MAX_SUBSCRIPTIONS {
            return Err((
                ErrorCode::ServerError.code(),
                format!(
                    "this connection holds {MAX_SUBSCRIPTIONS} subscriptions, the most it may; end one with eth_unsubscribe"
                ),
            ));
        }
        let id: String = crate::random::bytes::<16>().iter().map(|byte| format!("{byte:02x}")).collect();
        let id = format!("0x{id}");
        Ok((id, listening))
    }
}

impl Shared {
    fn held(&self) -> std::sync::MutexGuard<'_, HashMap<String, tokio::task::AbortHandle>> {
        self.subscriptions.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Queues a notification, waiting a while for room; a client that
    /// leaves it full that long is too slow, and its connection is closed.
    async fn notify(&self, subscription: &str, result: &str) -> Result<(), ()> {
        let text = format!(
            r#"{{"jsonrpc":"2.0","method":"eth_subscription","params":{{"subscription":"{subscription}","result":{result}}}}}"#
        );
        match self.out.send_timeout(Message::Text(text.into()), PATIENCE).await {
            Ok(()) => Ok(()),
            Err(mpsc::error::SendTimeoutError::Timeout(_)) => {
                self.closer.close(
                    POLICY,
                    format!(
                        "too slow: {QUEUE} messages unread for {}s; read notifications as they come",
                        PATIENCE.as_secs()
                    ),
                );
                Err(())
            }
            Err(mpsc::error::SendTimeoutError::Closed(_)) => Err(()),
        }
    }
}

/// What a subscription listens to.
enum Listening {
    /// Its chain's feed, for `newHeads`, `logs` (with its filter) or `syncing`.
    Feed(broadcast::Receiver<Arc<Event>>, SubscriptionKind, LogFilter),
    /// The chain's accepted transactions; whole ones when `true`.
    Pending(broadcast::Receiver<PendingTransaction>, bool),
}

impl Listening {
    async fn run<S: Backend>(self, shared: &Shared, chain: Chain, source: &S, id: &str) {
        match self {
            Listening::Feed(mut events, kind, filter) => loop {
                let event = match events.recv().await {
                    Ok(event) => event,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let reason = format!("too slow: subscription {id} missed {missed} events of its chain");
                        return shared.closer.close(POLICY, reason);
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                if deliver(shared, id, kind, &filter, &event).await.is_err() {
                    return;
                }
            },
            Listening::Pending(mut pending, full) => loop {
                let accepted = match pending.recv().await {
                    Ok(accepted) if accepted.chain == chain => accepted,
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(missed)) => {
                        let reason = format!("too slow: subscription {id} missed {missed} pending transactions");
                        return shared.closer.close(POLICY, reason);
                    }
                    Err(broadcast::error::RecvError::Closed) => return,
                };
                let result = if full {
                    match source.transaction_by_hash(chain, accepted.hash).await {
                        Ok(Some(transaction)) => serde_json::to_string(&transaction).expect("a transaction encodes"),
                        // Dropped or replaced before it was read: nothing to tell.
                        Ok(None) => continue,
                        Err(error) => {
                            tracing::warn!(%error, "a pending transaction could not be read for its subscriber");
                            continue;
                        }
                    }
                } else {
                    format!("\"{:#x}\"", accepted.hash)
                };
                if shared.notify(id, &result).await.is_err() {
                    return;
                }
            },
        }
    }
}

/// Sends what `event` holds for a subscription of `kind`.
async fn deliver(
    shared: &Shared,
    id: &str,
    kind: SubscriptionKind,
    filter: &LogFilter,
    event: &Event,
) -> Result<(), ()> {
    match (kind, event) {
        (SubscriptionKind::NewHeads, Event::Block { header, .. }) => shared.notify(id, header).await,
        (SubscriptionKind::Logs, Event::Block { logs, .. } | Event::Dropped { logs }) => {
            for log in logs.iter().filter(|log| filter.matches(&log.address, &log.topics)) {
                shared.notify(id, &log.json).await?;
            }
            Ok(())
        }
        (SubscriptionKind::Syncing, Event::Syncing(status)) => shared.notify(id, status).await,
        _ => Ok(()),
    }
}

fn kind_name(kind: SubscriptionKind) -> String {
    serde_json::to_value(kind).ok().and_then(|v| v.as_str().map(str::to_owned)).unwrap_or_default()
}

fn invalid(message: String) -> (i32, String) {
    (ErrorCode::InvalidParams.code(), message)
}

/// `eth_subscribe`'s positional parameters.
fn read_subscribe(params: Value) -> Result<(SubscriptionKind, Option<SubscriptionOptions>), (i32, String)> {
    let Value::Array(mut params) = params else {
        return Err(invalid("params: eth_subscribe takes its parameters by position, in an array".into()));
    };
    if params.is_empty() || params.len() > 2 {
        return Err(invalid(format!(
            "params: eth_subscribe takes a kind and at most one option; {} given",
            params.len()
        )));
    }
    let options = (params.len() == 2).then(|| params.pop()).flatten().filter(|options| !options.is_null());
    let kind = params.pop().unwrap_or_default();
    let kind: SubscriptionKind = serde_json::from_value(kind.clone()).map_err(|_| {
        invalid(format!("subscription: {kind} is not one of newHeads, logs, newPendingTransactions, syncing"))
    })?;
    let options = options
        .map(serde_json::from_value::<SubscriptionOptions>)
        .transpose()
        .map_err(|error| invalid(format!("options: {error}")))?;
    Ok((kind, options))
}

/// A logs subscription's filter, within the spec's limits and without a block range.
fn log_filter(filter: LogFilter) -> Result<LogFilter, (i32, String)> {
    if filter.from_block.is_some() || filter.to_block.is_some() || filter.block_hash.is_some() {
        return Err(invalid(
            "options: a logs subscription follows new blocks; fromBlock, toBlock and blockHash are not taken \
             (eth_getLogs reads past blocks)"
                .into(),
        ));
    }
    check_filter_size(&filter).map_err(|error| (error.code(), error.message().to_owned()))?;
    Ok(filter)
}

/// `eth_unsubscribe`: whether the subscription was held (geth's error when not).
fn unsubscribe(shared: &Shared, params: Value) -> Result<bool, (i32, String)> {
    let id = match params {
        Value::Array(params) if params.len() == 1 => params.into_iter().next().unwrap_or_default(),
        _ => return Err(invalid("params: eth_unsubscribe takes one subscription id, in an array".into())),
    };
    let Value::String(id) = id else {
        return Err(invalid(format!("subscriptionId: {id} is not a subscription id (a hex string)")));
    };
    match shared.held().remove(&id) {
        Some(task) => {
            task.abort();
            Ok(true)
        }
        None => Err((ErrorCode::ServerError.code(), "subscription not found".into())),
    }
}

fn result_response(id: &Value, result: &Value) -> String {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()
}

fn error_response(id: &Value, code: i32, message: &str) -> String {
    serde_json::json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } }).to_string()
}
