//! Who holds what, at every block.
//!
//! Every change of a balance or an NFT owner is a [`Movement`] in a block,
//! applied in block order. Besides the list of movements, the ledger keeps,
//! per holder and asset (or per NFT), the history of values as checkpoints,
//! so the value at any block is a binary search: history is indexed, never
//! replayed.
//!
//! A movement that the ledger's state contradicts (spending more than is
//! held, moving an NFT its sender does not own) is refused with a
//! [`LedgerError`] and changes nothing: the devnet never makes one, and an
//! indexed chain whose contracts break the token standards must say so
//! rather than answer from a ledger gone wrong.

mod balances;
mod movements;
mod nfts;
mod transactions;

use std::fmt::Debug;
use std::hash::Hash;

use alloy_primitives::{Address, U256};
use foldhash::HashMap;

use self::balances::Balances;
use self::movements::Movements;
use self::nfts::Nfts;
use self::transactions::Transactions;
use crate::history::{Checkpoints, History};

/// An address known to the ledger, by index. `Holder::NOBODY` is the zero
/// address: the source of mints and the sink of burns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Holder(pub u32);

impl Holder {
    /// The zero address.
    pub const NOBODY: Holder = Holder(0);
}

/// A fungible asset of the ledger: the native currency or an ERC20 token,
/// by index in the chain's list of tokens.
///
/// The first two tokens are, by convention, the two every USD price is
/// computed from (see [`crate::pricing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Asset(pub u16);

impl Asset {
    /// The chain's native currency.
    pub const NATIVE: Asset = Asset(0);
    /// The wrapped native token.
    pub const WRAPPED: Asset = Asset(1);
    /// The USD stablecoin, worth exactly one dollar.
    pub const STABLE: Asset = Asset(2);
}

/// What identifies an NFT within its collection: `u32` where ids are small
/// (the devnet's), `U256` for any contract's.
pub trait NftId: Copy + Eq + Hash + Ord + Debug {}

impl<T: Copy + Eq + Hash + Ord + Debug> NftId for T {}

/// Why a movement was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LedgerError {
    /// A sender moving more of an asset than it holds.
    #[error("{holder} moves {amount} of asset {} holding {held}", asset.0)]
    Overdrawn {
        /// The sender.
        holder: Address,
        /// What it moves.
        asset: Asset,
        /// What it holds.
        held: u128,
        /// What it moves.
        amount: u128,
    },
    /// An ERC721 token moved by another than its owner.
    #[error("token {id} of collection {collection} moved from {from}, but {owner} owns it")]
    NotOwner {
        /// Collection index.
        collection: u16,
        /// The token id.
        id: String,
        /// Who the movement says it is from.
        from: Address,
        /// Who owns it.
        owner: Address,
    },
    /// A sender moving more of an ERC1155 token than it holds.
    #[error("{holder} moves {amount} of token {id} of collection {collection} holding {held}")]
    NftOverdrawn {
        /// The sender.
        holder: Address,
        /// Collection index.
        collection: u16,
        /// The token id.
        id: String,
        /// What it holds.
        held: u64,
        /// What it moves.
        amount: u64,
    },
    /// An amount past what the ledger counts in (`u128` for fungible
    /// assets, `u64` for ERC1155 tokens).
    #[error("contract {contract} moves {value}, more than the ledger counts ({limit})")]
    AmountTooLarge {
        /// The token contract.
        contract: Address,
        /// The amount the event carries.
        value: U256,
        /// The most the ledger counts.
        limit: u128,
    },
    /// A token id past what the ledger's ids hold.
    #[error("contract {contract} moves token id {id}, past the ids this ledger holds")]
    IdTooLarge {
        /// The collection contract.
        contract: Address,
        /// The id the event carries.
        id: U256,
    },
    /// A supply that would pass `u128::MAX`.
    #[error("the supply of asset {} would pass {}", asset.0, u128::MAX)]
    SupplyOverflow {
        /// The asset.
        asset: Asset,
    },
}

