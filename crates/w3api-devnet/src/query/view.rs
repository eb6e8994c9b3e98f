//! The generated chain as the query core reads it: the world names its
//! tokens and exchanges, flags spam and verified contracts and gives logos;
//! the ledger follows native balances too, as the devnet moves them itself.

use alloy_consensus::Transaction as _;
use alloy_primitives::{Address, B256, U256};
use w3api_ledger::pricing::{Price, PriceFilter};
use w3api_ledger::{Asset, Ledger};
use w3api_query::{ChainView, CollectionFacts, Exchange, TokenFacts, TransactionFacts};
use w3api_source::SourceError;
use w3api_types::{NATIVE_TOKEN_ADDRESS, NftPrices};

use crate::generate::ChainData;
use crate::world::TokenKind;

impl ChainView for ChainData {
    type Id = u32;
    type Ledger = Ledger<u32>;

    fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    fn head(&self) -> Result<u64, SourceError> {
        Ok(self.latest())
    }

    fn first_block(&self) -> u64 {
        0
    }

    fn timestamp(&self, block: u64) -> Option<u64> {
        self.blocks.get(usize::try_from(block).ok()?).map(|record| record.header.timestamp)
    }

    fn block_hash(&self, block: u64) -> Option<B256> {
        self.blocks.get(usize::try_from(block).ok()?).map(|record| record.hash)
    }

    fn transaction(&self, block: u64, index: u32) -> Option<TransactionFacts> {
        let record = self.blocks.get(usize::try_from(block).ok()?)?;
        let tx = (index < record.tx_count).then(|| self.transactions.get((record.first_tx + index) as usize))??;
        let envelope = &tx.envelope;
        Some(TransactionFacts { hash: tx.hash, from: tx.sender, to: envelope.to(), value: envelope.value() })
    }

    fn token(&self, asset: Asset) -> Option<TokenFacts<'_>> {
        let Some(token) = self.world.token(asset) else {
            let native = &self.world.native;
            return Some(TokenFacts {
                address: NATIVE_TOKEN_ADDRESS,
                name: native.name,
                symbol: native.symbol,
                decimals: self.world.decimals(asset),
                logo: Some(&native.logo),
                thumbnail: Some(&native.thumbnail),
                possible_spam: false,
                verified: true,
            });
        };
        Some(TokenFacts {
            address: token.address,
            name: &token.name,
            symbol: &token.symbol,
            decimals: token.decimals,
            logo: token.logo.as_deref(),
            thumbnail: token.thumbnail.as_deref(),
            possible_spam: token.kind == TokenKind::Spam,
            verified: token.verified,
        })
    }

    fn collection(&self, collection: u16) -> Option<CollectionFacts<'_>> {
        let collection = self.world.collections.get(usize::from(collection))?;
        Some(CollectionFacts {
            address: collection.address,
            kind: collection.kind.clone(),
            name: &collection.name,
            symbol: &collection.symbol,
            possible_spam: collection.spam,
            verified: collection.verified,
            logo: collection.logo.as_deref(),
            banner: collection.banner.as_deref(),
        })
    }

    fn nft_prices(&self, block: u64, collection: Address, token_id: Option<U256>) -> NftPrices {
        ChainData::nft_prices(self, block, collection, token_id).unwrap_or_default()
    }

    fn collection_at(&self, address: Address) -> Option<u16> {
        self.world.collection_at(address)
    }

    fn asset_at(&self, address: Address) -> Option<Asset> {
        self.world.asset_at(address)
    }

    fn follows_native(&self) -> bool {
        true
    }

    fn exchanges(&self) -> Vec<Exchange<'_>> {
        self.world.exchanges.iter().map(|e| Exchange { factory: e.factory, name: Some(&e.name) }).collect()
    }

    fn pair_address(&self, pair: usize) -> Option<Address> {
        self.world.pairs.get(pair).map(|pair| pair.address)
    }

    fn wrapped_native(&self) -> Option<Address> {
        self.world.token(Asset::WRAPPED).map(|token| token.address)
    }

    fn price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<Price> {
        ChainData::price(self, asset, block, filter)
    }

    fn usd_price(&self, asset: Asset, block: u64, filter: PriceFilter) -> Option<f64> {
        ChainData::usd_price(self, asset, block, filter)
    }
}
