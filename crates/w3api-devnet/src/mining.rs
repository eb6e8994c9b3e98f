//! When a sent transaction is mined: at once into a block of its own
//! (automine, as Anvil and Hardhat do by default), or, with automine off
//! (`evm_setAutomine(false)`, or a server started with `--block-time`), in
//! the next block made, whoever makes it. Also the accounts
//! `eth_sendTransaction` sends for without their keys (impersonation).

use alloy_consensus::Transaction;
use alloy_primitives::{Address, B256};
use w3api_source::SourceError;
use w3api_types::rpc::{ByNonce, TxpoolContent};

use crate::Devnet;
use crate::generate::{BlockPlan, ChainData, SignedTransaction};
use crate::query::blocks::rpc_pending_transaction;

impl ChainData {
    /// Whether sent transactions are mined at once, `default` unless set.
    pub(crate) fn automine(&self, default: bool) -> bool {
        self.producer.automine.unwrap_or(default)
    }

    /// Keeps a transaction in the pool: for the next block when its nonce
    /// follows its sender's (counting those waiting), or until the gap
    /// below it fills.
    fn queue(&mut self, signed: SignedTransaction) -> Result<(), SourceError> {
        let next = self.next_nonce(signed.sender);
        self.producer.pool.add(signed, next)
    }

    /// The nonce of `sender`'s next transaction in the newest block.
    fn next_nonce(&self, sender: Address) -> u64 {
        self.state.archive().account(sender, self.latest()).nonce
    }

    /// The nonce of `sender`'s next transaction: after the newest block's,
    /// and after those pending in the pool (the `pending` tag's, as geth
    /// counts it).
    pub(crate) fn pending_nonce(&self, sender: Address) -> u64 {
        self.producer.pool.pending_nonce(sender, self.next_nonce(sender))
    }

    /// A transaction waiting in the pool, by hash.
    pub(crate) fn waiting(&self, hash: &B256) -> Option<&SignedTransaction> {
        self.producer.pool.find(hash)
    }

    /// What the pool holds, pending and queued, by sender and nonce.
    pub(crate) fn pool_content(&self) -> TxpoolContent {
        let mut content = TxpoolContent::default();
        for (sender, held) in self.producer.pool.held(|sender| self.next_nonce(sender)) {
            let by_nonce = |list: Vec<&SignedTransaction>| -> ByNonce<_> {
                list.into_iter()
                    .map(|signed| (signed.envelope.nonce().to_string(), rpc_pending_transaction(signed)))
                    .collect()
            };
            if !held.pending.is_empty() {
                content.pending.insert(sender, by_nonce(held.pending));
            }
            if !held.queued.is_empty() {
                content.queued.insert(sender, by_nonce(held.queued));
            }
        }
        content
    }

    /// Whether the pool holds transactions the next block would take.
    fn has_ready(&self) -> bool {
        !self.producer.pool.is_empty()
            && self.producer.pool.held(|sender| self.next_nonce(sender)).values().any(|held| !held.pending.is_empty())
    }
}

impl Devnet {
    /// With automine, mines `signed` now into a block of its own when its
    /// nonce is its sender's next, then the pool's transactions that it let
    /// through (a gap it filled) into one more; with a nonce further ahead
    /// it waits in the pool, as Anvil's automine waits. With automine off
    /// (on a chain that never set it, when the server's `automine` was off
    /// as it was sent), it waits in the pool for the next block.
    pub(crate) fn submit(
        &self,
        data: &mut ChainData,
        signed: SignedTransaction,
        automine: bool,
    ) -> Result<(), SourceError> {
        let ready_now = signed.envelope.nonce() == data.next_nonce(signed.sender);
        if !data.automine(automine) || !ready_now {
            return data.queue(signed);
        }
        if data.waiting(signed.envelope.tx_hash()).is_some() {
            return Err(SourceError::TransactionRefused("already known".into()));
        }
        self.append(data, BlockPlan::signed(signed))?;
        if data.has_ready() {
            self.append(data, BlockPlan::empty())?;
        }
        Ok(())
    }
}
