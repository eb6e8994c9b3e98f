//! One suite for every store: in memory, in a data directory, and on
//! PostgreSQL when the environment names one (see `testing::database_url`).
//! A PostgreSQL database is shared by the tests that run at once and
//! outlives each run: tests use ids no one used and look at their own
//! records only.

mod chain_journal;
mod index_journal;
mod queue;
mod streams;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::{Challenge, DATA_FILE, Location, NftSyncStart, Store, StoreError, open};
use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;
use w3api_types::{Address, Chain};

const CAPACITY: usize = 1_000;

/// The stores to run a test on, named; the directory's guard lives as long
/// as the store.
async fn stores() -> Vec<(String, Arc<dyn Store>, Option<tempfile::TempDir>)> {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut stores = vec![
        ("memory".to_string(), open(&Location::Memory, CAPACITY).await.expect("memory store"), None),
        (
            "directory".to_string(),
            open(&Location::Directory(dir.path().to_owned()), CAPACITY).await.expect("directory store"),
            Some(dir),
        ),
    ];
    if let Some(url) = crate::testing::database_url("the PostgreSQL store") {
        let store = open(&Location::Postgres(url), CAPACITY).await.expect("PostgreSQL store");
        stores.push(("postgres".to_string(), store, None));
    }
    stores
}

/// A collection address no other test (or earlier run on a shared
/// database) used.
fn collection() -> Address {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let run = Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let mut bytes = [0u8; 20];
    bytes[..8].copy_from_slice(&run.to_be_bytes());
    bytes[12..].copy_from_slice(&n.to_be_bytes());
    Address::from(bytes)
}

/// Whether the store named `name` is a database other tests and earlier
/// runs share, rather than one this test opened empty.
fn shared(name: &str) -> bool {
    name == "postgres"
}

