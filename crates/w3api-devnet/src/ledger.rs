//! Who holds what, at every block.
//!
//! Every change of a balance or an NFT owner is a [`Movement`] in a block,
//! applied in order while the chain is generated. Besides the list of
//! movements, the ledger keeps, per holder and asset (or per NFT), the
//! history of values as checkpoints `(block, value)`, so the value at any
//! block is a binary search: history is indexed, never replayed.

use alloy_primitives::Address;
// Every query reads several of these maps per asset held; SipHash, the
// standard default, was a tenth of a cold wallet-tokens request.
use foldhash::HashMap;

use crate::world::Asset;

/// An address known to the ledger, by index. `Holder::NOBODY` is the zero
/// address: the source of mints and the sink of burned fees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Holder(pub u32);

impl Holder {
    /// The zero address.
    pub const NOBODY: Holder = Holder(0);
}

/// Values of one thing over time: `(block, value)` checkpoints, one per
/// block that changed it, in block order.
///
/// Blocks and values are kept apart: a lookup binary-searches the blocks
/// alone, four bytes each, so the search stays in cache however wide the
/// value is (a price is 64 bytes), and touches one value at the end.
#[derive(Clone, Debug)]
pub struct History<T> {
    blocks: Vec<u32>,
    values: Vec<T>,
}

impl<T> Default for History<T> {
    fn default() -> Self {
        History { blocks: Vec::new(), values: Vec::new() }
    }
}

impl<T: Copy> History<T> {
    /// Sets the value from `block` on: a new checkpoint, or the last one
    /// changed when it is of the same block.
    pub(crate) fn set(&mut self, block: u32, value: T) {
        match (self.blocks.last(), self.values.last_mut()) {
            (Some(last), Some(current)) if *last == block => *current = value,
            _ => {
                self.blocks.push(block);
                self.values.push(value);
            }
        }
    }

    /// The history as a read-only view.
    pub fn view(&self) -> Checkpoints<'_, T> {
        Checkpoints { blocks: &self.blocks, values: &self.values }
    }

    /// The checkpoint in force at `block`: when the value was last set, and to what.
    pub fn checkpoint_at(&self, block: u32) -> Option<(u32, T)> {
        self.view().checkpoint_at(block)
    }

    /// The value at `block`.
    pub fn at(&self, block: u32) -> Option<T> {
        self.view().at(block)
    }

    /// The latest value.
    pub fn last(&self) -> Option<T> {
        self.view().last()
    }

    /// The blocks of the checkpoints, in order.
    pub fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        self.view().blocks()
    }

    /// Appends a checkpoint after every other one (for indexes built in block order).
    pub fn push(&mut self, block: u32, value: T) {
        debug_assert!(self.blocks.last().is_none_or(|last| *last < block));
        self.blocks.push(block);
        self.values.push(value);
    }

    /// The block of the first checkpoint.
    pub fn first_block(&self) -> Option<u32> {
        self.blocks.first().copied()
    }
}

/// A history read where it is stored: its checkpoints' blocks and values.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoints<'a, T> {
    blocks: &'a [u32],
    values: &'a [T],
}

impl<'a, T: Copy> Checkpoints<'a, T> {
    /// The checkpoint in force at `block`: when the value was last set, and to what.
    pub fn checkpoint_at(self, block: u32) -> Option<(u32, T)> {
        let after = self.blocks.partition_point(|b| *b <= block);
        after.checked_sub(1).map(|i| (self.blocks[i], self.values[i]))
    }

    /// The value at `block`.
    pub fn at(self, block: u32) -> Option<T> {
        self.checkpoint_at(block).map(|(_, value)| value)
    }

    /// The latest value.
    pub fn last(self) -> Option<T> {
        self.values.last().copied()
    }

    /// The blocks of the checkpoints, in order.
    pub fn blocks(self) -> impl Iterator<Item = u32> + 'a {
        self.blocks.iter().copied()
    }
}

