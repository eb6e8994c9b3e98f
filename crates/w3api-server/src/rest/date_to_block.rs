//! `getDateToBlock`: the last block at or before a date.

use std::sync::Arc;

use axum::extract::State;
use chrono::{DateTime, Utc};
use w3api_query::block_at::BlockAt;
use w3api_source::{BlockRef, SourceError};
use w3api_types::params::operations::get_date_to_block as op;
use w3api_types::{BlockDate, Chain, DateInput};

use super::answer::JsonAnswer;
use super::extract::{FromQueryAlone, QueryRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, date_to_block::<S>)
}

/// The request: a date on a chain.
#[derive(Debug)]
pub(crate) struct DateToBlockRequest {
    chain: Chain,
    date: DateInput,
}

impl FromQueryAlone for DateToBlockRequest {
    fn read(q: &mut Query) -> Self {
        let date = q.schema_value(&op::DATE);
        if date.is_none() && !q.had_problem(op::DATE.name) {
            q.problem(op::DATE.name, "required; give Unix seconds or a date such as 2024-10-19T03:39:11Z");
        }
        let date = date.unwrap_or(DateInput(DateTime::<Utc>::UNIX_EPOCH.fixed_offset()));
        DateToBlockRequest { chain: q.chain(&op::CHAIN), date }
    }
}

async fn date_to_block<S: Backend>(
    State(app): State<Arc<App<S>>>,
    QueryRequest(request): QueryRequest<DateToBlockRequest>,
) -> Result<JsonAnswer<BlockDate>, ApiError> {
    // A date before 1970 is before every chain's first block.
    let timestamp = u64::try_from(request.date.0.timestamp()).unwrap_or(0);
    let (block, time) = app.source.ask(request.chain, BlockAt { timestamp }).await?;
    let header = app.source.block(request.chain, BlockRef::Number(block), false).await?;
    let header = header.ok_or_else(|| SourceError::Unavailable(format!("block {block} is not there any more")))?;
    Ok(JsonAnswer(BlockDate {
        date: request.date.0,
        block,
        timestamp: time,
        block_timestamp: DateTime::<Utc>::from_timestamp(i64::try_from(time).unwrap_or(i64::MAX), 0)
            .unwrap_or_default(),
        hash: header.hash,
        parent_hash: header.parent_hash,
    }))
}
