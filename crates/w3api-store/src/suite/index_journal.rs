//! The journal of a node-mode index and its lease, on every store.
//!
//! Each test indexes chains no other test (or earlier run on a shared
//! database) named ([`chain`]), so that journals and leases are its own.

use std::sync::Arc;

use chrono::{DateTime, Utc};
use uuid::Uuid;

use w3api_types::Chain;
use w3api_types::rpc::Hash32;

use super::{concurrently, fresh_chain, fresh_id, now_millis, secs, stores, successes};
use crate::{IndexBlock, Store, StoreError};

/// A chain no other test (or earlier run on a shared database) indexed.
fn chain() -> Chain {
    fresh_chain("ij")
}

/// A chain of the caller's own whose lease a new leader took now, for a
/// minute: the chain, the leader, and now.
async fn led(store: &Arc<dyn Store>) -> (Chain, Uuid, DateTime<Utc>) {
    let (chain, leader, t) = (chain(), fresh_id(), now_millis());
    assert!(store.lead_index(chain, leader, t, secs(t, 60)).await.unwrap(), "a new chain's lease is free");
    (chain, leader, t)
}

/// The hash of block `number` on branch `branch`.
fn hash(branch: u8, number: u64) -> Hash32 {
    let mut bytes = [0u8; 32];
    bytes[0] = branch;
    bytes[24..].copy_from_slice(&number.to_be_bytes());
    Hash32::from(bytes)
}

/// Block `number` of branch `branch`, whose parent is `parent`, with a
/// payload of `size` bytes that differ from block to block.
fn block(branch: u8, number: u64, parent: Hash32, size: usize) -> IndexBlock {
    let seed = number.to_le_bytes()[0] ^ branch;
    IndexBlock {
        number,
        hash: hash(branch, number),
        parent_hash: parent,
        timestamp: 1_700_000_000 + number * 12,
        payload: (0..size).map(|i| seed.wrapping_add(i.to_le_bytes()[0]).rotate_left(3)).collect(),
    }
}

/// `count` blocks of branch `branch` numbered from `from`, each the child
/// of the one before, the first of `parent`; payloads of `size` bytes.
fn line(branch: u8, parent: Hash32, from: u64, count: u64, size: usize) -> Vec<IndexBlock> {
    let mut parent = parent;
    (from..from + count)
        .map(|number| {
            let block = block(branch, number, parent, size);
            parent = block.hash;
            block
        })
        .collect()
}

/// Every block kept of `chain`, read in pages of three.
async fn journal(store: &Arc<dyn Store>, chain: Chain) -> Vec<IndexBlock> {
    let mut read: Vec<IndexBlock> = Vec::new();
    loop {
        let from = read.last().map_or(0, |block| block.number + 1);
        let page = store.index_blocks(chain, from, 3).await.unwrap();
        assert!(page.len() <= 3);
        if page.is_empty() {
            return read;
        }
        read.extend(page);
    }
}

/// Whether `error` is [`StoreError::IndexOutOfOrder`] for `chain`, with
/// these numbers.
fn out_of_order(error: &StoreError, chain: Chain, newest: Option<u64>, got: u64) -> bool {
    matches!(error, StoreError::IndexOutOfOrder { chain: c, newest: n, got: g } if *c == chain && *n == newest && *g == got)
}

#[tokio::test]
async fn an_index_lease_is_taken_renewed_and_refused_to_another_until_it_expires() {
    for (name, store, _dir) in stores().await {
        let (chain, other_chain) = (chain(), chain());
        let (a, b) = (fresh_id(), fresh_id());
        let t = now_millis();
        assert!(store.lead_index(chain, a, t, secs(t, 30)).await.unwrap(), "{name}: free, taken");
        assert!(store.lead_index(chain, a, secs(t, 10), secs(t, 40)).await.unwrap(), "{name}: renewed");
        assert!(!store.lead_index(chain, b, secs(t, 20), secs(t, 50)).await.unwrap(), "{name}: held by a");
        assert!(!store.lead_index(chain, b, secs(t, 40), secs(t, 70)).await.unwrap(), "{name}: held until 40 s");
        assert!(store.lead_index(other_chain, b, secs(t, 20), secs(t, 50)).await.unwrap(), "{name}: one per chain");
        assert!(store.lead_index(chain, b, secs(t, 41), secs(t, 71)).await.unwrap(), "{name}: expired, taken over");
        assert!(!store.lead_index(chain, a, secs(t, 42), secs(t, 72)).await.unwrap(), "{name}: b's now");
        assert!(store.lead_index(chain, b, secs(t, 50), secs(t, 80)).await.unwrap(), "{name}: b renews");
        let blocks = line(1, hash(1, 9), 10, 2, 16);
        assert!(!store.append_index_blocks(chain, a, secs(t, 42), &blocks).await.unwrap(), "{name}: a lost it");
        assert!(store.append_index_blocks(chain, b, secs(t, 42), &blocks).await.unwrap(), "{name}: b writes");
    }
}

