//! Cursor pagination, the one suite of it: for every page size from 1 to
//! 100 (past the number of items), following cursors through
//! `Paginated::pages()` yields every item exactly once, in the order of the
//! single page of 100, in as many pages as the size implies, numbered on
//! from the first page (0 for tokens, 1 for NFTs and collections, as
//! production's are). The checking layer validates every raw page.

use std::collections::BTreeSet;
use std::fmt::Debug;

use futures::TryStreamExt;
use w3api_rest::{Page, Paginated};
use w3api_tests::local::Session;
use w3api_types::{Address, Nft, NftCollection, TokenBalance};

use crate::contract::nft_rich_wallet;

/// Walks `request(limit)` for every limit and compares each walk's keys
/// with the one-page answer's. `request` builds the same query with the
/// given page size; `number` reads a page's number, `first` the number of
/// the first page.
async fn every_page_size<R, K>(
    session: &Session<'_>,
    request: impl Fn(i64) -> R,
    key: impl Fn(&<R::Page as Page>::Item) -> K,
    (number, first): (impl Fn(&R::Page) -> u64, u64),
) where
    R: Paginated,
    K: Ord + Debug,
{
    let single = request(100).fetch().await.unwrap();
    assert_eq!(single.next_cursor(), None, "the sample fits one page of 100");
    assert_eq!(number(&single), first);
    let expected: Vec<K> = single.into_items().iter().map(&key).collect();
    assert!(expected.len() >= 3, "too few items to page through: {expected:?}");
    assert!(expected.len() < 100, "some page size should exceed the item count: {}", expected.len());
    assert_eq!(expected.iter().collect::<BTreeSet<_>>().len(), expected.len(), "keys identify items: {expected:?}");
    for limit in 1..=100 {
        let before = session.record().checked;
        let pages: Vec<R::Page> =
            request(limit).pages().try_collect().await.unwrap_or_else(|e| panic!("limit {limit}: {e}"));
        assert_eq!(session.record().checked - before, pages.len(), "limit {limit}: one request per page");
        let numbers: Vec<u64> = pages.iter().map(&number).collect();
        let expected_pages = expected.len().div_ceil(limit as usize);
        assert_eq!(numbers, (first..).take(expected_pages).collect::<Vec<_>>(), "limit {limit}: page numbers");
        let walked: Vec<K> = pages.into_iter().flat_map(Page::into_items).map(|item| key(&item)).collect();
        assert_eq!(walked, expected, "limit {limit}: not every item exactly once in order");
    }
}

#[test]
fn wallet_tokens_of_the_showcase_wallet() {
    let session = Session::new();
    let rest = session.rest();
    let showcase = session.devnet().sample_wallets(1)[0];
    let request = |limit| rest.data().get_wallet_token_balances_price().address(showcase).limit(limit);
    session.run(every_page_size(
        &session,
        request,
        |t: &TokenBalance| t.token_address,
        (|p: &w3api_types::TokenBalancePage| p.page, 0),
    ));
    session.finish();
}

#[test]
fn wallet_nfts_of_a_wallet_with_many() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = nft_rich_wallet();
    let request = |limit| rest.data().get_wallet_nfts().address(wallet).limit(limit);
    let number = |p: &w3api_types::NftPage| p.page;
    session.run(every_page_size(&session, request, |n: &Nft| (n.token_address, n.token_id.clone()), (number, 1)));
    session.finish();
}

#[test]
fn nft_collections_of_a_wallet_with_many() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = nft_rich_wallet();
    let request = |limit| rest.data().get_wallet_nft_collections().address(wallet).limit(limit);
    let number = |p: &w3api_types::NftCollectionPage| p.page;
    session.run(every_page_size(&session, request, |c: &NftCollection| -> Address { c.token_address }, (number, 1)));
    session.finish();
}
