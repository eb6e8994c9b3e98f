use alloy_primitives::{Address, U256};
use w3api_ledger::{Asset, Erc1155Move, Holder, Place};
use w3api_source::{PagePosition, PageRequest, SourceError};
use w3api_types::ContractType;

use super::*;
use crate::testing::{A, ART, B, C as OPERATOR, COIN, ITEMS, OTHER_COIN as OTHER, Times};

/// Blocks 10 to 14, 10 s apart from 100:
/// - 10: COIN minted to A (tx 0, log 0);
/// - 11: A sends B 30 COIN (tx 1, log 2), and pays gas in native currency;
/// - 12: OTHER minted to B (tx 0, log 0); ART #7 minted to A (tx 2, log 3);
/// - 13: A sends itself 1 COIN (tx 3, log 5);
/// - 14: OPERATOR moves ITEMS #1 and #2 from A to B in a batch (tx 0, log 1).
fn chain() -> Times {
    let mut view = Times::new(10, &[100, 110, 120, 130, 140]);
    view.tokens = vec![COIN, OTHER];
    view.collections = vec![(ART, ContractType::Erc721), (ITEMS, ContractType::Erc1155)];
    let ledger = &mut view.ledger;
    let (a, b, operator) = (ledger.holder(A), ledger.holder(B), ledger.holder(OPERATOR));
    let nobody = Holder::NOBODY;
    let single = |amount| Erc1155Move::single(amount, nobody);
    ledger.move_fungible(Place::block(10), Asset::NATIVE, nobody, a, 1_000).unwrap();
    ledger.move_erc1155(Place::block(10), 1, 1, nobody, a, single(3)).unwrap();
    ledger.move_erc1155(Place::block(10), 1, 2, nobody, a, single(4)).unwrap();
    ledger.move_fungible(Place::log(10, 0, 0), Asset(1), nobody, a, 100).unwrap();
    ledger.move_fungible(Place::log(11, 1, 2), Asset(1), a, b, 30).unwrap();
    ledger.move_fungible(Place { block: 11, transaction: Some(1), log: None }, Asset::NATIVE, a, nobody, 7).unwrap();
    ledger.move_fungible(Place::log(12, 0, 0), Asset(2), nobody, b, 5).unwrap();
    ledger.move_erc721(Place::log(12, 2, 3), 0, 7, nobody, a).unwrap();
    ledger.move_fungible(Place::log(13, 3, 5), Asset(1), a, a, 1).unwrap();
    let batch = |amount| Erc1155Move { amount, operator, batch: true };
    ledger.move_erc1155(Place::log(14, 0, 1), 1, 1, a, b, batch(2)).unwrap();
    ledger.move_erc1155(Place::log(14, 0, 1), 1, 2, a, b, batch(4)).unwrap();
    view
}

fn tokens(of: TokenTransfersOf, span: Span, order: Order) -> TokenTransfers {
    TokenTransfers { of, span, at_block: None, order, page: PageRequest::first(100) }
}

fn wallet(address: Address) -> TokenTransfersOf {
    TokenTransfersOf::Wallet { address, contracts: Vec::new() }
}

/// `(block, value)` of each transfer of the page.
fn blocks_and_values(answer: &Transfers<TokenTransfer>) -> Vec<(u64, u128)> {
    answer.page.items.iter().map(|t| (t.place.block_number, t.value)).collect()
}

#[test]
fn a_wallets_erc20_transfers_are_newest_first_and_say_where_they_happened() {
    let view = chain();
    let answer = tokens(wallet(A), Span::default(), Order::Descending).answer(&view).unwrap();
    assert_eq!(answer.block, 14);
    assert_eq!(blocks_and_values(&answer), [(13, 1), (11, 30), (10, 100)], "native movements are not transfers");
    let sent = &answer.page.items[1];
    assert_eq!((sent.token, sent.from, sent.to, sent.decimals), (COIN, A, B, 6));
    assert_eq!((sent.place.transaction_index, sent.place.log_index), (1, 2));
    assert_eq!(sent.place.transaction.hash, Times::hash(11, Some(1)));
    assert_eq!((sent.place.block_hash, sent.place.block_timestamp), (Times::hash(11, None), 110));
    assert_eq!(answer.page.next, None);
    let oldest_first = tokens(wallet(A), Span::default(), Order::Ascending).answer(&view).unwrap();
    assert_eq!(blocks_and_values(&oldest_first), [(10, 100), (11, 30), (13, 1)]);
}

#[test]
fn pages_walk_every_transfer_once_in_either_order() {
    let view = chain();
    for order in [Order::Ascending, Order::Descending] {
        let mut request = tokens(TokenTransfersOf::Token(COIN), Span::default(), order);
        request.page = PageRequest::first(1);
        let mut walked = Vec::new();
        loop {
            let answer = request.clone().answer(&view).unwrap();
            assert_eq!(answer.page.items.len(), 1, "{order:?}");
            walked.extend(blocks_and_values(&answer));
            match answer.page.next {
                Some(next) => request.page.after = Some(next),
                None => break,
            }
        }
        let mut expected = vec![(10, 100), (11, 30), (13, 1)];
        if order == Order::Descending {
            expected.reverse();
        }
        assert_eq!(walked, expected, "{order:?}");
    }
    let mut bad = tokens(TokenTransfersOf::Token(COIN), Span::default(), Order::Descending);
    bad.page.after = Some(PagePosition("x".into()));
    assert!(matches!(bad.answer(&view), Err(SourceError::BadPosition)));
}

