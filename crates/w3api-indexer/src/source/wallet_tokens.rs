//! Token balances of a wallet with USD prices, and token prices: the query
//! core's answers over the index, with the native balance from the node at
//! the same block.

use alloy_primitives::{Address, B256, U256};
use serde_json::json;
use w3api_source::{PageRequest, SourceError, TokenPriceQuery, WalletTokensPage, WalletTokensQuery};
use w3api_types::rpc::TokenPrice;

use std::sync::Arc;

use w3api_query::ChainView;
use w3api_query::wallet_tokens::WalletTokens;

use super::{Reading, not_indexed};
use crate::follow::Followed;

pub(super) async fn answer(
    followed: &Arc<Followed>,
    query: WalletTokensQuery,
    page: &PageRequest,
) -> Result<WalletTokensPage, SourceError> {
    let address = query.address;
    let (tokens, hash) = followed.read(Holdings(query)).await?;
    let hash = hash.ok_or_else(|| not_indexed(followed))?;
    let native = match tokens.native_to_read {
        Some(_) => Some(native_balance(followed, address, tokens.block, hash).await?),
        None => None,
    };
    tokens.rank(native, page)
}

/// A wallet's holdings, with the hash of the block they are read at.
struct Holdings(WalletTokensQuery);

impl Reading for Holdings {
    type Out = (WalletTokens, Option<B256>);

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<Self::Out, SourceError> {
        let tokens = w3api_query::wallet_tokens::wallet_tokens(view, &self.0)?;
        let hash = view.block_hash(tokens.block);
        Ok((tokens, hash))
    }
}

/// A token's price.
struct Price(TokenPriceQuery);

impl Reading for Price {
    type Out = TokenPrice;

    fn read(self, view: &impl ChainView<Id = U256>) -> Result<TokenPrice, SourceError> {
        w3api_query::token_price::token_price(view, &self.0)
    }
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
pub(super) async fn token_price(followed: &Arc<Followed>, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
    followed.read(Price(query)).await
}
