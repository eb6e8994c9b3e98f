//! Every movement of the ledger in chain order, and its indexes by holder,
//! by asset and by collection, which the transfer listings read.

use foldhash::HashMap;

use super::{Asset, Holder, Movement, NftId};

/// The movements and their indexes.
#[derive(Clone, Debug)]
pub(super) struct Movements<Id: NftId> {
    all: Vec<Movement<Id>>,
    /// Indexes into `all`, in chain order: a holder's (as sender or
    /// recipient), an asset's and a collection's, the native currency's
    /// left out.
    of_holder: HashMap<Holder, Vec<u32>>,
    of_asset: HashMap<Asset, Vec<u32>>,
    of_collection: HashMap<u16, Vec<u32>>,
}

impl<Id: NftId> Default for Movements<Id> {
    fn default() -> Self {
        Movements {
            all: Vec::new(),
            of_holder: HashMap::default(),
            of_asset: HashMap::default(),
            of_collection: HashMap::default(),
        }
    }
}

impl<Id: NftId> Movements<Id> {
    /// Every movement, in block order.
    pub(super) fn all(&self) -> &[Movement<Id>] {
        &self.all
    }

    /// A holder's token and NFT movements, as indexes into [`Self::all`].
    pub(super) fn of_holder(&self, holder: Holder) -> &[u32] {
        self.of_holder.get(&holder).map_or(&[], Vec::as_slice)
    }

    /// An ERC20 token's movements, as indexes into [`Self::all`].
    pub(super) fn of_asset(&self, asset: Asset) -> &[u32] {
        self.of_asset.get(&asset).map_or(&[], Vec::as_slice)
    }

    /// A collection's movements, as indexes into [`Self::all`].
    pub(super) fn of_collection(&self, collection: u16) -> &[u32] {
        self.of_collection.get(&collection).map_or(&[], Vec::as_slice)
    }

    /// Keeps a movement and indexes it by its sides and by what moved.
    pub(super) fn record(&mut self, movement: Movement<Id>) {
        let index = u32::try_from(self.all.len()).expect("fewer than 2^32 movements");
        let (from, to) = movement.sides();
        self.all.push(movement);
        // Native movements are not indexed: no listing reads them (a
        // transaction's value is the transaction's), and they are most of
        // a busy chain's.
        let indexed = match movement {
            Movement::Fungible { asset: Asset::NATIVE, .. } => return,
            Movement::Fungible { asset, .. } => self.of_asset.entry(asset).or_default(),
            Movement::Nft { collection, .. } => self.of_collection.entry(collection).or_default(),
        };
        indexed.push(index);
        // A holder sending to itself is listed once.
        for side in [from, to].into_iter().filter(|side| *side != Holder::NOBODY) {
            let moves = self.of_holder.entry(side).or_default();
            if moves.last() != Some(&index) {
                moves.push(index);
            }
        }
    }

    /// Takes out every movement after `block`, and their indexes; returns
    /// them, in chain order, for the other parts to undo.
    pub(super) fn split_after(&mut self, block: u32) -> Vec<Movement<Id>> {
        let kept = self.all.partition_point(|m| m.block() <= block);
        let undone = self.all.split_off(kept);
        let kept = kept as u32;
        let below = |moves: &mut Vec<u32>| moves.truncate(moves.partition_point(|m| *m < kept));
        for movement in &undone {
            for side in <[Holder; 2]>::from(movement.sides()) {
                if let Some(moves) = self.of_holder.get_mut(&side) {
                    below(moves);
                }
            }
            let moves = match movement {
                Movement::Fungible { asset, .. } => self.of_asset.get_mut(asset),
                Movement::Nft { collection, .. } => self.of_collection.get_mut(collection),
            };
            if let Some(moves) = moves {
                below(moves);
            }
        }
        undone
    }
}
