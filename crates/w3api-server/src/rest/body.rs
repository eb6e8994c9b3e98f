//! JSON request bodies: a wrong content type, malformed JSON and well-formed
//! JSON of the wrong shape are each a 400 whose message names the problem
//! (production answers a body of the wrong shape with 400 and documents no
//! 422); a body over the limit is a 413.
//!
//! A body is read into its Rust type first, whose messages name fields as
//! the handlers' own checks do. What serde lets through but the spec's
//! schema does not admit (`null` where a field is not nullable, an array
//! where an object belongs, a value outside an enum) is then refused by the
//! schema generated from the spec. Bounds and formats are left to the
//! handlers, whose messages say what a value should be.

use std::collections::HashMap;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use jsonschema::error::ValidationErrorKind;
use jsonschema::{Draft, Validator};
use serde::de::DeserializeOwned;
use serde_json::Value;
use w3api_types::openapi::{RequestBody, openapi_to_json_schema};

use crate::error::ApiError;

/// A request body decoded from JSON into `T`.
pub(crate) struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned + RequestBody> FromRequest<S> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(request: Request, state: &S) -> Result<Self, ApiError> {
        let content_type = request.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("");
        let is_json = content_type.split(';').next().is_some_and(|t| t.trim().eq_ignore_ascii_case("application/json"));
        if !is_json {
            return Err(ApiError::bad_request(vec![format!(
                "body: Content-Type must be application/json (got {})",
                if content_type.is_empty() { "none".to_string() } else { format!("{content_type:?}") }
            )]));
        }
        let limit = crate::BODY_LIMIT;
        let bytes = Bytes::from_request(request, state).await.map_err(|rejection| {
            if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
                ApiError::payload_too_large(limit)
            } else {
                ApiError::bad_request(vec![format!("body: {rejection}")])
            }
        })?;
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::bad_request(vec![format!("body: malformed JSON ({e})")]))?;
        let body = serde_path_to_error::deserialize(&value).map_err(|error| {
            let path = error.path().to_string();
            let field = if path == "." { "body".to_string() } else { path };
            ApiError::bad_request(vec![format!("{field}: {}", error.into_inner())])
        })?;
        let problems = shape_problems(&validator(T::SCHEMA), &value);
        if problems.is_empty() { Ok(JsonBody(body)) } else { Err(ApiError::bad_request(problems)) }
    }
}

/// The compiled schema of a request body, compiled once.
fn validator(schema: &'static str) -> Arc<Validator> {
    static COMPILED: LazyLock<Mutex<HashMap<usize, Arc<Validator>>>> = LazyLock::new(Default::default);
    let mut compiled = COMPILED.lock().unwrap_or_else(PoisonError::into_inner);
    let entry = compiled.entry(schema.as_ptr() as usize).or_insert_with(|| {
        let document: Value = serde_json::from_str(schema).expect("the generator writes JSON");
        let compiled = jsonschema::options().with_draft(Draft::Draft202012).build(&openapi_to_json_schema(&document));
        Arc::new(compiled.expect("every generated body schema compiles (tested)"))
    });
    Arc::clone(entry)
}

/// What the schema refuses of a body's shape, each named by its field.
fn shape_problems(validator: &Validator, body: &Value) -> Vec<String> {
    validator
        .iter_errors(body)
        .filter(|error| {
            matches!(
                error.kind(),
                ValidationErrorKind::Type { .. }
                    | ValidationErrorKind::Enum { .. }
                    | ValidationErrorKind::Required { .. }
                    | ValidationErrorKind::AdditionalProperties { .. }
                    | ValidationErrorKind::AnyOf { .. }
                    | ValidationErrorKind::OneOfNotValid { .. }
                    | ValidationErrorKind::OneOfMultipleValid { .. }
                    | ValidationErrorKind::FalseSchema
            )
        })
        .map(|error| format!("{}: {error}", field_name(&error.instance_path().to_string())))
        .collect()
}

/// A JSON pointer (`/getNativeBalances/0/type`) as the field names of the
/// other messages (`getNativeBalances[0].type`); the root is `body`.
fn field_name(pointer: &str) -> String {
    let mut name = String::new();
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if segment.parse::<usize>().is_ok() {
            name.push_str(&format!("[{segment}]"));
        } else {
            if !name.is_empty() {
                name.push('.');
            }
            name.push_str(&segment);
        }
    }
    if name.is_empty() { "body".into() } else { name }
}

/// What is wrong with a body's list of `given` items, which `bounds` (the
/// spec's `minItems` and `maxItems`) limit; `None` when nothing is.
pub(crate) fn items_problem(bounds: &w3api_types::params::FieldBounds, given: usize) -> Option<String> {
    if bounds.admits_items(given) {
        return None;
    }
    let (least, most) = (bounds.min_items.unwrap_or(0), bounds.max_items.unwrap_or(u64::MAX));
    Some(format!("{}: {given} given; from {least} to {most} are allowed", bounds.name))
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use w3api_types::params::operations;

    use super::*;

    #[test]
    fn every_generated_body_schema_compiles() {
        for schema in [
            operations::solana_challenge_request::SCHEMA,
            operations::solana_verify_request::SCHEMA,
            operations::evm_stream_create::SCHEMA,
            operations::evm_stream_update::SCHEMA,
            operations::stream_status_update::SCHEMA,
            operations::stream_address_change::SCHEMA,
            operations::stream_block_request::SCHEMA,
            operations::stream_settings::SCHEMA,
        ] {
            validator(schema);
        }
    }

    #[test]
    fn what_serde_lets_through_the_schema_refuses_by_field() {
        let create = validator(operations::evm_stream_create::SCHEMA);
        let body = json!({
            "webhookUrl": "http://x/", "description": "d", "tag": "t", "chainIds": ["0x1"],
            "filterPossibleSpamAddresses": null,
            "getNativeBalances": [{"selectors": [], "type": "AAA"}],
            "abi": [{"type": "event", "gas": null}],
        });
        let problems = shape_problems(&create, &body);
        let fields: Vec<&str> = problems.iter().map(|p| p.split(':').next().unwrap()).collect();
        // `abi` is nullable: its item fails both branches, and the field is named.
        assert_eq!(fields, ["abi", "filterPossibleSpamAddresses", "getNativeBalances[0].type"], "{problems:#?}");
        let settings = validator(operations::stream_settings::SCHEMA);
        assert_eq!(shape_problems(&settings, &json!([])), ["body: [] is not of type \"object\""]);
        assert!(shape_problems(&settings, &json!({"region": "us-east-1"})).is_empty());
        let refused = |schema, body| shape_problems(&validator(schema), &body);
        assert_eq!(refused(operations::stream_settings::SCHEMA, json!({"secretKey": null})).len(), 1);
        assert_eq!(refused(operations::evm_stream_update::SCHEMA, json!({"tag": null})).len(), 1);
        assert_eq!(refused(operations::stream_block_request::SCHEMA, json!({"addresses": null})).len(), 1);
        assert!(
            refused(operations::evm_stream_update::SCHEMA, json!({"abi": null})).is_empty(),
            "a nullable field is cleared by null"
        );
    }

    #[test]
    fn bounds_and_formats_are_left_to_the_handlers() {
        let request = validator(operations::solana_challenge_request::SCHEMA);
        let body = json!({
            "domain": "not a host", "address": "0", "uri": "x", "timeout": 1, "network": "mainnet",
        });
        assert!(shape_problems(&request, &body).is_empty(), "{:?}", shape_problems(&request, &body));
    }
}