/// An id no other test (or earlier run on a shared database) used.
fn fresh_id() -> Uuid {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let run = u64::try_from(Utc::now().timestamp_nanos_opt().unwrap_or_default()).unwrap_or_default();
    Uuid::from_u64_pair(run, u64::from(std::process::id()) << 32 | NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Now, in the whole milliseconds a store keeps.
fn now_millis() -> DateTime<Utc> {
    DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).unwrap()
}

/// `seconds` after `at`.
fn secs(at: DateTime<Utc>, seconds: i64) -> DateTime<Utc> {
    at + Duration::seconds(seconds)
}

/// A chain named with `prefix` that no other test (or earlier run on a
/// shared database) named, so that what a store keeps of it is the test's.
fn fresh_chain(prefix: &str) -> Chain {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let run = Utc::now().timestamp_nanos_opt().unwrap_or_default();
    let name = format!("{prefix}{run:x}n{}", NEXT.fetch_add(1, Ordering::Relaxed));
    let chain: Chain = name.parse().unwrap();
    assert!(matches!(chain, Chain::Other(_)), "{name} is no chain of the table");
    chain
}

/// What each of `count` tasks running at once returned, in order: the
/// `i`th runs `task(i, store)`, as replicas sharing a database would.
async fn concurrently<T, F>(store: &Arc<dyn Store>, count: usize, task: impl Fn(usize, Arc<dyn Store>) -> F) -> Vec<T>
where
    T: Send + 'static,
    F: Future<Output = T> + Send + 'static,
{
    let tasks: Vec<_> = (0..count).map(|i| tokio::spawn(task(i, store.clone()))).collect();
    let mut returned = Vec::with_capacity(count);
    for task in tasks {
        returned.push(task.await.unwrap());
    }
    returned
}

/// How many of `answers` are `Ok(true)`; an error fails the test.
fn successes(answers: Vec<Result<bool, StoreError>>) -> usize {
    answers.into_iter().map(|answer| usize::from(answer.unwrap())).sum()
}

/// A challenge with a nonce no other test (or earlier run on a shared
/// database) used.
fn challenge(expires_at: DateTime<Utc>) -> Challenge {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let run = Utc::now().timestamp_nanos_opt().unwrap_or_default();
    Challenge {
        nonce: format!("n{run:x}x{n}"),
        id: format!("id{n}"),
        message: format!("sign this\nNonce: {n}\nwith a second line"),
        public_key: [u8::try_from(n % 256).unwrap_or(0); 32],
        profile_id: format!("0xprofile{n}"),
        expires_at: DateTime::from_timestamp_millis(expires_at.timestamp_millis()).unwrap(),
        verified_at: None,
    }
}

#[tokio::test]
async fn a_challenge_reads_back_as_it_was_written() {
    for (name, store, _dir) in stores().await {
        let issued = challenge(Utc::now() + Duration::seconds(60));
        store.insert_challenge(&issued).await.unwrap();
        assert_eq!(store.challenge(&issued.nonce).await.unwrap().as_ref(), Some(&issued), "{name}");
        assert_eq!(store.challenge("never-issued").await.unwrap(), None, "{name}");
    }
}

#[tokio::test]
async fn a_nonce_is_issued_once() {
    for (name, store, _dir) in stores().await {
        let issued = challenge(Utc::now() + Duration::seconds(60));
        store.insert_challenge(&issued).await.unwrap();
        let again = Challenge { id: "other".into(), ..issued.clone() };
        let error = store.insert_challenge(&again).await.unwrap_err();
        assert!(matches!(&error, StoreError::DuplicateNonce(n) if *n == issued.nonce), "{name}: {error}");
        assert_eq!(store.challenge(&issued.nonce).await.unwrap().unwrap().id, issued.id, "{name}: first one kept");
    }
}

#[tokio::test]
async fn a_challenge_is_verified_once() {
    for (name, store, _dir) in stores().await {
        let issued = challenge(Utc::now() + Duration::seconds(60));
        store.insert_challenge(&issued).await.unwrap();
        let at = DateTime::from_timestamp_millis(Utc::now().timestamp_millis()).unwrap();
        assert!(store.mark_verified(&issued.nonce, at).await.unwrap(), "{name}: first verify");
        assert!(!store.mark_verified(&issued.nonce, at + Duration::seconds(1)).await.unwrap(), "{name}: replay");
        assert_eq!(store.challenge(&issued.nonce).await.unwrap().unwrap().verified_at, Some(at), "{name}");
        assert!(!store.mark_verified("never-issued", at).await.unwrap(), "{name}: unknown nonce");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn of_fifty_concurrent_verifies_exactly_one_succeeds() {
    for (name, store, _dir) in stores().await {
        let issued = challenge(Utc::now() + Duration::seconds(60));
        store.insert_challenge(&issued).await.unwrap();
        let verifies = concurrently(&store, 50, |_, store| {
            let nonce = issued.nonce.clone();
            async move { store.mark_verified(&nonce, Utc::now()).await }
        })
        .await;
        assert_eq!(successes(verifies), 1, "{name}");
    }
}

#[tokio::test]
async fn sweeping_removes_expired_challenges_only() {
    for (name, store, _dir) in stores().await {
        let now = Utc::now();
        let expired = challenge(now - Duration::seconds(1));
        let live = challenge(now + Duration::seconds(60));
        store.insert_challenge(&expired).await.unwrap();
        store.insert_challenge(&live).await.unwrap();
        assert!(store.sweep_expired(now).await.unwrap() >= 1, "{name}");
        assert_eq!(store.challenge(&expired.nonce).await.unwrap(), None, "{name}: expired one swept");
        assert!(store.challenge(&live.nonce).await.unwrap().is_some(), "{name}: live one kept");
    }
}

#[tokio::test]
async fn an_embedded_store_is_bounded_and_makes_room_from_expired_challenges() {
    let dir = tempfile::tempdir().unwrap();
    for location in [Location::Memory, Location::Directory(dir.path().to_owned())] {
        let store = open(&location, 2).await.unwrap();
        let now = Utc::now();
        store.insert_challenge(&challenge(now + Duration::milliseconds(300))).await.unwrap();
        store.insert_challenge(&challenge(now + Duration::seconds(60))).await.unwrap();
        let error = store.insert_challenge(&challenge(now + Duration::seconds(60))).await.unwrap_err();
        assert!(matches!(error, StoreError::Full(2)), "{location:?}: {error}");
        tokio::time::sleep(std::time::Duration::from_millis(400)).await;
        store.insert_challenge(&challenge(now + Duration::seconds(60))).await.expect("the expired one made room");
    }
}

#[tokio::test]
async fn a_data_directory_keeps_verified_challenges_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Directory(dir.path().to_owned());
    let issued = challenge(Utc::now() + Duration::seconds(60));
    {
        let store = open(&location, CAPACITY).await.unwrap();
        store.insert_challenge(&issued).await.unwrap();
        assert!(store.mark_verified(&issued.nonce, Utc::now()).await.unwrap());
    }
    let reopened = open(&location, CAPACITY).await.unwrap();
    assert!(reopened.challenge(&issued.nonce).await.unwrap().unwrap().verified_at.is_some());
    assert!(!reopened.mark_verified(&issued.nonce, Utc::now()).await.unwrap(), "a replay after the restart");
    assert!(reopened.describe().contains(DATA_FILE), "{}", reopened.describe());
}

#[tokio::test]
async fn an_unreachable_or_malformed_database_is_an_error_at_open() {
    // Port 1 on loopback: nothing listens there.
    let error = open(&Location::Postgres("postgres://w3api@127.0.0.1:1/w3api".into()), 1).await.err().unwrap();
    assert!(matches!(error, StoreError::Open { .. }) && error.to_string().contains("127.0.0.1:1"), "{error}");
    let error = open(&Location::Postgres("mysql://nowhere".into()), 1).await.err().unwrap();
    assert!(error.to_string().contains("PostgreSQL URL"), "{error}");
}

#[tokio::test]
async fn an_nft_sync_keeps_its_first_start() {
    for (name, store, _dir) in stores().await {
        let (first, second, never) = (collection(), collection(), collection());
        let t0 = now_millis();
        let t1 = t0 + Duration::seconds(5);
        let start = |collection, started_at| NftSyncStart { collection, started_at };
        assert_eq!(store.start_nft_sync(Chain::Eth, &[first], t0).await.unwrap(), vec![start(first, t0)], "{name}");
        let mut starts = store.start_nft_sync(Chain::Eth, &[first, second], t1).await.unwrap();
        starts.sort();
        let mut expected = vec![start(first, t0), start(second, t1)];
        expected.sort();
        assert_eq!(starts, expected, "{name}: a second start keeps the first time");
        let mut read = store.nft_sync_starts(Chain::Eth, &[first, second, never]).await.unwrap();
        read.sort();
        assert_eq!(read, expected, "{name}: a collection never started is absent");
        assert_eq!(store.nft_sync_starts(Chain::Base, &[first]).await.unwrap(), vec![], "{name}: per chain");
        assert_eq!(store.nft_sync_starts(Chain::Eth, &[]).await.unwrap(), vec![], "{name}: nothing asked");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_starts_of_one_collection_agree_on_one_time() {
    for (name, store, _dir) in stores().await {
        let contested = collection();
        let base = now_millis();
        let starts = concurrently(&store, 20, |i, store| async move {
            let at = base + Duration::milliseconds(i64::try_from(i).unwrap());
            store.start_nft_sync(Chain::Polygon, &[contested], at).await
        })
        .await;
        let mut seen: Vec<_> = starts.into_iter().flat_map(Result::unwrap).collect();
        seen.dedup();
        assert_eq!(seen.len(), 1, "{name}: every caller reads the one kept start: {seen:?}");
    }
}

#[tokio::test]
async fn a_data_directory_keeps_nft_sync_starts_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Directory(dir.path().to_owned());
    let (started, never) = (collection(), collection());
    let at = now_millis();
    {
        let store = open(&location, CAPACITY).await.unwrap();
        store.start_nft_sync(Chain::Eth, &[started], at).await.unwrap();
    }
    let reopened = open(&location, CAPACITY).await.unwrap();
    let expected = vec![NftSyncStart { collection: started, started_at: at }];
    assert_eq!(reopened.nft_sync_starts(Chain::Eth, &[started, never]).await.unwrap(), expected);
    let later = at + Duration::seconds(9);
    assert_eq!(reopened.start_nft_sync(Chain::Eth, &[started], later).await.unwrap(), expected, "not started again");
}

#[tokio::test]
async fn a_data_directory_serves_one_process_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Directory(dir.path().to_owned());
    let first = open(&location, CAPACITY).await.unwrap();
    let error = open(&location, CAPACITY).await.err().expect("a second opener is refused");
    assert!(matches!(&error, StoreError::InUse(path) if path == dir.path()), "{error}");
    assert!(error.to_string().contains("--database"), "says what to do instead: {error}");
    drop(first);
    open(&location, CAPACITY).await.expect("free again once the first is gone");
}

#[tokio::test]
async fn a_database_migrated_by_a_newer_release_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Directory(dir.path().to_owned());
    drop(open(&location, CAPACITY).await.unwrap());
    let file = dir.path().join(DATA_FILE);
    let pool = sqlx::SqlitePool::connect(&format!("sqlite://{}", file.display())).await.unwrap();
    sqlx::query(
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (9999, 'from a newer release', TRUE, x'00', 0)",
    )
    .execute(&pool)
    .await
    .unwrap();
    pool.close().await;
    let store = open(&location, CAPACITY).await.expect("an older binary opens a newer schema");
    let issued = challenge(Utc::now() + Duration::seconds(60));
    store.insert_challenge(&issued).await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operations_abandoned_midway_lose_nothing() {
    for (name, store, _dir) in stores().await {
        let kept = challenge(Utc::now() + Duration::seconds(60));
        store.insert_challenge(&kept).await.unwrap();
        // As a server does when a client hangs up: the request's future is
        // dropped wherever it was, mid-query included.
        for i in 0..200u64 {
            let abandoned = challenge(Utc::now() + Duration::seconds(60));
            let wait = std::time::Duration::from_micros(i % 50);
            let _ = tokio::time::timeout(wait, store.insert_challenge(&abandoned)).await;
            let _ = tokio::time::timeout(wait, store.nft_sync_starts(Chain::Eth, &[collection()])).await;
        }
        let read = store.challenge(&kept.nonce).await.unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(read.as_ref(), Some(&kept), "{name}");
    }
}
