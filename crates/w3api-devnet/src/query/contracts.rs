//! The tokens and collections at given addresses, for decoding their events.

use alloy_primitives::Address;
use w3api_source::Contract;

use crate::generate::ChainData;

impl ChainData {
    /// The tokens and collections among `addresses`, at the newest block.
    pub fn contracts(&self, addresses: &[Address]) -> Vec<Contract> {
        let latest = self.latest();
        addresses
            .iter()
            .filter_map(|address| {
                if let Some(asset) = self.world.asset_at(*address) {
                    return Some(Contract::Token(self.token_info(asset, latest)));
                }
                self.world.collection_at(*address).map(|index| Contract::Collection(self.collection_info(index)))
            })
            .collect()
    }
}
