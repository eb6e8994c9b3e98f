//! geth's `txpool_` namespace: what a node's pending pool holds, by sender
//! and nonce, pending (the next block may take it) and queued (a nonce gap
//! below it).

use std::collections::BTreeMap;

use alloy_primitives::Address;
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::Transaction;
use crate::wire::Hex;

/// One sender's waiting transactions, by nonce (decimal, as geth keys them).
pub type ByNonce<T> = BTreeMap<String, T>;

/// Every waiting transaction, by sender and nonce, each as a `T`: what
/// `txpool_content` (whole transactions) and `txpool_inspect` (one line
/// each) both answer.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(bound(serialize = "T: Serialize", deserialize = "T: Deserialize<'de>"))]
pub struct TxpoolBySender<T> {
    /// Transactions the next block may take.
    #[serde_as(as = "BTreeMap<Hex, _>")]
    pub pending: BTreeMap<Address, ByNonce<T>>,
    /// Transactions waiting for a gap below their nonce to fill.
    #[serde_as(as = "BTreeMap<Hex, _>")]
    pub queued: BTreeMap<Address, ByNonce<T>>,
}

/// An empty pool, whatever `T` is (derived, it would need `T: Default`).
impl<T> Default for TxpoolBySender<T> {
    fn default() -> Self {
        TxpoolBySender { pending: BTreeMap::new(), queued: BTreeMap::new() }
    }
}

/// `txpool_content`: every waiting transaction, by sender and nonce.
pub type TxpoolContent = TxpoolBySender<Transaction>;

/// `txpool_contentFrom`: one sender's waiting transactions, by nonce.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TxpoolContentFrom {
    /// Transactions the next block may take.
    pub pending: ByNonce<Transaction>,
    /// Transactions waiting for a gap below their nonce to fill.
    pub queued: ByNonce<Transaction>,
}

/// `txpool_status`: how many transactions wait, of each kind.
#[serde_as]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TxpoolStatus {
    /// Pending transactions.
    #[serde_as(as = "Hex")]
    pub pending: u64,
    /// Queued transactions.
    #[serde_as(as = "Hex")]
    pub queued: u64,
}

/// `txpool_inspect`: each waiting transaction in one line, by sender and nonce.
pub type TxpoolInspect = TxpoolBySender<String>;

impl TxpoolBySender<Transaction> {
    /// How many wait, of each kind.
    pub fn status(&self) -> TxpoolStatus {
        let count = |side: &BTreeMap<Address, ByNonce<Transaction>>| side.values().map(|t| t.len() as u64).sum();
        TxpoolStatus { pending: count(&self.pending), queued: count(&self.queued) }
    }

    /// What `sender` has waiting.
    pub fn from_sender(&self, sender: &Address) -> TxpoolContentFrom {
        let of = |side: &BTreeMap<Address, ByNonce<Transaction>>| side.get(sender).cloned().unwrap_or_default();
        TxpoolContentFrom { pending: of(&self.pending), queued: of(&self.queued) }
    }

    /// Each transaction as geth's `txpool_inspect` writes it:
    /// `0xTO: VALUE wei + GAS gas × PRICE wei` (`contract creation` for no recipient).
    pub fn inspect(&self) -> TxpoolInspect {
        let line = |tx: &Transaction| {
            let to = tx.to.map_or_else(|| "contract creation".to_owned(), |to| format!("{to:#x}"));
            let price = tx.max_fee_per_gas.or(tx.gas_price).unwrap_or_default();
            format!("{to}: {} wei + {} gas × {price} wei", tx.value, tx.gas)
        };
        let side = |side: &BTreeMap<Address, ByNonce<Transaction>>| {
            side.iter()
                .map(|(sender, txs)| (*sender, txs.iter().map(|(nonce, tx)| (nonce.clone(), line(tx))).collect()))
                .collect()
        };
        TxpoolInspect { pending: side(&self.pending), queued: side(&self.queued) }
    }
}
