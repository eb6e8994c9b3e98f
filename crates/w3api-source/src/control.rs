//! Changing a source's chains, as a test asks: the cheat methods of
//! development nodes (`evm_mine`, `evm_snapshot`, `anvil_setBalance`…).
//!
//! Every change is made of blocks, so a source that changes a chain keeps
//! every answer coherent with every other. A source whose chains are not its
//! own (a real node's) keeps the default of each method: a refusal.

use std::future::{Future, ready};

use w3api_types::{Address, Chain, U256};

use crate::SourceError;

/// Changes to a source's chains. Every method has a default that refuses,
/// naming what was asked.
pub trait ChainControl: Send + Sync + 'static {
    /// Mines `blocks` blocks (each `interval` seconds after the one
    /// before, when given), without transactions unless the source makes
    /// live activity; returns the newest block's number.
    fn mine(
        &self,
        chain: Chain,
        blocks: u64,
        interval: Option<u64>,
    ) -> impl Future<Output = Result<u64, SourceError>> + Send {
        let _ = (blocks, interval);
        ready(Err(refused(chain, "mine blocks")))
    }

    /// Keeps the chain as it is now; returns the snapshot's id.
    fn snapshot(&self, chain: Chain) -> impl Future<Output = Result<u64, SourceError>> + Send {
        ready(Err(refused(chain, "take snapshots")))
    }

    /// Puts the chain back as snapshot `id` found it, using up that
    /// snapshot and every later one; `false` when there is no such snapshot.
    fn revert(&self, chain: Chain, id: u64) -> impl Future<Output = Result<bool, SourceError>> + Send {
        let _ = id;
        ready(Err(refused(chain, "revert to snapshots")))
    }

    /// Starts the chain over as it first was, forgetting every snapshot.
    fn reset(&self, chain: Chain) -> impl Future<Output = Result<(), SourceError>> + Send {
        ready(Err(refused(chain, "reset")))
    }

    /// Makes the next block come `seconds` later than it would; returns the
    /// seconds added so far, in all, for the next block.
    fn increase_time(&self, chain: Chain, seconds: u64) -> impl Future<Output = Result<u64, SourceError>> + Send {
        let _ = seconds;
        ready(Err(refused(chain, "move time on")))
    }

    /// Sets the next block's timestamp, which must come after the newest block's.
    fn set_next_block_timestamp(
        &self,
        chain: Chain,
        timestamp: u64,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = timestamp;
        ready(Err(refused(chain, "set block timestamps")))
    }

    /// Gives `address` a balance of `balance` wei of the native currency,
    /// by a transaction mined at once.
    fn set_balance(
        &self,
        chain: Chain,
        address: Address,
        balance: U256,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, balance);
        ready(Err(refused(chain, "set balances")))
    }
}

fn refused(chain: Chain, what: &str) -> SourceError {
    SourceError::NoChanges(format!("this data source cannot {what} on chain {chain}: its chains are not its own"))
}