#[tokio::test]
async fn an_append_without_the_lease_writes_nothing() {
    for (name, store, _dir) in stores().await {
        let chain = chain();
        let (a, b) = (fresh_id(), fresh_id());
        let t = now_millis();
        let blocks = line(1, hash(1, 0), 1, 3, 64);
        assert!(!store.append_index_blocks(chain, a, t, &blocks).await.unwrap(), "{name}: no lease at all");
        assert!(!store.truncate_index(chain, a, t, 0).await.unwrap(), "{name}: no lease to truncate");
        assert!(!store.clear_index(chain, a, t).await.unwrap(), "{name}: no lease to clear");
        assert!(store.lead_index(chain, b, t, secs(t, 30)).await.unwrap(), "{name}");
        assert!(!store.append_index_blocks(chain, a, t, &blocks).await.unwrap(), "{name}: another's lease");
        assert!(store.append_index_blocks(chain, b, secs(t, 30), &blocks).await.unwrap(), "{name}: b's at expiry");
        let late = line(1, hash(1, 3), 4, 1, 8);
        assert!(!store.append_index_blocks(chain, b, secs(t, 31), &late).await.unwrap(), "{name}: b's expired");
        assert!(!store.append_index_blocks(chain, b, secs(t, 31), &[]).await.unwrap(), "{name}: expired, empty");
        assert!(store.append_index_blocks(chain, b, t, &[]).await.unwrap(), "{name}: held, nothing to append");
        assert_eq!(journal(&store, chain).await, blocks, "{name}: only the held lease's append is kept");
    }
}

#[tokio::test]
async fn appends_follow_the_newest_block_or_are_refused_whole() {
    for (name, store, _dir) in stores().await {
        let (chain, leader, t) = led(&store).await;
        let append = |blocks: Vec<IndexBlock>| {
            let store = store.clone();
            async move { store.append_index_blocks(chain, leader, t, &blocks).await }
        };
        // A journal starts wherever its first block is.
        let first = line(1, hash(1, 99), 100, 5, 32);
        assert!(append(first.clone()).await.unwrap(), "{name}");
        let second = line(1, hash(1, 104), 105, 3, 32);
        assert!(append(second.clone()).await.unwrap(), "{name}");

        let refused = [
            (line(1, hash(1, 106), 107, 2, 32), 107, "a number kept"),
            (line(1, hash(1, 108), 109, 2, 32), 109, "a gap"),
            (line(2, hash(2, 107), 108, 2, 32), 108, "another parent"),
        ];
        for (blocks, got, why) in refused {
            let error = append(blocks).await.unwrap_err();
            assert!(out_of_order(&error, chain, Some(107), got), "{name}: {why}: {error}");
        }
        let mut broken = line(1, hash(1, 107), 108, 3, 32);
        broken.remove(1);
        let error = append(broken).await.unwrap_err();
        assert!(out_of_order(&error, chain, Some(108), 110), "{name}: a gap inside the batch: {error}");
        let mut forked = line(1, hash(1, 107), 108, 3, 32);
        forked[2].parent_hash = hash(3, 109);
        let error = append(forked).await.unwrap_err();
        assert!(out_of_order(&error, chain, Some(109), 110), "{name}: a fork inside the batch: {error}");
        let message = error.to_string();
        assert!(message.contains("block 110") && message.contains(chain.as_str()), "{name}: {message}");

        let kept: Vec<IndexBlock> = first.into_iter().chain(second).collect();
        assert_eq!(journal(&store, chain).await, kept, "{name}: nothing of a refused batch is kept");
        let next = line(1, hash(1, 107), 108, 2, 32);
        assert!(append(next).await.unwrap(), "{name}: the right next block is taken");
    }
}

#[tokio::test]
async fn kept_blocks_read_back_with_their_payloads() {
    for (name, store, _dir) in stores().await {
        let unindexed = chain();
        let (chain, leader, t) = led(&store).await;
        let mut blocks = line(7, hash(7, 0), 1, 6, 0);
        for (block, size) in blocks.iter_mut().zip([0, 1, 100_000, 3_000, 0, 255]) {
            block.payload = line(7, hash(7, 0), block.number, 1, size).remove(0).payload;
        }
        assert!(store.append_index_blocks(chain, leader, t, &blocks).await.unwrap(), "{name}");

        assert_eq!(store.index_blocks(chain, 0, 100).await.unwrap(), blocks, "{name}: every one, intact");
        assert_eq!(store.index_blocks(chain, 3, 2).await.unwrap(), blocks[2..4], "{name}: from 3, two");
        assert_eq!(store.index_blocks(chain, 6, 10).await.unwrap(), blocks[5..], "{name}: the last");
        assert_eq!(store.index_blocks(chain, 7, 10).await.unwrap(), vec![], "{name}: past the newest");
        assert_eq!(store.index_blocks(chain, 1, 0).await.unwrap(), vec![], "{name}: none asked");
        assert_eq!(store.index_blocks(unindexed, 0, 10).await.unwrap(), vec![], "{name}: per chain");
        assert_eq!(journal(&store, chain).await, blocks, "{name}: read in pages");
    }
}

