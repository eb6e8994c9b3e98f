//! Cursor pagination.
//!
//! A cursor is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`,
//! where the payload records where the next page starts, the page number,
//! the block the first page was read at (so later pages read the same
//! block), and a fingerprint of the query. A cursor whose signature does not
//! verify (forged or altered) or whose fingerprint differs (reused with other
//! filters) is refused. The secret is random per server.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::ApiError;

/// Page size when `limit` is absent or 0.
pub const DEFAULT_LIMIT: u64 = 100;

/// Where a walk through pages stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Fingerprint of the query the walk belongs to.
    #[serde(rename = "q")]
    fingerprint: String,
    /// Index of the first item of the next page.
    #[serde(rename = "o")]
    pub offset: usize,
    /// Number of the next page.
    #[serde(rename = "p")]
    pub page: u64,
    /// Block the walk reads.
    #[serde(rename = "b")]
    pub block: u64,
}

/// Signs and checks cursors.
#[derive(Clone)]
pub struct Cursors {
    secret: [u8; 32],
}

impl Cursors {
    /// Cursors signed with `secret`.
    pub fn new(secret: [u8; 32]) -> Cursors {
        Cursors { secret }
    }

    fn mac(&self, payload: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.secret).expect("HMAC takes a key of any length");
        mac.update(payload);
        mac
    }

    /// The cursor of a position.
    pub fn sign(&self, position: &Position) -> String {
        let payload = serde_json::to_vec(position).expect("a position serializes");
        let tag = self.mac(&payload).finalize().into_bytes();
        format!("{}.{}", URL_SAFE_NO_PAD.encode(&payload), URL_SAFE_NO_PAD.encode(tag))
    }

    /// The position a cursor records, if it is genuine and belongs to the
    /// query with `fingerprint`.
    pub fn open(&self, cursor: &str, fingerprint: &str) -> Result<Position, ApiError> {
        let invalid = |why: &str| ApiError::bad_request(vec![format!("cursor: {why}")]);
        let (payload, tag) = cursor
            .split_once('.')
            .ok_or_else(|| invalid("malformed; pass the cursor of the previous response unchanged"))?;
        let payload = URL_SAFE_NO_PAD.decode(payload).map_err(|_| invalid("malformed; it is not base64url"))?;
        let tag = URL_SAFE_NO_PAD.decode(tag).map_err(|_| invalid("malformed; it is not base64url"))?;
        self.mac(&payload)
            .verify_slice(&tag)
            .map_err(|_| invalid("signature does not match; the cursor was altered or comes from another server"))?;
        let position: Position = serde_json::from_slice(&payload).map_err(|_| invalid("malformed"))?;
        if position.fingerprint != fingerprint {
            return Err(invalid("belongs to a query with other parameters; start again without a cursor"));
        }
        Ok(position)
    }
}

/// A fingerprint of a query's `kind` and of the parameters that define its
/// result (the cursor and the page size aside): their `Debug` form, so a
/// parameter added to a query is covered without anyone remembering to.
pub fn fingerprint(kind: &str, query: &dyn std::fmt::Debug) -> String {
    use std::fmt::Write;

    /// Feeds formatted text straight into the hash, without building it.
    struct Hashing(Sha256);
    impl Write for Hashing {
        fn write_str(&mut self, text: &str) -> std::fmt::Result {
            self.0.update(text.as_bytes());
            Ok(())
        }
    }
    let mut hashing = Hashing(Sha256::new());
    write!(hashing, "{kind}\x1f{query:?}").expect("hashing cannot fail");
    URL_SAFE_NO_PAD.encode(&hashing.0.finalize()[..16])
}

/// One page of items.
pub struct Page<T> {
    /// The items of the page.
    pub items: Vec<T>,
    /// Its number, counted from the `first_page` given to [`page`].
    pub page: u64,
    /// The page size.
    pub page_size: u64,
    /// The cursor of the next page; `None` on the last.
    pub cursor: Option<String>,
    /// Items across all pages.
    pub total: usize,
}

/// Cuts the page at `position` (the first page when `None`) out of `all`;
/// the first page is numbered `first_page`.
pub fn page<T>(
    cursors: &Cursors,
    all: Vec<T>,
    (limit, first_page): (u64, u64),
    at: Option<Position>,
    fingerprint: &str,
    block: u64,
) -> Page<T> {
    let (offset, page) = at.map_or((0, first_page), |p| (p.offset, p.page));
    let total = all.len();
    let end = offset.saturating_add(limit as usize).min(total);
    let items: Vec<T> = all.into_iter().skip(offset).take(end.saturating_sub(offset)).collect();
    let cursor = (end < total)
        .then(|| cursors.sign(&Position { fingerprint: fingerprint.to_string(), offset: end, page: page + 1, block }));
    Page { items, page, page_size: limit, cursor, total }
}

/// `limit` as the spec defines it: 1 to 100, 0 or absent meaning 100.
pub fn effective_limit(limit: Option<u64>) -> u64 {
    match limit {
        None | Some(0) => DEFAULT_LIMIT,
        Some(limit) => limit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_tampering_and_reuse() {
        let cursors = Cursors::new([7; 32]);
        let position = Position { fingerprint: "q1".into(), offset: 20, page: 3, block: 99 };
        let cursor = cursors.sign(&position);
        assert_eq!(cursors.open(&cursor, "q1").unwrap(), position);
        let reused = cursors.open(&cursor, "q2").unwrap_err();
        assert!(reused.messages[0].contains("another query") || reused.messages[0].contains("other parameters"));
        let (payload, tag) = cursor.split_once('.').unwrap();
        let forged_payload = URL_SAFE_NO_PAD.encode(br#"{"q":"q1","o":0,"p":1,"b":99}"#);
        assert!(cursors.open(&format!("{forged_payload}.{tag}"), "q1").unwrap_err().messages[0].contains("altered"));
        assert!(Cursors::new([8; 32]).open(&cursor, "q1").is_err(), "another server's secret");
        assert!(cursors.open(payload, "q1").unwrap_err().messages[0].contains("malformed"));
        assert!(cursors.open("!!.!!", "q1").is_err());
    }

    // Walking every page at every size is the contract suite's
    // (`w3api-tests`, `contract::pagination`), over real answers.

    #[test]
    fn pages_are_numbered_from_the_first_page_given() {
        let cursors = Cursors::new([2; 32]);
        let first = page(&cursors, vec![1, 2, 3], (2, 0), None, "q", 5);
        assert_eq!(first.page, 0);
        let second =
            page(&cursors, vec![1, 2, 3], (2, 0), Some(cursors.open(&first.cursor.unwrap(), "q").unwrap()), "q", 5);
        assert_eq!((second.page, second.items, second.cursor), (1, vec![3], None));
    }
}
