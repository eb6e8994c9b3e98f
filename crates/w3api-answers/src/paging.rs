//! Pages and their cursors.
//!
//! A cursor is `base64url(payload) "." base64url(HMAC-SHA256(secret, payload))`,
//! where the payload records where the next page starts (the data source's
//! own position, opaque here), the page number, the block the first page was
//! read at (so later pages read the same block), and a fingerprint of the
//! query. A cursor whose signature does not verify (forged or altered) or
//! whose fingerprint differs (reused with other filters) is refused. The
//! secret is random per server.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, KeyInit, Mac};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use w3api_source::{PagePosition, PageRequest, SourceError};
use w3api_types::Chain;
use w3api_types::params::Param;

use crate::{AnswerError, Backend};

/// Production numbers NFT and collection pages from 1: its cursors record
/// page 1 at offset 0.
pub const FIRST_NFT_PAGE: u64 = 1;

/// The page a request asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Paging {
    /// Items per page: 1 to the spec's maximum.
    pub limit: u64,
    /// The cursor of the previous page, if any.
    pub cursor: Option<String>,
}

impl Paging {
    /// A page asked for with `limit` as the spec defines it: 0 or absent
    /// is the spec's default (its maximum, should a limit come without
    /// one); `Err` says what the limit should be.
    pub fn given(limit: Option<u64>, cursor: Option<String>, bounds: &Param) -> Result<Paging, AnswerError> {
        let most = bounds.maximum().unwrap_or(u64::MAX);
        let limit = match limit {
            None | Some(0) => bounds.default_integer().unwrap_or(most),
            Some(limit) if limit <= most => limit,
            Some(limit) => return Err(AnswerError::invalid(format!("limit: {limit} is more than {most}"))),
        };
        Ok(Paging { limit, cursor })
    }
}

/// How a listing's pages are numbered and its cursors told apart.
#[derive(Clone, Copy)]
pub struct Listing {
    /// What its cursors say they list.
    pub kind: &'static str,
    /// The number of its first page.
    pub first_page: u64,
}

/// Where a listing's walk stands (the page `paging` asks for, after the
/// cursor it gives for `query`), and the block every page of the walk
/// reads: the one its first page read, or else the newest, or `requested`
/// when that is older (a block past the newest reads the newest, and the
/// answer says which).
pub async fn begin_walk<S: Backend>(
    (source, cursors): (&S, &Cursors),
    listing: Listing,
    query: &(dyn std::fmt::Debug + Sync),
    paging: &Paging,
    (chain, requested): (Chain, Option<u64>),
) -> Result<(Walk, u64), AnswerError> {
    let walk = cursors.walk(listing.kind, query, paging, listing.first_page)?;
    if let Some(block) = walk.block {
        return Ok((walk, block));
    }
    Ok((walk, block_at(source, chain, requested).await?))
}

/// The block an answer reads: the newest, or `requested` when that is
/// older (a block past the newest reads the newest, and the answer says
/// which).
pub async fn block_at<S: Backend>(source: &S, chain: Chain, requested: Option<u64>) -> Result<u64, SourceError> {
    let latest = source.latest_block(chain).await?;
    Ok(requested.map_or(latest, |requested| requested.min(latest)))
}

/// Where a walk through pages stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Position {
    /// Fingerprint of the query the walk belongs to.
    #[serde(rename = "q")]
    fingerprint: String,
    /// The data source's position of the next page.
    #[serde(rename = "a")]
    pub after: String,
    /// Number of the next page.
    #[serde(rename = "p")]
    pub page: u64,
    /// Block the walk reads.
    #[serde(rename = "b")]
    pub block: u64,
}

