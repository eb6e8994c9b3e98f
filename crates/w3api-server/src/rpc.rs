//! The JSON-RPC gateway: `POST /{chain}/{apiKey}`.
//!
//! The key and the chain are checked here (401 and 400, each with a
//! JSON-RPC error body); then the request goes to jsonrpsee's own HTTP
//! service for that chain, which handles JSON-RPC 2.0 with batches and the
//! standard errors, and calls [`Gateway`], the server side of the API trait
//! generated from `spec/openrpc.json`.

use std::collections::HashMap;
use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use jsonrpsee::core::{RpcResult, async_trait};
use jsonrpsee::server::{BatchRequestConfig, Server, ServerConfig, ServerHandle, TowerService, stop_channel};
use jsonrpsee::types::ErrorObjectOwned;
use serde_json::value::RawValue;
use tower::ServiceExt;
use tower::layer::util::Identity;
use w3api_rpc::{ErrorCode, EthApiServer};
use w3api_source::{BlockRef, DataSource, SourceError, TokenPriceQuery};
use w3api_types::Chain;
use w3api_types::rpc::{
    Block, BlockNumberOrTag, Hash32, TokenPrice, TokenPriceInclude, TokenPriceParams, Transaction, TransactionIndex,
};

use crate::{App, BODY_LIMIT};

/// Most calls in one batch.
const MAX_BATCH: u32 = 1_000;

/// The API trait, answered from a data source for one chain.
pub struct Gateway<S> {
    chain: Chain,
    source: Arc<S>,
}

fn rpc_error(code: ErrorCode, message: impl Into<String>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(code.code(), message.into(), None::<()>)
}

fn source_error(error: SourceError) -> ErrorObjectOwned {
    let code = match &error {
        SourceError::NoPrice { .. } => ErrorCode::PriceNotFound,
        SourceError::UnknownExchange { .. } | SourceError::BlockOutOfRange { .. } => ErrorCode::InvalidParams,
        SourceError::ChainNotServed(_) => ErrorCode::UnknownChain,
        SourceError::Unavailable(_) => ErrorCode::InternalError,
    };
    rpc_error(code, error.to_string())
}

#[async_trait]
impl<S: DataSource> EthApiServer for Gateway<S> {
    async fn get_token_price(&self, request: TokenPriceParams) -> RpcResult<TokenPrice> {
        let query = TokenPriceQuery {
            chain: self.chain,
            address: request.address,
            exchange: request.exchange,
            to_block: request.to_block,
            include_percent_change: request.include == Some(TokenPriceInclude::PercentChange),
        };
        self.source.token_price(query).await.map_err(source_error)
    }

    async fn get_block_by_number(&self, block: BlockNumberOrTag, hydrated: bool) -> RpcResult<Option<Block>> {
        self.source.block(self.chain, block.into(), hydrated).await.map_err(source_error)
    }

    async fn get_transaction_by_block_hash_and_index(
        &self,
        block_hash: Hash32,
        index: TransactionIndex,
    ) -> RpcResult<Option<Transaction>> {
        self.source.transaction(self.chain, BlockRef::Hash(block_hash), index.0).await.map_err(source_error)
    }

    async fn get_transaction_by_block_number_and_index(
        &self,
        block: BlockNumberOrTag,
        index: TransactionIndex,
    ) -> RpcResult<Option<Transaction>> {
        self.source.transaction(self.chain, block.into(), index.0).await.map_err(source_error)
    }
}

/// jsonrpsee's HTTP service, without extra middleware.
type Service = TowerService<Identity, Identity>;

/// jsonrpsee's HTTP service for each chain of the gateway.
pub struct RpcServices {
    services: HashMap<Chain, Service>,
    // Dropping the handle would stop the services.
    _stop: ServerHandle,
}

impl RpcServices {
    /// One service per RPC chain, answering from `source`.
    pub fn new<S: DataSource>(source: Arc<S>, body_limit: usize) -> RpcServices {
        let (stop, handle) = stop_channel();
        let config = ServerConfig::builder()
            .max_request_body_size(body_limit as u32)
            .set_batch_request_config(BatchRequestConfig::Limit(MAX_BATCH))
            .build();
        let services = Chain::rpc()
            .map(|chain| {
                let gateway = Gateway { chain, source: source.clone() };
                let service = Server::builder()
                    .set_config(config.clone())
                    .to_service_builder()
                    .max_connections(u32::MAX)
                    .build(gateway.into_rpc(), stop.clone());
                (chain, service)
            })
            .collect();
        RpcServices { services, _stop: handle }
    }
}

