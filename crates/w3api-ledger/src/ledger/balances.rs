//! The fungible part of the ledger: every holder's balance of every asset
//! and each asset's supply, with their histories, and the blocks each
//! asset moved in.

// Every query reads several of these maps per asset held; SipHash, the
// standard default, was a tenth of a cold wallet-tokens request.
use foldhash::HashMap;

use super::{Asset, Holder};
use crate::history::{Checkpoints, History};

/// Every balance history of the ledger, by index.
///
/// While a chain is built each history grows on its own. Once it is whole,
/// [`Balances::pack`] lays them out again in two arrays, holder by holder:
/// a wallet query reads every balance of one holder, and finds them side by
/// side rather than in as many allocations spread over the heap (a cache
/// miss or three each). A chain that goes on growing after that moves a
/// history out of the packed arrays the first time it changes: a few
/// histories change per block, and the packed ones stay as they are.
#[derive(Clone, Debug)]
enum BalanceHistories {
    Growing(Vec<History<u128>>),
    Packed {
        /// `(start, end)` in `blocks` and `values`, by index.
        spans: Vec<(u32, u32)>,
        blocks: Vec<u32>,
        values: Vec<u128>,
        /// Histories changed since they were packed, by index.
        moved: HashMap<u32, History<u128>>,
    },
}

impl Default for BalanceHistories {
    fn default() -> Self {
        BalanceHistories::Growing(Vec::new())
    }
}

impl BalanceHistories {
    fn get(&self, index: u32) -> Checkpoints<'_, u128> {
        match self {
            BalanceHistories::Growing(histories) => histories[index as usize].view(),
            BalanceHistories::Packed { spans, blocks, values, moved } => {
                if !moved.is_empty()
                    && let Some(history) = moved.get(&index)
                {
                    return history.view();
                }
                let (start, end) = spans[index as usize];
                let range = start as usize..end as usize;
                Checkpoints { blocks: &blocks[range.clone()], values: &values[range] }
            }
        }
    }

    /// A new, empty history.
    fn add(&mut self) -> u32 {
        match self {
            BalanceHistories::Growing(histories) => {
                histories.push(History::default());
                histories.len() as u32 - 1
            }
            BalanceHistories::Packed { spans, moved, .. } => {
                let index = spans.len() as u32;
                spans.push((0, 0));
                moved.insert(index, History::default());
                index
            }
        }
    }

    /// A history to change: moved out of the packed arrays when packed.
    fn history_mut(&mut self, index: u32) -> &mut History<u128> {
        match self {
            BalanceHistories::Growing(histories) => &mut histories[index as usize],
            BalanceHistories::Packed { spans, blocks, values, moved } => moved.entry(index).or_insert_with(|| {
                let (start, end) = spans[index as usize];
                let range = start as usize..end as usize;
                History { blocks: blocks[range.clone()].to_vec(), values: values[range].to_vec() }
            }),
        }
    }
}

/// Balances and supplies, with their histories by block.
#[derive(Clone, Debug, Default)]
pub(super) struct Balances {
    /// Every balance history, indexed by `by_holding` and `assets_of`.
    histories: BalanceHistories,
    by_holding: HashMap<(Holder, Asset), u32>,
    /// A wallet query reads all of a holder's balances: listing them with
    /// their histories spares it one hash lookup per asset.
    assets_of: HashMap<Holder, Vec<(Asset, u32)>>,
    /// The blocks each asset moved in, in order.
    activity: HashMap<Asset, Vec<u32>>,
    /// By asset: every wallet answer reads the supply of each token it lists.
    supply: Vec<History<u128>>,
}

