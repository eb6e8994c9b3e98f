//! `getDateToBlock`: the last block at or before a date.

use std::sync::Arc;

use axum::extract::State;
use chrono::{DateTime, Utc};
use w3api_answers::date_to_block::date_to_block as answer;
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
struct DateToBlockRequest {
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
    Ok(JsonAnswer(answer(&*app.source, request.chain, request.date).await?))
}
