//! The delivery queue, its attempts, replays and statistics, on every store.
//!
//! A claim takes any due delivery: on a shared database the tests here
//! take turns ([`QUEUE`]), keep to times of their own ([`queue_time`]), and
//! leave nothing pending (deleting their streams fails what is left).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, Ordering};

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use super::streams::new_stream;
use super::{CAPACITY, collection, concurrently, fresh_id, secs, shared, stores};
use crate::{
    Attempt, AttemptFilter, AttemptOutcome, AttemptRecord, Delivery, DeliveryFilter, DeliveryState, Listing, Location,
    NewDelivery, Records, Settings, Store, StreamStats, open,
};

/// No delivery's id: what a claim takes when nothing is due.
const NOTHING: [Uuid; 0] = [];

/// Held by every test that enqueues: see the module's documentation.
static QUEUE: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// A time of the caller's own, for its deliveries and claims: before 1970,
/// a second earlier for each millisecond that passes, and ten minutes
/// earlier at least than the last one handed out. A claim at it (or
/// minutes after) sees no delivery of an earlier test or an earlier run
/// on a shared database, nor any at a real time: all are due later.
fn queue_time() -> DateTime<Utc> {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let real = -Utc::now().timestamp_micros();
    let spaced = |last: i64| real.min(last - 600_000);
    let (Ok(last) | Err(last)) = LAST.fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| Some(spaced(last)));
    let millis = spaced(last);
    DateTime::from_timestamp_millis(millis).unwrap()
}

/// Runs `test` on every store in turn, holding [`QUEUE`], with the store's
/// name, a time of the test's own ([`queue_time`]) and a new active stream,
/// deleted after the test so that nothing it enqueued is left pending.
async fn on_each_store(test: impl AsyncFn(&str, &Arc<dyn Store>, DateTime<Utc>, Uuid)) {
    let _queue = QUEUE.lock().await;
    for (name, store, _dir) in stores().await {
        let (t, id) = (queue_time(), stream(&store).await);
        test(&name, &store, t, id).await;
        forget(&store, &[id]).await;
    }
}

/// A new active stream's id.
async fn stream(store: &Arc<dyn Store>) -> Uuid {
    store.create_stream(&new_stream("active")).await.unwrap().id
}

/// Deletes `streams`, which fails their pending deliveries.
async fn forget(store: &Arc<dyn Store>, streams: &[Uuid]) {
    for id in streams {
        store.delete_stream(*id).await.unwrap();
    }
}

