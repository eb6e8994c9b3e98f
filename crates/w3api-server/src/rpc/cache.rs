//! The cache of unchanging answers as jsonrpsee middleware.
//!
//! It sits between jsonrpsee's parsing and the gateway, so that every call
//! is looked up before it is answered and kept after, whether it came alone
//! or inside a batch. Only the result is kept: jsonrpsee wraps it with the
//! id of each call that asks again.

use std::future::Future;
use std::sync::Arc;

use jsonrpsee::server::middleware::rpc::{Batch, BatchEntry, MethodResponse, Notification, Request, RpcServiceT};
use jsonrpsee::server::{BatchResponseBuilder, ResponsePayload};
use serde_json::value::RawValue;
use w3api_rpc::method;
use w3api_types::Chain;

use crate::answer_cache::Answers;

/// The chain's revision (see `Blocks::revision`).
pub(super) type Revision = Arc<dyn Fn() -> u64 + Send + Sync>;

/// Wraps a chain's JSON-RPC service in the cache.
#[derive(Clone)]
pub(super) struct CacheLayer {
    chain: Chain,
    revision: Revision,
    answers: Arc<Answers>,
    /// The server's response limit, which a batch built here must keep too.
    max_response_size: usize,
}

impl CacheLayer {
    pub(super) fn new(chain: Chain, revision: Revision, answers: Arc<Answers>, max_response_size: usize) -> CacheLayer {
        CacheLayer { chain, revision, answers, max_response_size }
    }
}

impl<S> tower::Layer<S> for CacheLayer {
    type Service = Cached<S>;

    fn layer(&self, inner: S) -> Cached<S> {
        Cached { inner, layer: self.clone() }
    }
}

/// A JSON-RPC service answering unchanging calls from the cache.
#[derive(Clone)]
pub(super) struct Cached<S> {
    inner: S,
    layer: CacheLayer,
}

impl<S: super::InnerService> RpcServiceT for Cached<S> {
    type MethodResponse = MethodResponse;
    type NotificationResponse = MethodResponse;
    type BatchResponse = MethodResponse;

    fn call<'a>(&self, request: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        async move {
            let Some(key) = unchanging_key(this.layer.chain, (this.layer.revision)(), &request) else {
                return this.inner.call(request).await;
            };
            if let Some(result) = this.layer.answers.get_result(&key) {
                return this.layer.answer(&request, &result);
            }
            let response = this.inner.call(request).await;
            this.layer.remember(key, &response);
            response
        }
    }

    // jsonrpsee's own batch loop calls the service beneath this one, so the
    // loop is repeated here for each call to pass through `call` above.
    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let this = self.clone();
        async move {
            let mut responses = BatchResponseBuilder::new_with_limit(this.layer.max_response_size);
            let mut got_notification = false;
            for entry in batch {
                let response = match entry {
                    Ok(BatchEntry::Call(request)) => this.call(request).await,
                    Ok(BatchEntry::Notification(notification)) => {
                        got_notification = true;
                        this.inner.notification(notification).await;
                        continue;
                    }
                    Err(invalid) => {
                        let (error, id) = invalid.into_parts();
                        MethodResponse::error(id, error)
                    }
                };
                if let Err(too_big) = responses.append(response) {
                    return too_big;
                }
            }
            // As jsonrpsee answers: nothing for notifications alone, and an
            // empty batch is an invalid request.
            if responses.is_empty() && got_notification {
                MethodResponse::notification()
            } else {
                MethodResponse::from_batch(responses.finish())
            }
        }
    }

    fn notification<'a>(&self, notification: Notification<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.notification(notification)
    }
}

impl CacheLayer {
    /// The response to `request` with a result kept earlier.
    fn answer(&self, request: &Request<'_>, result: &RawValue) -> MethodResponse {
        let response = MethodResponse::response(request.id(), ResponsePayload::success(result), self.max_response_size);
        response.with_extensions(request.extensions().clone())
    }

    /// Keeps the result of a response, unless it is an error or null.
    fn remember(&self, key: String, response: &MethodResponse) {
        #[derive(serde::Deserialize)]
        struct Answer<'a> {
            #[serde(borrow)]
            result: Option<&'a RawValue>,
        }
        if response.is_success()
            && let Ok(Answer { result: Some(result) }) = serde_json::from_str::<Answer>(response.as_json().get())
            && result.get() != "null"
        {
            self.answers.insert_result(key, || result.to_owned());
        }
    }
}

/// The cache key of a call whose answer cannot change while the chain's
/// revision stays: a block, or a transaction of a block, named by number or
/// hash (not by tag).
fn unchanging_key(chain: Chain, revision: u64, request: &Request<'_>) -> Option<String> {
    let name = request.method_name();
    let by_number =
        matches!(name, method::ETH_GET_BLOCK_BY_NUMBER | method::ETH_GET_TRANSACTION_BY_BLOCK_NUMBER_AND_INDEX);
    if !by_number && name != method::ETH_GET_TRANSACTION_BY_BLOCK_HASH_AND_INDEX {
        return None;
    }
    // Parsed, so that the key is the same however the caller spaced the parameters.
    let params: serde_json::Value = serde_json::from_str(request.params.as_deref()?.get()).ok()?;
    let fixed_block = match params.as_array()?.first()? {
        serde_json::Value::String(block) if by_number => block.starts_with("0x"),
        serde_json::Value::String(hash) => hash.len() == 66,
        _ => false,
    };
    fixed_block.then(|| format!("rpc|{chain}|{revision}|{name}|{params}"))
}
