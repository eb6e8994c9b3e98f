//! Contracts a chain's logs name that an index did not know: which logs
//! make a contract a token or a collection, and how the standards'
//! optional metadata calls (`name`, `symbol`, `decimals`, `tokenURI`,
//! `uri`) are asked and their answers read. The devnet reads them from its
//! own EVM and the indexer from a node, so both register a user's contract
//! the same way.

use alloy_primitives::{Address, Bytes, U256};
use alloy_sol_types::SolCall;

use crate::events::Event;

mod calls {
    alloy_sol_types::sol! {
        function name() returns (string);
        function symbol() returns (string);
        function decimals() returns (uint8);
        function tokenURI(uint256 id) returns (string);
        function uri(uint256 id) returns (string);
    }
}

/// A contract a log names that must be registered before the log is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Discovery {
    /// An ERC20 token (a three-topic `Transfer`, or a side of a new pair).
    Token(Address),
    /// An NFT collection (an ERC721 `Transfer` or an ERC1155 transfer).
    Collection {
        /// The contract.
        address: Address,
        /// Whether its transfers are ERC1155's.
        erc1155: bool,
    },
}

/// The contracts `event`, logged by `contract`, names. `wrapped` is the
/// chain's wrapped native token, whose `Deposit` and `Withdrawal` make it
/// a token; any other contract's are not a standard's.
pub fn named_by(contract: Address, event: &Event, wrapped: Option<Address>) -> Vec<Discovery> {
    match event {
        Event::Erc20Transfer { .. } => vec![Discovery::Token(contract)],
        Event::NftTransfers { erc1155, .. } => vec![Discovery::Collection { address: contract, erc1155: *erc1155 }],
        Event::Deposit { .. } | Event::Withdrawal { .. } if Some(contract) == wrapped => {
            vec![Discovery::Token(contract)]
        }
        Event::PairCreated { token0, token1, .. } => vec![Discovery::Token(*token0), Discovery::Token(*token1)],
        _ => Vec::new(),
    }
}

/// What a token's contract answers about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenMeta {
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// `decimals()`.
    pub decimals: u8,
}

/// What an NFT collection's contract answers about itself.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionMeta {
    /// `name()`.
    pub name: String,
    /// `symbol()`.
    pub symbol: String,
    /// Whether it is an ERC1155 collection (else ERC721).
    pub erc1155: bool,
}

/// The input of `name()`.
pub fn name_call() -> Bytes {
    calls::nameCall {}.abi_encode().into()
}

/// The input of `symbol()`.
pub fn symbol_call() -> Bytes {
    calls::symbolCall {}.abi_encode().into()
}

/// The input of `decimals()`.
pub fn decimals_call() -> Bytes {
    calls::decimalsCall {}.abi_encode().into()
}

/// The input of ERC721's `tokenURI(id)` or ERC1155's `uri(id)`.
pub fn token_uri_call(id: U256, erc1155: bool) -> Bytes {
    if erc1155 { calls::uriCall { id }.abi_encode().into() } else { calls::tokenURICall { id }.abi_encode().into() }
}

impl TokenMeta {
    /// The metadata from what `name()`, `symbol()` and `decimals()`
    /// returned (`None` where the call reverted). A contract that does not
    /// answer one of them (a token older than ERC20's optional fields) gets
    /// an empty name or symbol and 0 decimals; `bytes32` names, as the
    /// earliest tokens return them, are read as text.
    pub fn read<B: AsRef<[u8]>>(name: Option<B>, symbol: Option<B>, decimals: Option<B>) -> TokenMeta {
        TokenMeta {
            name: name.and_then(|b| text(b.as_ref())).unwrap_or_default(),
            symbol: symbol.and_then(|b| text(b.as_ref())).unwrap_or_default(),
            decimals: decimals.and_then(|b| read_decimals(b.as_ref())).unwrap_or(0),
        }
    }
}

