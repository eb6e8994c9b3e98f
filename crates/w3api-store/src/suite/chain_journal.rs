//! The journal of each devnet chain, on every store.
//!
//! Each test writes chains no other test (or earlier run on a shared
//! database) named ([`chain`]), so that journals are its own.

use std::time::Duration;

use w3api_types::Chain;

use super::{fresh_chain, stores};
use crate::{KeptChange, StoreError};

/// A chain no other test (or earlier run on a shared database) wrote.
fn chain() -> Chain {
    fresh_chain("cj")
}

fn change(seq: u64) -> KeptChange {
    KeptChange { seq, change: format!("{{\"n\":{seq}}}"), outcome: format!("done {seq}") }
}

#[tokio::test]
async fn changes_are_kept_in_order_on_their_origin_and_read_by_anyone() {
    for (name, store, _dir) in stores().await {
        let chain = chain();
        assert_eq!(store.chain_head(chain).await.unwrap(), 0, "{name}: nothing kept yet");
        let mut write = store.write_chain(chain, "origin A").await.unwrap();
        assert!(write.changes_after(0).await.unwrap().is_empty(), "{name}");
        write.append(&change(1), None).await.unwrap();
        write.append(&change(2), None).await.unwrap();
        assert_eq!(store.chain_head(chain).await.unwrap(), 0, "{name}: nothing is seen before the commit");
        write.commit().await.unwrap();

        assert_eq!(store.chain_head(chain).await.unwrap(), 2, "{name}");
        assert_eq!(store.chain_changes(chain, 0, 10).await.unwrap(), vec![change(1), change(2)], "{name}");
        assert_eq!(store.chain_changes(chain, 1, 10).await.unwrap(), vec![change(2)], "{name}");
        assert_eq!(store.chain_changes(chain, 0, 1).await.unwrap(), vec![change(1)], "{name}: a page");
        let kept = store.kept_chains().await.unwrap();
        assert!(kept.contains(&(chain, "origin A".to_owned())), "{name}: {kept:?}");

        // A writer on another origin is refused, and nothing changes.
        match store.write_chain(chain, "origin B").await {
            Err(StoreError::ChainOriginDiffers { kept, .. }) => assert_eq!(kept, "origin A", "{name}"),
            Err(other) => panic!("{name}: {other}"),
            Ok(_) => panic!("{name}: a writer on another origin"),
        }
        // A change numbered at or below the newest is refused.
        let mut write = store.write_chain(chain, "origin A").await.unwrap();
        let refused = write.append(&change(2), None).await.unwrap_err();
        assert!(matches!(refused, StoreError::ChangeOutOfOrder { newest: 2, got: 2, .. }), "{name}: {refused}");
        drop(write);
        assert_eq!(store.chain_head(chain).await.unwrap(), 2, "{name}");
    }
}

#[tokio::test]
async fn an_uncommitted_write_keeps_nothing_and_forgetting_drops_the_obsolete_changes() {
    for (name, store, _dir) in stores().await {
        let chain = chain();
        let mut write = store.write_chain(chain, "o").await.unwrap();
        for seq in 1..=4 {
            write.append(&change(seq), None).await.unwrap();
        }
        write.commit().await.unwrap();

        let mut write = store.write_chain(chain, "o").await.unwrap();
        write.append(&change(5), None).await.unwrap();
        drop(write);
        assert_eq!(store.chain_head(chain).await.unwrap(), 4, "{name}: the dropped write kept nothing");

        // A revert to the state before change 3: changes 3 and 4 go, and
        // the revert is numbered past them.
        let mut write = store.write_chain(chain, "o").await.unwrap();
        write.append(&change(5), Some(2)).await.unwrap();
        write.commit().await.unwrap();
        let seqs: Vec<u64> = store.chain_changes(chain, 0, 10).await.unwrap().iter().map(|c| c.seq).collect();
        assert_eq!(seqs, [1, 2, 5], "{name}");
        assert_eq!(store.chain_head(chain).await.unwrap(), 5, "{name}");

        // Numbers are never reused, even below a gap.
        let mut write = store.write_chain(chain, "o").await.unwrap();
        assert!(write.append(&change(4), None).await.is_err(), "{name}");
        drop(write);

        store.forget_chain(chain).await.unwrap();
        assert_eq!(store.chain_head(chain).await.unwrap(), 0, "{name}");
        assert!(!store.kept_chains().await.unwrap().iter().any(|(kept, _)| *kept == chain), "{name}");
        // Forgotten, the chain takes another origin, and its numbers start again.
        let mut write = store.write_chain(chain, "another").await.unwrap();
        assert!(write.changes_after(0).await.unwrap().is_empty(), "{name}");
        write.append(&change(1), None).await.unwrap();
        write.commit().await.unwrap();
        assert_eq!(store.chain_head(chain).await.unwrap(), 1, "{name}");
        let refused = store.write_chain(chain, "o").await.err();
        assert!(matches!(refused, Some(StoreError::ChainOriginDiffers { .. })), "{name}: {refused:?}");
    }
}

#[tokio::test]
async fn a_second_writer_waits_for_the_first_and_then_sees_its_changes() {
    for (name, store, _dir) in stores().await {
        let chain = chain();
        let mut first = store.write_chain(chain, "o").await.unwrap();
        first.append(&change(1), None).await.unwrap();
        let second = {
            let store = store.clone();
            tokio::spawn(async move {
                let mut second = store.write_chain(chain, "o").await?;
                let seen = second.changes_after(0).await?;
                second.append(&change(2), None).await?;
                second.commit().await?;
                Ok::<_, StoreError>(seen)
            })
        };
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!second.is_finished(), "{name}: the second writer waits while the first holds the journal");
        first.commit().await.unwrap();
        let seen = tokio::time::timeout(Duration::from_secs(10), second).await.unwrap().unwrap().unwrap();
        assert_eq!(seen, vec![change(1)], "{name}: the second writer catches up with the first");
        assert_eq!(store.chain_head(chain).await.unwrap(), 2, "{name}");
    }
}
