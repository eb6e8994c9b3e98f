//! NFT indexing status, as the spec states it and as the devnet plays it.
//!
//! Production indexes a collection the first time someone asks for it; the
//! devnet has every collection at hand, so it plays that delay. A collection
//! named in `token_addresses` for the first time starts indexing; that
//! response and those that follow report `SYNCING` until the indexing delay
//! has passed, then `SYNCED`. Collections never requested by filter report
//! `SYNCED`. A response reports `SYNCING` when any collection it concerns
//! (those it filters on, and those in its result) is indexing.
//!
//! When indexing started is kept in the [`Store`], so that replicas sharing
//! one agree on it and a restart on a data directory remembers it. Times are
//! wall-clock times, as replicas share no other clock.

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeDelta, Utc};
use w3api_store::{Store, StoreCell, StoreError};
use w3api_types::{Address, Chain, SyncStatus};

/// Challenges a private in-memory store may hold; the devnet issues none,
/// but the store is the one kind that serves both.
const PRIVATE_STORE_CAPACITY: usize = 1;

/// When each requested collection started indexing, kept in a store (which
/// reads each start once: a start never changes).
pub struct Indexing {
    delay: Duration,
    store: StoreCell,
}

impl Indexing {
    /// Indexing that completes `delay` after it starts, kept in `store`, or
    /// in a private in-memory store when `None`.
    pub fn new(delay: Duration, store: Option<Arc<dyn Store>>) -> Indexing {
        Indexing { delay, store: StoreCell::new(store, PRIVATE_STORE_CAPACITY) }
    }

    /// How long indexing takes.
    pub fn delay(&self) -> Duration {
        self.delay
    }

    /// The store, if it was given or has been opened.
    pub fn store(&self) -> Option<Arc<dyn Store>> {
        self.store.opened()
    }

    /// Starts indexing those of `collections` that never started.
    pub async fn request(&self, chain: Chain, collections: &[Address]) -> Result<(), StoreError> {
        if !collections.is_empty() {
            self.store.get().await?.start_nft_sync(chain, collections, Utc::now()).await?;
        }
        Ok(())
    }

    /// `SYNCING` if any of `collections` is still indexing.
    pub async fn status(
        &self,
        chain: Chain,
        collections: impl IntoIterator<Item = Address>,
    ) -> Result<SyncStatus, StoreError> {
        let collections: Vec<Address> = collections.into_iter().collect();
        if collections.is_empty() {
            return Ok(SyncStatus::Synced);
        }
        let now = Utc::now();
        let starts = self.store.get().await?.nft_sync_starts(chain, &collections).await?;
        // A start ahead of `now` (another replica's clock) counts as indexing.
        let delay = TimeDelta::from_std(self.delay).unwrap_or(TimeDelta::MAX);
        let indexing = starts.iter().any(|start| now - start.started_at < delay);
        Ok(if indexing { SyncStatus::Syncing } else { SyncStatus::Synced })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn requested_collections_sync_after_the_delay_and_others_never_sync() {
        let indexing = Indexing::new(Duration::from_millis(200), None);
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        assert_eq!(indexing.status(Chain::Eth, [a, b]).await.unwrap(), SyncStatus::Synced);
        indexing.request(Chain::Eth, &[a]).await.unwrap();
        assert_eq!(indexing.status(Chain::Eth, [a]).await.unwrap(), SyncStatus::Syncing);
        assert_eq!(indexing.status(Chain::Eth, [b, a]).await.unwrap(), SyncStatus::Syncing);
        assert_eq!(indexing.status(Chain::Eth, [b]).await.unwrap(), SyncStatus::Synced);
        assert_eq!(indexing.status(Chain::Base, [a]).await.unwrap(), SyncStatus::Synced, "each chain on its own");
        tokio::time::sleep(Duration::from_millis(250)).await;
        indexing.request(Chain::Eth, &[a]).await.unwrap();
        assert_eq!(
            indexing.status(Chain::Eth, [a]).await.unwrap(),
            SyncStatus::Synced,
            "a second request does not restart it"
        );
    }

    #[tokio::test]
    async fn two_devnets_on_one_store_agree() {
        let first = Indexing::new(Duration::from_millis(300), None);
        first.request(Chain::Eth, &[]).await.unwrap();
        assert!(first.store().is_none(), "nothing to record opens no store");
        first.status(Chain::Eth, [Address::ZERO]).await.unwrap();
        let shared = first.store().expect("opened to read starts");
        let second = Indexing::new(Duration::from_millis(300), Some(shared));
        let collection = Address::repeat_byte(7);
        assert_eq!(second.status(Chain::Eth, [collection]).await.unwrap(), SyncStatus::Synced);
        first.request(Chain::Eth, &[collection]).await.unwrap();
        assert_eq!(second.status(Chain::Eth, [collection]).await.unwrap(), SyncStatus::Syncing, "started by the other");
        tokio::time::sleep(Duration::from_millis(350)).await;
        second.request(Chain::Eth, &[collection]).await.unwrap();
        assert_eq!(second.status(Chain::Eth, [collection]).await.unwrap(), SyncStatus::Synced, "not restarted");
    }
}