#[tokio::test]
async fn index_hashes_list_a_range_without_payloads() {
    for (name, store, _dir) in stores().await {
        let (chain, leader, t) = led(&store).await;
        let blocks = line(4, hash(4, 19), 20, 10, 1_000);
        assert!(store.append_index_blocks(chain, leader, t, &blocks).await.unwrap(), "{name}");
        let hashes = |from: u64, to: u64| (from..=to).map(|n| (n, hash(4, n))).collect::<Vec<_>>();
        assert_eq!(store.index_hashes(chain, 22, 25).await.unwrap(), hashes(22, 25), "{name}: inside");
        assert_eq!(store.index_hashes(chain, 0, 21).await.unwrap(), hashes(20, 21), "{name}: before the first");
        assert_eq!(store.index_hashes(chain, 28, 1_000).await.unwrap(), hashes(28, 29), "{name}: past the newest");
        assert_eq!(store.index_hashes(chain, 24, 24).await.unwrap(), hashes(24, 24), "{name}: one");
        assert_eq!(store.index_hashes(chain, 25, 24).await.unwrap(), vec![], "{name}: an empty range");
        assert_eq!(store.index_hashes(chain, 0, u64::MAX).await.unwrap(), hashes(20, 29), "{name}: all");
    }
}

#[tokio::test]
async fn a_reorg_truncates_the_journal_and_appends_the_new_branch() {
    for (name, store, _dir) in stores().await {
        let (chain, leader, t) = led(&store).await;
        let other = fresh_id();
        let old = line(1, hash(1, 0), 1, 9, 128);
        assert!(store.append_index_blocks(chain, leader, t, &old).await.unwrap(), "{name}");

        // The new branch forks after block 6: it follows no kept block yet.
        let new = line(2, hash(1, 6), 7, 5, 256);
        let error = store.append_index_blocks(chain, leader, t, &new).await.unwrap_err();
        assert!(out_of_order(&error, chain, Some(9), 7), "{name}: {error}");
        assert!(!store.truncate_index(chain, other, t, 6).await.unwrap(), "{name}: not the leader");
        assert_eq!(journal(&store, chain).await, old, "{name}: nothing forgotten");

        assert!(store.truncate_index(chain, leader, t, 6).await.unwrap(), "{name}");
        assert_eq!(journal(&store, chain).await, old[..6], "{name}: 1 to 6 kept");
        assert!(store.append_index_blocks(chain, leader, t, &new).await.unwrap(), "{name}: the new branch");
        let kept: Vec<IndexBlock> = old[..6].iter().cloned().chain(new.iter().cloned()).collect();
        assert_eq!(journal(&store, chain).await, kept, "{name}");
        let hashes: Vec<(u64, Hash32)> = kept.iter().map(|block| (block.number, block.hash)).collect();
        assert_eq!(store.index_hashes(chain, 1, 11).await.unwrap(), hashes, "{name}");

        assert!(store.truncate_index(chain, leader, t, 20).await.unwrap(), "{name}: nothing after 20");
        assert_eq!(journal(&store, chain).await, kept, "{name}");
        // Truncated before its first block, a journal is empty and starts
        // again wherever the next append does.
        assert!(store.truncate_index(chain, leader, t, 0).await.unwrap(), "{name}");
        assert_eq!(journal(&store, chain).await, vec![], "{name}");
        let restart = line(3, hash(3, 49), 50, 2, 8);
        assert!(store.append_index_blocks(chain, leader, t, &restart).await.unwrap(), "{name}");
        assert_eq!(journal(&store, chain).await, restart, "{name}");
    }
}

