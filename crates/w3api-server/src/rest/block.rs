//! `getBlock`: a block by number or hash, with every transaction, each
//! with its receipt and logs (`w3api_answers::block`).

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::block::{BlockRequest, block as answer};
use w3api_types::params::operations::get_block as op;
use w3api_types::{BlockNumberOrHash, ChainBlock};

use super::answer::JsonAnswer;
use super::extract::{FromSegmentQuery, SegmentRequest};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, block::<S>)
}

impl FromSegmentQuery for BlockRequest {
    fn read(q: &mut Query, segment: &str) -> Self {
        let block = q.path_value(op::BLOCK_NUMBER_OR_HASH.name, segment).unwrap_or(BlockNumberOrHash::Number(0));
        BlockRequest { chain: q.chain(&op::CHAIN), block, include: q.schema_value(&op::INCLUDE) }
    }
}

async fn block<S: Backend>(
    State(app): State<Arc<App<S>>>,
    SegmentRequest(request): SegmentRequest<BlockRequest>,
) -> Result<JsonAnswer<ChainBlock>, ApiError> {
    Ok(JsonAnswer(answer(&*app.source, request).await?))
}
