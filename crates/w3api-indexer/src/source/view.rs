//! A node's index as the query core reads it. A node says what a contract
//! answers about itself and nothing more: no logos, and no token is flagged
//! as spam or verified, as production answers for a token it does not know.
//! Its ledger reads logs only, so native balances come from the node.

use alloy_primitives::{Address, B256};
use w3api_ledger::pricing::{PairBook, PairSides};
use w3api_ledger::{Asset, Ledger};
use w3api_query::{ChainView, CollectionFacts, Exchange, TokenFacts, TransactionFacts};
use w3api_source::SourceError;
use w3api_types::{ContractType, NATIVE_TOKEN_ADDRESS, U256};

use super::not_indexed;
use crate::follow::Followed;
use crate::index::ChainIndex;

/// One chain's index, read under its lock for one answer.
pub(crate) struct IndexView<'a> {
    pub(crate) index: &'a ChainIndex,
    pub(crate) followed: &'a Followed,
}

impl ChainView for IndexView<'_> {
    type Id = U256;
    type Ledger = Ledger<U256>;

    fn ledger(&self) -> &Ledger<U256> {
        self.index.ledger()
    }

    fn head(&self) -> Result<u64, SourceError> {
        self.index.head().ok_or_else(|| not_indexed(self.followed))
    }

    fn first_block(&self) -> u64 {
        self.index.first_block()
    }

    fn timestamp(&self, block: u64) -> Option<u64> {
        self.index.timestamp_at(block)
    }

    fn block_hash(&self, block: u64) -> Option<B256> {
        self.index.hash_at(block)
    }

    fn transaction(&self, block: u64, index: u32) -> Option<TransactionFacts> {
        let tx = self.index.transaction_at(block, index)?;
        Some(TransactionFacts { hash: tx.hash, from: tx.from, to: tx.to, value: tx.value })
    }

    fn token(&self, asset: Asset) -> Option<TokenFacts<'_>> {
        token_facts(self.index, self.followed, asset)
    }

    fn collection(&self, collection: u16) -> Option<CollectionFacts<'_>> {
        collection_facts(self.index, collection)
    }

    fn collection_at(&self, address: Address) -> Option<u16> {
        self.index.collection_index(address)
    }

    fn asset_at(&self, address: Address) -> Option<Asset> {
        self.index.asset(address)
    }

    fn follows_native(&self) -> bool {
        false
    }

    fn exchanges(&self) -> Vec<Exchange<'_>> {
        self.index.factories().iter().map(|factory| Exchange { factory: *factory, name: None }).collect()
    }

    fn pair_address(&self, pair: usize) -> Option<Address> {
        self.index.pair(pair).map(|pair| pair.address)
    }

    fn wrapped_native(&self) -> Option<Address> {
        self.index.anchors().wrapped
    }
}

/// A token as a node's index knows it: what its contract says, and the
/// chain's native currency for [`Asset::NATIVE`].
pub(crate) fn token_facts<'a>(index: &'a ChainIndex, followed: &Followed, asset: Asset) -> Option<TokenFacts<'a>> {
    if asset == Asset::NATIVE {
        let (name, symbol) = followed.chain.native_currency();
        return Some(TokenFacts {
            address: NATIVE_TOKEN_ADDRESS,
            name,
            symbol,
            decimals: 18,
            logo: None,
            thumbnail: None,
            possible_spam: false,
            verified: true,
        });
    }
    let (address, meta) = index.token(asset)?;
    Some(TokenFacts {
        address: *address,
        name: &meta.name,
        symbol: &meta.symbol,
        decimals: meta.decimals,
        logo: None,
        thumbnail: None,
        possible_spam: false,
        verified: false,
    })
}

/// A collection as a node's index knows it: what its contract says.
pub(crate) fn collection_facts(index: &ChainIndex, collection: u16) -> Option<CollectionFacts<'_>> {
    let (address, meta) = index.collection(collection)?;
    Some(CollectionFacts {
        address: *address,
        kind: if meta.erc1155 { ContractType::Erc1155 } else { ContractType::Erc721 },
        name: &meta.name,
        symbol: &meta.symbol,
        possible_spam: false,
        verified: false,
        logo: None,
        banner: None,
    })
}

impl PairBook for IndexView<'_> {
    fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> {
        self.index.pairs_of(asset)
    }

    fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128) {
        self.index.reserves_at(pair, block)
    }

    fn decimals(&self, asset: Asset) -> u8 {
        PairBook::decimals(self.index, asset)
    }
}
