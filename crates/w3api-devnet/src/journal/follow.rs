//! Following a journal that other replicas write: before a request reads
//! a chain, the chain catches up with every change committed before the
//! request arrived, so that a client that wrote through one replica reads
//! its write through any other. In the background, new changes are made as
//! they are kept, so that streams and filters see other replicas' blocks.
//!
//! Reading the journal's head is one query, shared by every request that
//! waits on it: a request takes the answer of a read that started after
//! it arrived, so a burst of requests costs a few queries, not one each.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use chrono::Utc;
use w3api_source::SourceError;
use w3api_types::Chain;

use super::ChainJournal;
use crate::Devnet;
use crate::live::LiveChain;

/// How often a replica looks for changes others kept, when nothing asks.
const FOLLOW_EVERY: Duration = Duration::from_millis(200);

/// The journal's head as read for waiting requests.
#[derive(Default)]
pub(super) struct HeadReads {
    /// Reads started, counted.
    started: AtomicU64,
    /// The last read finished: its number among those started, and the head.
    last: tokio::sync::Mutex<(u64, u64)>,
}

impl HeadReads {
    /// The head of `chain`'s journal as read after this call began.
    async fn head(&self, store: &dyn w3api_store::Store, chain: Chain) -> Result<u64, SourceError> {
        let arrived = self.started.load(Ordering::SeqCst);
        let mut last = self.last.lock().await;
        // A read numbered past `arrived` started after this call did.
        if last.0 > arrived {
            return Ok(last.1);
        }
        let number = self.started.fetch_add(1, Ordering::SeqCst) + 1;
        let head = store.chain_head(chain).await?;
        *last = (number, head);
        Ok(head)
    }
}

impl Devnet {
    /// On a store replicas share, makes the changes of `chain` committed
    /// before this call began; on a store of this process alone, nothing:
    /// every change was made here.
    pub(crate) async fn follow_journal(&self, chain: Chain, live: &Arc<LiveChain>) -> Result<(), SourceError> {
        let Some(journal) = &self.inner.journal else { return Ok(()) };
        if !journal.store.is_shared() {
            return Ok(());
        }
        let followed = journal.chain(chain);
        match followed.head.head(journal.store.as_ref(), chain).await {
            Ok(head) => self.catch_up_to(chain, live, &followed, head).await,
            // Out of reach, the database takes no write either: what this
            // replica holds is the chain as of the outage, and reads go on.
            Err(SourceError::Store { retry: true, cause }) => {
                tracing::warn!(%chain, error = %cause, "the journal's head is out of reach; answering from this replica's chain");
                Ok(())
            }
            Err(error) => Err(error),
        }
    }

    async fn catch_up_to(
        &self,
        chain: Chain,
        live: &Arc<LiveChain>,
        followed: &ChainJournal,
        head: u64,
    ) -> Result<(), SourceError> {
        if followed.applied.load(Ordering::Acquire) >= head {
            return Ok(());
        }
        let mut position = followed.position.lock().await;
        if position.applied < head {
            self.catch_up(chain, live, &mut position).await?;
        }
        Ok(())
    }

    /// Follows the journals replicas share: every chain generated here
    /// makes the changes others kept, as they are kept. Runs until dropped;
    /// returns at once on a store of this process alone.
    pub async fn follow_replicas(self) {
        let Some(journal) = &self.inner.journal else { return };
        if !journal.store.is_shared() {
            return;
        }
        let mut ticks = tokio::time::interval(FOLLOW_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            for chain in self.generated_chains() {
                let Some(live) = self.generated_live(chain) else { continue };
                if let Err(error) = self.follow_journal(chain, &live).await {
                    tracing::warn!(%chain, %error, "the chain's journal could not be followed");
                }
            }
        }
    }

    /// Whether this process makes `chain`'s live blocks for the next
    /// `every` and a bit: always on a store of its own; on a shared one,
    /// while it holds the chain's lease, so that replicas make one block
    /// per tick between them.
    pub(crate) async fn leads_live_blocks(&self, chain: Chain, every: Duration) -> bool {
        let Some(journal) = &self.inner.journal else { return true };
        if !journal.store.is_shared() {
            return true;
        }
        let now = Utc::now();
        // Three ticks: a leader that misses one keeps its lease.
        let lease = chrono::Duration::from_std(every * 3).unwrap_or(chrono::Duration::MAX);
        let until = now.checked_add_signed(lease).unwrap_or(now);
        match journal.store.lead_live_blocks(chain, journal.holder, now, until).await {
            Ok(leads) => leads,
            Err(error) => {
                tracing::warn!(%chain, %error, "the lease on making live blocks could not be taken");
                false
            }
        }
    }
}
