//! Contract metadata read from the node by `eth_call` at a block: a
//! token's name, symbol and decimals, a collection's name and symbol, and
//! an NFT's URI. The calls and the reading of their answers are the
//! ledger's ([`w3api_ledger::discovery`]), shared with the devnet.

use alloy_primitives::{Address, Bytes, U256};
use serde_json::json;
use w3api_ledger::discovery::{self, CollectionMeta, TokenMeta};

use super::{Node, NodeError, quantity};

impl Node {
    /// What a contract returns at `block`; `None` when the call reverts
    /// (the node refuses it), an error when the node does not answer.
    async fn call(&self, to: Address, input: Bytes, block: u64) -> Result<Option<Bytes>, NodeError> {
        let request = json!([{ "to": to, "data": input }, quantity(block)]);
        match self.request("eth_call", request).await {
            Ok(returned) => Ok(Some(returned)),
            Err(NodeError::Refused { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// A token's name, symbol and decimals at `block`, read as
    /// [`TokenMeta::read`] says. A node that does not answer at all is an
    /// error, so that the block is indexed again later rather than with
    /// metadata missing.
    pub async fn token_meta(&self, token: Address, block: u64) -> Result<TokenMeta, NodeError> {
        let (name, symbol, decimals) = tokio::join!(
            self.call(token, discovery::name_call(), block),
            self.call(token, discovery::symbol_call(), block),
            self.call(token, discovery::decimals_call(), block),
        );
        let (name, symbol, decimals) = (name?, symbol?, decimals?);
        Ok(TokenMeta::read(name, symbol, decimals))
    }

    /// A collection's name and symbol at `block` (empty where it has none,
    /// as ERC1155 need not).
    pub async fn collection_meta(
        &self,
        collection: Address,
        erc1155: bool,
        block: u64,
    ) -> Result<CollectionMeta, NodeError> {
        let (name, symbol) = tokio::join!(
            self.call(collection, discovery::name_call(), block),
            self.call(collection, discovery::symbol_call(), block)
        );
        let (name, symbol) = (name?, symbol?);
        Ok(CollectionMeta::read(name, symbol, erc1155))
    }

    /// An NFT's URI at `block`: ERC721's `tokenURI`, or ERC1155's `uri`
    /// with `{id}` replaced as the standard says. `None` when the contract
    /// does not answer.
    pub async fn token_uri(&self, collection: Address, id: U256, erc1155: bool, block: u64) -> Option<String> {
        let returned = self.call(collection, discovery::token_uri_call(id, erc1155), block).await.ok()??;
        discovery::read_token_uri(&returned, id, erc1155)
    }
}
