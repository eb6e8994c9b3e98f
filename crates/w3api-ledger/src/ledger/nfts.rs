//! The NFT part of the ledger: each ERC721 token's owner and each ERC1155
//! holding's amount, with their histories; what each holder ever held,
//! each collection's tokens in mint order and each token's holders.

use foldhash::HashMap;

use super::{Holder, NftId};
use crate::history::History;

/// NFT ownership, with its history by block.
#[derive(Clone, Debug)]
pub(super) struct Nfts<Id: NftId> {
    owners: HashMap<(u16, Id), History<Holder>>,
    amounts: HashMap<(Holder, u16, Id), History<u64>>,
    held_by: HashMap<Holder, Vec<(u16, Id)>>,
    /// A collection's token ids in mint order, and each token's holders
    /// (ever) in the order they got it: listings by collection and by
    /// token read them rather than scan every holder.
    tokens_of: HashMap<u16, Vec<Id>>,
    holders_of: HashMap<(u16, Id), Vec<Holder>>,
    minted_at: HashMap<(u16, Id), u32>,
}

impl<Id: NftId> Default for Nfts<Id> {
    fn default() -> Self {
        Nfts {
            owners: HashMap::default(),
            amounts: HashMap::default(),
            held_by: HashMap::default(),
            tokens_of: HashMap::default(),
            holders_of: HashMap::default(),
            minted_at: HashMap::default(),
        }
    }
}

impl<Id: NftId> Nfts<Id> {
    /// The ownership history of an ERC721 token.
    pub(super) fn owner_history(&self, collection: u16, id: Id) -> Option<&History<Holder>> {
        self.owners.get(&(collection, id))
    }

    /// The amount history of an ERC1155 token for a holder.
    pub(super) fn amount_history(&self, holder: Holder, collection: u16, id: Id) -> Option<&History<u64>> {
        self.amounts.get(&(holder, collection, id))
    }

    /// Every NFT a holder has ever held, in the order it first got them.
    pub(super) fn held_by(&self, holder: Holder) -> &[(u16, Id)] {
        self.held_by.get(&holder).map_or(&[], Vec::as_slice)
    }

    /// Every token id of a collection ever minted, in mint order.
    pub(super) fn tokens_of(&self, collection: u16) -> &[Id] {
        self.tokens_of.get(&collection).map_or(&[], Vec::as_slice)
    }

    /// Everyone who has ever held a token, in the order they first got it.
    pub(super) fn holders_of(&self, collection: u16, id: Id) -> &[Holder] {
        self.holders_of.get(&(collection, id)).map_or(&[], Vec::as_slice)
    }

    /// The block a token id was first minted in.
    pub(super) fn minted_at(&self, collection: u16, id: Id) -> Option<u32> {
        self.minted_at.get(&(collection, id)).copied()
    }

    /// Sets an ERC721 token's owner from `block` on.
    pub(super) fn set_owner(&mut self, block: u32, collection: u16, id: Id, owner: Holder) {
        self.owners.entry((collection, id)).or_default().set(block, owner);
    }

    /// Sets a holder's amount of an ERC1155 token from `block` on.
    pub(super) fn set_amount(&mut self, block: u32, holder: Holder, collection: u16, id: Id, amount: u64) {
        self.amounts.entry((holder, collection, id)).or_default().set(block, amount);
    }

    /// Lists a token moved in `block` from `from` to `holder`: minted, when
    /// it comes from no one for the first time, and held by `holder`.
    pub(super) fn remember(&mut self, block: u32, from: Holder, holder: Holder, collection: u16, id: Id) {
        if from == Holder::NOBODY && !self.minted_at.contains_key(&(collection, id)) {
            self.minted_at.insert((collection, id), block);
            self.tokens_of.entry(collection).or_default().push(id);
        }
        if holder == Holder::NOBODY {
            return;
        }
        let held = self.held_by.entry(holder).or_default();
        if !held.contains(&(collection, id)) {
            held.push((collection, id));
            self.holders_of.entry((collection, id)).or_default().push(holder);
        }
    }

    /// Undoes what a movement of token `id` between `sides` after `block`
    /// set; `multi` for an ERC1155 token.
    pub(super) fn undo(&mut self, (collection, id): (u16, Id), [from, to]: [Holder; 2], multi: bool, block: u32) {
        if multi {
            for holder in [from, to] {
                if let Some(history) = self.amounts.get_mut(&(holder, collection, id))
                    && !history.truncate_after(block)
                {
                    self.amounts.remove(&(holder, collection, id));
                }
            }
        } else if let Some(history) = self.owners.get_mut(&(collection, id))
            && !history.truncate_after(block)
        {
            self.owners.remove(&(collection, id));
        }
        if self.minted_at.get(&(collection, id)).is_some_and(|minted| *minted > block) {
            self.minted_at.remove(&(collection, id));
            if let Some(ids) = self.tokens_of.get_mut(&collection) {
                ids.retain(|minted| *minted != id);
            }
        }
        self.forget_unless_held(to, collection, id, block);
    }

    /// Drops an NFT from a holder's list when it got it only after `block`.
    fn forget_unless_held(&mut self, holder: Holder, collection: u16, id: Id, block: u32) {
        let held_before = self.amounts.contains_key(&(holder, collection, id))
            || self.owners.get(&(collection, id)).is_some_and(|owners| {
                let view = owners.view();
                view.blocks.iter().zip(view.values).any(|(b, owner)| *b <= block && *owner == holder)
            });
        if !held_before && let Some(held) = self.held_by.get_mut(&holder) {
            held.retain(|nft| *nft != (collection, id));
            if let Some(holders) = self.holders_of.get_mut(&(collection, id)) {
                holders.retain(|h| *h != holder);
            }
        }
    }
}
