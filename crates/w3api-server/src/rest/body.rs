//! JSON request bodies: a wrong content type, malformed JSON and well-formed
//! JSON of the wrong shape are each a 400 whose message names the problem
//! (production answers a body of the wrong shape with 400 and documents no
//! 422); a body over the limit is a 413.

use axum::body::Bytes;
use axum::extract::{FromRequest, Request};
use axum::http::{StatusCode, header};
use serde::de::DeserializeOwned;

use crate::error::ApiError;

/// A request body decoded from JSON into `T`.
pub(crate) struct JsonBody<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequest<S> for JsonBody<T> {
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
        let value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|e| ApiError::bad_request(vec![format!("body: malformed JSON ({e})")]))?;
        serde_path_to_error::deserialize(value).map(JsonBody).map_err(|error| {
            let path = error.path().to_string();
            let field = if path == "." { "body".to_string() } else { path };
            ApiError::bad_request(vec![format!("{field}: {}", error.into_inner())])
        })
    }
}