/// One step of a walk through a listing: the page asked for.
#[derive(Clone, Debug)]
pub struct Walk {
    kind: &'static str,
    /// The query's fingerprint, when a cursor had to be checked against it.
    fingerprint: Option<String>,
    /// The block earlier pages read; `None` on the first page.
    pub block: Option<u64>,
    /// This page's number.
    pub page: u64,
    /// What to ask the data source for.
    pub request: PageRequest,
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
    pub fn open(&self, cursor: &str, fingerprint: &str) -> Result<Position, AnswerError> {
        let invalid = |why: &str| AnswerError::invalid(format!("cursor: {why}"));
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

    /// The step a listing request asks for: the first page (numbered
    /// `first_page`) or the one its cursor names. `kind` and `query` (every
    /// parameter that shapes the listing) make the fingerprint, which is
    /// computed only when there is a cursor to check or to sign: most
    /// listings fit one page.
    pub fn walk(
        &self,
        kind: &'static str,
        query: &dyn std::fmt::Debug,
        paging: &Paging,
        first_page: u64,
    ) -> Result<Walk, AnswerError> {
        let limit = usize::try_from(paging.limit).unwrap_or(usize::MAX);
        let Some(cursor) = &paging.cursor else {
            let request = PageRequest::first(limit);
            return Ok(Walk { kind, fingerprint: None, block: None, page: first_page, request });
        };
        let fingerprint = fingerprint(kind, query);
        let position = self.open(cursor, &fingerprint)?;
        let request = PageRequest { limit, after: Some(PagePosition(position.after)) };
        Ok(Walk { kind, fingerprint: Some(fingerprint), block: Some(position.block), page: position.page, request })
    }

    /// The cursor of the page after `walk`'s, read at `block`; `None` on
    /// the last page. `query` is the one `walk` was made with.
    pub fn next(
        &self,
        walk: &Walk,
        query: &dyn std::fmt::Debug,
        block: u64,
        next: Option<PagePosition>,
    ) -> Option<String> {
        next.map(|PagePosition(after)| {
            let fingerprint = walk.fingerprint.clone().unwrap_or_else(|| fingerprint(walk.kind, query));
            self.sign(&Position { fingerprint, after, page: walk.page + 1, block })
        })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_round_trip_and_refuse_tampering_and_reuse() {
        let cursors = Cursors::new([7; 32]);
        let position = Position { fingerprint: "q1".into(), after: "x:20".into(), page: 3, block: 99 };
        let cursor = cursors.sign(&position);
        assert_eq!(cursors.open(&cursor, "q1").unwrap(), position);
        let reused = cursors.open(&cursor, "q2").unwrap_err();
        assert!(reused.to_string().contains("another query") || reused.to_string().contains("other parameters"));
        let (payload, tag) = cursor.split_once('.').unwrap();
        let forged_payload = URL_SAFE_NO_PAD.encode(br#"{"q":"q1","a":"","p":1,"b":99}"#);
        assert!(cursors.open(&format!("{forged_payload}.{tag}"), "q1").unwrap_err().to_string().contains("altered"));
        assert!(Cursors::new([8; 32]).open(&cursor, "q1").is_err(), "another server's secret");
        assert!(cursors.open(payload, "q1").unwrap_err().to_string().contains("malformed"));
        assert!(cursors.open("!!.!!", "q1").is_err());
    }

    #[test]
    fn a_walk_starts_at_the_first_page_and_follows_cursors() {
        let cursors = Cursors::new([1; 32]);
        let first = cursors.walk("k", &("q", 1), &Paging { limit: 2, cursor: None }, 1).unwrap();
        assert_eq!((first.block, first.page, first.request.clone()), (None, 1, PageRequest::first(2)));
        let cursor = cursors.next(&first, &("q", 1), 9, Some(PagePosition("after-2".into()))).unwrap();
        let second = cursors.walk("k", &("q", 1), &Paging { limit: 2, cursor: Some(cursor.clone()) }, 1).unwrap();
        assert_eq!((second.block, second.page), (Some(9), 2));
        assert_eq!(second.request.after, Some(PagePosition("after-2".into())));
        let other = cursors.walk("k", &("q", 2), &Paging { limit: 2, cursor: Some(cursor) }, 1).unwrap_err();
        assert!(other.to_string().contains("other parameters"), "{other:?}");
        assert_eq!(cursors.next(&second, &("q", 1), 9, None), None, "no cursor after the last page");
    }
}