/// Where in the chain a movement happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Place {
    /// The block.
    pub block: u32,
    /// The transaction's index in the block; `None` outside any transaction
    /// (an allocation at genesis).
    pub transaction: Option<u32>,
    /// The log's index in the block; `None` for what no log tells (native
    /// value moved by a transaction).
    pub log: Option<u32>,
}

impl Place {
    /// A place in `block` outside any transaction.
    pub fn block(block: u32) -> Place {
        Place { block, transaction: None, log: None }
    }

    /// The place of log `log` of transaction `transaction` in `block`.
    pub fn log(block: u32, transaction: u32, log: u32) -> Place {
        Place { block, transaction: Some(transaction), log: Some(log) }
    }
}

/// One change of ownership.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Movement<Id = u32> {
    /// An amount of native currency or of an ERC20 token.
    Fungible {
        /// Where the change happened.
        at: Place,
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
        /// Where the change happened.
        at: Place,
        /// Collection index.
        collection: u16,
        /// Token id.
        id: Id,
        /// Sender (`NOBODY` for a mint).
        from: Holder,
        /// Recipient (`NOBODY` for a burn).
        to: Holder,
        /// Amount moved.
        amount: u64,
        /// Whether the collection is ERC1155 (amounts) rather than ERC721 (one owner).
        multi: bool,
        /// ERC1155's operator (who sent it: the holder or one it approved).
        operator: Option<Holder>,
        /// Whether an ERC1155 `TransferBatch` moved it, with other ids.
        batch: bool,
    },
}

/// An ERC1155 movement as its event tells it: the amount, who sent it (the
/// holder or an operator it approved) and whether in a batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Erc1155Move {
    /// Amount moved.
    pub amount: u64,
    /// The event's operator.
    pub operator: Holder,
    /// Whether a `TransferBatch` moved it.
    pub batch: bool,
}

impl Erc1155Move {
    /// `amount` moved by `operator` in a `TransferSingle`.
    pub fn single(amount: u64, operator: Holder) -> Erc1155Move {
        Erc1155Move { amount, operator, batch: false }
    }
}

impl<Id> Movement<Id> {
    /// The block of the change.
    pub fn block(&self) -> u32 {
        match self {
            Movement::Fungible { at, .. } | Movement::Nft { at, .. } => at.block,
        }
    }

    /// Where the change happened.
    pub fn place(&self) -> Place {
        match self {
            Movement::Fungible { at, .. } | Movement::Nft { at, .. } => *at,
        }
    }

    /// The two sides of the change, sender first.
    pub fn sides(&self) -> (Holder, Holder) {
        match self {
            Movement::Fungible { from, to, .. } | Movement::Nft { from, to, .. } => (*from, *to),
        }
    }
}

/// Native value a call inside a transaction moved: no log tells it, and
/// the native balances follow the chain's state, so it is kept for the
/// listings of a wallet's history only.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerTransfer {
    /// Its block and transaction.
    pub at: Place,
    /// Who paid it.
    pub from: Holder,
    /// Who received it.
    pub to: Holder,
    /// How much, in wei.
    pub value: U256,
}

/// Balances, NFT ownership and their histories: the holders the ledger
/// knows, and its four parts, each of which undoes its own share of a
/// rollback.
#[derive(Clone, Debug)]
pub struct Ledger<Id: NftId = u32> {
    addresses: Vec<Address>,
    index: HashMap<Address, Holder>,
    balances: Balances,
    nfts: Nfts<Id>,
    movements: Movements<Id>,
    transactions: Transactions,
}

impl<Id: NftId> Default for Ledger<Id> {
    fn default() -> Self {
        let mut ledger = Ledger {
            addresses: Vec::new(),
            index: HashMap::default(),
            balances: Balances::default(),
            nfts: Nfts::default(),
            movements: Movements::default(),
            transactions: Transactions::default(),
        };
        ledger.holder(Address::ZERO);
        ledger
    }
}

