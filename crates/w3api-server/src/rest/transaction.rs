//! `getTransaction` and `getTransactionVerbose`: a mined transaction with
//! its receipt and logs, the verbose form with its fee and decoded call
//! and logs (`w3api_answers::transaction`).

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::transaction::{self as answer, TransactionRequest};
use w3api_types::params::operations::{get_transaction as plain, get_transaction_verbose as verbose};
use w3api_types::{BlockTransaction, BlockTransactionVerbose};

use super::answer::JsonAnswer;
use super::extract::{FromSegmentQuery, SegmentRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &plain::OPERATION, transaction::<S>);
    super::operation(router, &verbose::OPERATION, transaction_verbose::<S>)
}

impl FromSegmentQuery for TransactionRequest {
    fn read(q: &mut Query, segment: &str) -> Self {
        // Both operations take the same parameters, under the same names.
        let hash = q.path_value(plain::TRANSACTION_HASH.name, segment).unwrap_or_default();
        TransactionRequest { chain: q.chain(&plain::CHAIN), hash, include: q.schema_value(&plain::INCLUDE) }
    }
}

async fn transaction<S: Backend>(
    State(app): State<Arc<App<S>>>,
    SegmentRequest(request): SegmentRequest<TransactionRequest>,
) -> Result<JsonAnswer<BlockTransaction>, ApiError> {
    Ok(JsonAnswer(answer::transaction(&*app.source, &request).await?))
}

async fn transaction_verbose<S: Backend>(
    State(app): State<Arc<App<S>>>,
    SegmentRequest(request): SegmentRequest<TransactionRequest>,
) -> Result<JsonAnswer<BlockTransactionVerbose>, ApiError> {
    Ok(JsonAnswer(answer::transaction_verbose(&*app.source, &request).await?))
}
