//! The REST operations of `spec/openapi.yaml`, one module per operation
//! (or pair of operations) holding its extractor, its handler and the
//! conversion of its answer, routed at the path and method the generated
//! operation table gives it. What they share: query parsing (`query.rs`),
//! the extractor's frame (`extract.rs`), bodies (`body.rs`), signed cursors
//! (`pagination.rs`) and JSON answers (`answer.rs`).

pub(crate) mod answer;
mod block;
pub(crate) mod body;
mod contract_nfts;
mod date_to_block;
pub(crate) mod extract;
mod internal_transactions;
mod multiple_nfts;
mod multiple_token_prices;
mod native_balance;
mod native_balances;
mod net_worth;
mod nft_metadata;
mod nft_owners;
mod nft_transfers;
pub(crate) mod pagination;
pub(crate) mod query;
mod solana_challenge;
pub(crate) mod streams;
mod token_metadata;
mod token_price;
pub(crate) mod token_transfers;
pub(crate) mod transaction;
mod wallet_activity;
pub(crate) mod wallet_collections;
pub(crate) mod wallet_erc20;
pub(crate) mod wallet_history;
pub(crate) mod wallet_nfts;
mod wallet_tokens;
pub(crate) mod wallet_transactions;

use std::sync::Arc;

use crate::Backend;
use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodFilter, on};
use w3api_source::SourceError;
use w3api_types::Chain;
use w3api_types::params::Operation;

use self::extract::Paging;
use self::pagination::{Cursors, Walk};
use crate::App;
use crate::error::ApiError;

/// Production numbers NFT and collection pages from 1: its cursors record
/// page 1 at offset 0.
const FIRST_NFT_PAGE: u64 = 1;

/// The router the REST operations are added to.
type Routes<S> = Router<Arc<App<S>>>;

/// The REST routes (every one needs an API key).
pub(crate) fn routes<S: Backend>() -> Routes<S> {
    let router = solana_challenge::route(Router::new());
    let router = wallet_tokens::route(router);
    let router = wallet_nfts::route(router);
    let router = wallet_collections::route(router);
    let router = native_balance::route(router);
    let router = native_balances::route(router);
    let router = wallet_erc20::route(router);
    let router = token_price::route(router);
    let router = multiple_token_prices::route(router);
    let router = token_metadata::route(router);
    let router = date_to_block::route(router);
    let router = net_worth::route(router);
    let router = nft_metadata::route(router);
    let router = multiple_nfts::route(router);
    let router = contract_nfts::route(router);
    let router = nft_owners::route(router);
    let router = block::route(router);
    let router = transaction::route(router);
    let router = token_transfers::route(router);
    let router = nft_transfers::route(router);
    let router = wallet_transactions::route(router);
    let router = wallet_history::route(router);
    wallet_activity::route(router)
}

/// Adds `handler` at `operation`'s path, for its method: both as the spec
/// has them.
fn operation<S, H, T>(router: Routes<S>, operation: &Operation, handler: H) -> Routes<S>
where
    S: Backend,
    H: Handler<T, Arc<App<S>>>,
    T: 'static,
{
    let method = Method::from_bytes(operation.method.as_bytes()).ok().and_then(|m| MethodFilter::try_from(m).ok());
    let method = method.unwrap_or_else(|| panic!("{}: the spec names method {}", operation.id, operation.method));
    router.route(operation.path, on(method, handler))
}

/// How a listing operation's pages are numbered and its cursors told apart.
#[derive(Clone, Copy)]
struct Listing {
    /// What its cursors say they list.
    kind: &'static str,
    /// The number of its first page.
    first_page: u64,
}

/// Where a listing's walk stands (the page `paging` asks for, after the
/// cursor it gives for `query`), and the block every page of the walk
/// reads: the one its first page read, or else the newest, or `requested`
/// when that is older (a block past the newest reads the newest, and the
/// answer says which).
async fn begin_walk<S: Backend>(
    (source, cursors): (&S, &Cursors),
    listing: Listing,
    query: &(dyn std::fmt::Debug + Sync),
    paging: &Paging,
    (chain, requested): (Chain, Option<u64>),
) -> Result<(Walk, u64), ApiError> {
    let walk = cursors.walk(listing.kind, query, paging, listing.first_page)?;
    if let Some(block) = walk.block {
        return Ok((walk, block));
    }
    Ok((walk, block_at(source, chain, requested).await?))
}

/// The block an answer reads: the newest, or `requested` when that is
/// older (a block past the newest reads the newest, and the answer says
/// which).
pub(crate) async fn block_at<S: Backend>(source: &S, chain: Chain, requested: Option<u64>) -> Result<u64, SourceError> {
    let latest = source.latest_block(chain).await?;
    Ok(requested.map_or(latest, |requested| requested.min(latest)))
}