impl<Id: NftId> Ledger<Id> {
    /// An empty ledger knowing only the zero address.
    pub fn new() -> Ledger<Id> {
        Ledger::default()
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

    /// Number of addresses known.
    pub fn holders(&self) -> usize {
        self.addresses.len()
    }

    /// Current balance.
    pub fn balance(&self, holder: Holder, asset: Asset) -> u128 {
        self.balances.balance(holder, asset)
    }

    /// Balance at the end of `block`.
    pub fn balance_at(&self, holder: Holder, asset: Asset, block: u32) -> u128 {
        self.balance_history(holder, asset).and_then(|h| h.at(block)).unwrap_or(0)
    }

    /// The balance history of a holder in an asset.
    pub fn balance_history(&self, holder: Holder, asset: Asset) -> Option<Checkpoints<'_, u128>> {
        self.balances.history(holder, asset)
    }

    /// Every asset a holder has ever held, in the order it first got them,
    /// with the history of the holder's balance in it.
    pub fn holdings_of(&self, holder: Holder) -> impl Iterator<Item = (Asset, Checkpoints<'_, u128>)> {
        self.balances.holdings_of(holder)
    }

    /// Lays the balance histories out holder by holder, for reading: called
    /// once a chain built in one go is whole.
    pub fn pack(&mut self) {
        self.balances.pack();
    }

    /// The last block up to `block` in which `asset` moved.
    pub fn last_activity(&self, asset: Asset, block: u32) -> Option<u32> {
        let blocks = self.balances.activity(asset);
        let after = blocks.partition_point(|b| *b <= block);
        after.checked_sub(1).map(|i| blocks[i])
    }

    /// The first block in which `asset` moved.
    pub fn first_activity(&self, asset: Asset) -> Option<u32> {
        self.balances.activity(asset).first().copied()
    }

    /// Current supply: minted less burned.
    pub fn supply(&self, asset: Asset) -> u128 {
        self.balances.supply(asset)
    }

    /// Supply at the end of `block`.
    pub fn supply_at(&self, asset: Asset, block: u32) -> u128 {
        self.balances.supply_at(asset, block)
    }

