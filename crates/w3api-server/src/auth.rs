//! API keys: checked in constant time, never logged.

use std::fmt;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq};

use crate::error::ApiError;

/// The header the REST groups take the key in.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The accepted keys, kept as SHA-256 digests so that comparing a candidate
/// takes the same time whatever its length and whichever key it is near.
#[derive(Clone)]
pub struct ApiKeys {
    digests: Vec<[u8; 32]>,
}

impl fmt::Debug for ApiKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKeys({} keys)", self.digests.len())
    }
}

impl ApiKeys {
    /// The keys the server accepts.
    pub fn new<I: IntoIterator<Item = S>, S: AsRef<str>>(keys: I) -> ApiKeys {
        ApiKeys { digests: keys.into_iter().map(|k| digest(k.as_ref())).collect() }
    }

    /// Whether `candidate` is one of the keys. Every key is compared.
    pub fn accepts(&self, candidate: &str) -> bool {
        let candidate = digest(candidate);
        let matched = self.digests.iter().fold(Choice::from(0), |found, key| found | key.ct_eq(&candidate));
        matched.into()
    }
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Middleware of the REST routes: a request without an accepted key is answered 401.
pub(crate) async fn require_api_key(State(keys): State<ApiKeys>, request: Request, next: Next) -> Response {
    match request.headers().get(API_KEY_HEADER) {
        None => ApiError::unauthorized("API KEY missing from x-api-key header").into_response(),
        Some(value) if value.to_str().is_ok_and(|key| keys.accepts(key)) => next.run(request).await,
        Some(_) => ApiError::unauthorized("Invalid API key in x-api-key header").into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_configured_keys_are_accepted() {
        let keys = ApiKeys::new(["alpha", "beta"]);
        assert!(keys.accepts("alpha") && keys.accepts("beta"));
        assert!(!keys.accepts("alph") && !keys.accepts("") && !keys.accepts("alphabet"));
        assert!(!format!("{keys:?}").contains("alpha"));
    }
}
