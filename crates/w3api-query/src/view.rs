//! What a backend shows of its chain to the query core.

use std::fmt::Display;
use std::str::FromStr;

use alloy_primitives::{Address, B256, U256};
use w3api_ledger::pricing::{self, PairBook, Price, PriceFilter};
use w3api_ledger::{Asset, NftId};

use crate::reads::LedgerReads;
use w3api_source::SourceError;
use w3api_types::{ContractType, NftPrices};

/// A token as a backend knows it: what its contract says of itself, and
/// what the backend adds (logos, and the spam and verified flags a data
/// provider keeps; a node says nothing of them).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenFacts<'a> {
    /// The contract; `0xeeee…` for the native currency.
    pub address: Address,
    /// Its name.
    pub name: &'a str,
    /// Its symbol.
    pub symbol: &'a str,
    /// Its decimals.
    pub decimals: u8,
    /// Its logo's URL, where the backend has one.
    pub logo: Option<&'a str>,
    /// Its thumbnail's URL, where the backend has one.
    pub thumbnail: Option<&'a str>,
    /// Whether it is flagged as spam.
    pub possible_spam: bool,
    /// Whether its contract is verified.
    pub verified: bool,
}

/// A DEX exchange: the factory that makes its pairs, and its name where
/// the backend knows one (a node does not: its factory names it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Exchange<'a> {
    /// Its factory's address.
    pub factory: Address,
    /// Its name.
    pub name: Option<&'a str>,
}

/// A token id as a backend's ledger holds it: the devnet's own ids are
/// small, a node's are any `uint256`. Pages name it in decimal.
pub trait TokenId: NftId + Display + FromStr {
    /// The id as the chain has it.
    fn to_u256(self) -> U256;

    /// A chain's id as the ledger holds it; `None` when the ledger cannot
    /// hold it (so no token of the ledger has it).
    fn from_u256(id: U256) -> Option<Self>;
}

impl TokenId for u32 {
    fn to_u256(self) -> U256 {
        U256::from(self)
    }

    fn from_u256(id: U256) -> Option<Self> {
        u32::try_from(id).ok()
    }
}

impl TokenId for U256 {
    fn to_u256(self) -> U256 {
        self
    }

    fn from_u256(id: U256) -> Option<Self> {
        Some(id)
    }
}

/// A transaction as listings name it: the rest is the node's to answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransactionFacts {
    /// Its hash.
    pub hash: B256,
    /// Its sender.
    pub from: Address,
    /// Its recipient; `None` for a contract creation.
    pub to: Option<Address>,
    /// The native value it sends.
    pub value: U256,
}

/// An NFT collection as a backend knows it.
#[derive(Clone, Debug, PartialEq)]
pub struct CollectionFacts<'a> {
    /// The contract.
    pub address: Address,
    /// ERC721 or ERC1155.
    pub kind: ContractType,
    /// Its name.
    pub name: &'a str,
    /// Its symbol.
    pub symbol: &'a str,
    /// Whether it is flagged as spam.
    pub possible_spam: bool,
    /// Whether its contract is verified.
    pub verified: bool,
    /// Its logo's URL, where the backend has one.
    pub logo: Option<&'a str>,
    /// Its banner's URL, where the backend has one.
    pub banner: Option<&'a str>,
}

/// One backend's chain, as the query core reads it. Pairs and their
/// reserves come through [`PairBook`], which prices are computed from.
pub trait ChainView: PairBook + Sized {
    /// What NFT token ids are held as in the ledger.
    type Id: TokenId;

    /// How the ledger is read: in memory, or from where it is kept.
    type Ledger: LedgerReads<Id = Self::Id>;

    /// Balances, owners, supplies and their histories.
    fn ledger(&self) -> &Self::Ledger;

    /// The newest block an answer may be read at; the backend's own error
    /// when it has none yet (an index that has not reached its first block).
    fn head(&self) -> Result<u64, SourceError>;

    /// The oldest block the view has: where an inactivity window that
    /// reaches further back starts.
    fn first_block(&self) -> u64;

    /// A block's timestamp; `None` for a block the view does not have.
    /// Timestamps never fall from one block to the next.
    fn timestamp(&self, block: u64) -> Option<u64>;

    /// The newest block up to `through` whose timestamp is at most `time`;
    /// `None` when the view's first block is already later. A backend may
    /// answer from an index of its own, which must agree with the search.
    fn last_block_at(&self, time: u64, through: u64) -> Option<u64> {
        crate::blocks::search_last_block_at(self, time, through)
    }

    /// A block's hash; `None` for a block the view does not have.
    fn block_hash(&self, block: u64) -> Option<B256>;

    /// Transaction `index` of block `block`; `None` where there is none.
    fn transaction(&self, block: u64, index: u32) -> Option<TransactionFacts>;

    /// A token by its ledger asset; the native currency for [`Asset::NATIVE`].
    /// `None` for an asset the view does not name (one the ledger follows
    /// for a backend's own reasons).
    fn token(&self, asset: Asset) -> Option<TokenFacts<'_>>;

    /// An NFT collection by its ledger index; `None` for one the view does
    /// not name.
    fn collection(&self, collection: u16) -> Option<CollectionFacts<'_>>;

    /// An NFT collection's ledger index by its contract; `None` for a
    /// contract the view does not name as a collection.
    fn collection_at(&self, address: Address) -> Option<u16>;

    /// What a collection's (or one of its tokens') sales say, where the
    /// backend records sales; none where it does not (a node's index).
    fn nft_prices(&self, block: u64, collection: Address, token_id: Option<U256>) -> NftPrices {
        let _ = (block, collection, token_id);
        NftPrices::default()
    }

    /// The asset of a token contract.
    fn asset_at(&self, address: Address) -> Option<Asset>;

    /// Whether the ledger follows native balances. A node's index reads
    /// logs only, and native transfers log nothing: its caller reads the
    /// native balance from the node.
    fn follows_native(&self) -> bool;

    /// The exchanges, by the index [`PairBook`] gives pairs' exchanges as.
    fn exchanges(&self) -> Vec<Exchange<'_>>;

    /// A pair's address, by the index [`PairBook`] gives it.
    fn pair_address(&self, pair: usize) -> Option<Address>;

    /// The wrapped native token's contract, which native prices are quoted in.
    fn wrapped_native(&self) -> Option<Address>;

    /// The price of `asset` at `block` from its deepest eligible pair.
    /// A backend may answer from an index of its own, which must agree.
    fn price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<Price> {
        pricing::price(self, asset, block, filter)
    }

    /// The USD price alone: [`ChainView::price`]'s `usd`.
    fn usd_price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<f64> {
        self.price(asset, block, filter).map(|price| price.usd)
    }
}
