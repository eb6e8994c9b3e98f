//! What every wallet operation's extractor shares: the path address and
//! query read with the operation's generated parameter table and checked
//! as a whole (every problem in one 400).

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path, RawQuery};
use axum::http::request::Parts;
use w3api_types::{Address, U256};

use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// An operation's request, read from its path address and its query with
/// the operation's generated parameter table.
pub(super) trait FromQuery: Sized {
    /// The request the query gives; problems are recorded in `query`.
    fn read(query: &mut Query, address: Address) -> Self;
}

/// An operation's request as an extractor: every problem in one 400.
pub(super) struct Request<T>(pub T);

impl<S: Backend, T: FromQuery> FromRequestParts<Arc<App<S>>> for Request<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App<S>>) -> Result<Self, ApiError> {
        extract(parts, &app.own_chains, T::read).await.map(Request)
    }
}

/// The request of an operation whose path names a contract and one of its
/// token ids, read from its query with the operation's generated parameter
/// table.
pub(super) trait FromTokenQuery: Sized {
    /// The request the query gives; problems are recorded in `query`.
    fn read(query: &mut Query, address: Address, token_id: U256) -> Self;
}

/// Such a request as an extractor: every problem in one 400.
pub(super) struct TokenRequest<T>(pub T);

impl<S: Backend, T: FromTokenQuery> FromRequestParts<Arc<App<S>>> for TokenRequest<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App<S>>) -> Result<Self, ApiError> {
        let (address, token_id) = Path::<(String, String)>::from_request_parts(parts, &())
            .await
            .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))?
            .0;
        let raw = raw_query(parts).await;
        let mut query = Query::parse(raw.as_deref(), &app.own_chains);
        let address = query.path_address(&address).unwrap_or_default();
        let token_id = query.path_token_id(&token_id).unwrap_or_default();
        let value = T::read(&mut query, address, token_id);
        query.finish()?;
        Ok(TokenRequest(value))
    }
}

/// The request of an operation whose path names one thing other than an
/// address (a transaction's hash, a block), read from its query with the
/// operation's generated parameter table.
pub(super) trait FromSegmentQuery: Sized {
    /// The request the query gives for the path's `segment`; problems are
    /// recorded in `query`.
    fn read(query: &mut Query, segment: &str) -> Self;
}

/// Such a request as an extractor: every problem in one 400.
pub(super) struct SegmentRequest<T>(pub T);

impl<S: Backend, T: FromSegmentQuery> FromRequestParts<Arc<App<S>>> for SegmentRequest<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App<S>>) -> Result<Self, ApiError> {
        let segment = Path::<String>::from_request_parts(parts, &())
            .await
            .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))?
            .0;
        let raw = raw_query(parts).await;
        let mut query = Query::parse(raw.as_deref(), &app.own_chains);
        let value = T::read(&mut query, &segment);
        query.finish()?;
        Ok(SegmentRequest(value))
    }
}

/// The request of an operation whose path names no address, read from its
/// query with the operation's generated parameter table.
pub(super) trait FromQueryAlone: Sized {
    /// The request the query gives; problems are recorded in `query`.
    fn read(query: &mut Query) -> Self;
}

/// Such a request as an extractor: every problem in one 400.
pub(super) struct QueryRequest<T>(pub T);

impl<S: Backend, T: FromQueryAlone> FromRequestParts<Arc<App<S>>> for QueryRequest<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App<S>>) -> Result<Self, ApiError> {
        let raw = raw_query(parts).await;
        let mut query = Query::parse(raw.as_deref(), &app.own_chains);
        let value = T::read(&mut query);
        query.finish()?;
        Ok(QueryRequest(value))
    }
}

/// Reads a request's path address and query with `read`, then fails with
/// every problem found, or answers what `read` built.
async fn extract<T>(
    parts: &mut Parts,
    own_chains: &[w3api_types::Chain],
    read: impl FnOnce(&mut Query, Address) -> T,
) -> Result<T, ApiError> {
    let segment = Path::<String>::from_request_parts(parts, &())
        .await
        .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))?;
    let raw = raw_query(parts).await;
    let mut query = Query::parse(raw.as_deref(), own_chains);
    let address = query.path_address(&segment.0);
    let value = read(&mut query, address.unwrap_or_default());
    query.finish()?;
    Ok(value)
}

/// The request's raw query, if it has one.
async fn raw_query(parts: &mut Parts) -> Option<String> {
    RawQuery::from_request_parts(parts, &()).await.map_or(None, |RawQuery(raw)| raw)
}
