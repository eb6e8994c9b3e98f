//! A chain view for the core's own tests: blocks at given times, a ledger
//! the test fills, and the ERC20 tokens and NFT collections it names.

use alloy_primitives::{Address, B256, U256};
use w3api_ledger::pricing::{PairBook, PairSides};
use w3api_ledger::{Asset, Ledger};
use w3api_source::SourceError;
use w3api_types::ContractType;

use crate::{ChainView, CollectionFacts, Exchange, TokenFacts, TransactionFacts};

/// The cast of the core's tests: wallets (A, B, and C, which some tests
/// call an operator), ERC20 tokens, and NFT collections.
pub(crate) const A: Address = Address::repeat_byte(0x0a);
pub(crate) const B: Address = Address::repeat_byte(0x0b);
pub(crate) const C: Address = Address::repeat_byte(0x0c);
pub(crate) const COIN: Address = Address::repeat_byte(0xa1);
pub(crate) const OTHER_COIN: Address = Address::repeat_byte(0xa2);
pub(crate) const ART: Address = Address::repeat_byte(0xc0);
pub(crate) const ITEMS: Address = Address::repeat_byte(0xc1);

/// Blocks from `first` on, at the given timestamps, each with
/// [`Times::TRANSACTIONS`] transactions; the tokens of `tokens` (asset =
/// position here plus one), the collections of `collections` (index in the
/// ledger = position here), and nothing else.
pub(crate) struct Times {
    pub(crate) first: u64,
    pub(crate) timestamps: Vec<u64>,
    pub(crate) ledger: Ledger,
    pub(crate) tokens: Vec<Address>,
    pub(crate) collections: Vec<(Address, ContractType)>,
}

impl Times {
    /// Transactions in each block.
    pub(crate) const TRANSACTIONS: u32 = 4;

    pub(crate) fn new(first: u64, timestamps: &[u64]) -> Times {
        let timestamps = timestamps.to_vec();
        Times { first, timestamps, ledger: Ledger::new(), tokens: Vec::new(), collections: Vec::new() }
    }

    /// The hash a block or transaction has here: its numbers, side by side.
    pub(crate) fn hash(block: u64, transaction: Option<u32>) -> B256 {
        let mut hash = B256::ZERO;
        hash[..8].copy_from_slice(&block.to_be_bytes());
        hash[8..12].copy_from_slice(&transaction.map_or(u32::MAX, |t| t).to_be_bytes());
        hash
    }
}

impl PairBook for Times {
    fn pairs_of(&self, _: Asset) -> impl Iterator<Item = (usize, PairSides)> {
        std::iter::empty()
    }
    fn reserves_at(&self, _: usize, _: u64) -> (u128, u128) {
        (0, 0)
    }
    fn decimals(&self, _: Asset) -> u8 {
        18
    }
}

impl ChainView for Times {
    type Id = u32;
    type Ledger = Ledger<u32>;
    fn ledger(&self) -> &Ledger {
        &self.ledger
    }
    fn head(&self) -> Result<u64, SourceError> {
        let count = self.timestamps.len() as u64;
        count.checked_sub(1).map(|last| self.first + last).ok_or(SourceError::Unavailable("no block yet".into()))
    }
    fn first_block(&self) -> u64 {
        self.first
    }
    fn timestamp(&self, block: u64) -> Option<u64> {
        self.timestamps.get(usize::try_from(block.checked_sub(self.first)?).ok()?).copied()
    }
    fn block_hash(&self, block: u64) -> Option<B256> {
        self.timestamp(block).map(|_| Times::hash(block, None))
    }
    fn transaction(&self, block: u64, index: u32) -> Option<TransactionFacts> {
        self.timestamp(block).filter(|_| index < Times::TRANSACTIONS)?;
        let (from, to, value) = (Address::repeat_byte(0xee), Some(Address::repeat_byte(0xdd)), U256::from(index));
        Some(TransactionFacts { hash: Times::hash(block, Some(index)), from, to, value })
    }
    fn token(&self, asset: Asset) -> Option<TokenFacts<'_>> {
        let address = *self.tokens.get(usize::from(asset.0).checked_sub(1)?)?;
        Some(TokenFacts {
            address,
            name: "Coin",
            symbol: "COIN",
            decimals: 6,
            logo: None,
            thumbnail: None,
            possible_spam: false,
            verified: true,
        })
    }
    fn collection(&self, collection: u16) -> Option<CollectionFacts<'_>> {
        let (address, kind) = self.collections.get(usize::from(collection))?;
        Some(CollectionFacts {
            address: *address,
            kind: kind.clone(),
            name: "Things",
            symbol: "THG",
            possible_spam: false,
            verified: false,
            logo: None,
            banner: None,
        })
    }
    fn collection_at(&self, address: Address) -> Option<u16> {
        self.collections.iter().position(|(a, _)| *a == address).and_then(|i| u16::try_from(i).ok())
    }
    fn asset_at(&self, address: Address) -> Option<Asset> {
        let index = self.tokens.iter().position(|a| *a == address)?;
        u16::try_from(index + 1).ok().map(Asset)
    }
    fn follows_native(&self) -> bool {
        true
    }
    fn exchanges(&self) -> Vec<Exchange<'_>> {
        Vec::new()
    }
    fn pair_address(&self, _: usize) -> Option<Address> {
        None
    }
    fn wrapped_native(&self) -> Option<Address> {
        None
    }
}
