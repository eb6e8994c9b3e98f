//! What the query core reads of a chain's ledger, and nothing more.
//!
//! The in-memory [`Ledger`] answers each read from its own indexes, lists
//! borrowed. An index kept elsewhere (node mode's tables in PostgreSQL)
//! answers the same reads with queries, lists owned. Holders, movements and
//! inner transfers are numbers the backend gives; the core only hands them
//! back.

use std::borrow::Cow;

use alloy_primitives::Address;
use w3api_ledger::{Asset, Holder, InnerTransfer, Ledger, Movement};

use crate::TokenId;

/// The reads of a ledger the query core makes.
pub trait LedgerReads {
    /// What NFT token ids are held as.
    type Id: TokenId;

    /// The holder of `address`, if the ledger ever saw it.
    fn find(&self, address: Address) -> Option<Holder>;

    /// The address of a holder the ledger gave.
    fn address(&self, holder: Holder) -> Address;

    /// Every asset `holder` held by the end of `block`, with its balance
    /// then (zero included; a backend may list later ones, at zero), in no
    /// particular order: answers rank them.
    fn balances_at(&self, holder: Holder, block: u32) -> Vec<(Asset, u128)>;

    /// An asset's supply at the end of `block`.
    fn supply_at(&self, asset: Asset, block: u32) -> u128;

    /// The last block up to `block` in which `asset` moved.
    fn last_activity(&self, asset: Asset, block: u32) -> Option<u32>;

    /// The first block in which `asset` moved.
    fn first_activity(&self, asset: Asset) -> Option<u32>;

    /// A movement, by the number a list gave.
    fn movement(&self, index: u32) -> Movement<Self::Id>;

    /// The token and NFT movements `holder` sent or received, in chain order.
    fn moves_of(&self, holder: Holder) -> Cow<'_, [u32]>;

    /// The movements of an ERC20 token, in chain order.
    fn moves_of_asset(&self, asset: Asset) -> Cow<'_, [u32]>;

    /// The movements of a collection's tokens, in chain order.
    fn moves_of_collection(&self, collection: u16) -> Cow<'_, [u32]>;

    /// The transactions `holder` sent or was sent, as (block, index), in chain order.
    fn transactions_of(&self, holder: Holder) -> Cow<'_, [(u32, u32)]>;

    /// An inner transfer, by the number a list gave.
    fn inner_transfer(&self, index: u32) -> InnerTransfer;

    /// The inner transfers `holder` paid or received, in chain order.
    fn inner_transfers_of(&self, holder: Holder) -> Cow<'_, [u32]>;

    /// An ERC721 token's owner at the end of `block`, and since when.
    fn owner_at(&self, collection: u16, id: Self::Id, block: u32) -> Option<(u32, Holder)>;

    /// A holder's amount of an ERC1155 token at the end of `block`, and since when.
    fn amount_at(&self, holder: Holder, collection: u16, id: Self::Id, block: u32) -> Option<(u32, u64)>;

    /// The block an NFT was first minted in.
    fn minted_at(&self, collection: u16, id: Self::Id) -> Option<u32>;

    /// Every token id of a collection ever minted, in mint order.
    fn tokens_of(&self, collection: u16) -> Cow<'_, [Self::Id]>;

    /// Everyone who ever held a token, in the order they first got it.
    fn holders_of(&self, collection: u16, id: Self::Id) -> Cow<'_, [Holder]>;

    /// Every NFT a holder ever held, in the order it first got them.
    fn nfts_of(&self, holder: Holder) -> Cow<'_, [(u16, Self::Id)]>;
}

impl<Id: TokenId> LedgerReads for Ledger<Id> {
    type Id = Id;

    fn find(&self, address: Address) -> Option<Holder> {
        Ledger::find(self, address)
    }

    fn address(&self, holder: Holder) -> Address {
        Ledger::address(self, holder)
    }

    fn balances_at(&self, holder: Holder, block: u32) -> Vec<(Asset, u128)> {
        self.holdings_of(holder).map(|(asset, history)| (asset, history.at(block).unwrap_or(0))).collect()
    }

    fn supply_at(&self, asset: Asset, block: u32) -> u128 {
        Ledger::supply_at(self, asset, block)
    }

    fn last_activity(&self, asset: Asset, block: u32) -> Option<u32> {
        Ledger::last_activity(self, asset, block)
    }

    fn first_activity(&self, asset: Asset) -> Option<u32> {
        Ledger::first_activity(self, asset)
    }

    fn movement(&self, index: u32) -> Movement<Id> {
        self.movements()[index as usize]
    }

    fn moves_of(&self, holder: Holder) -> Cow<'_, [u32]> {
        Cow::Borrowed(Ledger::moves_of(self, holder))
    }

    fn moves_of_asset(&self, asset: Asset) -> Cow<'_, [u32]> {
        Cow::Borrowed(Ledger::moves_of_asset(self, asset))
    }

    fn moves_of_collection(&self, collection: u16) -> Cow<'_, [u32]> {
        Cow::Borrowed(Ledger::moves_of_collection(self, collection))
    }

    fn transactions_of(&self, holder: Holder) -> Cow<'_, [(u32, u32)]> {
        Cow::Borrowed(Ledger::transactions_of(self, holder))
    }

    fn inner_transfer(&self, index: u32) -> InnerTransfer {
        self.inner_transfers()[index as usize]
    }

    fn inner_transfers_of(&self, holder: Holder) -> Cow<'_, [u32]> {
        Cow::Borrowed(Ledger::inner_transfers_of(self, holder))
    }

    fn owner_at(&self, collection: u16, id: Id, block: u32) -> Option<(u32, Holder)> {
        self.erc721_history(collection, id)?.checkpoint_at(block)
    }

    fn amount_at(&self, holder: Holder, collection: u16, id: Id, block: u32) -> Option<(u32, u64)> {
        self.erc1155_history(holder, collection, id)?.checkpoint_at(block)
    }

    fn minted_at(&self, collection: u16, id: Id) -> Option<u32> {
        Ledger::minted_at(self, collection, id)
    }

    fn tokens_of(&self, collection: u16) -> Cow<'_, [Id]> {
        Cow::Borrowed(Ledger::tokens_of(self, collection))
    }

    fn holders_of(&self, collection: u16, id: Id) -> Cow<'_, [Holder]> {
        Cow::Borrowed(Ledger::holders_of(self, collection, id))
    }

    fn nfts_of(&self, holder: Holder) -> Cow<'_, [(u16, Id)]> {
        Cow::Borrowed(Ledger::nfts_of(self, holder))
    }
}