/// A JSON-RPC error body outside any call (`id` null), with an HTTP status.
fn refusal(status: StatusCode, code: ErrorCode, message: String) -> Response {
    #[derive(serde::Serialize)]
    struct Refusal {
        jsonrpc: &'static str,
        id: Option<u64>,
        error: RefusalError,
    }
    #[derive(serde::Serialize)]
    struct RefusalError {
        code: i32,
        message: String,
    }
    let body = Refusal { jsonrpc: "2.0", id: None, error: RefusalError { code: code.code(), message } };
    (status, axum::Json(body)).into_response()
}

/// `POST /{chain}/{apiKey}`: checks the key, then the chain, then answers
/// from the cache of unchanging answers or hands the request to jsonrpsee.
pub async fn entry<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
) -> Response {
    let Ok(Path((slug, key))) = path else {
        return refusal(StatusCode::BAD_REQUEST, ErrorCode::InvalidRequest, "The path is not valid UTF-8".into());
    };
    if !app.keys.accepts(&key) {
        return refusal(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, "Unauthorized: unknown API key".into());
    }
    let Some((chain, service)) =
        Chain::from_rpc_slug(&slug).and_then(|chain| Some((chain, app.rpc.services.get(&chain)?)))
    else {
        let known: Vec<&str> = Chain::rpc().filter_map(Chain::rpc_slug).collect();
        let message = format!("Unknown chain {slug:?}; the gateway serves {}", known.join(", "));
        return refusal(StatusCode::BAD_REQUEST, ErrorCode::UnknownChain, message);
    };
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        let message = format!("Request body exceeds {BODY_LIMIT} bytes");
        return refusal(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::InvalidRequest, message);
    };
    let call = UnchangingCall::read(chain, &body);
    if let Some(call) = &call
        && let Some(result) = app.answers.get(&call.key)
    {
        return call.answer(&result);
    }
    let request = Request::from_parts(parts, Body::from(body));
    let response = match service.clone().oneshot(request).await {
        Ok(response) => response,
        Err(error) => {
            tracing::error!(%error, "JSON-RPC service failed");
            return refusal(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::InternalError, "Internal error".into());
        }
    };
    match call {
        Some(call) => call.remember(&app.answers, response).await,
        None => response.map(Body::new),
    }
}

/// A single call whose answer cannot change: a block, or a transaction of a
/// block, named by number or hash (not by tag).
struct UnchangingCall {
    key: String,
    id: Box<RawValue>,
}

#[derive(serde::Deserialize)]
struct CallShape<'a> {
    jsonrpc: &'a str,
    id: Box<RawValue>,
    method: &'a str,
    params: serde_json::Value,
}

impl UnchangingCall {
    fn read(chain: Chain, body: &[u8]) -> Option<UnchangingCall> {
        let call: CallShape = serde_json::from_slice(body).ok()?;
        let params = call.params.as_array()?;
        let fixed_block = match (call.method, params.first()?) {
            ("eth_getBlockByNumber" | "eth_getTransactionByBlockNumberAndIndex", serde_json::Value::String(block)) => {
                block.starts_with("0x")
            }
            ("eth_getTransactionByBlockHashAndIndex", serde_json::Value::String(hash)) => hash.len() == 66,
            _ => false,
        };
        let id_is_plain = call.id.get().starts_with(|c: char| c.is_ascii_digit() || c == '"' || c == '-');
        (call.jsonrpc == "2.0" && fixed_block && id_is_plain)
            .then(|| UnchangingCall { key: format!("rpc|{chain}|{}|{}", call.method, call.params), id: call.id })
    }

    /// The response for this call's id with a result kept earlier.
    fn answer(&self, result: &Bytes) -> Response {
        let mut body = Vec::with_capacity(result.len() + 48);
        body.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        body.extend_from_slice(self.id.get().as_bytes());
        body.extend_from_slice(b",\"result\":");
        body.extend_from_slice(result);
        body.push(b'}');
        ([(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"))], body).into_response()
    }

    /// Passes jsonrpsee's response on, keeping its result when it has one.
    async fn remember<B>(self, answers: &crate::answers::Answers, response: http::Response<B>) -> Response
    where
        B: http_body::Body<Data = Bytes> + Send + 'static,
        B::Error: std::fmt::Display,
    {
        let (parts, body) = response.into_parts();
        let bytes = match http_body_util::BodyExt::collect(body).await {
            Ok(collected) => collected.to_bytes(),
            Err(error) => {
                tracing::error!(%error, "reading the JSON-RPC response");
                return refusal(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::InternalError, "Internal error".into());
            }
        };
        #[derive(serde::Deserialize)]
        struct Answer<'a> {
            #[serde(borrow)]
            result: Option<&'a RawValue>,
        }
        if parts.status == StatusCode::OK
            && let Ok(Answer { result: Some(result) }) = serde_json::from_slice::<Answer>(&bytes)
            && result.get() != "null"
        {
            answers.insert(self.key, Bytes::copy_from_slice(result.get().as_bytes()));
        }
        Response::from_parts(parts, Body::from(bytes))
    }
}
