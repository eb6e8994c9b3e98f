//! NFT indexing status, as the spec states it and as the devnet plays it.
//!
//! Production indexes a collection the first time someone asks for it; the
//! devnet has every collection at hand, so it plays that delay. A collection named in `token_addresses` for the first time starts
//! indexing; that response and those that follow report `SYNCING` until the
//! indexing delay has passed, then `SYNCED`. Collections never requested by
//! filter report `SYNCED`. A response reports `SYNCING` when any collection
//! it concerns (those it filters on, and those in its result) is indexing.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use w3api_types::{Address, Chain, SyncStatus};

/// Most collections remembered; past it, those indexed longest ago are forgotten
/// (and would index again if requested).
const CAPACITY: usize = 100_000;

/// When each requested collection started indexing.
pub struct Indexing {
    delay: Duration,
    started: Mutex<HashMap<(Chain, Address), Instant>>,
}

impl Indexing {
    /// Indexing that completes `delay` after it starts.
    pub fn new(delay: Duration) -> Indexing {
        Indexing { delay, started: Mutex::new(HashMap::new()) }
    }

    /// Starts indexing the collections not seen before.
    pub fn request(&self, chain: Chain, collections: &[Address]) {
        let now = Instant::now();
        let mut started = self.started.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        for collection in collections {
            started.entry((chain, *collection)).or_insert(now);
        }
        if started.len() > CAPACITY {
            let delay = self.delay;
            started.retain(|_, at| now.duration_since(*at) < delay);
        }
    }

    /// `SYNCING` if any of `collections` is still indexing.
    pub fn status(&self, chain: Chain, collections: impl IntoIterator<Item = Address>) -> SyncStatus {
        let now = Instant::now();
        let started = self.started.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let indexing = collections
            .into_iter()
            .any(|c| started.get(&(chain, c)).is_some_and(|at| now.duration_since(*at) < self.delay));
        if indexing { SyncStatus::Syncing } else { SyncStatus::Synced }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requested_collections_sync_after_the_delay_and_others_never_sync() {
        let indexing = Indexing::new(Duration::from_millis(50));
        let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
        assert_eq!(indexing.status(Chain::Eth, [a, b]), SyncStatus::Synced);
        indexing.request(Chain::Eth, &[a]);
        assert_eq!(indexing.status(Chain::Eth, [a]), SyncStatus::Syncing);
        assert_eq!(indexing.status(Chain::Eth, [b]), SyncStatus::Synced);
        assert_eq!(indexing.status(Chain::Base, [a]), SyncStatus::Synced, "each chain indexes on its own");
        std::thread::sleep(Duration::from_millis(60));
        indexing.request(Chain::Eth, &[a]);
        assert_eq!(indexing.status(Chain::Eth, [a]), SyncStatus::Synced, "a second request does not restart it");
    }
}