#[test]
fn a_token_lists_its_own_transfers_and_a_wallet_those_of_the_tokens_named() {
    let view = chain();
    let other = tokens(TokenTransfersOf::Token(OTHER), Span::default(), Order::Descending).answer(&view).unwrap();
    assert_eq!(blocks_and_values(&other), [(12, 5)]);
    let unknown = tokens(TokenTransfersOf::Token(ART), Span::default(), Order::Descending).answer(&view).unwrap();
    assert!(unknown.page.items.is_empty(), "a collection is no ERC20 token");
    let only = |contracts| TokenTransfersOf::Wallet { address: B, contracts };
    let named = tokens(only(vec![OTHER]), Span::default(), Order::Descending).answer(&view).unwrap();
    assert_eq!(blocks_and_values(&named), [(12, 5)]);
    let none_known = tokens(only(vec![ART]), Span::default(), Order::Descending).answer(&view).unwrap();
    assert!(none_known.page.items.is_empty(), "no token named is known: no transfer, rather than all");
    let stranger = tokens(wallet(Address::repeat_byte(0x77)), Span::default(), Order::Descending);
    assert!(stranger.answer(&view).unwrap().page.items.is_empty());
}

#[test]
fn spans_cover_blocks_by_number_or_by_date() {
    let view = chain();
    let listed = |span| {
        let answer = tokens(TokenTransfersOf::Token(COIN), span, Order::Ascending).answer(&view).unwrap();
        answer.page.items.iter().map(|t| t.place.block_number).collect::<Vec<_>>()
    };
    assert_eq!(listed(Span { from_block: Some(11), to_block: Some(12), ..Span::default() }), [11]);
    assert_eq!(listed(Span { from_date: Some(105), ..Span::default() }), [11, 13], "at or after the date");
    assert_eq!(listed(Span { from_date: Some(110), ..Span::default() }), [11, 13], "a block at the date itself");
    assert_eq!(listed(Span { to_date: Some(119), ..Span::default() }), [10, 11], "at or before the date");
    assert_eq!(listed(Span { to_date: Some(99), ..Span::default() }), Vec::<u64>::new(), "before the first block");
    assert_eq!(listed(Span { from_date: Some(141), ..Span::default() }), Vec::<u64>::new(), "after the newest");
    let both = Span { from_block: Some(13), from_date: Some(0), to_block: Some(99), to_date: Some(0) };
    assert_eq!(listed(both), [13], "a block number wins over a date; a block past the newest is the newest");
    let mut pinned = tokens(TokenTransfersOf::Token(COIN), Span::default(), Order::Descending);
    pinned.at_block = Some(12);
    assert_eq!(
        blocks_and_values(&pinned.answer(&view).unwrap()),
        [(11, 30), (10, 100)],
        "nothing past the walk's block"
    );
}

fn nfts(of: NftTransfersOf) -> NftTransfers {
    let page = PageRequest::first(100);
    NftTransfers { of, span: Span::default(), at_block: None, order: Order::Descending, include_prices: false, page }
}

#[test]
fn nft_transfers_list_each_token_of_a_batch_with_its_operator() {
    let view = chain();
    let answer = nfts(NftTransfersOf::Wallet { address: A, contracts: Vec::new() }).answer(&view).unwrap();
    let listed: Vec<_> = answer
        .page
        .items
        .iter()
        .map(|t| (t.place.block_number, t.collection.address, t.token_id, t.amount, t.operator, t.batch))
        .collect();
    assert_eq!(
        listed,
        [
            (14, ITEMS, U256::from(2), 4, Some(OPERATOR), true),
            (14, ITEMS, U256::from(1), 2, Some(OPERATOR), true),
            (12, ART, U256::from(7), 1, None, false),
        ],
        "the mints at block 10 are outside any transaction"
    );
    assert_eq!(answer.page.items[2].collection.contract_type, ContractType::Erc721);
    let art = nfts(NftTransfersOf::Collection(ART)).answer(&view).unwrap();
    assert_eq!(art.page.items.iter().map(|t| (t.from, t.to)).collect::<Vec<_>>(), [(Address::ZERO, A)]);
    let only_items = nfts(NftTransfersOf::Wallet { address: B, contracts: vec![ITEMS] }).answer(&view).unwrap();
    assert_eq!(only_items.page.items.len(), 2);
    let unknown = nfts(NftTransfersOf::Collection(COIN)).answer(&view).unwrap();
    assert!(unknown.page.items.is_empty(), "an ERC20 token is no collection");
}