impl CollectionMeta {
    /// The metadata from what `name()` and `symbol()` returned (empty where
    /// a call reverted, as an ERC1155 need not have them).
    pub fn read<B: AsRef<[u8]>>(name: Option<B>, symbol: Option<B>, erc1155: bool) -> CollectionMeta {
        CollectionMeta {
            name: name.and_then(|b| text(b.as_ref())).unwrap_or_default(),
            symbol: symbol.and_then(|b| text(b.as_ref())).unwrap_or_default(),
            erc1155,
        }
    }
}

/// An NFT's URI from what [`token_uri_call`] returned: ERC1155's template
/// with `{id}` replaced as the standard says (64 hex digits, no prefix).
pub fn read_token_uri(returned: &[u8], id: U256, erc1155: bool) -> Option<String> {
    let uri = calls::tokenURICall::abi_decode_returns(returned).ok()?;
    Some(if erc1155 { uri.replace("{id}", &format!("{id:064x}")) } else { uri })
}

/// A `uint8` return; a word over 255 (which no `uint8` encodes) is no answer.
fn read_decimals(returned: &[u8]) -> Option<u8> {
    let word = returned.get(..32)?;
    u8::try_from(U256::from_be_slice(word)).ok()
}

/// A `string` return, or a `bytes32` one trimmed of its padding.
fn text(returned: &[u8]) -> Option<String> {
    if let Ok(text) = calls::nameCall::abi_decode_returns(returned) {
        return Some(text);
    }
    (returned.len() == 32).then(|| String::from_utf8_lossy(returned).trim_end_matches('\0').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_sol_types::SolValue;

    #[test]
    fn names_read_as_strings_or_as_bytes32() {
        let string = "Wrapped Ether".to_string().abi_encode();
        assert_eq!(text(&string).as_deref(), Some("Wrapped Ether"));
        let mut bytes32 = [0u8; 32];
        bytes32[..5].copy_from_slice(b"Maker");
        assert_eq!(text(&bytes32).as_deref(), Some("Maker"));
        assert_eq!(text(&[1, 2, 3]), None);
    }

    #[test]
    fn missing_answers_read_as_empty_and_zero() {
        let decimals = U256::from(6).abi_encode();
        let meta = TokenMeta::read(None, Some("USDC".to_string().abi_encode()), Some(decimals));
        assert_eq!(meta, TokenMeta { name: String::new(), symbol: "USDC".into(), decimals: 6 });
        assert_eq!(TokenMeta::read(None, None, Some([0xff; 32])).decimals, 0, "a decimals over 255 is no uint8");
    }

    #[test]
    fn erc1155_uris_take_the_id_in_hex() {
        let template = "ipfs://x/{id}.json".to_string().abi_encode();
        let uri = read_token_uri(&template, U256::from(314), true).unwrap();
        assert_eq!(uri, format!("ipfs://x/{}13a.json", "0".repeat(61)));
        assert_eq!(read_token_uri(&template, U256::from(314), false).unwrap(), "ipfs://x/{id}.json");
    }

    #[test]
    fn a_transfer_names_its_contract_and_a_pair_its_sides() {
        let (contract, a, b) = (Address::repeat_byte(1), Address::repeat_byte(2), Address::repeat_byte(3));
        let transfer = Event::Erc20Transfer { from: a, to: b, value: U256::from(1) };
        assert_eq!(named_by(contract, &transfer, None), vec![Discovery::Token(contract)]);
        let created = Event::PairCreated { token0: a, token1: b, pair: contract };
        assert_eq!(named_by(contract, &created, None), vec![Discovery::Token(a), Discovery::Token(b)]);
        let deposit = Event::Deposit { to: a, value: U256::from(1) };
        assert!(named_by(contract, &deposit, None).is_empty(), "only the wrapped token's deposits are a token's");
        assert_eq!(named_by(contract, &deposit, Some(contract)), vec![Discovery::Token(contract)]);
    }
}
