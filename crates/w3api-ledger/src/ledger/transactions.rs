//! The ledger's list of transactions by party, and of the native value
//! moved inside them: what a wallet's transactions and history list,
//! whatever the transactions moved.

use foldhash::HashMap;

use super::{Holder, InnerTransfer, Place};
use alloy_primitives::U256;

/// Transactions and inner transfers, with their indexes by holder.
#[derive(Clone, Debug, Default)]
pub(super) struct Transactions {
    /// Every transaction's sender and recipient, in chain order, and by
    /// holder each one's transactions as `(block, index in block)`.
    sent: Vec<(u32, Holder, Option<Holder>)>,
    of_holder: HashMap<Holder, Vec<(u32, u32)>>,
    /// The native value moved inside transactions, in chain order, and by
    /// holder (as payer or payee) indexes into it.
    inner: Vec<InnerTransfer>,
    inner_of: HashMap<Holder, Vec<u32>>,
}

impl Transactions {
    /// Records transaction `index` of `block`, after every one before it.
    pub(super) fn record(&mut self, (block, index): (u32, u32), from: Holder, to: Option<Holder>) {
        self.sent.push((block, from, to));
        for party in [Some(from), to].into_iter().flatten() {
            let listed = self.of_holder.entry(party).or_default();
            if listed.last() != Some(&(block, index)) {
                listed.push((block, index));
            }
        }
    }

    /// The transactions a holder sent or was sent, in chain order.
    pub(super) fn of_holder(&self, holder: Holder) -> &[(u32, u32)] {
        self.of_holder.get(&holder).map_or(&[], Vec::as_slice)
    }

    /// Records native value moved inside a transaction, after every one
    /// before it.
    pub(super) fn record_inner(&mut self, at: Place, from: Holder, to: Holder, value: U256) {
        let position = u32::try_from(self.inner.len()).expect("fewer than 2^32 inner transfers");
        self.inner.push(InnerTransfer { at, from, to, value });
        for side in [from, to] {
            let listed = self.inner_of.entry(side).or_default();
            if listed.last() != Some(&position) {
                listed.push(position);
            }
        }
    }

    /// Every inner transfer, in chain order.
    pub(super) fn inner(&self) -> &[InnerTransfer] {
        &self.inner
    }

    /// A holder's inner transfers, as indexes into [`Self::inner`].
    pub(super) fn inner_of(&self, holder: Holder) -> &[u32] {
        self.inner_of.get(&holder).map_or(&[], Vec::as_slice)
    }

    /// Forgets every transaction and inner transfer after `block`.
    pub(super) fn rollback_to(&mut self, block: u32) {
        let kept = self.sent.partition_point(|(b, _, _)| *b <= block);
        for (_, from, to) in self.sent.split_off(kept) {
            for party in [Some(from), to].into_iter().flatten() {
                if let Some(listed) = self.of_holder.get_mut(&party) {
                    listed.truncate(listed.partition_point(|(b, _)| *b <= block));
                }
            }
        }
        let kept = self.inner.partition_point(|t| t.at.block <= block);
        for undone in self.inner.split_off(kept) {
            for side in [undone.from, undone.to] {
                if let Some(listed) = self.inner_of.get_mut(&side) {
                    listed.truncate(listed.partition_point(|i| (*i as usize) < kept));
                }
            }
        }
    }
}