impl Balances {
    /// The balance history of a holder in an asset.
    pub(super) fn history(&self, holder: Holder, asset: Asset) -> Option<Checkpoints<'_, u128>> {
        self.by_holding.get(&(holder, asset)).map(|history| self.histories.get(*history))
    }

    /// Current balance.
    pub(super) fn balance(&self, holder: Holder, asset: Asset) -> u128 {
        self.history(holder, asset).and_then(Checkpoints::last).unwrap_or(0)
    }

    /// Every asset a holder has ever held, in the order it first got them,
    /// with the history of the holder's balance in it.
    pub(super) fn holdings_of(&self, holder: Holder) -> impl Iterator<Item = (Asset, Checkpoints<'_, u128>)> {
        let held = self.assets_of.get(&holder).map_or(&[][..], Vec::as_slice);
        held.iter().map(|(asset, history)| (*asset, self.histories.get(*history)))
    }

    /// Lays the balance histories out holder by holder, for reading.
    pub(super) fn pack(&mut self) {
        let BalanceHistories::Growing(histories) = std::mem::take(&mut self.histories) else { return };
        let (mut spans, mut blocks, mut values) = (Vec::new(), Vec::new(), Vec::new());
        // Holders in index order, each one's assets in the order it got them.
        let mut holders: Vec<Holder> = self.assets_of.keys().copied().collect();
        holders.sort_unstable();
        for holder in holders {
            for (asset, index) in self.assets_of.get_mut(&holder).expect("a listed holder") {
                let history = &histories[*index as usize];
                let start = blocks.len() as u32;
                blocks.extend_from_slice(&history.blocks);
                values.extend_from_slice(&history.values);
                *index = spans.len() as u32;
                spans.push((start, blocks.len() as u32));
                self.by_holding.insert((holder, *asset), *index);
            }
        }
        self.histories = BalanceHistories::Packed { spans, blocks, values, moved: HashMap::default() };
    }

    /// The blocks `asset` moved in, in order.
    pub(super) fn activity(&self, asset: Asset) -> &[u32] {
        self.activity.get(&asset).map_or(&[], Vec::as_slice)
    }

    /// Current supply: minted less burned.
    pub(super) fn supply(&self, asset: Asset) -> u128 {
        self.supply.get(usize::from(asset.0)).and_then(History::last).unwrap_or(0)
    }

    /// The history of an asset's supply.
    pub(super) fn supply_history(&self, asset: Asset) -> Option<Checkpoints<'_, u128>> {
        self.supply.get(usize::from(asset.0)).map(History::view)
    }

    /// Supply at the end of `block`.
    pub(super) fn supply_at(&self, asset: Asset, block: u32) -> u128 {
        self.supply.get(usize::from(asset.0)).and_then(|h| h.at(block)).unwrap_or(0)
    }

    /// Sets `asset`'s supply from `block` on.
    pub(super) fn set_supply(&mut self, block: u32, asset: Asset, supply: u128) {
        let index = usize::from(asset.0);
        if self.supply.len() <= index {
            self.supply.resize_with(index + 1, History::default);
        }
        self.supply[index].set(block, supply);
    }

    /// Sets a holder's balance from `block` on.
    pub(super) fn set(&mut self, block: u32, holder: Holder, asset: Asset, value: u128) {
        let index = match self.by_holding.get(&(holder, asset)) {
            Some(index) => *index,
            None => {
                let index = self.histories.add();
                self.by_holding.insert((holder, asset), index);
                self.assets_of.entry(holder).or_default().push((asset, index));
                index
            }
        };
        self.histories.history_mut(index).set(block, value);
    }

    /// Notes that `asset` moved in `block`.
    pub(super) fn moved_in(&mut self, block: u32, asset: Asset) {
        let blocks = self.activity.entry(asset).or_default();
        if blocks.last() != Some(&block) {
            blocks.push(block);
        }
    }

    /// Undoes what a movement of `asset` between `sides` after `block` set.
    pub(super) fn undo(&mut self, asset: Asset, sides: [Holder; 2], block: u32) {
        for holder in sides.into_iter().filter(|h| *h != Holder::NOBODY) {
            self.truncate(holder, asset, block);
        }
        if let Some(supply) = self.supply.get_mut(usize::from(asset.0)) {
            supply.truncate_after(block);
        }
        if let Some(blocks) = self.activity.get_mut(&asset) {
            blocks.truncate(blocks.partition_point(|b| *b <= block));
        }
    }

    fn truncate(&mut self, holder: Holder, asset: Asset, block: u32) {
        let Some(index) = self.by_holding.get(&(holder, asset)).copied() else { return };
        if self.histories.history_mut(index).truncate_after(block) {
            return;
        }
        // Never held before `block`: the holder no longer lists the asset.
        // The emptied history stays allocated, unreachable.
        self.by_holding.remove(&(holder, asset));
        if let Some(held) = self.assets_of.get_mut(&holder) {
            held.retain(|(held, _)| *held != asset);
        }
    }
}