    /// The history of an asset's supply.
    pub fn supply_history(&self, asset: Asset) -> Option<Checkpoints<'_, u128>> {
        self.balances.supply_history(asset)
    }

    /// Sets a balance as the blocks before a window of blocks left it, at
    /// `block` (the one before the window), with no movement: a ledger that
    /// holds one window applies it from the values it reads (see
    /// [`crate::apply::reads`]) as a ledger of the whole chain would.
    pub fn carry_balance(&mut self, block: u32, address: Address, asset: Asset, balance: u128) {
        let holder = self.holder(address);
        self.balances.set(block, holder, asset, balance);
    }

    /// Sets a supply as the blocks before a window left it (see
    /// [`Ledger::carry_balance`]).
    pub fn carry_supply(&mut self, block: u32, asset: Asset, supply: u128) {
        self.balances.set_supply(block, asset, supply);
    }

    /// Sets an ERC721 token's owner as the blocks before a window left it
    /// (see [`Ledger::carry_balance`]).
    pub fn carry_owner(&mut self, block: u32, collection: u16, id: Id, owner: Address) {
        let owner = self.holder(owner);
        self.nfts.set_owner(block, collection, id, owner);
    }

    /// Sets a holder's amount of an ERC1155 token as the blocks before a
    /// window left it (see [`Ledger::carry_balance`]).
    pub fn carry_amount(&mut self, block: u32, address: Address, collection: u16, id: Id, amount: u64) {
        let holder = self.holder(address);
        self.nfts.set_amount(block, holder, collection, id, amount);
    }

    /// Moves `amount` of `asset`. Mints come from `NOBODY`; moving to
    /// `NOBODY` burns. A mint to `NOBODY` stays in the supply, held by no
    /// one (as Uniswap v2 locks its first 1,000 liquidity units). Refused,
    /// changing nothing, when the sender does not hold the amount.
    pub fn move_fungible(
        &mut self,
        at: Place,
        asset: Asset,
        from: Holder,
        to: Holder,
        amount: u128,
    ) -> Result<(), LedgerError> {
        if amount == 0 {
            return Ok(());
        }
        let block = at.block;
        let supply = self.supply(asset);
        let supply = match (from == Holder::NOBODY, to == Holder::NOBODY) {
            // The native currency's supply is the EVM's, which no answer
            // reads from here, and balances set outright (anvil_setBalance)
            // may together pass 2^128: it saturates where a token's refuses.
            (true, _) if asset == Asset::NATIVE => Some(supply.saturating_add(amount)),
            (true, _) => Some(supply.checked_add(amount).ok_or(LedgerError::SupplyOverflow { asset })?),
            (false, true) => Some(supply.saturating_sub(amount)),
            (false, false) => None,
        };
        let remaining = if from == Holder::NOBODY {
            None
        } else {
            let held = self.balance(from, asset);
            let holder = self.address(from);
            Some(held.checked_sub(amount).ok_or(LedgerError::Overdrawn { holder, asset, held, amount })?)
        };
        if let Some(supply) = supply {
            self.balances.set_supply(block, asset, supply);
        }
        if let Some(remaining) = remaining {
            self.balances.set(block, from, asset, remaining);
        }
        if to != Holder::NOBODY {
            // No balance passes the supply, which was checked above for mints;
            // a transfer moves what is already counted in it.
            let balance = self.balance(to, asset).saturating_add(amount);
            self.balances.set(block, to, asset, balance);
        }
        self.balances.moved_in(block, asset);
        self.movements.record(Movement::Fungible { at, asset, from, to, amount });
        Ok(())
    }

    /// Moves ERC721 token `id` of `collection` from its owner (`NOBODY` to
    /// mint). Refused, changing nothing, when `from` does not own it.
    pub fn move_erc721(
        &mut self,
        at: Place,
        collection: u16,
        id: Id,
        from: Holder,
        to: Holder,
    ) -> Result<(), LedgerError> {
        let owner = self.erc721_owner(collection, id).unwrap_or(Holder::NOBODY);
        if owner != from {
            let (from, owner) = (self.address(from), self.address(owner));
            return Err(LedgerError::NotOwner { collection, id: format!("{id:?}"), from, owner });
        }
        self.nfts.set_owner(at.block, collection, id, to);
        self.nfts.remember(at.block, from, to, collection, id);
        let (operator, batch) = (None, false);
        self.movements.record(Movement::Nft { at, collection, id, from, to, amount: 1, multi: false, operator, batch });
        Ok(())
    }

    /// Moves `amount` of ERC1155 token `id` of `collection` (`from` =
    /// `NOBODY` to mint, `to` = `NOBODY` to burn). Refused, changing
    /// nothing, when `from` does not hold the amount.
    pub fn move_erc1155(
        &mut self,
        at: Place,
        collection: u16,
        id: Id,
        from: Holder,
        to: Holder,
        sent: Erc1155Move,
    ) -> Result<(), LedgerError> {
        let (block, amount) = (at.block, sent.amount);
        if from != Holder::NOBODY {
            let held = self.erc1155_amount(from, collection, id);
            let Some(remaining) = held.checked_sub(amount) else {
                let (holder, id) = (self.address(from), format!("{id:?}"));
                return Err(LedgerError::NftOverdrawn { holder, collection, id, held, amount });
            };
            self.nfts.set_amount(block, from, collection, id, remaining);
        }
        if to != Holder::NOBODY {
            let held = self.erc1155_amount(to, collection, id).saturating_add(amount);
            self.nfts.set_amount(block, to, collection, id, held);
        }
        self.nfts.remember(block, from, to, collection, id);
        let (operator, batch) = (Some(sent.operator), sent.batch);
        self.movements.record(Movement::Nft { at, collection, id, from, to, amount, multi: true, operator, batch });
        Ok(())
    }

    /// The block an NFT token id was first minted in.
    pub fn minted_at(&self, collection: u16, id: Id) -> Option<u32> {
        self.nfts.minted_at(collection, id)
    }

    /// Current owner of an ERC721 token.
    pub fn erc721_owner(&self, collection: u16, id: Id) -> Option<Holder> {
        self.nfts.owner_history(collection, id).and_then(History::last)
    }

    /// The ownership history of an ERC721 token.
    pub fn erc721_history(&self, collection: u16, id: Id) -> Option<&History<Holder>> {
        self.nfts.owner_history(collection, id)
    }

    /// Current amount of an ERC1155 token a holder has.
    pub fn erc1155_amount(&self, holder: Holder, collection: u16, id: Id) -> u64 {
        self.nfts.amount_history(holder, collection, id).and_then(History::last).unwrap_or(0)
    }

    /// The amount history of an ERC1155 token for a holder.
    pub fn erc1155_history(&self, holder: Holder, collection: u16, id: Id) -> Option<&History<u64>> {
        self.nfts.amount_history(holder, collection, id)
    }

    /// Every NFT `(collection, id)` a holder has ever held, in the order it first got them.
    pub fn nfts_of(&self, holder: Holder) -> &[(u16, Id)] {
        self.nfts.held_by(holder)
    }

    /// Every token id of a collection ever minted (and not rolled back), in mint order.
    pub fn tokens_of(&self, collection: u16) -> &[Id] {
        self.nfts.tokens_of(collection)
    }

    /// Everyone who has ever held a token, in the order they first got it.
    pub fn holders_of(&self, collection: u16, id: Id) -> &[Holder] {
        self.nfts.holders_of(collection, id)
    }

    /// Records transaction `index` of `block`, sent by `from` to `to`
    /// (`None` for a contract creation), after every transaction before it.
    pub fn record_transaction(&mut self, block: u32, index: u32, from: Address, to: Option<Address>) {
        let from = self.holder(from);
        let to = to.map(|to| self.holder(to));
        self.transactions.record((block, index), from, to);
    }

    /// The transactions a holder sent or was sent, as `(block, index in
    /// block)`, in chain order.
    pub fn transactions_of(&self, holder: Holder) -> &[(u32, u32)] {
        self.transactions.of_holder(holder)
    }

    /// Records native value that a call inside transaction `index` of
    /// `block` moved from `from` to `to`, after every one before it.
    pub fn record_inner_transfer(&mut self, (block, index): (u32, u32), from: Address, to: Address, value: U256) {
        let (from, to) = (self.holder(from), self.holder(to));
        let at = Place { block, transaction: Some(index), log: None };
        self.transactions.record_inner(at, from, to, value);
    }

    /// Every inner transfer, in chain order.
    pub fn inner_transfers(&self) -> &[InnerTransfer] {
        self.transactions.inner()
    }

    /// The inner transfers a holder paid or received, as indexes into
    /// [`Ledger::inner_transfers`], in chain order.
    pub fn inner_transfers_of(&self, holder: Holder) -> &[u32] {
        self.transactions.inner_of(holder)
    }

    /// Every movement, in block order.
    pub fn movements(&self) -> &[Movement<Id>] {
        self.movements.all()
    }

    /// The token and NFT movements a holder sent or received (not the
    /// native currency's), as indexes into [`Ledger::movements`], in chain
    /// order.
    pub fn moves_of(&self, holder: Holder) -> &[u32] {
        self.movements.of_holder(holder)
    }

    /// The movements of an ERC20 token (none for the native currency), as
    /// indexes into [`Ledger::movements`], in chain order.
    pub fn moves_of_asset(&self, asset: Asset) -> &[u32] {
        self.movements.of_asset(asset)
    }

    /// The movements of a collection's tokens, as indexes into
    /// [`Ledger::movements`], in chain order.
    pub fn moves_of_collection(&self, collection: u16) -> &[u32] {
        self.movements.of_collection(collection)
    }

    /// Puts the ledger back as it was at the end of `block`: every movement
    /// after it is undone, as if it never happened (a chain reorganised
    /// from `block` on). Holders stay known. Each part undoes its own: the
    /// movements taken out tell the balances and the NFTs what to undo.
    pub fn rollback_to(&mut self, block: u32) {
        self.transactions.rollback_to(block);
        for movement in self.movements.split_after(block) {
            match movement {
                Movement::Fungible { asset, from, to, .. } => self.balances.undo(asset, [from, to], block),
                Movement::Nft { collection, id, from, to, multi, .. } => {
                    self.nfts.undo((collection, id), [from, to], multi, block);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_holders() -> (Ledger, Holder, Holder) {
        let mut ledger = Ledger::new();
        let a = ledger.holder(Address::repeat_byte(1));
        let b = ledger.holder(Address::repeat_byte(2));
        (ledger, a, b)
    }

    #[test]
    fn a_packed_ledger_takes_more_movements() {
        let (mut ledger, a, b) = two_holders();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, a, 10).unwrap();
        ledger.move_fungible(Place::block(2), Asset(2), Holder::NOBODY, b, 7).unwrap();
        ledger.pack();
        ledger.move_fungible(Place::block(3), Asset(1), a, b, 4).unwrap();
        ledger.move_fungible(Place::block(3), Asset(3), Holder::NOBODY, a, 1).unwrap();
        assert_eq!((ledger.balance(a, Asset(1)), ledger.balance(b, Asset(1))), (6, 4));
        assert_eq!((ledger.balance_at(a, Asset(1), 2), ledger.balance_at(b, Asset(1), 2)), (10, 0));
        assert_eq!(ledger.balance(b, Asset(2)), 7, "an unchanged packed history reads as before");
        let held: Vec<Asset> = ledger.holdings_of(a).map(|(asset, _)| asset).collect();
        assert_eq!(held, [Asset(1), Asset(3)]);
        assert_eq!(ledger.supply(Asset(1)), 10);
    }

    #[test]
    fn overdrawing_is_refused_and_changes_nothing() {
        let (mut ledger, a, b) = two_holders();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, a, 5).unwrap();
        let refused = ledger.move_fungible(Place::block(2), Asset(1), a, b, 6).unwrap_err();
        assert_eq!(
            refused,
            LedgerError::Overdrawn { holder: Address::repeat_byte(1), asset: Asset(1), held: 5, amount: 6 }
        );
        assert!(refused.to_string().contains("holding 5"), "{refused}");
        assert_eq!((ledger.balance(a, Asset(1)), ledger.balance(b, Asset(1))), (5, 0));
        assert_eq!(ledger.movements().len(), 1);
    }

    #[test]
    fn burns_lower_the_supply_and_mints_past_u128_are_refused() {
        let (mut ledger, a, _) = two_holders();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, a, u128::MAX - 1).unwrap();
        assert_eq!(
            ledger.move_fungible(Place::block(2), Asset(1), Holder::NOBODY, a, 2),
            Err(LedgerError::SupplyOverflow { asset: Asset(1) })
        );
        ledger.move_fungible(Place::block(3), Asset(1), a, Holder::NOBODY, 10).unwrap();
        assert_eq!(ledger.supply(Asset(1)), u128::MAX - 11);
        assert_eq!(ledger.supply_at(Asset(1), 2), u128::MAX - 1);
    }

    #[test]
    fn a_mint_to_no_one_stays_in_the_supply() {
        let (mut ledger, a, _) = two_holders();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, Holder::NOBODY, 1_000).unwrap();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, a, 5).unwrap();
        assert_eq!(ledger.supply(Asset(1)), 1_005, "Uniswap v2's locked minimum liquidity counts");
        assert_eq!(ledger.balance(a, Asset(1)), 5);
    }

    #[test]
    fn nfts_move_only_from_their_owner_and_erc1155_amounts_add_up() {
        let (mut ledger, a, b) = two_holders();
        ledger.move_erc721(Place::block(1), 0, 7, Holder::NOBODY, a).unwrap();
        assert!(matches!(ledger.move_erc721(Place::block(2), 0, 7, b, a), Err(LedgerError::NotOwner { .. })));
        ledger.move_erc721(Place::block(3), 0, 7, a, b).unwrap();
        assert_eq!(ledger.erc721_owner(0, 7), Some(b));
        assert_eq!(ledger.erc721_history(0, 7).unwrap().at(2), Some(a));
        assert_eq!(ledger.minted_at(0, 7), Some(1));

        ledger.move_erc1155(Place::block(1), 1, 3, Holder::NOBODY, a, Erc1155Move::single(5, a)).unwrap();
        ledger.move_erc1155(Place::block(2), 1, 3, a, b, Erc1155Move::single(2, a)).unwrap();
        assert!(matches!(
            ledger.move_erc1155(Place::block(3), 1, 3, b, a, Erc1155Move::single(3, b)),
            Err(LedgerError::NftOverdrawn { held: 2, .. })
        ));
        ledger.move_erc1155(Place::block(4), 1, 3, b, Holder::NOBODY, Erc1155Move::single(2, b)).unwrap();
        assert_eq!((ledger.erc1155_amount(a, 1, 3), ledger.erc1155_amount(b, 1, 3)), (3, 0));
        assert_eq!(ledger.nfts_of(b), [(0, 7), (1, 3)]);
        assert!(ledger.nfts_of(Holder::NOBODY).is_empty(), "burned tokens are held by nobody");
    }

    #[test]
    fn a_rollback_undoes_every_later_movement() {
        let (mut ledger, a, b) = two_holders();
        ledger.move_fungible(Place::block(1), Asset(1), Holder::NOBODY, a, 10).unwrap();
        ledger.move_erc721(Place::block(1), 0, 1, Holder::NOBODY, a).unwrap();
        ledger.move_erc1155(Place::block(1), 1, 2, Holder::NOBODY, a, Erc1155Move::single(4, a)).unwrap();
        let before = ledger.clone();
        ledger.pack();
        ledger.move_fungible(Place::block(2), Asset(1), a, b, 4).unwrap();
        ledger.move_fungible(Place::block(2), Asset(2), Holder::NOBODY, b, 9).unwrap();
        ledger.move_erc721(Place::block(3), 0, 1, a, b).unwrap();
        ledger.move_erc721(Place::block(3), 0, 2, Holder::NOBODY, b).unwrap();
        ledger.move_erc1155(Place::block(3), 1, 2, a, b, Erc1155Move::single(1, a)).unwrap();
        ledger.rollback_to(1);
        assert_eq!(ledger.movements(), before.movements());
        for (holder, asset) in [(a, Asset(1)), (b, Asset(1)), (b, Asset(2))] {
            assert_eq!(ledger.balance(holder, asset), before.balance(holder, asset), "{holder:?} {asset:?}");
        }
        assert_eq!(ledger.holdings_of(b).count(), 0, "b held nothing at block 1");
        assert_eq!((ledger.supply(Asset(1)), ledger.supply(Asset(2))), (10, 0));
        assert_eq!(ledger.last_activity(Asset(1), 9), Some(1));
        assert_eq!((ledger.erc721_owner(0, 1), ledger.erc721_owner(0, 2)), (Some(a), None));
        assert_eq!((ledger.erc1155_amount(a, 1, 2), ledger.erc1155_amount(b, 1, 2)), (4, 0));
        assert_eq!((ledger.nfts_of(a), ledger.nfts_of(b)), (&[(0, 1), (1, 2)][..], &[][..]));
        assert_eq!(ledger.minted_at(0, 2), None);
        ledger.move_fungible(Place::block(2), Asset(1), a, b, 10).unwrap();
        assert_eq!(ledger.balance(b, Asset(1)), 10, "the other branch applies on the rolled-back state");
    }

    #[test]
    fn movements_are_indexed_by_holder_asset_and_collection_until_rolled_back() {
        let (mut ledger, a, b) = two_holders();
        ledger.move_fungible(Place::log(1, 0, 0), Asset(1), Holder::NOBODY, a, 10).unwrap();
        ledger.move_fungible(Place::log(1, 0, 1), Asset(1), a, a, 3).unwrap();
        ledger.move_erc721(Place::log(2, 1, 4), 0, 1, Holder::NOBODY, b).unwrap();
        ledger.move_fungible(Place::log(3, 0, 0), Asset(2), Holder::NOBODY, b, 9).unwrap();
        ledger.move_fungible(Place::log(3, 2, 5), Asset(1), a, b, 4).unwrap();
        ledger
            .move_fungible(Place { block: 3, transaction: Some(2), log: None }, Asset::NATIVE, Holder::NOBODY, a, 1)
            .unwrap();
        assert_eq!(ledger.moves_of(a), [0, 1, 4], "a sending to itself is listed once; native value is not listed");
        assert_eq!(ledger.moves_of(b), [2, 3, 4]);
        assert!(ledger.moves_of(Holder::NOBODY).is_empty(), "mints and burns are not the zero address's");
        assert_eq!((ledger.moves_of_asset(Asset(1)), ledger.moves_of_asset(Asset(2))), (&[0, 1, 4][..], &[3][..]));
        assert_eq!(ledger.moves_of_collection(0), [2]);
        assert_eq!(ledger.movements()[4].place(), Place::log(3, 2, 5));
        ledger.rollback_to(2);
        assert_eq!((ledger.moves_of(a), ledger.moves_of(b)), (&[0, 1][..], &[2][..]));
        assert_eq!((ledger.moves_of_asset(Asset(1)), ledger.moves_of_asset(Asset(2))), (&[0, 1][..], &[][..]));
        ledger.rollback_to(1);
        assert!(ledger.moves_of_collection(0).is_empty());
    }

    #[test]
    fn transactions_are_listed_by_party_until_rolled_back() {
        let (mut ledger, a, b) = two_holders();
        let (x, y) = (Address::repeat_byte(1), Address::repeat_byte(2));
        ledger.record_transaction(1, 0, x, Some(y));
        ledger.record_transaction(1, 1, x, None);
        ledger.record_transaction(2, 0, y, Some(y));
        ledger.record_transaction(3, 4, y, Some(x));
        assert_eq!(ledger.transactions_of(a), [(1, 0), (1, 1), (3, 4)]);
        assert_eq!(ledger.transactions_of(b), [(1, 0), (2, 0), (3, 4)], "a transaction to oneself is listed once");
        ledger.rollback_to(1);
        assert_eq!((ledger.transactions_of(a), ledger.transactions_of(b)), (&[(1, 0), (1, 1)][..], &[(1, 0)][..]));
        ledger.record_transaction(2, 0, x, Some(y));
        assert_eq!(ledger.transactions_of(b), [(1, 0), (2, 0)], "the other branch lists its own");
    }

    #[test]
    fn inner_transfers_are_listed_for_both_sides_and_a_rollback_forgets_them() {
        let mut ledger: Ledger = Ledger::new();
        let (x, y, z) = (Address::repeat_byte(1), Address::repeat_byte(2), Address::repeat_byte(3));
        ledger.record_inner_transfer((1, 0), x, y, U256::from(5));
        ledger.record_inner_transfer((1, 0), y, y, U256::from(1));
        ledger.record_inner_transfer((2, 3), y, z, U256::from(7));
        let of = |ledger: &Ledger, address| ledger.inner_transfers_of(ledger.find(address).unwrap()).to_vec();
        assert_eq!((of(&ledger, x), of(&ledger, y), of(&ledger, z)), (vec![0], vec![0, 1, 2], vec![2]));
        let last = ledger.inner_transfers()[2];
        assert_eq!((last.at.block, last.at.transaction, last.value), (2, Some(3), U256::from(7)));
        ledger.rollback_to(1);
        assert_eq!((of(&ledger, y), of(&ledger, z)), (vec![0, 1], vec![]));
        ledger.record_inner_transfer((2, 0), z, x, U256::from(2));
        assert_eq!((of(&ledger, x), ledger.inner_transfers().len()), (vec![0, 2], 3), "the other branch lists its own");
    }
}