/// An unconfirmed delivery of block `block` for `stream_id`, due `due`.
fn delivery(stream_id: Uuid, block: u64, due: DateTime<Utc>) -> NewDelivery {
    NewDelivery {
        id: fresh_id(),
        stream_id,
        chain_id: "0x1".into(),
        block_number: block,
        block_hash: format!("0x{block:064x}"),
        confirmed: false,
        payload: format!(r#"{{"block":{{"number":"{block}"}},"logs":[]}}"#),
        records: Records { logs: block % 5, txs: 2, txs_internal: 1 },
        transactions: vec![format!("0x{block:064x}"), format!("0x{:064x}", block + 1_000_000)],
        webhook_url: "https://example.com/hook".into(),
        tag: format!("tag-{stream_id}"),
        created_at: due,
    }
}

/// The deliveries of stream `id`.
fn of_stream(id: Uuid) -> DeliveryFilter {
    DeliveryFilter { stream: Some(id), ..DeliveryFilter::default() }
}

/// `new` as kept when enqueued.
fn enqueued(new: &NewDelivery, seq: i64) -> Delivery {
    Delivery {
        seq,
        id: new.id,
        stream_id: new.stream_id,
        chain_id: new.chain_id.clone(),
        block_number: new.block_number,
        block_hash: new.block_hash.clone(),
        confirmed: new.confirmed,
        payload: new.payload.clone(),
        records: new.records,
        webhook_url: new.webhook_url.clone(),
        tag: new.tag.clone(),
        created_at: new.created_at,
        state: DeliveryState::Pending,
        attempts: 0,
        due_at: new.created_at,
    }
}

/// A report by `worker` of a POST of `delivery_id` at `at`.
fn attempt(delivery_id: Uuid, worker: &str, at: DateTime<Utc>, outcome: AttemptOutcome) -> Attempt {
    let delivered = outcome == AttemptOutcome::Delivered;
    Attempt {
        delivery_id,
        worker: worker.into(),
        at,
        latency_ms: 42,
        status_code: Some(if delivered { 200 } else { 503 }),
        error: (!delivered).then(|| "HTTP 503".to_string()),
        outcome,
    }
}

/// Enqueues `deliveries`, every one new.
async fn enqueue(store: &Arc<dyn Store>, deliveries: &[NewDelivery]) {
    assert_eq!(store.enqueue(deliveries).await.unwrap(), u64::try_from(deliveries.len()).unwrap());
}

/// The ids of what `worker` claims at `now`, for thirty seconds.
async fn claim(store: &Arc<dyn Store>, worker: &str, now: DateTime<Utc>, limit: usize) -> Vec<Uuid> {
    let claimed = store.claim(worker, now, secs(now, 30), limit).await.unwrap();
    claimed.into_iter().map(|delivery| delivery.id).collect()
}

/// The delivery `id`, which is kept, with its attempts.
async fn read(store: &Arc<dyn Store>, id: Uuid) -> (Delivery, Vec<AttemptRecord>) {
    store.delivery(id).await.unwrap().expect("the delivery is kept")
}

#[tokio::test]
async fn a_delivery_is_enqueued_once_per_stream_block_and_confirmation() {
    on_each_store(async |name, store, t, id| {
        let unconfirmed = delivery(id, 1, t);
        let confirmed = NewDelivery { id: fresh_id(), confirmed: true, ..unconfirmed.clone() };
        let next = delivery(id, 2, secs(t, 1));
        let batch = [unconfirmed.clone(), confirmed.clone(), next.clone()];
        assert_eq!(store.enqueue(&batch).await.unwrap(), 3, "{name}");
        let copies: Vec<_> = batch.iter().map(|new| NewDelivery { id: fresh_id(), ..new.clone() }).collect();
        assert_eq!(store.enqueue(&copies).await.unwrap(), 0, "{name}: another replica saw the same blocks");
        assert_eq!(store.enqueue(&batch).await.unwrap(), 0, "{name}: the same batch again");
        let third = delivery(id, 3, secs(t, 2));
        let twice = [third.clone(), NewDelivery { id: fresh_id(), ..third.clone() }];
        assert_eq!(store.enqueue(&twice).await.unwrap(), 1, "{name}: a repeat within one batch");
        assert_eq!(store.enqueue(&[]).await.unwrap(), 0, "{name}");

        let (kept, attempts) = read(store, unconfirmed.id).await;
        assert_eq!(kept, enqueued(&unconfirmed, kept.seq), "{name}: pending, due when made, no attempts");
        assert!(attempts.is_empty(), "{name}");
        assert_eq!(store.delivery(copies[0].id).await.unwrap(), None, "{name}: the copy was not kept");

        let page = store.deliveries(&of_stream(id), None, 3).await.unwrap();
        let ids: Vec<Uuid> = page.items.iter().map(|delivery| delivery.id).collect();
        assert_eq!((ids, page.total), (vec![third.id, next.id, confirmed.id], 4), "{name}: newest first");
        let cut = page.items.last().unwrap().seq;
        let rest = store.deliveries(&of_stream(id), Some(cut), 3).await.unwrap();
        assert_eq!((rest.items, rest.total), (vec![kept], 4), "{name}: before the cut");
        let everyone = store.deliveries(&DeliveryFilter::default(), None, 2).await.unwrap();
        assert!(everyone.total >= 4 && everyone.items[0].seq >= page.items[0].seq, "{name}");
        if !shared(name) {
            assert_eq!((everyone.total, everyone.items[0].id), (4, third.id), "{name}: every stream's");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_claimers_never_take_one_delivery_both() {
    on_each_store(async |name, store, t, id| {
        let batch: Vec<_> = (0..200).map(|block| delivery(id, block, t + Duration::milliseconds(10))).collect();
        enqueue(store, &batch).await;
        let workers = ["north", "south"];
        let claimers = concurrently(store, workers.len(), |i, store| async move {
            let mut claimed = Vec::new();
            loop {
                let taken = claim(&store, workers[i], secs(t, 1), 7).await;
                assert!(taken.len() <= 7);
                if taken.is_empty() {
                    return claimed;
                }
                claimed.extend(taken);
            }
        })
        .await;
        let mut times_claimed: HashMap<Uuid, usize> = HashMap::new();
        let mut reports = Vec::new();
        for (claimed, worker) in claimers.into_iter().zip(workers) {
            for id in claimed {
                *times_claimed.entry(id).or_default() += 1;
                reports.push(attempt(id, worker, secs(t, 2), AttemptOutcome::Delivered));
            }
        }
        assert!(times_claimed.values().all(|&times| times == 1), "{name}: a delivery claimed twice");
        assert!(batch.iter().all(|new| times_claimed.contains_key(&new.id)), "{name}: a delivery never claimed");
        assert_eq!(times_claimed.len(), 200, "{name}");
        assert_eq!(claim(store, "west", secs(t, 2), 10).await, NOTHING, "{name}: the leases hold");
        assert_eq!(store.record_attempts(&reports).await.unwrap(), 200, "{name}: every claim held");
        assert_eq!(store.stream_stats(Some(id)).await.unwrap()[0].delivered, 200, "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_claim_takes_the_oldest_due_first_and_nothing_not_due() {
    on_each_store(async |name, store, t, id| {
        let (first, second, third) = (delivery(id, 1, t), delivery(id, 2, secs(t, 10)), delivery(id, 3, secs(t, 20)));
        enqueue(store, &[third.clone(), first.clone(), second.clone()]).await;
        let claimed = store.claim("w", secs(t, 15), secs(t, 45), 1).await.unwrap();
        assert_eq!(claimed, vec![enqueued(&first, claimed[0].seq)], "{name}: the oldest due, as kept");
        assert_eq!(claim(store, "w", secs(t, 15), 10).await, vec![second.id], "{name}: the third is not due");
        assert_eq!(claim(store, "w", secs(t, 19), 10).await, NOTHING, "{name}");
        assert_eq!(claim(store, "w", secs(t, 20), 10).await, vec![third.id], "{name}: due at now is due");
        assert_eq!(claim(store, "w", secs(t, 20), 0).await, NOTHING, "{name}: a limit of 0");
    })
    .await;
}

#[tokio::test]
async fn an_expired_lease_lets_another_worker_claim() {
    on_each_store(async |name, store, t, id| {
        let new = delivery(id, 1, t);
        enqueue(store, std::slice::from_ref(&new)).await;
        assert_eq!(claim(store, "first", t, 10).await, vec![new.id], "{name}");
        assert_eq!(claim(store, "second", secs(t, 10), 10).await, NOTHING, "{name}: leased until t+30s");
        assert_eq!(claim(store, "second", secs(t, 30), 10).await, NOTHING, "{name}: not expired at its end");
        assert_eq!(claim(store, "second", secs(t, 31), 10).await, vec![new.id], "{name}: expired");
        let late = attempt(new.id, "first", secs(t, 32), AttemptOutcome::Delivered);
        assert_eq!(store.record_attempts(&[late]).await.unwrap(), 0, "{name}: the first lost its claim");
        let (kept, attempts) = read(store, new.id).await;
        assert_eq!((kept.state, kept.attempts, attempts.len()), (DeliveryState::Pending, 0, 0), "{name}");
        let report = attempt(new.id, "second", secs(t, 33), AttemptOutcome::Delivered);
        assert_eq!(store.record_attempts(&[report]).await.unwrap(), 1, "{name}");
        let (kept, attempts) = read(store, new.id).await;
        assert_eq!((kept.state, kept.attempts, attempts.len()), (DeliveryState::Delivered, 1, 1), "{name}");
    })
    .await;
}

#[tokio::test]
async fn reported_attempts_move_their_deliveries_while_the_claim_holds() {
    on_each_store(async |name, store, t, id| {
        let batch: Vec<_> = (1..=4).map(|block| delivery(id, block, t)).collect();
        let [done, retried, given_up, unclaimed] = [0, 1, 2, 3].map(|i| batch[i].id);
        enqueue(store, &batch).await;
        assert_eq!(claim(store, "w", t, 3).await, vec![done, retried, given_up], "{name}");

        let reports = [
            attempt(done, "w", secs(t, 1), AttemptOutcome::Delivered),
            attempt(retried, "w", secs(t, 1), AttemptOutcome::RetryAt(secs(t, 60))),
            attempt(given_up, "w", secs(t, 1), AttemptOutcome::Failed),
            attempt(done, "thief", secs(t, 1), AttemptOutcome::Failed),
            attempt(unclaimed, "w", secs(t, 1), AttemptOutcome::Delivered),
        ];
        assert_eq!(store.record_attempts(&reports).await.unwrap(), 3, "{name}: the claims held");
        let state = |delivery: &Delivery| (delivery.state, delivery.attempts, delivery.due_at);
        assert_eq!(state(&read(store, done).await.0), (DeliveryState::Delivered, 1, secs(t, 1)), "{name}");
        assert_eq!(state(&read(store, retried).await.0), (DeliveryState::Pending, 1, secs(t, 60)), "{name}");
        assert_eq!(state(&read(store, given_up).await.0), (DeliveryState::Failed, 1, secs(t, 1)), "{name}");

        assert_eq!(claim(store, "w", secs(t, 59), 10).await, vec![unclaimed], "{name}: the retry is not due");
        assert_eq!(claim(store, "w", secs(t, 60), 10).await, vec![retried], "{name}: due again");
        let twice = [
            attempt(retried, "w", secs(t, 61), AttemptOutcome::Failed),
            attempt(retried, "w", secs(t, 62), AttemptOutcome::Delivered),
        ];
        assert_eq!(store.record_attempts(&twice).await.unwrap(), 1, "{name}: the first report released the claim");
        let again = attempt(done, "w", secs(t, 63), AttemptOutcome::Delivered);
        assert_eq!(store.record_attempts(&[again]).await.unwrap(), 0, "{name}: delivered, claimed by no one");

        let (kept, attempts) = read(store, retried).await;
        assert_eq!(state(&kept), (DeliveryState::Failed, 2, secs(t, 61)), "{name}");
        let first = AttemptRecord {
            seq: attempts[0].seq,
            delivery_id: retried,
            stream_id: id,
            chain_id: "0x1".into(),
            block_number: 2,
            webhook_url: "https://example.com/hook".into(),
            tag: format!("tag-{id}"),
            number: 1,
            at: secs(t, 1),
            latency_ms: 42,
            status_code: Some(503),
            error: Some("HTTP 503".into()),
            delivered: false,
        };
        let second = AttemptRecord { seq: attempts[1].seq, number: 2, at: secs(t, 61), ..first.clone() };
        assert_eq!(attempts, vec![first, second], "{name}: oldest first, numbered");
        assert!(attempts[0].seq < attempts[1].seq, "{name}");
    })
    .await;
}

#[tokio::test]
async fn a_replay_makes_a_delivery_of_its_stream_pending_again() {
    on_each_store(async |name, store, t, id| {
        let other = stream(store).await;
        let new = delivery(id, 1, t);
        enqueue(store, std::slice::from_ref(&new)).await;
        claim(store, "w", t, 1).await;
        store.record_attempts(&[attempt(new.id, "w", secs(t, 1), AttemptOutcome::Delivered)]).await.unwrap();

        assert_eq!(store.replay(other, new.id, secs(t, 100)).await.unwrap(), None, "{name}: another stream's");
        assert_eq!(store.replay(id, fresh_id(), secs(t, 100)).await.unwrap(), None, "{name}: unknown");
        let replayed = store.replay(id, new.id, secs(t, 100)).await.unwrap().unwrap();
        let expected = Delivery { attempts: 1, ..enqueued(&new, replayed.seq) };
        assert_eq!(replayed, Delivery { due_at: secs(t, 100), ..expected.clone() }, "{name}: pending, due now");
        assert_eq!(claim(store, "w", secs(t, 99), 10).await, NOTHING, "{name}: not due before");
        assert_eq!(claim(store, "claimer", secs(t, 100), 10).await, vec![new.id], "{name}");

        // A replay releases a lease, too: the worker holding it loses it.
        store.replay(id, new.id, secs(t, 101)).await.unwrap().unwrap();
        assert_eq!(claim(store, "replayer", secs(t, 101), 10).await, vec![new.id], "{name}");
        let lost = attempt(new.id, "claimer", secs(t, 102), AttemptOutcome::Delivered);
        assert_eq!(store.record_attempts(&[lost]).await.unwrap(), 0, "{name}");
        let failed = attempt(new.id, "replayer", secs(t, 102), AttemptOutcome::Failed);
        assert_eq!(store.record_attempts(&[failed]).await.unwrap(), 1, "{name}");

        let replayed = store.replay(id, new.id, secs(t, 200)).await.unwrap().unwrap();
        assert_eq!(replayed.state, DeliveryState::Pending, "{name}: a failed one, too");
        let (_, attempts) = read(store, new.id).await;
        let numbers: Vec<u32> = attempts.iter().map(|attempt| attempt.number).collect();
        assert_eq!(numbers, vec![1, 2], "{name}: counted on across the replay");
        forget(store, &[other]).await;
    })
    .await;
}

#[tokio::test]
async fn deleting_a_stream_fails_its_pending_deliveries_and_keeps_its_history() {
    on_each_store(async |name, store, t, id| {
        let other = stream(store).await;
        let mine: Vec<_> = (1..=3).map(|block| delivery(id, block, t)).collect();
        let theirs = delivery(other, 1, t);
        enqueue(store, &mine).await;
        enqueue(store, std::slice::from_ref(&theirs)).await;
        assert_eq!(claim(store, "w", t, 2).await, vec![mine[0].id, mine[1].id], "{name}");
        store.record_attempts(&[attempt(mine[0].id, "w", secs(t, 1), AttemptOutcome::Delivered)]).await.unwrap();

        assert!(store.delete_stream(id).await.unwrap().is_some(), "{name}");
        let mut states = Vec::new();
        for new in &mine {
            states.push(read(store, new.id).await.0.state);
        }
        let expected = [DeliveryState::Delivered, DeliveryState::Failed, DeliveryState::Failed];
        assert_eq!(states, expected, "{name}: the claimed and the unclaimed pending ones failed");
        let late = attempt(mine[1].id, "w", secs(t, 2), AttemptOutcome::Delivered);
        assert_eq!(store.record_attempts(&[late]).await.unwrap(), 0, "{name}: its claim went with it");
        assert_eq!(read(store, mine[0].id).await.1.len(), 1, "{name}: attempts are kept");
        assert_eq!(store.deliveries(&of_stream(id), None, 10).await.unwrap().total, 3, "{name}: deliveries are kept");
        assert_eq!(read(store, theirs.id).await.0.state, DeliveryState::Pending, "{name}: another stream's");
        assert_eq!(claim(store, "w", secs(t, 1), 10).await, vec![theirs.id], "{name}: only that is left");
        forget(store, &[other]).await;
    })
    .await;
}

#[tokio::test]
async fn statistics_count_attempts_and_what_was_delivered() {
    on_each_store(async |name, store, t, id| {
        let idle = stream(store).await;
        let carrying = |block, logs, txs, txs_internal| NewDelivery {
            records: Records { logs, txs, txs_internal },
            ..delivery(id, block, t)
        };
        let never = NewDelivery { created_at: secs(t, 1000), ..carrying(4, 9, 9, 9) };
        let batch = [carrying(1, 2, 3, 1), carrying(2, 5, 1, 0), carrying(3, 7, 7, 7), never];
        enqueue(store, &batch).await;
        claim(store, "w", t, 3).await;
        let reports = [
            attempt(batch[0].id, "w", secs(t, 1), AttemptOutcome::Delivered),
            attempt(batch[1].id, "w", secs(t, 1), AttemptOutcome::RetryAt(secs(t, 10))),
            attempt(batch[2].id, "w", secs(t, 1), AttemptOutcome::Failed),
        ];
        store.record_attempts(&reports).await.unwrap();
        assert_eq!(claim(store, "w", secs(t, 10), 1).await, vec![batch[1].id], "{name}");
        store.record_attempts(&[attempt(batch[1].id, "w", secs(t, 11), AttemptOutcome::Delivered)]).await.unwrap();

        // Delivered: the first and second (2 + 5 logs); failed attempts: the second's first and the third's.
        let expected = StreamStats { stream_id: id, delivered: 2, failed: 2, logs: 7, txs: 4, txs_internal: 1 };
        assert_eq!(store.stream_stats(Some(id)).await.unwrap(), vec![expected.clone()], "{name}");
        assert_eq!(store.stream_stats(Some(idle)).await.unwrap(), vec![], "{name}: no deliveries, no entry");
        let every = store.stream_stats(None).await.unwrap();
        assert!(every.contains(&expected), "{name}");
        assert!(every.iter().all(|stats| stats.stream_id != idle), "{name}");
        assert!(every.windows(2).all(|pair| pair[0].stream_id < pair[1].stream_id), "{name}: ordered by id");
        if !shared(name) {
            assert_eq!(every, vec![expected], "{name}");
        }
        forget(store, &[idle]).await;
    })
    .await;
}

#[tokio::test]
async fn the_next_due_time_is_the_earliest_pending_leases_aside() {
    on_each_store(async |name, store, t, id| {
        if !shared(name) {
            assert_eq!(store.next_due().await.unwrap(), None, "{name}: nothing pending");
        }
        let (later, sooner) = (delivery(id, 1, secs(t, 5)), delivery(id, 2, secs(t, 2)));
        enqueue(store, &[later.clone(), sooner.clone()]).await;
        assert_eq!(store.next_due().await.unwrap(), Some(secs(t, 2)), "{name}");
        assert_eq!(claim(store, "w", secs(t, 3), 10).await, vec![sooner.id], "{name}");
        assert_eq!(store.next_due().await.unwrap(), Some(secs(t, 2)), "{name}: claimed, still pending");
        store.record_attempts(&[attempt(sooner.id, "w", secs(t, 3), AttemptOutcome::Delivered)]).await.unwrap();
        assert_eq!(store.next_due().await.unwrap(), Some(secs(t, 5)), "{name}: delivered, no longer due");
        forget(store, &[id]).await;
        if !shared(name) {
            assert_eq!(store.next_due().await.unwrap(), None, "{name}: failed with its stream");
        }
    })
    .await;
}

#[tokio::test]
async fn the_attempt_log_lists_the_newest_first() {
    on_each_store(async |name, store, t, id| {
        let batch: Vec<_> = (1..=3).map(|block| delivery(id, block, t)).collect();
        enqueue(store, &batch).await;
        claim(store, "w", t, 3).await;
        let outcomes = [AttemptOutcome::Delivered, AttemptOutcome::Failed, AttemptOutcome::RetryAt(secs(t, 9))];
        let reports: Vec<_> =
            batch.iter().zip(outcomes).map(|(new, outcome)| attempt(new.id, "w", secs(t, 1), outcome)).collect();
        assert_eq!(store.record_attempts(&reports).await.unwrap(), 3, "{name}");

        let mut before = None;
        let mut mine = Vec::new();
        while mine.len() < 3 {
            let page = store.attempt_log(&AttemptFilter::default(), before, 2).await.unwrap();
            assert!(page.total >= 3 && page.items.len() <= 2, "{name}");
            if !shared(name) {
                assert_eq!(page.total, 3, "{name}");
            }
            assert!(page.items.iter().all(|attempt| before.is_none_or(|before| attempt.seq < before)), "{name}");
            assert!(page.items.windows(2).all(|pair| pair[0].seq > pair[1].seq), "{name}: newest first");
            before = Some(page.items.last().expect("every attempt of this test is listed").seq);
            mine.extend(page.items.into_iter().filter(|attempt| attempt.stream_id == id));
        }
        let ids: Vec<Uuid> = mine.iter().map(|attempt| attempt.delivery_id).collect();
        assert_eq!(ids, vec![batch[2].id, batch[1].id, batch[0].id], "{name}: newest first");
        let delivered: Vec<bool> = mine.iter().map(|attempt| attempt.delivered).collect();
        assert_eq!(delivered, vec![false, false, true], "{name}");
        assert_eq!(mine[1], read(store, batch[1].id).await.1[0], "{name}: as the delivery lists it");
    })
    .await;
}

#[tokio::test]
async fn a_data_directory_keeps_streams_and_deliveries_across_restarts() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::Directory(dir.path().to_owned());
    let t = super::now_millis();
    let settings = Settings { secret_key: "kept".into(), region: "us-east-1".into() };
    let watched = [collection(), collection()];
    let (created, done, pending) = {
        let store = open(&location, CAPACITY).await.unwrap();
        let created = store.create_stream(&new_stream("active")).await.unwrap();
        store.add_addresses(created.id, &watched).await.unwrap();
        store.set_settings(&settings).await.unwrap();
        let (done, pending) = (delivery(created.id, 1, t), delivery(created.id, 2, t));
        enqueue(&store, &[done.clone(), pending.clone()]).await;
        assert_eq!(claim(&store, "w", t, 10).await.len(), 2);
        store.record_attempts(&[attempt(done.id, "w", secs(t, 1), AttemptOutcome::Delivered)]).await.unwrap();
        (created, done, pending)
    };
    let reopened = open(&location, CAPACITY).await.unwrap();
    assert_eq!(reopened.stream(created.id).await.unwrap(), Some(created.clone()));
    let mut expected = watched.to_vec();
    expected.sort();
    assert_eq!(reopened.addresses(created.id, None, 10).await.unwrap().items, expected);
    assert_eq!(reopened.settings().await.unwrap(), Some(settings));
    let (kept, attempts) = read(&reopened, done.id).await;
    assert_eq!((kept.state, attempts.len()), (DeliveryState::Delivered, 1));
    assert_eq!(reopened.enqueue(&[NewDelivery { id: fresh_id(), ..done }]).await.unwrap(), 0, "enqueued once");
    assert_eq!(claim(&reopened, "other", secs(t, 1), 10).await, NOTHING, "the lease is kept too");
    assert_eq!(claim(&reopened, "other", secs(t, 31), 10).await, vec![pending.id]);
    let later = reopened.create_stream(&new_stream("active")).await.unwrap();
    assert!(later.seq > created.seq, "numbers go on");
}

#[tokio::test]
async fn history_and_the_attempt_log_are_filtered_by_what_a_delivery_carries() {
    on_each_store(async |name, store, t, id| {
        let mut batch: Vec<_> = (1..=4).map(|block| delivery(id, block, secs(t, block as i64))).collect();
        batch[3].chain_id = "0x89".into();
        enqueue(store, &batch).await;
        let ids = |page: Listing<Delivery>| -> (Vec<Uuid>, u64) {
            (page.items.iter().map(|delivery| delivery.id).collect(), page.total)
        };
        let list = |filter: DeliveryFilter| async move {
            ids(store.deliveries(&DeliveryFilter { stream: Some(id), ..filter }, None, 10).await.unwrap())
        };
        let carried =
            DeliveryFilter { transaction: Some(format!("0x{:064x}", 1_000_002)), ..DeliveryFilter::default() };
        assert_eq!(list(carried).await, (vec![batch[1].id], 1), "{name}: by a transaction it carries");
        let absent = DeliveryFilter { transaction: Some(format!("0x{:064x}", 77)), ..DeliveryFilter::default() };
        assert_eq!(list(absent).await, (vec![], 0), "{name}");
        let polygon = DeliveryFilter { chain_ids: vec!["0x89".into()], ..DeliveryFilter::default() };
        assert_eq!(list(polygon).await, (vec![batch[3].id], 1), "{name}: by chain");
        let blocks = DeliveryFilter { block_numbers: vec![1, 3, 9], ..DeliveryFilter::default() };
        assert_eq!(list(blocks).await, (vec![batch[2].id, batch[0].id], 2), "{name}: by block");
        let window = DeliveryFilter { from: Some(secs(t, 2)), to: Some(secs(t, 3)), ..DeliveryFilter::default() };
        assert_eq!(list(window).await, (vec![batch[2].id, batch[1].id], 2), "{name}: both bounds included");
        let none =
            DeliveryFilter { chain_ids: vec!["0x89".into()], block_numbers: vec![1], ..DeliveryFilter::default() };
        assert_eq!(list(none).await, (vec![], 0), "{name}: every condition holds");
        let first_three = DeliveryFilter { block_numbers: vec![1, 2, 3], ..of_stream(id) };
        let page = store.deliveries(&first_three, None, 1).await.unwrap();
        let rest = store.deliveries(&first_three, Some(page.items[0].seq), 5).await.unwrap();
        assert_eq!((ids(page).1, ids(rest)), (3, (vec![batch[1].id, batch[0].id], 3)), "{name}: in pages");

        claim(store, "w", secs(t, 4), 4).await;
        let outcomes =
            [AttemptOutcome::Delivered, AttemptOutcome::Failed, AttemptOutcome::Delivered, AttemptOutcome::Failed];
        let reports: Vec<_> = batch
            .iter()
            .zip(outcomes)
            .enumerate()
            .map(|(i, (new, outcome))| attempt(new.id, "w", secs(t, 10 + i as i64), outcome))
            .collect();
        assert_eq!(store.record_attempts(&reports).await.unwrap(), 4, "{name}");
        let log = |filter: AttemptFilter| async move {
            let filter =
                AttemptFilter { deliveries: DeliveryFilter { stream: Some(id), ..filter.deliveries }, ..filter };
            let page = store.attempt_log(&filter, None, 10).await.unwrap();
            (page.items.iter().map(|attempt| attempt.delivery_id).collect::<Vec<_>>(), page.total)
        };
        let failed = AttemptFilter { delivered: Some(false), ..AttemptFilter::default() };
        assert_eq!(log(failed).await, (vec![batch[3].id, batch[1].id], 2), "{name}: failed attempts");
        let attempted = DeliveryFilter { from: Some(secs(t, 11)), to: Some(secs(t, 12)), ..DeliveryFilter::default() };
        let attempted = AttemptFilter { deliveries: attempted, delivered: None };
        assert_eq!(log(attempted).await, (vec![batch[2].id, batch[1].id], 2), "{name}: by when attempted");
        let carried = DeliveryFilter { transaction: Some(format!("0x{:064x}", 4)), ..DeliveryFilter::default() };
        let carried = AttemptFilter { deliveries: carried, delivered: Some(false) };
        assert_eq!(log(carried).await, (vec![batch[3].id], 1), "{name}: by transaction and outcome");
    })
    .await;
}
