//! `getTokenPrice`: a token's price from its deepest DEX pair, the answer
//! `eth_getTokenPrice` gives too, and each of `getMultipleTokenPrices`'.

use w3api_source::{SourceError, TokenPriceQuery};
use w3api_types::TokenPrice;

use crate::Backend;
use crate::paging::block_at;

/// A price at the block the query names, or the newest when it names a
/// later one (as every REST answer reads it).
pub async fn price<S: Backend>(source: &S, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
    let to_block = Some(block_at(source, query.chain, query.to_block).await?);
    source.token_price(TokenPriceQuery { to_block, ..query }).await
}
