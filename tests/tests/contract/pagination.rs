//! Cursor pagination through `Paginated::items()`: for every page size from
//! 1 to 100, the walk yields every item exactly once, in the order of the
//! single page of 100, in as many pages as the size implies.

use std::collections::BTreeSet;
use std::fmt::Debug;

use futures::TryStreamExt;
use w3api_rest::{Page, Paginated};
use w3api_tests::local::Session;
use w3api_types::{Address, Nft, NftCollection, TokenBalance};

use crate::nft_rich_wallet;

/// Walks `request(limit)` for every limit and compares each walk's keys
/// with the one-page answer's. `request` builds the same query with the
/// given page size.
async fn every_page_size<R, K>(
    session: &Session,
    request: impl Fn(i64) -> R,
    key: impl Fn(&<R::Page as Page>::Item) -> K,
) where
    R: Paginated,
    <R::Page as Page>::Item: Send,
    K: Ord + Debug,
{
    let single = request(100).fetch().await.unwrap();
    assert_eq!(single.next_cursor(), None, "the sample fits one page of 100");
    let expected: Vec<K> = single.into_items().iter().map(&key).collect();
    assert!(expected.len() >= 3, "too few items to page through: {expected:?}");
    assert_eq!(expected.iter().collect::<BTreeSet<_>>().len(), expected.len(), "keys identify items: {expected:?}");
    for limit in 1..=100 {
        let before = session.record().checked;
        let walked: Vec<_> =
            request(limit).items().try_collect().await.unwrap_or_else(|e| panic!("limit {limit}: {e}"));
        let pages = session.record().checked - before;
        let walked: Vec<K> = walked.iter().map(&key).collect();
        assert_eq!(walked, expected, "limit {limit}: not every item exactly once in order");
        assert_eq!(pages, expected.len().div_ceil(limit as usize), "limit {limit}: pages fetched");
    }
}

#[test]
fn wallet_tokens_of_the_showcase_wallet() {
    let session = Session::new();
    let rest = session.rest();
    let showcase = session.devnet().sample_wallets(1)[0];
    let request = |limit| rest.data().get_wallet_token_balances_price().address(showcase).limit(limit);
    session.run(every_page_size(&session, request, |t: &TokenBalance| t.token_address));
    session.finish();
}

#[test]
fn wallet_nfts_of_a_wallet_with_many() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = nft_rich_wallet();
    let request = |limit| rest.data().get_wallet_nfts().address(wallet).limit(limit);
    session.run(every_page_size(&session, request, |n: &Nft| (n.token_address, n.token_id.clone())));
    session.finish();
}

#[test]
fn nft_collections_of_a_wallet_with_many() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = nft_rich_wallet();
    let request = |limit| rest.data().get_wallet_nft_collections().address(wallet).limit(limit);
    session.run(every_page_size(&session, request, |c: &NftCollection| -> Address { c.token_address }));
    session.finish();
}
