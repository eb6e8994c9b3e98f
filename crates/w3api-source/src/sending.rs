//! Sending signed transactions and the pool they wait in for a block:
//! `eth_sendRawTransaction`, `txpool_content` and news of each accepted
//! transaction.

use std::future::Future;

use w3api_types::Chain;
use w3api_types::rpc::{Bytes, Hash32, TxpoolContent};

use crate::{PendingTransaction, SourceError};

/// Transactions sent to a chain, and its pending pool.
pub trait Sending: Send + Sync {
    /// News of each transaction a chain of this server accepted, whether
    /// it was mined at once or waits for a block. `None` for a source that
    /// hears of none.
    fn pending_transactions(&self) -> Option<tokio::sync::broadcast::Receiver<PendingTransaction>> {
        None
    }

    /// Sends a signed transaction; answers its hash.
    fn send_raw_transaction(
        &self,
        chain: Chain,
        transaction: Bytes,
    ) -> impl Future<Output = Result<Hash32, SourceError>> + Send {
        let _ = (chain, transaction);
        crate::not_executed()
    }

    /// Every transaction waiting in the chain's pending pool (`txpool_content`).
    fn pool_content(&self, chain: Chain) -> impl Future<Output = Result<TxpoolContent, SourceError>> + Send {
        let _ = chain;
        crate::not_executed()
    }
}
