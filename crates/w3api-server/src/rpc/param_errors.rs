//! jsonrpsee refuses a parameter that does not parse with the message
//! `Invalid params` and the reason in `data`. geth says the reason in the
//! message and sends no `data`, and the execution clients' suite pins that
//! shape; so does our spec ("the message names the parameter and what was
//! wrong"). This layer moves the reason into the message.
//!
//! It also refuses, before the types read it, a hash, address, bytes or
//! quantity parameter written without the `0x` prefix the spec gives it:
//! alloy's types take one without, geth refuses it.

use std::future::Future;

use jsonrpsee::server::middleware::rpc::{Batch, MethodResponse, Notification, Request, RpcServiceT};
use jsonrpsee::types::ErrorObjectOwned;
use serde::Deserialize;
use w3api_rpc::{ErrorCode, method};

/// The message jsonrpsee gives every parameter it cannot parse.
const JSONRPSEE_MESSAGE: &str = "Invalid params";

/// Wraps a chain's JSON-RPC service.
#[derive(Clone, Copy, Default)]
pub(super) struct ParamErrorsLayer;

impl<S> tower::Layer<S> for ParamErrorsLayer {
    type Service = ParamErrors<S>;

    fn layer(&self, inner: S) -> ParamErrors<S> {
        ParamErrors { inner }
    }
}

/// A JSON-RPC service whose parameter errors say why in their message.
#[derive(Clone)]
pub(super) struct ParamErrors<S> {
    inner: S,
}

impl<S: super::InnerService> RpcServiceT for ParamErrors<S> {
    type MethodResponse = MethodResponse;
    type NotificationResponse = MethodResponse;
    type BatchResponse = MethodResponse;

    fn call<'a>(&self, request: Request<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        let inner = self.inner.clone();
        async move {
            let id = request.id().into_owned();
            if let Some(refusal) = unprefixed(request.method_name(), request.params().as_str()) {
                let error = ErrorObjectOwned::owned(ErrorCode::InvalidParams.code(), refusal, None::<()>);
                return MethodResponse::error(id, error);
            }
            let response = inner.call(request).await;
            if response.as_error_code() != Some(ErrorCode::InvalidParams.code()) {
                return response;
            }
            match reason_in_data(response.as_json().get()) {
                Some(reason) => MethodResponse::error(
                    id,
                    ErrorObjectOwned::owned(
                        ErrorCode::InvalidParams.code(),
                        format!("{JSONRPSEE_MESSAGE}: {reason}"),
                        None::<()>,
                    ),
                ),
                None => response,
            }
        }
    }

    fn batch<'a>(&self, batch: Batch<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.batch(batch)
    }

    fn notification<'a>(&self, notification: Notification<'a>) -> impl Future<Output = MethodResponse> + Send + 'a {
        self.inner.notification(notification)
    }
}

/// Why `params` of `method` are refused: a parameter the spec writes as
/// `0x`-prefixed hex given as a string without the prefix.
fn unprefixed(method: &str, params: Option<&str>) -> Option<String> {
    let table = method::PREFIXED_HEX_PARAMS;
    let positions = table.binary_search_by(|(name, _)| (*name).cmp(method)).ok().map(|at| table[at].1)?;
    let params: Vec<&serde_json::value::RawValue> = serde_json::from_str(params?).ok()?;
    positions.iter().find_map(|&at| {
        let text: &str = serde_json::from_str(params.get(at)?.get()).ok()?;
        let prefixed = text.starts_with("0x") || text.starts_with("0X");
        (!prefixed).then(|| format!("invalid argument {at}: hex string without 0x prefix"))
    })
}

/// The reason jsonrpsee put in the `data` of its own `Invalid params`.
fn reason_in_data(response: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Response {
        error: Error,
    }
    #[derive(Deserialize)]
    struct Error {
        message: String,
        data: Option<serde_json::Value>,
    }
    let error = serde_json::from_str::<Response>(response).ok()?.error;
    match (error.message.as_str(), error.data) {
        (JSONRPSEE_MESSAGE, Some(serde_json::Value::String(reason))) => Some(reason),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hex_parameter_without_its_prefix_is_refused_naming_its_position() {
        let hash = format!("\"{}\"", "1".repeat(64));
        let names = method::PREFIXED_HEX_PARAMS.iter().map(|(name, _)| name);
        assert!(names.clone().zip(names.skip(1)).all(|(a, b)| a < b), "the table is searched by name");
        let refused = unprefixed(method::DEBUG_GET_RAW_TRANSACTION, Some(&format!("[{hash}]")));
        assert_eq!(refused.as_deref(), Some("invalid argument 0: hex string without 0x prefix"));
        let prefixed = format!("[\"0x{}\"]", "1".repeat(64));
        assert_eq!(unprefixed(method::DEBUG_GET_RAW_TRANSACTION, Some(&prefixed)), None);
        // The second of eth_getStorageAt, a method whose first is fine.
        let slot = format!("[\"0x{}\",\"05\",\"latest\"]", "2".repeat(40));
        assert_eq!(
            unprefixed(method::ETH_GET_STORAGE_AT, Some(&slot)).as_deref(),
            Some("invalid argument 1: hex string without 0x prefix")
        );
        // Methods without such parameters, other JSON, and no parameters pass on untouched.
        assert_eq!(unprefixed(method::ETH_BLOCK_NUMBER, Some("[\"05\"]")), None);
        assert_eq!(unprefixed(method::ETH_GET_BALANCE, Some("[5]")), None);
        assert_eq!(unprefixed(method::ETH_GET_BALANCE, None), None);
    }

    #[test]
    fn only_jsonrpsees_own_refusal_gives_up_its_data() {
        let jsonrpsee =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":"No more params"}}"#;
        assert_eq!(reason_in_data(jsonrpsee).as_deref(), Some("No more params"));
        let ours = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"filter: fromBlock 0x5 is after toBlock 0x4"}}"#;
        assert_eq!(reason_in_data(ours), None);
        let structured =
            r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Invalid params","data":{"at":1}}}"#;
        assert_eq!(reason_in_data(structured), None);
    }
}
