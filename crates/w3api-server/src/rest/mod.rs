//! The REST operations of `spec/openapi.yaml`, one module per operation
//! (or pair of operations) holding its extractor and its handler, routed at
//! the path and method the generated operation table gives it. Each reads
//! its request, calls its answer in `w3api-answers` (which its JSON-RPC
//! twin calls too) and writes it; none imports another. What they share: query parsing (`query.rs`), the
//! extractor's frame (`extract.rs`), bodies (`body.rs`) and JSON answers
//! (`answer.rs`).

pub(crate) mod answer;
mod block;
pub(crate) mod body;
mod contract_nfts;
mod date_to_block;
pub(crate) mod extract;
mod multiple_nfts;
mod multiple_token_prices;
mod native_balance;
mod native_balances;
mod net_worth;
mod nft_metadata;
mod nft_owners;
mod nft_transfers;
pub(crate) mod query;
mod solana_challenge;
pub(crate) mod streams;
mod token_metadata;
mod token_price;
mod token_transfers;
mod transaction;
mod wallet_activity;
mod wallet_collections;
mod wallet_erc20;
mod wallet_history;
mod wallet_nfts;
mod wallet_tokens;
mod wallet_transactions;

use std::sync::Arc;

use crate::Backend;
use axum::Router;
use axum::handler::Handler;
use axum::http::Method;
use axum::routing::{MethodFilter, on};
use w3api_types::params::Operation;

use crate::App;

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
