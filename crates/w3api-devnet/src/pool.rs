//! The pending pool: sent transactions waiting for a block.
//!
//! Kept by sender and nonce, as geth and Anvil keep theirs. A transaction
//! whose nonce follows its sender's (counting those waiting before it) is
//! pending: the next block takes it. One with a nonce further ahead is
//! queued until the gap fills. A block takes the pending ones by the tip
//! they pay at its base fee, highest first, each sender's in nonce order,
//! equal tips in the order they came (geth's miner orders so; Anvil's
//! default, by fees, does the same). A transaction at a sender and nonce
//! already waiting replaces it only for at least 10% more in both its fee
//! cap and its tip, as geth's pool asks.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

use alloy_consensus::Transaction;
use alloy_primitives::{Address, B256};
use w3api_source::SourceError;

use crate::generate::SignedTransaction;

/// Most transactions the pool holds, over every sender.
pub(crate) const POOL_LIMIT: usize = 10_000;
/// How much more a replacement pays, in percent of what it replaces.
const PRICE_BUMP: u128 = 10;

/// A transaction waiting, with when it came.
#[derive(Clone, Debug)]
pub(crate) struct Waiting {
    pub(crate) signed: SignedTransaction,
    arrival: u64,
}

/// The chain's pending pool.
#[derive(Clone, Debug, Default)]
pub(crate) struct Pool {
    by_sender: BTreeMap<Address, BTreeMap<u64, Waiting>>,
    /// Where each waiting transaction is kept, by hash: a lookup by hash
    /// (each send asks whether it is known) is then not a scan of the pool.
    by_hash: HashMap<B256, (Address, u64)>,
    arrivals: u64,
}

/// What the pool holds for one sender, at the sender's nonce.
pub(crate) struct Held<'a> {
    /// Ready for the next block, in nonce order.
    pub(crate) pending: Vec<&'a SignedTransaction>,
    /// Waiting for a gap below them to fill.
    pub(crate) queued: Vec<&'a SignedTransaction>,
}

impl Pool {
    /// Takes `signed`, whose sender's next nonce on the chain is `next`.
    pub(crate) fn add(&mut self, signed: SignedTransaction, next: u64) -> Result<(), SourceError> {
        let (sender, nonce, hash) = (signed.sender, signed.envelope.nonce(), *signed.envelope.tx_hash());
        if nonce < next {
            return Err(refused(format!("nonce too low: next nonce {next}, tx nonce {nonce}")));
        }
        if self.find(&hash).is_some() {
            return Err(refused("already known".into()));
        }
        let arrival = self.arrivals;
        let full = self.by_hash.len() >= POOL_LIMIT;
        let waiting = self.by_sender.entry(sender).or_default();
        match waiting.get(&nonce) {
            Some(old) if !pays_enough_more(&old.signed, &signed) => {
                return Err(refused("replacement transaction underpriced".into()));
            }
            Some(_) => {}
            None if full => return Err(refused(format!("txpool is full: it holds {POOL_LIMIT} transactions"))),
            None => {}
        }
        if let Some(replaced) = waiting.insert(nonce, Waiting { signed, arrival }) {
            self.by_hash.remove(replaced.signed.envelope.tx_hash());
        }
        self.by_hash.insert(hash, (sender, nonce));
        self.arrivals += 1;
        Ok(())
    }

    /// The nonce after `sender`'s pending transactions, whose next nonce
    /// on the chain is `next` (the `pending` tag's, as geth counts it).
    pub(crate) fn pending_nonce(&self, sender: Address, next: u64) -> u64 {
        let Some(waiting) = self.by_sender.get(&sender) else { return next };
        let mut nonce = next;
        while waiting.contains_key(&nonce) {
            nonce += 1;
        }
        nonce
    }

    pub(crate) fn find(&self, hash: &B256) -> Option<&SignedTransaction> {
        let (sender, nonce) = self.by_hash.get(hash)?;
        Some(&self.by_sender.get(sender)?.get(nonce)?.signed)
    }

