//! A chain view for the core's own tests: blocks at given times, a ledger
//! the test fills, and NFT collections it names.

use alloy_primitives::Address;
use w3api_ledger::pricing::{PairBook, PairSides};
use w3api_ledger::{Asset, Ledger};
use w3api_source::SourceError;
use w3api_types::ContractType;

use crate::{ChainView, CollectionFacts, Exchange, TokenFacts};

/// Blocks from `first` on, at the given timestamps; the collections of
/// `collections` (index in the ledger = position here), and nothing else.
pub(crate) struct Times {
    pub(crate) first: u64,
    pub(crate) timestamps: Vec<u64>,
    pub(crate) ledger: Ledger,
    pub(crate) collections: Vec<(Address, ContractType)>,
}

impl Times {
    pub(crate) fn new(first: u64, timestamps: &[u64]) -> Times {
        Times { first, timestamps: timestamps.to_vec(), ledger: Ledger::new(), collections: Vec::new() }
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
    fn token(&self, _: Asset) -> Option<TokenFacts<'_>> {
        None
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
    fn asset_at(&self, _: Address) -> Option<Asset> {
        None
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
