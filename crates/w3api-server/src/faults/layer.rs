//! The layer that injects faults, around the routes. A request with no
//! `Prefer` header, while no rule is in force, passes straight through: one
//! header lookup and one atomic load.

use std::convert::Infallible;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::Request;
use axum::response::{IntoResponse, Response};
use futures::future::{BoxFuture, Either};
use http::{HeaderValue, Method, StatusCode};
use tower::{Layer, Service};
use w3api_types::params::Operation;

use super::answer::{self, Calls};
use super::{FAULT_HEADER, Fault, FaultRules, Injection, PREFER, prefer};
use crate::{ApiError, BODY_LIMIT};

/// Injects the faults that `Prefer` headers and `rules` ask for.
#[derive(Clone)]
pub(crate) struct FaultLayer {
    pub(crate) rules: FaultRules,
}

impl<S> Layer<S> for FaultLayer {
    type Service = FaultService<S>;

    fn layer(&self, inner: S) -> FaultService<S> {
        FaultService { inner, rules: self.rules.clone() }
    }
}

#[derive(Clone)]
pub(crate) struct FaultService<S> {
    inner: S,
    rules: FaultRules,
}

impl<S> Service<Request> for FaultService<S>
where
    S: Service<Request, Response = Response, Error = Infallible> + Clone + Send + 'static,
    S::Future: Send,
{
    type Response = Response;
    type Error = Infallible;
    type Future = Either<S::Future, BoxFuture<'static, Result<Response, Infallible>>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request) -> Self::Future {
        if !request.headers().contains_key(PREFER) && !self.rules.any() {
            return Either::Left(self.inner.call(request));
        }
        // The clone that was made ready goes with the request (tower's rule).
        let ready = self.inner.clone();
        let inner = std::mem::replace(&mut self.inner, ready);
        Either::Right(Box::pin(inject(inner, self.rules.clone(), request)))
    }
}

async fn inject<S>(mut inner: S, rules: FaultRules, request: Request) -> Result<Response, Infallible>
where
    S: Service<Request, Response = Response, Error = Infallible>,
{
    let rpc = is_gateway(request.method(), request.uri().path());
    // A gateway request's calls: their ids for an error answer, their
    // methods for the rules.
    let (request, calls) = if rpc {
        match read_calls(request).await {
            Ok((request, calls)) => (request, Some(calls)),
            Err(refusal) => return Ok(refusal),
        }
    } else {
        (request, None)
    };
    let asked = match prefer::injection(request.headers()) {
        Ok(asked) => asked,
        Err(message) => return Ok(answer::error(StatusCode::BAD_REQUEST, message, calls.as_ref())),
    };
    let operation = Operation::find(request.method().as_str(), request.uri().path()).map(|o| o.id);
    let methods = calls.as_ref().map_or(&[][..], |calls| calls.methods.as_slice());
    let Some(injection) = asked.or_else(|| rules.take(operation, methods)) else {
        return inner.call(request).await;
    };
    if let Some(delay) = injection.delay {
        tokio::time::sleep(delay).await;
    }
    let response = match injection.fault {
        None => inner.call(request).await?,
        Some(Fault::Status(status)) => {
            let message =
                format!("{} (injected: {})", status.canonical_reason().unwrap_or("error"), injection.describe());
            answer::error(status, message, calls.as_ref())
        }
        Some(Fault::Reset) => answer::reset(),
        Some(Fault::Truncate) => answer::truncate(inner.call(request).await?).await,
        Some(Fault::Malformed) => answer::malformed(inner.call(request).await?).await,
    };
    Ok(marked(response, &injection))
}

/// Whether a request goes to the JSON-RPC gateway (`POST /{chain}/{key}`).
fn is_gateway(method: &Method, path: &str) -> bool {
    method == Method::POST && path.split('/').count() == 3 && Operation::find(method.as_str(), path).is_none()
}

/// The request with its body read (up to the server's limit) and put
/// back, and its calls; the answer to send instead when the body is over
/// the limit or cannot be read.
async fn read_calls(request: Request) -> Result<(Request, Calls), Response> {
    let (parts, body) = request.into_parts();
    let bytes = axum::body::to_bytes(body, BODY_LIMIT)
        .await
        .map_err(|_| ApiError::payload_too_large(BODY_LIMIT).into_response())?;
    let calls = Calls::read(&bytes);
    Ok((Request::from_parts(parts, Body::from(bytes)), calls))
}

fn marked(mut response: Response, injection: &Injection) -> Response {
    if let Ok(value) = HeaderValue::from_str(&injection.describe()) {
        response.headers_mut().insert(FAULT_HEADER, value);
    }
    response
}