#[tokio::test]
async fn clearing_an_index_forgets_its_journal_and_frees_its_lease() {
    for (name, store, _dir) in stores().await {
        let (chain, kept_chain) = (chain(), chain());
        let (leader, other) = (fresh_id(), fresh_id());
        let t = now_millis();
        let blocks = line(1, hash(1, 0), 1, 4, 64);
        for chain in [chain, kept_chain] {
            assert!(store.lead_index(chain, leader, t, secs(t, 60)).await.unwrap());
            assert!(store.append_index_blocks(chain, leader, t, &blocks).await.unwrap(), "{name}");
        }
        assert!(!store.clear_index(chain, other, t).await.unwrap(), "{name}: not the leader");
        assert!(!store.clear_index(chain, leader, secs(t, 61)).await.unwrap(), "{name}: expired");
        assert_eq!(journal(&store, chain).await, blocks, "{name}: nothing forgotten");

        assert!(store.clear_index(chain, leader, t).await.unwrap(), "{name}");
        assert_eq!(journal(&store, chain).await, vec![], "{name}: the journal is gone");
        assert_eq!(store.index_hashes(chain, 0, u64::MAX).await.unwrap(), vec![], "{name}");
        assert!(!store.append_index_blocks(chain, leader, t, &blocks).await.unwrap(), "{name}: the lease too");
        assert!(store.lead_index(chain, other, secs(t, 1), secs(t, 60)).await.unwrap(), "{name}: free at once");
        let restart = line(2, hash(2, 999), 1_000, 2, 8);
        assert!(store.append_index_blocks(chain, other, secs(t, 1), &restart).await.unwrap(), "{name}");
        assert_eq!(journal(&store, chain).await, restart, "{name}");
        assert_eq!(journal(&store, kept_chain).await, blocks, "{name}: other chains untouched");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_replicas_taking_a_lease_at_once_one_gets_it() {
    for (name, store, _dir) in stores().await {
        let chain = chain();
        let t = now_millis();
        // Free, and again once expired, it is taken by one of many.
        for (at, lease) in [(t, "a free lease"), (secs(t, 31), "an expired lease")] {
            let takers = concurrently(&store, 20, |_, store| async move {
                store.lead_index(chain, fresh_id(), at, secs(at, 30)).await
            })
            .await;
            assert_eq!(successes(takers), 1, "{name}: {lease}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_concurrent_appends_of_one_height_one_is_kept() {
    for (name, store, _dir) in stores().await {
        let (chain, leader, t) = led(&store).await;
        let base = line(1, hash(1, 0), 1, 2, 32);
        assert!(store.append_index_blocks(chain, leader, t, &base).await.unwrap(), "{name}");
        // Ten writers (the leader's tasks, say) each append its own block 3
        // and 4 after block 2: one line wins, the others follow nothing.
        let writers = concurrently(&store, 10, |i, store| async move {
            let blocks = line(10 + u8::try_from(i).unwrap(), hash(1, 2), 3, 2, 2_048);
            (store.append_index_blocks(chain, leader, t, &blocks).await, blocks)
        })
        .await;
        let mut kept = Vec::new();
        for writer in writers {
            match writer {
                (Ok(true), blocks) => kept.push(blocks),
                (Err(error), _) => assert!(out_of_order(&error, chain, Some(4), 3), "{name}: {error}"),
                (Ok(false), _) => panic!("{name}: the leader lost its lease"),
            }
        }
        assert_eq!(kept.len(), 1, "{name}: one line appended");
        let expected: Vec<IndexBlock> = base.into_iter().chain(kept.remove(0)).collect();
        assert_eq!(journal(&store, chain).await, expected, "{name}");
    }
}

#[tokio::test]
async fn a_batch_of_500_blocks_appends_at_once() {
    for (name, store, _dir) in stores().await {
        let (chain, leader, t) = led(&store).await;
        let blocks = line(5, hash(5, 17_999_999), 18_000_000, 500, 4_096);
        let started = std::time::Instant::now();
        assert!(store.append_index_blocks(chain, leader, t, &blocks).await.unwrap(), "{name}");
        let took = started.elapsed();
        let next = line(5, hash(5, 18_000_499), 18_000_500, 500, 4_096);
        assert!(store.append_index_blocks(chain, leader, t, &next).await.unwrap(), "{name}");
        eprintln!("{name}: 500 blocks of 4 KiB appended in {took:?}, then 500 more");
        let mut read = store.index_blocks(chain, 0, 600).await.unwrap();
        read.extend(store.index_blocks(chain, 18_000_600, 600).await.unwrap());
        let expected: Vec<IndexBlock> = blocks.into_iter().chain(next).collect();
        assert_eq!(read.len(), expected.len(), "{name}");
        assert!(read == expected, "{name}: every block reads back intact");
        let hashes = store.index_hashes(chain, 18_000_000, 18_000_999).await.unwrap();
        assert_eq!(hashes.len(), 1_000, "{name}");
        let hashes_match = hashes.iter().zip(&expected).all(|(pair, block)| *pair == (block.number, block.hash));
        assert!(hashes_match, "{name}");
    }
}
