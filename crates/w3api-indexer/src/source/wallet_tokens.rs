//! Token balances of a wallet with USD prices, and token prices: the query
//! core's answers over the index, with the native balance from the node at
//! the same block.

use alloy_primitives::{Address, B256, U256};
use serde_json::json;
use w3api_source::{PageRequest, SourceError, TokenPriceQuery, WalletTokensPage, WalletTokensQuery};
use w3api_types::rpc::TokenPrice;

use super::not_indexed;
use super::view::IndexView;
use crate::follow::Followed;

pub(super) async fn answer(
    followed: &Followed,
    query: WalletTokensQuery,
    page: &PageRequest,
) -> Result<WalletTokensPage, SourceError> {
    let (tokens, hash) = {
        let index = followed.index.read();
        let tokens = w3api_query::wallet_tokens::wallet_tokens(&IndexView { index: &index, followed }, &query)?;
        let hash = index.hash_at(tokens.block).ok_or_else(|| not_indexed(followed))?;
        (tokens, hash)
    };
    let native = match tokens.native_to_read {
        Some(_) => Some(native_balance(followed, query.address, tokens.block, hash).await?),
        None => None,
    };
    tokens.rank(native, page)
}

/// The native balance at the indexed block: a node that has left that
/// branch refuses rather than answering from another.
async fn native_balance(followed: &Followed, address: Address, block: u64, hash: B256) -> Result<U256, SourceError> {
    followed.node.state_at("eth_getBalance", vec![json!(address)], (block, Some(hash)), Vec::new()).await.map_err(
        |error| {
            SourceError::Unavailable(format!("{error} (the chain may have reorganised during the answer; ask again)"))
        },
    )
}

/// `eth_getTokenPrice`: the token's price from its deepest pair at the
/// block (on one exchange, named by its factory's address, when asked).
pub(super) fn token_price(followed: &Followed, query: &TokenPriceQuery) -> Result<TokenPrice, SourceError> {
    let index = followed.index.read();
    w3api_query::token_price::token_price(&IndexView { index: &index, followed }, query)
}
