//! `getContractNFTs`: every token of a collection, by token id, one page at
//! a time; `range` and `totalRanges` list one run of the ids alone.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::contract_nfts::{ContractNftsRequest, contract_nfts as answer};
use w3api_types::params::operations::get_contract_nfts as op;
use w3api_types::{Address, NftPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, contract_nfts::<S>)
}

impl FromQuery for ContractNftsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        ContractNftsRequest {
            chain: q.chain(&op::CHAIN),
            address,
            include_prices: q.flag(&op::INCLUDE_PRICES),
            range: run(q),
            view: q.nft_view(&op::FORMAT, &op::NORMALIZE_METADATA, &op::MEDIA_ITEMS),
            paging: q.paging(&op::LIMIT, &op::CURSOR),
        }
    }
}

/// `range` of `totalRanges`: both or neither, each from 1, the run within
/// the runs.
fn run(q: &mut Query) -> Option<(u64, u64)> {
    let (range, total) = (q.integer(&op::RANGE), q.integer(&op::TOTAL_RANGES));
    let (name, other) = (op::RANGE.name, op::TOTAL_RANGES.name);
    match (range, total) {
        (None, None) => None,
        (Some(_), None) => fail(q, name, format_args!("needs {other}")),
        (None, Some(_)) => fail(q, other, format_args!("needs {name}")),
        (Some(0), _) => fail(q, name, "runs are numbered from 1"),
        (_, Some(0)) => fail(q, other, "at least 1"),
        (Some(range), Some(total)) if range > total => {
            fail(q, name, format_args!("{range} is past the last run, {total} ({other})"))
        }
        (Some(range), Some(total)) => Some((range, total)),
    }
}

fn fail(q: &mut Query, name: &str, message: impl std::fmt::Display) -> Option<(u64, u64)> {
    q.problem(name, message);
    None
}

async fn contract_nfts<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<ContractNftsRequest>,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request).await?))
}
