use alloy_primitives::{Address, U256};
use w3api_ledger::{Asset, Erc1155Move, Holder, Place};
use w3api_source::{PagePosition, PageRequest};
use w3api_types::ContractType;

use super::*;
use crate::testing::{A, B, C, COIN, ITEMS, Times};

/// Blocks 10 to 13, 10 s apart from 100:
/// - 10: A sends B a transaction (tx 0) that moves nothing of theirs;
/// - 11: tx 1 gives A and C 5 COIN each (logs 0 and 1), tx 2 gives B 3;
/// - 12: A sends B 2 COIN (tx 3, log 4) and ITEMS #1 (tx 3, log 5);
/// - 13: B sends A 1 COIN (tx 0, log 0); native value alone (no log) in tx 1.
fn chain() -> Times {
    let mut view = Times::new(10, &[100, 110, 120, 130]);
    view.tokens = vec![COIN];
    view.collections = vec![(ITEMS, ContractType::Erc1155)];
    view.ledger.record_transaction(10, 0, A, Some(B));
    let ledger = &mut view.ledger;
    let (a, b, c) = (ledger.holder(A), ledger.holder(B), ledger.holder(C));
    let coin = Asset(1);
    ledger.move_fungible(Place::block(10), Asset::NATIVE, Holder::NOBODY, b, 100).unwrap();
    ledger.move_erc1155(Place::block(10), 0, 1, Holder::NOBODY, a, Erc1155Move::single(1, a)).unwrap();
    ledger.move_fungible(Place::log(11, 1, 0), coin, Holder::NOBODY, a, 5).unwrap();
    ledger.move_fungible(Place::log(11, 1, 1), coin, Holder::NOBODY, c, 5).unwrap();
    ledger.move_fungible(Place::log(11, 2, 2), coin, Holder::NOBODY, b, 3).unwrap();
    ledger.move_fungible(Place::log(12, 3, 4), coin, a, b, 2).unwrap();
    ledger.move_erc1155(Place::log(12, 3, 5), 0, 1, a, b, Erc1155Move::single(1, a)).unwrap();
    ledger.move_fungible(Place::log(13, 0, 0), coin, b, a, 1).unwrap();
    let native = Place { block: 13, transaction: Some(1), log: None };
    ledger.move_fungible(native, Asset::NATIVE, b, a, 9).unwrap();
    view
}

fn of(address: Address, order: Order, limit: usize) -> WalletHistory {
    WalletHistory { address, span: Span::default(), at_block: None, order, page: PageRequest::first(limit) }
}

fn places(listing: &HistoryListing) -> Vec<(u64, u32)> {
    listing.page.items.iter().map(|e| (e.block, e.index)).collect()
}

#[test]
fn a_history_is_the_wallets_transactions_and_those_that_moved_its_tokens() {
    let view = chain();
    let a = of(A, Order::Descending, 10).answer(&view).unwrap();
    // Not the native value alone, which no log tells; not the allocation outside any transaction.
    assert_eq!(places(&a), [(13, 0), (12, 3), (11, 1), (10, 0)]);
    let b = of(B, Order::Ascending, 10).answer(&view).unwrap();
    assert_eq!(places(&b), [(10, 0), (11, 2), (12, 3), (13, 0)]);
    let stranger = of(Address::repeat_byte(9), Order::Descending, 10).answer(&view).unwrap();
    assert!(stranger.page.items.is_empty() && stranger.page.next.is_none());
}

#[test]
fn each_entry_carries_the_wallets_own_transfers_of_its_transaction() {
    let view = chain();
    let a = of(A, Order::Ascending, 10).answer(&view).unwrap();
    let sent = &a.page.items[3 - 1];
    assert_eq!((sent.block, sent.facts.hash), (12, Times::hash(12, Some(3))));
    assert_eq!(sent.tokens.iter().map(|t| (t.from, t.to, t.value)).collect::<Vec<_>>(), [(A, B, 2)]);
    assert_eq!(
        sent.nfts.iter().map(|n| (n.collection.address, n.token_id)).collect::<Vec<_>>(),
        [(ITEMS, U256::from(1))]
    );
    assert_eq!(sent.nfts[0].place.log_index, 5);
    // C's share of the same mint is C's, not A's.
    let minted = &a.page.items[1];
    assert_eq!(minted.tokens.iter().map(|t| (t.to, t.value)).collect::<Vec<_>>(), [(A, 5)]);
    assert!(minted.shared, "the transaction gave COIN to C too");
    let b = of(B, Order::Ascending, 10).answer(&view).unwrap();
    assert!(!b.page.items[1].shared, "B alone received in tx 2");
    let plain = &a.page.items[0];
    assert!(plain.tokens.is_empty() && plain.nfts.is_empty() && !plain.shared);
}

#[test]
fn history_pages_and_spans_work_as_every_listings_do() {
    let view = chain();
    let mut request = of(A, Order::Descending, 3);
    let first = request.clone().answer(&view).unwrap();
    assert_eq!(
        (places(&first), first.page.next.clone()),
        (vec![(13, 0), (12, 3), (11, 1)], Some(PagePosition("11:1".into())))
    );
    request.page.after = first.page.next;
    assert_eq!(places(&request.answer(&view).unwrap()), [(10, 0)]);
    let mut spanned = of(A, Order::Ascending, 10);
    spanned.span = Span { from_date: Some(105), to_block: Some(12), ..Span::default() };
    assert_eq!(places(&spanned.answer(&view).unwrap()), [(11, 1), (12, 3)]);
}

#[test]
fn value_paid_inside_a_transaction_lists_it_for_the_payee_with_what_it_was_paid() {
    let mut view = chain();
    // Tx 2 of block 11, which gave B 3 COIN, also has a contract pay C 4 wei and B 1.
    view.ledger.record_inner_transfer((11, 2), COIN, C, U256::from(4));
    view.ledger.record_inner_transfer((11, 2), COIN, B, U256::from(1));
    let c = of(C, Order::Ascending, 10).answer(&view).unwrap();
    assert_eq!(places(&c), [(11, 1), (11, 2)], "C is no party to tx 2, and no token of its moved there");
    let paid = InnerValue { from: COIN, to: C, value: U256::from(4) };
    assert_eq!((c.page.items[0].inner.as_slice(), c.page.items[1].inner.as_slice()), (&[][..], &[paid][..]));
    let b = of(B, Order::Ascending, 10).answer(&view).unwrap();
    let in_tx_2 = &b.page.items[1];
    assert_eq!((in_tx_2.block, in_tx_2.index, in_tx_2.inner.len()), (11, 2, 1), "only B's own share");
    let within =
        WalletHistory { span: Span { from_block: Some(12), ..Span::default() }, ..of(C, Order::Ascending, 10) };
    assert!(within.answer(&view).unwrap().page.items.is_empty(), "cut to the blocks asked for");
}
