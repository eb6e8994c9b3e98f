//! Answers that cannot change, kept as the bytes that were sent.
//!
//! An answer that is a function of the request and of a fixed block (a
//! wallet's tokens at block N, block N, a transaction of block N) is the
//! same every time it is asked for; encoding it again is wasted work. The
//! cache is bounded by the bytes it holds; the least recently used answers
//! go first. Keys carry everything that shapes an answer, the block
//! resolved; answers that depend on time (NFT indexing status) or on a tag
//! (`latest`) are not cached.

use bytes::Bytes;
use quick_cache::Weighter;
use quick_cache::sync::Cache;

/// Weighs an answer by its size.
#[derive(Clone)]
struct BySize;

impl Weighter<String, Bytes> for BySize {
    fn weight(&self, key: &String, answer: &Bytes) -> u64 {
        (key.len() + answer.len()) as u64
    }
}

/// Encoded answers by key.
pub struct Answers {
    cache: Cache<String, Bytes, BySize>,
}

impl Answers {
    /// A cache holding at most `max_bytes` of answers.
    pub fn new(max_bytes: u64) -> Answers {
        // quick_cache sizes its table from an estimate of the number of items.
        let estimated_items = (max_bytes / 4096).max(16) as usize;
        Answers { cache: Cache::with_weighter(estimated_items, max_bytes, BySize) }
    }

    /// The answer kept under `key`.
    pub fn get(&self, key: &str) -> Option<Bytes> {
        self.cache.get(key)
    }

    /// Keeps an answer.
    pub fn insert(&self, key: String, answer: Bytes) {
        self.cache.insert(key, answer);
    }
}