/// Every balance history of the ledger, by index.
///
/// While the chain is generated each history grows on its own. Once it is
/// whole, [`Ledger::pack`] lays them out again in two arrays, holder by
/// holder: a wallet query reads every balance of one holder, and finds
/// them side by side rather than in as many allocations spread over the
/// heap (a cache miss or three each). A chain that goes on growing after
/// that (live blocks, cheat methods) moves a history out of the packed
/// arrays the first time it changes: a few histories change per block, and
/// the packed ones stay as they are.
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

    fn set(&mut self, index: u32, block: u32, value: u128) {
        match self {
            BalanceHistories::Growing(histories) => histories[index as usize].set(block, value),
            BalanceHistories::Packed { spans, blocks, values, moved } => {
                let history = moved.entry(index).or_insert_with(|| {
                    let (start, end) = spans[index as usize];
                    let range = start as usize..end as usize;
                    History { blocks: blocks[range.clone()].to_vec(), values: values[range].to_vec() }
                });
                history.set(block, value);
            }
        }
    }
}

/// One change of ownership.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Movement {
    /// An amount of native currency or of an ERC20 token.
    Fungible {
        /// Block of the change.
        block: u32,
        /// What moved.
        asset: Asset,
        /// Sender (`NOBODY` for a mint).
        from: Holder,
        /// Recipient (`NOBODY` for a burn).
        to: Holder,
        /// Raw amount.
        amount: u128,
    },
    /// NFTs of one token id (always 1 for ERC721).
    Nft {
        /// Block of the change.
        block: u32,
        /// Collection index.
        collection: u16,
        /// Token id.
        id: u32,
        /// Sender (`NOBODY` for a mint).
        from: Holder,
        /// Recipient.
        to: Holder,
        /// Amount moved.
        amount: u64,
        /// Whether the collection is ERC1155 (amounts) rather than ERC721 (one owner).
        multi: bool,
    },
}

/// Balances, NFT ownership and their histories.
#[derive(Clone, Debug, Default)]
pub struct Ledger {
    addresses: Vec<Address>,
    index: HashMap<Address, Holder>,
    /// Every balance history, indexed by `balances` and `assets_of`.
    histories: BalanceHistories,
    balances: HashMap<(Holder, Asset), u32>,
    /// A wallet query reads all of a holder's balances: listing them with
    /// their histories spares it one hash lookup per asset.
    assets_of: HashMap<Holder, Vec<(Asset, u32)>>,
    activity: HashMap<Asset, Vec<u32>>,
    owners: HashMap<(u16, u32), History<Holder>>,
    amounts: HashMap<(Holder, u16, u32), History<u64>>,
    nfts_of: HashMap<Holder, Vec<(u16, u32)>>,
    /// By asset: every wallet answer reads the supply of each token it lists.
    supply: Vec<History<u128>>,
    minted_at: HashMap<(u16, u32), u32>,
    movements: Vec<Movement>,
}

impl Ledger {
    /// An empty ledger knowing only the zero address.
    pub fn new() -> Ledger {
        let mut ledger = Ledger::default();
        ledger.holder(Address::ZERO);
        ledger
    }

    /// The holder of `address`, adding it when new.
    pub fn holder(&mut self, address: Address) -> Holder {
        if let Some(holder) = self.index.get(&address) {
            return *holder;
        }
        let holder = Holder(self.addresses.len() as u32);
        self.addresses.push(address);
        self.index.insert(address, holder);
        holder
    }

    /// The holder of `address`, if it ever held anything or was added.
    pub fn find(&self, address: Address) -> Option<Holder> {
        self.index.get(&address).copied()
    }

    /// The address of a holder.
    pub fn address(&self, holder: Holder) -> Address {
        self.addresses[holder.0 as usize]
    }

    /// Current balance.
    pub fn balance(&self, holder: Holder, asset: Asset) -> u128 {
        self.balance_history(holder, asset).and_then(Checkpoints::last).unwrap_or(0)
    }

    /// Balance at the end of `block`.
    pub fn balance_at(&self, holder: Holder, asset: Asset, block: u32) -> u128 {
        self.balance_history(holder, asset).and_then(|h| h.at(block)).unwrap_or(0)
    }

    /// Every asset a holder has ever held, in the order it first got them,
    /// with the history of the holder's balance in it.
    pub fn holdings_of(&self, holder: Holder) -> impl Iterator<Item = (Asset, Checkpoints<'_, u128>)> {
        let held = self.assets_of.get(&holder).map_or(&[][..], Vec::as_slice);
        held.iter().map(|(asset, history)| (*asset, self.histories.get(*history)))
    }

