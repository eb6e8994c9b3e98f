//! Contract metadata read from the node by `eth_call` at a block: a
//! token's name, symbol and decimals, a collection's name and symbol, and
//! an NFT's URI.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::{SolCall, sol};
use serde_json::json;

use super::{Node, NodeError, quantity};
use crate::index::{CollectionMeta, TokenMeta};

sol! {
    function name() returns (string);
    function symbol() returns (string);
    function decimals() returns (uint8);
    function tokenURI(uint256 id) returns (string);
    function uri(uint256 id) returns (string);
}

impl Node {
    /// What a contract returns at `block`; `None` when the call reverts
    /// (the node refuses it), an error when the node does not answer.
    async fn call<C: SolCall>(&self, to: Address, call: &C, block: u64) -> Result<Option<Bytes>, NodeError> {
        let request = json!([{ "to": to, "data": Bytes::from(call.abi_encode()) }, quantity(block)]);
        match self.request("eth_call", request).await {
            Ok(returned) => Ok(Some(returned)),
            Err(NodeError::Refused { .. }) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// A token's name, symbol and decimals at `block`. A contract that does
    /// not answer one of them (a token older than ERC20's optional fields)
    /// gets an empty name or symbol and 0 decimals; `bytes32` names, as the
    /// earliest tokens return them, are read as text. A node that does not
    /// answer at all is an error, so that the block is indexed again later
    /// rather than with metadata missing.
    pub async fn token_meta(&self, token: Address, block: u64) -> Result<TokenMeta, NodeError> {
        let (name, symbol, decimals) = tokio::join!(
            self.call(token, &nameCall {}, block),
            self.call(token, &symbolCall {}, block),
            self.call(token, &decimalsCall {}, block),
        );
        Ok(TokenMeta {
            name: name?.and_then(|b| text(&b)).unwrap_or_default(),
            symbol: symbol?.and_then(|b| text(&b)).unwrap_or_default(),
            decimals: decimals?.and_then(|b| decimalsCall::abi_decode_returns(&b).ok()).unwrap_or(0),
        })
    }

    /// A collection's name and symbol at `block` (empty where it has none,
    /// as ERC1155 need not).
    pub async fn collection_meta(
        &self,
        collection: Address,
        erc1155: bool,
        block: u64,
    ) -> Result<CollectionMeta, NodeError> {
        let (name, symbol) =
            tokio::join!(self.call(collection, &nameCall {}, block), self.call(collection, &symbolCall {}, block));
        Ok(CollectionMeta {
            name: name?.and_then(|b| text(&b)).unwrap_or_default(),
            symbol: symbol?.and_then(|b| text(&b)).unwrap_or_default(),
            erc1155,
        })
    }

    /// An NFT's URI at `block`: ERC721's `tokenURI`, or ERC1155's `uri`
    /// with `{id}` replaced as the standard says. `None` when the contract
    /// does not answer.
    pub async fn token_uri(&self, collection: Address, id: U256, erc1155: bool, block: u64) -> Option<String> {
        if erc1155 {
            let uri = self.call(collection, &uriCall { id }, block).await.ok()??;
            let uri = uriCall::abi_decode_returns(&uri).ok()?;
            Some(uri.replace("{id}", &format!("{id:064x}")))
        } else {
            let uri = self.call(collection, &tokenURICall { id }, block).await.ok()??;
            tokenURICall::abi_decode_returns(&uri).ok()
        }
    }
}

/// A `string` return, or a `bytes32` one trimmed of its padding.
fn text(returned: &[u8]) -> Option<String> {
    if let Ok(text) = nameCall::abi_decode_returns(returned) {
        return Some(text);
    }
    (returned.len() == 32).then(|| String::from_utf8_lossy(returned).trim_end_matches('\0').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_as_strings_or_as_bytes32() {
        let string = nameCall::abi_encode_returns(&"Wrapped Ether".to_string());
        assert_eq!(text(&string).as_deref(), Some("Wrapped Ether"));
        let mut bytes32 = [0u8; 32];
        bytes32[..5].copy_from_slice(b"Maker");
        assert_eq!(text(&bytes32).as_deref(), Some("Maker"));
        assert_eq!(text(&[1, 2, 3]), None);
    }
}
