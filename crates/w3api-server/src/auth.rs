//! API keys: checked in constant time, never logged.

use std::fmt;
use std::future::{Ready, ready};
use std::sync::Arc;
use std::task::{Context, Poll};

use axum::http::{HeaderMap, Request};
use axum::response::{IntoResponse, Response};
use futures::future::Either;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq};
use tower::{Layer, Service};

use crate::error::ApiError;

/// The header the REST groups take the key in.
pub const API_KEY_HEADER: &str = "x-api-key";

/// The accepted keys, kept as SHA-256 digests so that comparing a candidate
/// takes the same time whatever its length and whichever key it is near.
#[derive(Clone)]
pub struct ApiKeys {
    // Shared: every request's route clones its copy of the check.
    digests: Arc<[[u8; 32]]>,
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

/// The REST routes' check: a request without an accepted key is answered
/// 401 before anything else reads it.
#[derive(Clone, Debug)]
pub(crate) struct RequireApiKeyLayer(pub ApiKeys);

impl<S> Layer<S> for RequireApiKeyLayer {
    type Service = RequireApiKey<S>;

    fn layer(&self, inner: S) -> RequireApiKey<S> {
        RequireApiKey { keys: self.0.clone(), inner }
    }
}

/// The service of [`RequireApiKeyLayer`].
#[derive(Clone, Debug)]
pub(crate) struct RequireApiKey<S> {
    keys: ApiKeys,
    inner: S,
}

impl<S, B> Service<Request<B>> for RequireApiKey<S>
where
    S: Service<Request<B>, Response = Response>,
{
    type Response = Response;
    type Error = S::Error;
    type Future = Either<Ready<Result<Response, S::Error>>, S::Future>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<B>) -> Self::Future {
        match self.keys.check(request.headers()) {
            Ok(()) => Either::Right(self.inner.call(request)),
            Err(refused) => Either::Left(ready(Ok(refused.into_response()))),
        }
    }
}

impl ApiKeys {
    fn check(&self, headers: &HeaderMap) -> Result<(), ApiError> {
        match headers.get(API_KEY_HEADER) {
            None => Err(ApiError::unauthorized("API KEY missing from x-api-key header")),
            Some(value) if value.to_str().is_ok_and(|key| self.accepts(key)) => Ok(()),
            Some(_) => Err(ApiError::unauthorized("Invalid API key in x-api-key header")),
        }
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
