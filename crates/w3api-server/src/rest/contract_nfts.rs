//! `getContractNFTs`: every token of a collection, by token id, one page at
//! a time; `range` and `totalRanges` list one run of the ids alone.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::collection_nfts::ContractNfts;
use w3api_types::params::operations::get_contract_nfts as op;
use w3api_types::{Address, Chain, NftPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Paging, Request};
use super::query::Query;
use super::wallet_nfts::{NftView, nft};
use super::{FIRST_NFT_PAGE, Listing, begin_walk};
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, contract_nfts::<S>)
}

/// The request: which collection (and run of it), how to write it, and
/// which page.
#[derive(Debug)]
pub(crate) struct ContractNftsRequest {
    chain: Chain,
    address: Address,
    include_prices: bool,
    range: Option<(u64, u64)>,
    view: NftView,
    paging: Paging,
}

impl FromQuery for ContractNftsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        ContractNftsRequest {
            chain: q.chain(&op::CHAIN),
            address,
            include_prices: q.flag(&op::INCLUDE_PRICES),
            range: run(q),
            view: NftView::read(q, &op::FORMAT, &op::NORMALIZE_METADATA, &op::MEDIA_ITEMS),
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
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
    let ContractNftsRequest { chain, address, include_prices, range, view, ref paging } = request;
    let listing = Listing { kind: "contract_nfts", first_page: FIRST_NFT_PAGE };
    let key = (chain, address, include_prices, range, view);
    let (walk, block) = begin_walk((&*app.source, &app.cursors), listing, &key, paging, (chain, None)).await?;
    let question = ContractNfts { address, at_block: Some(block), page: walk.request.clone(), include_prices, range };
    let answer = app.source.ask(chain, question).await?;
    let described = app.source.describe_nfts(chain, block, answer.page.items).await?;
    Ok(JsonAnswer(NftPage {
        status: None,
        total: Some(answer.total),
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &key, block, answer.page.next),
        result: described.into_iter().map(|holding| nft(holding, view)).collect(),
    }))
}
