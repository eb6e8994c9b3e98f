//! Pairs and their reserves as a chain's own events tell them: a factory's
//! `PairCreated` adds a pair, the pair's `Sync` sets its reserves. This is
//! where an indexer of a real node reads reserves from; the devnet, whose
//! pairs' balances are their reserves by construction, reads its ledger.

use alloy_primitives::Address;
use foldhash::HashMap;

use crate::history::History;
use crate::ledger::Asset;
use crate::pricing::PairSides;

/// One pair: where it is, its sides, and the block that created it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairInfo {
    /// The pair contract.
    pub address: Address,
    /// Its sides and exchange.
    pub sides: PairSides,
    /// The block of its `PairCreated`.
    pub created: u32,
}

/// Every pair of a chain, by index in creation order, with its reserves
/// `(token0, token1)` over time.
#[derive(Clone, Debug, Default)]
pub struct PairReserves {
    pairs: Vec<PairInfo>,
    reserves: Vec<History<(u128, u128)>>,
    by_address: HashMap<Address, usize>,
    of_asset: HashMap<Asset, Vec<usize>>,
}

impl PairReserves {
    /// Adds a pair created in `block`; a pair already known keeps its index.
    pub fn add(&mut self, block: u32, address: Address, sides: PairSides) -> usize {
        if let Some(index) = self.by_address.get(&address) {
            return *index;
        }
        let index = self.pairs.len();
        self.pairs.push(PairInfo { address, sides, created: block });
        self.reserves.push(History::default());
        self.by_address.insert(address, index);
        for asset in [sides.token0, sides.token1] {
            self.of_asset.entry(asset).or_default().push(index);
        }
        index
    }

    /// The pair at `address`.
    pub fn pair_at(&self, address: Address) -> Option<usize> {
        self.by_address.get(&address).copied()
    }

    /// How many pairs there are.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// Whether there is no pair.
    pub fn is_empty(&self) -> bool {
        self.pairs.is_empty()
    }

    /// A pair by index.
    pub fn pair(&self, index: usize) -> Option<&PairInfo> {
        self.pairs.get(index)
    }

    /// Sets a pair's reserves from `block` on (its `Sync`).
    pub fn sync(&mut self, block: u32, pair: usize, reserve0: u128, reserve1: u128) {
        if let Some(history) = self.reserves.get_mut(pair) {
            history.set(block, (reserve0, reserve1));
        }
    }

    /// The pairs `asset` is a side of, by index.
    pub fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> + '_ {
        let indexes = self.of_asset.get(&asset).map_or(&[][..], Vec::as_slice);
        indexes.iter().map(|index| (*index, self.pairs[*index].sides))
    }

    /// A pair's reserves at the end of `block`; `(0, 0)` before its first `Sync`.
    pub fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128) {
        let block = u32::try_from(block).unwrap_or(u32::MAX);
        self.reserves.get(pair).and_then(|history| history.at(block)).unwrap_or((0, 0))
    }

    /// Blocks in which a pair's reserves changed.
    pub fn change_blocks(&self, pair: usize) -> impl Iterator<Item = u32> + '_ {
        self.reserves.get(pair).into_iter().flat_map(History::blocks)
    }

    /// Forgets every reserve, keeping the pairs: for an index that holds
    /// one window of blocks at a time.
    pub fn forget_reserves(&mut self) {
        for history in &mut self.reserves {
            *history = History::default();
        }
    }

    /// Puts the pairs back as they were at the end of `block`: pairs
    /// created later are forgotten, and later reserves undone.
    pub fn rollback_to(&mut self, block: u32) {
        let kept = self.pairs.partition_point(|pair| pair.created <= block);
        for pair in self.pairs.drain(kept..) {
            self.by_address.remove(&pair.address);
        }
        self.reserves.truncate(kept);
        for history in &mut self.reserves {
            history.truncate_after(block);
        }
        for indexes in self.of_asset.values_mut() {
            indexes.retain(|index| *index < kept);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sides(token0: u16, token1: u16) -> PairSides {
        PairSides { token0: Asset(token0), token1: Asset(token1), exchange: 0 }
    }

    #[test]
    fn reserves_follow_syncs_and_a_rollback_forgets_later_pairs() {
        let mut pairs = PairReserves::default();
        let first = pairs.add(1, Address::repeat_byte(1), sides(1, 2));
        assert_eq!(pairs.add(1, Address::repeat_byte(1), sides(1, 2)), first, "known once");
        pairs.sync(2, first, 10, 20);
        pairs.sync(4, first, 11, 19);
        let second = pairs.add(5, Address::repeat_byte(2), sides(3, 1));
        pairs.sync(5, second, 7, 7);
        assert_eq!((pairs.reserves_at(first, 1), pairs.reserves_at(first, 3)), ((0, 0), (10, 20)));
        assert_eq!(pairs.pairs_of(Asset(1)).map(|(i, _)| i).collect::<Vec<_>>(), [first, second]);
        assert_eq!(pairs.change_blocks(first).collect::<Vec<_>>(), [2, 4]);

        pairs.rollback_to(3);
        assert_eq!(pairs.reserves_at(first, 9), (10, 20));
        assert_eq!((pairs.pair_at(Address::repeat_byte(2)), pairs.pair(second)), (None, None));
        assert_eq!(pairs.pairs_of(Asset(1)).count(), 1);
        assert_eq!(pairs.pairs_of(Asset(3)).count(), 0);
        let again = pairs.add(4, Address::repeat_byte(3), sides(1, 3));
        assert_eq!((again, pairs.reserves_at(again, 9)), (second, (0, 0)), "the index is reused, empty");
    }
}
