//! Answers that cannot change, kept as the bytes that were sent.
//!
//! An answer that is a function of the request and of a fixed block (a
//! wallet's tokens at block N, block N, a transaction of block N) is the
//! same every time it is asked for; encoding it again is wasted work. The
//! cache is bounded by the bytes it holds; the least recently used answers
//! go first. Keys carry everything that shapes an answer: the block
//! resolved, and the chain's revision, which moves on when blocks are
//! replaced (a revert), so that no answer outlives its block. Answers that
//! depend on time (NFT indexing status) are not cached.
//!
//! An answer is kept only the second time its key is asked for. Under
//! varied traffic (many wallets at many blocks) most keys are asked for
//! once: keeping each of them would fill the cache with answers nobody asks
//! for again, evict the ones that are, and cost an allocation, an insertion
//! and later an eviction on every request. The keys seen once are
//! remembered by hash only, in a fixed table where a newer key takes an
//! older one's slot, so a key is kept when it comes back before its slot is
//! reused.

use std::hash::BuildHasher;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use serde_json::value::RawValue;

/// The key of a REST answer: the request target exactly as sent (path and
/// query, cursor included), the block it was read at and the chain's
/// revision. Two spellings of one query are two keys, which costs a miss
/// now and then; a key built from the parsed query would cost every request
/// its formatting.
pub(crate) fn key(uri: &http::Uri, block: u64, revision: u64) -> String {
    let target = uri.path_and_query().map_or_else(|| uri.path(), http::uri::PathAndQuery::as_str);
    format!("{target}|{block}|{revision}")
}

/// An answer as kept.
#[derive(Clone, Debug)]
enum Answer {
    /// The body a REST answer sent.
    Body(Bytes),
    /// A JSON-RPC call's result, kept as the JSON value it was read as:
    /// reading it again from bytes on every hit was most of the work of
    /// answering a cached block.
    Result(Arc<RawValue>),
}

impl Answer {
    fn len(&self) -> usize {
        match self {
            Answer::Body(body) => body.len(),
            Answer::Result(result) => result.get().len(),
        }
    }
}

/// Weighs an answer by its size.
#[derive(Clone)]
struct BySize;

impl Weighter<String, Answer> for BySize {
    fn weight(&self, key: &String, answer: &Answer) -> u64 {
        (key.len() + answer.len()) as u64
    }
}

/// Size of an answer the table of keys seen once is sized for: a wallet's
/// tokens are a few kilobytes, a full block up to a hundred or more.
const TYPICAL_ANSWER: u64 = 4096;

/// Encoded answers by key.
pub(crate) struct Answers {
    /// `None` when the cache holds nothing (a size of 0).
    cache: Option<Cache<String, Answer, BySize>>,
    /// Hashes of keys asked for once, by slot (0: empty).
    seen_once: Box<[AtomicU64]>,
    hasher: foldhash::fast::RandomState,
    hits: AtomicU64,
    misses: AtomicU64,
    kept: AtomicU64,
}

impl Answers {
    /// A cache holding at most `max_bytes` of answers; 0 keeps none.
    pub(crate) fn new(max_bytes: u64) -> Answers {
        let estimated_items = (max_bytes / TYPICAL_ANSWER).max(16) as usize;
        // Four slots per answer the cache can hold: a key must come back
        // before about four times the cache's worth of other new keys.
        let slots = if max_bytes == 0 { 0 } else { (estimated_items * 4).next_power_of_two() };
        Answers {
            cache: (max_bytes > 0).then(|| Cache::with_weighter(estimated_items, max_bytes, BySize)),
            seen_once: (0..slots).map(|_| AtomicU64::new(0)).collect(),
            hasher: foldhash::fast::RandomState::default(),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            kept: AtomicU64::new(0),
        }
    }

    /// The REST answer kept under `key`.
    pub(crate) fn get(&self, key: &str) -> Option<Bytes> {
        match self.find(key)? {
            Answer::Body(body) => Some(body),
            Answer::Result(_) => None,
        }
    }

    /// The JSON-RPC result kept under `key`.
    pub(crate) fn get_result(&self, key: &str) -> Option<Arc<RawValue>> {
        match self.find(key)? {
            Answer::Result(result) => Some(result),
            Answer::Body(_) => None,
        }
    }

    fn find(&self, key: &str) -> Option<Answer> {
        let answer = self.cache.as_ref()?.get(key);
        let counter = if answer.is_some() { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
        answer
    }

    /// Offers a REST answer: kept when its key was asked for recently already.
    pub(crate) fn insert(&self, key: String, answer: Bytes) {
        self.offer(key, || Answer::Body(answer));
    }

    /// Offers a JSON-RPC result, as [`Answers::insert`] does.
    pub(crate) fn insert_result(&self, key: String, result: impl FnOnce() -> Box<RawValue>) {
        self.offer(key, || Answer::Result(Arc::from(result())));
    }

    /// Keeps the answer `answer` makes when `key` was asked for recently
    /// already (it is made only then).
    fn offer(&self, key: String, answer: impl FnOnce() -> Answer) {
        let Some(cache) = &self.cache else { return };
        // 0 marks an empty slot, so no key may hash to it.
        let hash = self.hasher.hash_one(key.as_str()).max(1);
        let slot = &self.seen_once[(hash as usize) & (self.seen_once.len() - 1)];
        if slot.swap(hash, Ordering::Relaxed) != hash {
            return;
        }
        self.kept.fetch_add(1, Ordering::Relaxed);
        cache.insert(key, answer());
    }
}

/// The counts go to the log when the server stops, for load tests to read
/// how often the cache answered.
impl Drop for Answers {
    fn drop(&mut self) {
        let weight = self.cache.as_ref().map_or(0, Cache::weight);
        tracing::info!(
            hits = self.hits.load(Ordering::Relaxed),
            misses = self.misses.load(Ordering::Relaxed),
            kept = self.kept.load(Ordering::Relaxed),
            bytes = weight,
            "answer cache"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_an_answer_asked_for_twice() {
        let answers = Answers::new(1 << 20);
        let answer = Bytes::from_static(b"{}");
        assert_eq!(answers.get("a"), None);
        answers.insert("a".into(), answer.clone());
        assert_eq!(answers.get("a"), None, "a key asked for once is not kept");
        answers.insert("a".into(), answer.clone());
        assert_eq!(answers.get("a"), Some(answer));
        assert!(answers.get_result("a").is_none(), "a REST answer is no JSON-RPC result");
    }

    #[test]
    fn keeps_a_json_rpc_result_as_its_json() {
        let answers = Answers::new(1 << 20);
        let result = || RawValue::from_string(r#"{"number":"0x6"}"#.into()).unwrap();
        answers.insert_result("b".into(), result);
        assert!(answers.get_result("b").is_none(), "a key asked for once is not kept");
        answers.insert_result("b".into(), result);
        assert_eq!(answers.get_result("b").unwrap().get(), r#"{"number":"0x6"}"#);
        assert_eq!(answers.get("b"), None, "a JSON-RPC result is no REST answer");
    }

    #[test]
    fn a_size_of_zero_keeps_nothing() {
        let answers = Answers::new(0);
        let answer = Bytes::from_static(b"{}");
        for _ in 0..3 {
            answers.insert("a".into(), answer.clone());
        }
        assert_eq!(answers.get("a"), None);
    }
}