    /// Removes a transaction; whether it was waiting.
    pub(crate) fn drop_transaction(&mut self, hash: &B256) -> bool {
        let Some(&(sender, nonce)) = self.by_hash.get(hash) else { return false };
        self.remove(sender, nonce);
        true
    }

    pub(crate) fn drop_all(&mut self) {
        *self = Pool { arrivals: self.arrivals, ..Pool::default() };
    }

    fn remove(&mut self, sender: Address, nonce: u64) {
        if let Some(waiting) = self.by_sender.get_mut(&sender) {
            if let Some(removed) = waiting.remove(&nonce) {
                self.by_hash.remove(removed.signed.envelope.tx_hash());
            }
            if waiting.is_empty() {
                self.by_sender.remove(&sender);
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.by_hash.is_empty()
    }

    /// What the pool holds by sender, pending and queued, where each
    /// sender's next nonce on the chain is `next(sender)`.
    pub(crate) fn held(&self, next: impl Fn(Address) -> u64) -> BTreeMap<Address, Held<'_>> {
        self.by_sender
            .iter()
            .map(|(sender, waiting)| {
                let ready = self.pending_nonce(*sender, next(*sender));
                let pending = waiting.range(..ready).map(|(_, w)| &w.signed).collect();
                let queued = waiting.range(ready..).map(|(_, w)| &w.signed).collect();
                (*sender, Held { pending, queued })
            })
            .collect()
    }

    /// The pending transactions in the order a block of base fee
    /// `base_fee` takes them (those whose fee cap is below it wait).
    pub(crate) fn ready(&self, next: impl Fn(Address) -> u64, base_fee: u64) -> Vec<SignedTransaction> {
        let head = |sender: Address, nonce: u64| {
            let waiting = self.by_sender.get(&sender)?.get(&nonce)?;
            let tip = waiting.signed.envelope.effective_tip_per_gas(base_fee)?;
            Some((tip, Reverse(waiting.arrival), sender, nonce))
        };
        let mut heads: BinaryHeap<_> =
            self.by_sender.keys().filter_map(|sender| head(*sender, next(*sender))).collect();
        let mut ordered = Vec::new();
        while let Some((_, _, sender, nonce)) = heads.pop() {
            ordered.push(self.by_sender[&sender][&nonce].signed.clone());
            heads.extend(head(sender, nonce + 1));
        }
        ordered
    }

    /// Forgets what a block took or made stale: every transaction below its
    /// sender's next nonce now, and those in `left_out` (refused when the
    /// block ran them).
    pub(crate) fn settle(&mut self, next: impl Fn(Address) -> u64, left_out: &[B256]) {
        let stale: Vec<(Address, u64)> = self
            .by_sender
            .iter()
            .flat_map(|(sender, waiting)| {
                let next = next(*sender);
                waiting
                    .iter()
                    .filter(move |(nonce, w)| **nonce < next || left_out.contains(w.signed.envelope.tx_hash()))
                    .map(move |(nonce, _)| (*sender, *nonce))
            })
            .collect();
        for (sender, nonce) in stale {
            self.remove(sender, nonce);
        }
    }
}

fn refused(message: String) -> SourceError {
    SourceError::TransactionRefused(message)
}

/// Whether `new` pays at least [`PRICE_BUMP`]% more than `old` in both its
/// fee cap and its tip.
fn pays_enough_more(old: &SignedTransaction, new: &SignedTransaction) -> bool {
    let bumped = |value: u128| value.saturating_mul(100 + PRICE_BUMP) / 100;
    let tip = |signed: &SignedTransaction| {
        signed.envelope.max_priority_fee_per_gas().unwrap_or_else(|| signed.envelope.max_fee_per_gas())
    };
    new.envelope.max_fee_per_gas() >= bumped(old.envelope.max_fee_per_gas()) && tip(new) >= bumped(tip(old))
}
