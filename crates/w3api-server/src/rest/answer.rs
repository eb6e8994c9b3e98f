//! REST answers as JSON bytes.
//!
//! Encoded with sonic-rs, which writes byte for byte what serde_json
//! writes (the server suite checks it on wallet answers) and escapes strings
//! with SIMD: through serde_json, escaping alone was a third of the time a
//! cold wallet-tokens answer took to encode.

use axum::body::Bytes;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::error::ApiError;

/// A value answered as a JSON body.
pub(crate) struct JsonAnswer<T>(pub T);

impl<T: Serialize> IntoResponse for JsonAnswer<T> {
    fn into_response(self) -> Response {
        match encode(&self.0, 0) {
            Ok(bytes) => json_bytes(bytes),
            Err(error) => error.into_response(),
        }
    }
}

/// `value` as JSON, in a buffer of `capacity` bytes to start with (the
/// expected size, so that encoding does not regrow and copy it).
pub(crate) fn encode<T: Serialize>(value: &T, capacity: usize) -> Result<Bytes, ApiError> {
    let mut encoded = Vec::with_capacity(capacity.max(128));
    sonic_rs::to_writer(&mut encoded, value).map_err(|e| ApiError::internal(format!("encoding the answer: {e}")))?;
    Ok(Bytes::from(encoded))
}

/// A JSON body already encoded.
pub(crate) fn json_bytes(bytes: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], bytes).into_response()
}
