//! Streams, their addresses and the project's settings, on every store.

use std::sync::Arc;

use chrono::Duration;
use uuid::Uuid;

use w3api_types::Address;

use super::{collection, concurrently, fresh_id, now_millis, shared, stores};
use crate::{NewStream, Settings, Store, StoredStream};

/// Held by the tests of the project's settings: one row, which a shared
/// database shares between them too.
static SETTINGS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A stream of status `status` that no test created before.
pub(super) fn new_stream(status: &str) -> NewStream {
    let id = fresh_id();
    NewStream {
        id,
        settings: format!(r#"{{"description":"stream {id}","webhookUrl":"https://example.com/hook"}}"#),
        status: status.into(),
        status_message: format!("{status} since created"),
        at: now_millis(),
    }
}

/// `count` addresses no test used before, ascending.
fn addresses(count: usize) -> Vec<Address> {
    let mut addresses: Vec<Address> = (0..count).map(|_| collection()).collect();
    addresses.sort();
    addresses
}

/// Every address the stream `id` watches, read in pages of two.
async fn every_address(store: &Arc<dyn Store>, id: Uuid) -> Vec<Address> {
    let mut read = Vec::new();
    loop {
        let page = store.addresses(id, read.last().copied(), 2).await.unwrap();
        assert!(page.items.len() <= 2);
        if page.items.is_empty() {
            return read;
        }
        read.extend(page.items);
    }
}

#[tokio::test]
async fn a_stream_reads_back_and_lists_in_pages() {
    for (name, store, _dir) in stores().await {
        let mut created: Vec<StoredStream> = Vec::new();
        for i in 0..5 {
            let new = new_stream(if i % 2 == 1 { "paused" } else { "active" });
            let stream = store.create_stream(&new).await.unwrap();
            let expected = StoredStream {
                id: new.id,
                seq: stream.seq,
                settings: new.settings,
                status: new.status,
                status_message: new.status_message,
                created_at: new.at,
                updated_at: new.at,
            };
            assert_eq!(stream, expected, "{name}");
            assert_eq!(store.stream(new.id).await.unwrap().as_ref(), Some(&expected), "{name}");
            created.push(stream);
        }
        assert!(created.windows(2).all(|pair| pair[0].seq < pair[1].seq), "{name}: numbered in order of creation");
        assert_eq!(store.stream(fresh_id()).await.unwrap(), None, "{name}: unknown id");

        let mut after = Some(created[0].seq - 1);
        let mut listed = Vec::new();
        loop {
            let page = store.streams(None, after, 2).await.unwrap();
            assert!(page.total >= 5, "{name}: total {}", page.total);
            if !shared(&name) {
                assert_eq!(page.total, 5, "{name}: total counts every stream");
            }
            let Some(last) = page.items.last() else { break };
            assert!(page.items.len() <= 2, "{name}");
            assert!(page.items.iter().all(|stream| Some(stream.seq) > after), "{name}: only after the cut");
            assert!(page.items.windows(2).all(|pair| pair[0].seq < pair[1].seq), "{name}: ascending");
            after = Some(last.seq);
            listed.extend(page.items.into_iter().filter(|stream| created.contains(stream)));
        }
        assert_eq!(listed, created, "{name}: every stream once, oldest first");
        let first = store.streams(None, None, 1).await.unwrap();
        assert!(first.items[0].seq <= created[0].seq, "{name}: no cut, from the first");
        let paused = store.streams(Some("paused"), Some(created[0].seq - 1), 10).await.unwrap();
        let mine: Vec<_> = paused.items.iter().filter(|stream| created.contains(stream)).collect();
        assert_eq!(mine, vec![&created[1], &created[3]], "{name}: only the paused ones");
        assert!(paused.items.iter().all(|stream| stream.status == "paused"), "{name}");
        if !shared(&name) {
            assert_eq!(paused.total, 2, "{name}: total counts the paused streams");
        }
    }
}

#[tokio::test]
async fn a_stream_is_updated_paused_and_deleted() {
    for (name, store, _dir) in stores().await {
        let new = new_stream("active");
        let created = store.create_stream(&new).await.unwrap();
        let later = new.at + Duration::seconds(5);
        let updated = store.update_stream(new.id, r#"{"description":"changed"}"#, later).await.unwrap().unwrap();
        let expected =
            StoredStream { settings: r#"{"description":"changed"}"#.into(), updated_at: later, ..created.clone() };
        assert_eq!(updated, expected, "{name}");
        let latest = later + Duration::seconds(5);
        let paused = store.set_stream_status(new.id, "paused", "paused by its owner", latest).await.unwrap().unwrap();
        let expected = StoredStream {
            status: "paused".into(),
            status_message: "paused by its owner".into(),
            updated_at: latest,
            ..expected
        };
        assert_eq!(paused, expected, "{name}");
        assert_eq!(store.stream(new.id).await.unwrap(), Some(expected.clone()), "{name}");

        let unknown = fresh_id();
        assert_eq!(store.update_stream(unknown, "{}", later).await.unwrap(), None, "{name}");
        assert_eq!(store.set_stream_status(unknown, "error", "", later).await.unwrap(), None, "{name}");
        assert_eq!(store.delete_stream(unknown).await.unwrap(), None, "{name}");

        assert_eq!(store.add_addresses(new.id, &addresses(3)).await.unwrap(), 3, "{name}");
        assert_eq!(store.delete_stream(new.id).await.unwrap(), Some(expected), "{name}: returns it as it was");
        assert_eq!(store.stream(new.id).await.unwrap(), None, "{name}: gone");
        assert_eq!(store.delete_stream(new.id).await.unwrap(), None, "{name}: deleted once");
        let left = store.addresses(new.id, None, 10).await.unwrap();
        assert_eq!((left.items, left.total), (vec![], 0), "{name}: its addresses went with it");
        assert_eq!(store.add_addresses(new.id, &addresses(1)).await.unwrap(), 0, "{name}: nothing to add to");
    }
}

#[tokio::test]
async fn addresses_are_added_once_removed_and_listed_in_pages() {
    for (name, store, _dir) in stores().await {
        let id = store.create_stream(&new_stream("active")).await.unwrap().id;
        let other = store.create_stream(&new_stream("active")).await.unwrap().id;
        let watched = addresses(7);
        let mut first = watched[..5].to_vec();
        first.push(watched[0]);
        first.reverse();
        assert_eq!(store.add_addresses(id, &first).await.unwrap(), 5, "{name}: a repeat counts once");
        assert_eq!(store.add_addresses(id, &watched[3..]).await.unwrap(), 2, "{name}: two of four are new");
        assert_eq!(store.add_addresses(other, &watched[..1]).await.unwrap(), 1, "{name}: per stream");
        assert_eq!(store.add_addresses(id, &[]).await.unwrap(), 0, "{name}");
        assert_eq!(every_address(&store, id).await, watched, "{name}: ascending, every one once");

        let page = store.addresses(id, Some(watched[2]), 3).await.unwrap();
        assert_eq!((page.items, page.total), (watched[3..6].to_vec(), 7), "{name}: after a cut");

        let removed = [watched[1], watched[4], collection()];
        assert_eq!(store.remove_addresses(id, &removed).await.unwrap(), 2, "{name}: the unknown one is not counted");
        assert_eq!(store.remove_addresses(id, &removed).await.unwrap(), 0, "{name}: removed once");
        let left: Vec<Address> = watched.iter().copied().filter(|a| !removed.contains(a)).collect();
        assert_eq!(every_address(&store, id).await, left, "{name}");
        assert_eq!(store.addresses(id, None, 1).await.unwrap().total, 5, "{name}");
        assert_eq!(every_address(&store, other).await, watched[..1], "{name}: the other stream's are its own");
    }
}

#[tokio::test]
async fn many_addresses_are_added_and_removed_in_batches() {
    for (name, store, _dir) in stores().await {
        let id = store.create_stream(&new_stream("active")).await.unwrap().id;
        let many = addresses(5_000);
        assert_eq!(store.add_addresses(id, &many).await.unwrap(), 5_000, "{name}");
        let listing = store.addresses(id, Some(many[2_999]), 10_000).await.unwrap();
        assert_eq!((listing.items, listing.total), (many[3_000..].to_vec(), 5_000), "{name}");
        assert_eq!(store.remove_addresses(id, &many[..3_500]).await.unwrap(), 3_500, "{name}");
        assert_eq!(store.addresses(id, None, 1).await.unwrap().total, 1_500, "{name}");
        store.delete_stream(id).await.unwrap();
    }
}

#[tokio::test]
async fn addresses_of_an_unknown_stream_are_not_kept() {
    for (name, store, _dir) in stores().await {
        let unknown = fresh_id();
        assert_eq!(store.add_addresses(unknown, &addresses(2)).await.unwrap(), 0, "{name}");
        let listing = store.addresses(unknown, None, 10).await.unwrap();
        assert_eq!((listing.items, listing.total), (vec![], 0), "{name}: no orphans");
        assert_eq!(store.remove_addresses(unknown, &addresses(1)).await.unwrap(), 0, "{name}");
    }
}

#[tokio::test]
async fn active_streams_come_with_every_address_they_watch() {
    for (name, store, _dir) in stores().await {
        let (watching, paused, bare) = (new_stream("active"), new_stream("paused"), new_stream("active"));
        let mut streams = Vec::new();
        for new in [&watching, &paused, &bare] {
            streams.push(store.create_stream(new).await.unwrap());
        }
        let watched = addresses(3);
        store.add_addresses(watching.id, &watched).await.unwrap();
        store.add_addresses(paused.id, &addresses(2)).await.unwrap();
        let active = store.active_streams().await.unwrap();
        let mine: Vec<_> =
            active.iter().filter(|(stream, _)| [watching.id, paused.id, bare.id].contains(&stream.id)).collect();
        let expected = [(streams[0].clone(), watched), (streams[2].clone(), vec![])];
        assert_eq!(mine, expected.iter().collect::<Vec<_>>(), "{name}: active ones only, oldest first");
        assert!(active.iter().all(|(stream, _)| stream.status == "active"), "{name}");
        if !shared(&name) {
            assert_eq!(active.len(), 2, "{name}");
        }
    }
}

#[tokio::test]
async fn settings_are_initialized_once_and_then_set() {
    let _settings = SETTINGS.lock().await;
    for (name, store, _dir) in stores().await {
        let first = Settings { secret_key: format!("secret-{}", fresh_id()), region: "us-east-1".into() };
        let second = Settings { secret_key: format!("secret-{}", fresh_id()), region: "eu-central-1".into() };
        if !shared(&name) {
            assert_eq!(store.settings().await.unwrap(), None, "{name}: none at first");
            assert_eq!(store.init_settings(&first).await.unwrap(), first, "{name}: the first is kept");
        }
        let kept = store.init_settings(&first).await.unwrap();
        assert_eq!(store.init_settings(&second).await.unwrap(), kept, "{name}: a second init changes nothing");
        assert_eq!(store.settings().await.unwrap(), Some(kept), "{name}");
        store.set_settings(&second).await.unwrap();
        assert_eq!(store.settings().await.unwrap(), Some(second.clone()), "{name}: set replaces");
        assert_eq!(store.init_settings(&first).await.unwrap(), second, "{name}: init keeps what was set");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn replicas_starting_together_agree_on_one_secret() {
    let _settings = SETTINGS.lock().await;
    for (name, store, _dir) in stores().await {
        let starts = concurrently(&store, 20, |i, store| {
            let settings = Settings { secret_key: format!("secret-{i}-{}", fresh_id()), region: "us-east-1".into() };
            async move { store.init_settings(&settings).await }
        })
        .await;
        let mut kept: Vec<Settings> = starts.into_iter().map(Result::unwrap).collect();
        kept.dedup();
        assert_eq!(kept.len(), 1, "{name}: {kept:?}");
        assert_eq!(store.settings().await.unwrap(), kept.pop(), "{name}");
    }
}
