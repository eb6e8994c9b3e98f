//! Token balances of a wallet, with USD prices, and token prices, at any
//! block: the query core's answers over the generated chain.

use w3api_ledger::Asset;
use w3api_source::{PageRequest, SourceError, TokenInfo, TokenPriceQuery, WalletTokensPage, WalletTokensQuery};
use w3api_types::rpc::TokenPrice;

use crate::generate::ChainData;

impl ChainData {
    /// The block a query asks for, checked against the chain.
    pub fn resolve_block(&self, requested: Option<u64>) -> Result<u64, SourceError> {
        w3api_query::blocks::resolve(self, requested)
    }

    /// One page of the wallet's balances at the query's block, filtered,
    /// priced and ordered.
    pub fn wallet_tokens(
        &self,
        query: &WalletTokensQuery,
        page: &PageRequest,
    ) -> Result<WalletTokensPage, SourceError> {
        // The ledger follows native balances: nothing is left to read.
        w3api_query::wallet_tokens::wallet_tokens(self, query)?.rank(None, page)
    }

    /// `eth_getTokenPrice`: the token's price from its deepest pair at the
    /// block (on one exchange when asked).
    pub fn token_price(&self, query: &TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        w3api_query::token_price::token_price(self, query)
    }

    pub(crate) fn token_info(&self, asset: Asset, block: u64) -> TokenInfo {
        w3api_query::wallet_tokens::token_info(self, asset, block).expect("the world names every asset of its ledger")
    }
}
