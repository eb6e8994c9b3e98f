//! When a sent transaction is mined: at once into a block of its own
//! (automine, as Anvil and Hardhat do by default), or, with automine off
//! (`evm_setAutomine(false)`, or a server started with `--block-time`), in
//! the next block made, whoever makes it. Also the accounts
//! `eth_sendTransaction` sends for without their keys (impersonation).

use alloy_consensus::Transaction;
use alloy_primitives::{Address, B256};
use w3api_source::SourceError;

use crate::Devnet;
use crate::generate::{BlockPlan, ChainData, SignedTransaction};

impl ChainData {
    /// Whether sent transactions are mined at once, `default` unless set.
    pub(crate) fn automine(&self, default: bool) -> bool {
        self.producer.automine.unwrap_or(default)
    }

    /// Keeps a transaction for the next block. Its nonce must follow the
    /// sender's, counting the sender's transactions already waiting, so
    /// that every one waiting can be mined in order.
    fn queue(&mut self, signed: SignedTransaction) -> Result<(), SourceError> {
        let sender = signed.sender;
        let expected = self.pending_nonce(sender);
        let nonce = signed.envelope.nonce();
        if nonce != expected {
            let which = if nonce < expected { "too low" } else { "too high" };
            return Err(SourceError::TransactionRefused(format!(
                "nonce {which}: next nonce {expected}, tx nonce {nonce} (counting the sender's transactions waiting for a block)"
            )));
        }
        self.producer.pending.push(signed);
        Ok(())
    }

    /// The nonce of `sender`'s next transaction: after the newest block's,
    /// and after those waiting for the next block (the `pending` tag's, as
    /// geth counts its pool).
    pub(crate) fn pending_nonce(&self, sender: Address) -> u64 {
        let waiting = self.producer.pending.iter().filter(|p| p.sender == sender).count() as u64;
        self.state.archive().account(sender, self.latest()).nonce + waiting
    }

    /// A transaction waiting for the next block, by hash.
    pub(crate) fn waiting(&self, hash: &B256) -> Option<&SignedTransaction> {
        self.producer.pending.iter().find(|p| p.envelope.tx_hash() == hash)
    }
}

impl Devnet {
    /// Mines `signed` now into a block of its own, or keeps it for the next
    /// block when automine is off (on a chain that never set it, when the
    /// server's `automine` was off as it was sent).
    pub(crate) fn submit(
        &self,
        data: &mut ChainData,
        signed: SignedTransaction,
        automine: bool,
    ) -> Result<(), SourceError> {
        if data.automine(automine) {
            self.append(data, BlockPlan::signed(signed)).map(drop)
        } else {
            data.queue(signed)
        }
    }
}