    /// Lays the balance histories out holder by holder, for reading: called
    /// once the generated chain is whole.
    pub fn pack(&mut self) {
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
                self.balances.insert((holder, *asset), *index);
            }
        }
        self.histories = BalanceHistories::Packed { spans, blocks, values, moved: HashMap::default() };
    }

    /// The last block up to `block` in which `asset` moved.
    pub fn last_activity(&self, asset: Asset, block: u32) -> Option<u32> {
        let blocks = self.activity.get(&asset)?;
        let after = blocks.partition_point(|b| *b <= block);
        after.checked_sub(1).map(|i| blocks[i])
    }

    /// Moves `amount` of `asset`. Mints come from `NOBODY`; moving to
    /// `NOBODY` burns.
    ///
    /// # Panics
    /// If the sender does not hold the amount: the generator only plans
    /// affordable movements, so this is a bug there.
    pub fn move_fungible(&mut self, block: u32, asset: Asset, from: Holder, to: Holder, amount: u128) {
        if amount == 0 {
            return;
        }
        if from == Holder::NOBODY || to == Holder::NOBODY {
            let supply = self.supply(asset);
            let supply = if from == Holder::NOBODY { supply + amount } else { supply - amount };
            let index = usize::from(asset.0);
            if self.supply.len() <= index {
                self.supply.resize_with(index + 1, History::default);
            }
            self.supply[index].set(block, supply);
        }
        if from != Holder::NOBODY {
            let balance = self.balance(from, asset);
            let remaining = balance
                .checked_sub(amount)
                .unwrap_or_else(|| panic!("{:?} moves {amount} of {asset:?} holding {balance}", self.address(from)));
            self.set_balance(block, from, asset, remaining);
        }
        if to != Holder::NOBODY {
            let balance = self.balance(to, asset);
            self.set_balance(block, to, asset, balance + amount);
        }
        let blocks = self.activity.entry(asset).or_default();
        if blocks.last() != Some(&block) {
            blocks.push(block);
        }
        self.movements.push(Movement::Fungible { block, asset, from, to, amount });
    }

    /// The balance history of a holder in an asset.
    pub fn balance_history(&self, holder: Holder, asset: Asset) -> Option<Checkpoints<'_, u128>> {
        self.balances.get(&(holder, asset)).map(|history| self.histories.get(*history))
    }

    /// Current supply: minted less burned.
    pub fn supply(&self, asset: Asset) -> u128 {
        self.supply.get(usize::from(asset.0)).and_then(History::last).unwrap_or(0)
    }

    /// Supply at the end of `block`.
    pub fn supply_at(&self, asset: Asset, block: u32) -> u128 {
        self.supply.get(usize::from(asset.0)).and_then(|h| h.at(block)).unwrap_or(0)
    }

    /// The block an NFT token id was first minted in.
    pub fn minted_at(&self, collection: u16, id: u32) -> Option<u32> {
        self.minted_at.get(&(collection, id)).copied()
    }

    fn set_balance(&mut self, block: u32, holder: Holder, asset: Asset, value: u128) {
        let index = match self.balances.get(&(holder, asset)) {
            Some(index) => *index,
            None => {
                let index = self.histories.add();
                self.balances.insert((holder, asset), index);
                self.assets_of.entry(holder).or_default().push((asset, index));
                index
            }
        };
        self.histories.set(index, block, value);
    }

    /// Moves ERC721 token `id` of `collection` from its owner (`NOBODY` to mint).
    ///
    /// # Panics
    /// If `from` does not own it (a generator bug).
    pub fn move_erc721(&mut self, block: u32, collection: u16, id: u32, from: Holder, to: Holder) {
        let history = self.owners.entry((collection, id)).or_default();
        assert_eq!(history.last().unwrap_or(Holder::NOBODY), from, "token {id} of collection {collection}");
        history.set(block, to);
        self.remember_nft(block, from, to, collection, id);
        self.movements.push(Movement::Nft { block, collection, id, from, to, amount: 1, multi: false });
    }

    /// Moves `amount` of ERC1155 token `id` of `collection` (`from` = `NOBODY` to mint).
    ///
    /// # Panics
    /// If `from` does not hold the amount (a generator bug).
    pub fn move_erc1155(&mut self, block: u32, collection: u16, id: u32, from: Holder, to: Holder, amount: u64) {
        if from != Holder::NOBODY {
            let held = self.erc1155_amount(from, collection, id);
            let remaining = held.checked_sub(amount).expect("the generator moves only what is held");
            self.amounts.entry((from, collection, id)).or_default().set(block, remaining);
        }
        let held = self.erc1155_amount(to, collection, id);
        self.amounts.entry((to, collection, id)).or_default().set(block, held + amount);
        self.remember_nft(block, from, to, collection, id);
        self.movements.push(Movement::Nft { block, collection, id, from, to, amount, multi: true });
    }

    fn remember_nft(&mut self, block: u32, from: Holder, holder: Holder, collection: u16, id: u32) {
        if from == Holder::NOBODY {
            self.minted_at.entry((collection, id)).or_insert(block);
        }
        let held = self.nfts_of.entry(holder).or_default();
        if !held.contains(&(collection, id)) {
            held.push((collection, id));
        }
    }

    /// Current owner of an ERC721 token.
    pub fn erc721_owner(&self, collection: u16, id: u32) -> Option<Holder> {
        self.owners.get(&(collection, id)).and_then(History::last)
    }

    /// The ownership history of an ERC721 token.
    pub fn erc721_history(&self, collection: u16, id: u32) -> Option<&History<Holder>> {
        self.owners.get(&(collection, id))
    }

    /// Current amount of an ERC1155 token a holder has.
    pub fn erc1155_amount(&self, holder: Holder, collection: u16, id: u32) -> u64 {
        self.amounts.get(&(holder, collection, id)).and_then(History::last).unwrap_or(0)
    }

    /// The amount history of an ERC1155 token for a holder.
    pub fn erc1155_history(&self, holder: Holder, collection: u16, id: u32) -> Option<&History<u64>> {
        self.amounts.get(&(holder, collection, id))
    }

    /// Every NFT `(collection, id)` a holder has ever held, in the order it first got them.
    pub fn nfts_of(&self, holder: Holder) -> &[(u16, u32)] {
        self.nfts_of.get(&holder).map_or(&[], Vec::as_slice)
    }

    /// Every movement, in block order.
    pub fn movements(&self) -> &[Movement] {
        &self.movements
    }

    /// Number of addresses known.
    pub fn holders(&self) -> usize {
        self.addresses.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_answers_for_any_block() {
        let mut history = History::default();
        history.set(3, 10u128);
        history.set(3, 12);
        history.set(7, 5);
        assert_eq!(history.at(2), None);
        assert_eq!(history.at(3), Some(12));
        assert_eq!(history.at(6), Some(12));
        assert_eq!(history.checkpoint_at(9), Some((7, 5)));
    }

    #[test]
    fn a_packed_ledger_takes_more_movements() {
        let mut ledger = Ledger::new();
        let a = ledger.holder(Address::repeat_byte(1));
        let b = ledger.holder(Address::repeat_byte(2));
        ledger.move_fungible(1, Asset(1), Holder::NOBODY, a, 10);
        ledger.move_fungible(2, Asset(2), Holder::NOBODY, b, 7);
        ledger.pack();
        ledger.move_fungible(3, Asset(1), a, b, 4);
        ledger.move_fungible(3, Asset(3), Holder::NOBODY, a, 1);
        assert_eq!((ledger.balance(a, Asset(1)), ledger.balance(b, Asset(1))), (6, 4));
        assert_eq!((ledger.balance_at(a, Asset(1), 2), ledger.balance_at(b, Asset(1), 2)), (10, 0));
        assert_eq!(ledger.balance(b, Asset(2)), 7, "an unchanged packed history reads as before");
        let held: Vec<Asset> = ledger.holdings_of(a).map(|(asset, _)| asset).collect();
        assert_eq!(held, [Asset(1), Asset(3)]);
        assert_eq!(ledger.supply(Asset(1)), 10);
    }

    #[test]
    #[should_panic(expected = "holding 5")]
    fn overdrawing_is_a_bug() {
        let mut ledger = Ledger::new();
        let a = ledger.holder(Address::repeat_byte(1));
        let b = ledger.holder(Address::repeat_byte(2));
        ledger.move_fungible(1, Asset(1), Holder::NOBODY, a, 5);
        ledger.move_fungible(2, Asset(1), a, b, 6);
    }
}
