//! `getTokenMetadata` and `eth_getTokenMetadata`: what is known of ERC20
//! tokens, from the query core over the chain's view.

use w3api_query::token_metadata::TokenMetadata;
use w3api_source::SourceError;
use w3api_types::{Address, Chain, Erc20Metadata};

use crate::Backend;

/// What is known of each of `addresses`, in order.
pub async fn token_metadata<S: Backend>(
    source: &S,
    chain: Chain,
    addresses: Vec<Address>,
) -> Result<Vec<Erc20Metadata>, SourceError> {
    source.ask(chain, TokenMetadata { addresses }).await
}
