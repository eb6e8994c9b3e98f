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
        match encode(&self.0) {
            Ok(bytes) => json_bytes(bytes),
            Err(error) => error.into_response(),
        }
    }
}

/// Largest scratch buffer a thread keeps between answers; one grown past it
/// by a rare large answer is given back.
const SCRATCH_KEPT: usize = 1 << 20;

thread_local! {
    /// Each worker thread's buffer to encode into, so that no answer
    /// regrows a vector of its own from empty (a 50 KB history page took
    /// nine allocations and copies). The answer is copied out at its exact
    /// size: a vector sized by a guess kept its spare capacity in the
    /// answer cache, which weighs answers by length.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `value` as JSON.
pub(crate) fn encode<T: Serialize>(value: &T) -> Result<Bytes, ApiError> {
    SCRATCH.with_borrow_mut(|scratch| {
        scratch.clear();
        let written = sonic_rs::to_writer(&mut *scratch, value);
        let bytes = Bytes::copy_from_slice(scratch);
        if scratch.capacity() > SCRATCH_KEPT {
            *scratch = Vec::new();
        }
        written.map(|()| bytes).map_err(|e| ApiError::internal(format!("encoding the answer: {e}")))
    })
}

/// A JSON body already encoded.
pub(crate) fn json_bytes(bytes: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], bytes).into_response()
}
