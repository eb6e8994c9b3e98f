//! NFT prices follow from the marketplace's transactions: every `last_sale`
//! that wallet NFTs report with `include_prices=true` names a transaction
//! (`eth_getTransactionByHash`) in the block whose time it states, sent by the
//! buyer, calling the marketplace's `buy` for that token from that seller at
//! that price, paying it (as the call's value, or by an ERC20 `Transfer` log
//! from buyer to seller) and moving the token (an ERC721 `Transfer` log); it
//! is the last such call for the token; and its USD figures are the price
//! times `eth_getTokenPrice` of the payment token at the sale's block and at
//! the queried one. A collection's floor is the lowest USD price it sold for
//! in the day before the block, from the same calls.

use alloy_sol_types::SolEvent;
use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_tests::local::Session;
use w3api_types::rpc::{Receipt, TokenPriceParams};
use w3api_types::{Address, NATIVE_TOKEN_ADDRESS, Nft, NftLastSale, U256};

use crate::coherence::history::{Call, History, Located, history};

/// Wallets whose NFTs are read.
const WALLETS: usize = 120;
/// Blocks in a day at 12 seconds a block.
const DAY: u64 = 7_200;

alloy_sol_types::sol! {
    interface Erc20Events {
        event Transfer(address indexed from, address indexed to, uint256 value);
    }
    interface Erc721Events {
        event Transfer(address indexed from, address indexed to, uint256 indexed tokenId);
    }
}

#[test]
fn last_sales_are_marketplace_transactions_that_pay_what_they_state() {
    let history = history();
    let session = Session::new();
    let rest = session.rest();
    let block = history.latest();
    let mut checked = 0;
    let mut natives = 0;
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let request = rest.data().get_wallet_nfts().address(wallet).include_prices(true);
        let nfts: Vec<Nft> = session.run(request.items().try_collect()).unwrap();
        for nft in nfts {
            let prices = nft.prices.as_ref().expect("include_prices adds the price fields");
            let Some(sale) = &prices.last_sale else { continue };
            let located = check_transaction(&session, sale);
            assert_eq!(Some(located), last_sale_call(history, sale.token_address, &nft.token_id), "not the last sale");
            check_usd(&session, sale, block);
            natives += usize::from(sale.payment_token.token_address == NATIVE_TOKEN_ADDRESS);
            checked += 1;
        }
    }
    assert!(checked >= 10 && natives > 0 && natives < checked, "{checked} sales checked, {natives} paid natively");
    session.finish();
}

#[test]
fn collection_floors_are_the_lowest_recent_sale() {
    let history = history();
    let session = Session::new();
    let rest = session.rest();
    let block = history.latest();
    let mut checked = 0;
    for wallet in session.devnet().sample_wallets(20) {
        let request = rest.data().get_wallet_nft_collections().address(wallet).include_prices(true);
        let page = session.run(Paginated::fetch(request)).unwrap();
        for collection in page.result {
            let prices = collection.prices.expect("include_prices adds the price fields");
            let sales: Vec<(u64, &Call)> = history
                .calls
                .iter()
                .filter(
                    |c| matches!(c.call, Call::Sale { collection: address, .. } if address == collection.token_address),
                )
                .map(|c| (c.block, &c.call))
                .collect();
            let Some(floor) = prices.floor_price_usd else {
                assert!(sales.is_empty(), "{}: sold, but no floor", collection.token_address);
                continue;
            };
            let recent: Vec<_> = sales.iter().filter(|(b, _)| *b + DAY > block).collect();
            let considered = if recent.is_empty() { vec![sales.last().unwrap()] } else { recent };
            let lowest = considered.iter().map(|(at, call)| usd_of(&session, call, *at)).fold(f64::INFINITY, f64::min);
            let floor: f64 = floor.parse().unwrap();
            assert!((floor - lowest).abs() <= lowest * 1e-9, "{}: floor {floor} vs {lowest}", collection.token_address);
            assert_eq!(prices.floor_price_currency.as_deref(), Some("eth"));
            checked += 1;
        }
    }
    assert!(checked >= 3, "{checked} floors checked");
    session.finish();
}

/// The sale's transaction, checked against what the sale states.
fn check_transaction(session: &Session, sale: &NftLastSale) -> Located {
    let rpc = session.rpc();
    let tx = session.run(rpc.get_transaction_by_hash(sale.transaction_hash)).unwrap().expect("the sale's transaction");
    let number = tx.block_number.expect("included");
    let block = session.run(rpc.get_block_by_number(number.into(), false)).unwrap().unwrap();
    assert_eq!(block.timestamp as i64, sale.block_timestamp.timestamp(), "the sale's time is its block's");
    assert_eq!(tx.from, sale.buyer_address, "the buyer sends the sale");
    let call = crate::coherence::history::decode(&tx);
    let native = sale.payment_token.token_address == NATIVE_TOKEN_ADDRESS;
    let Call::Sale { collection, id, seller, payment_token, price, .. } = call.clone() else {
        panic!("{}: not a marketplace purchase: {call:?}", tx.hash)
    };
    assert_eq!((collection, id.to_string()), (sale.token_address, sale.token_id.clone()));
    assert_eq!((seller, price), (sale.seller_address, sale.price));
    assert_eq!(payment_token, if native { Address::ZERO } else { sale.payment_token.token_address });
    assert_eq!(tx.value, if native { sale.price } else { U256::ZERO }, "a native sale pays as the call's value");
    let receipt: Receipt = session.run(rpc.get_transaction_receipt(tx.hash)).unwrap().unwrap();
    assert_eq!(receipt.status, Some(1));
    let moved = receipt.logs.iter().any(|log| {
        log.address == sale.token_address
            && Erc721Events::Transfer::decode_raw_log(log.topics.iter().copied(), &log.data)
                .is_ok_and(|t| (t.from, t.to, t.tokenId) == (sale.seller_address, sale.buyer_address, id))
    });
    assert!(moved, "{}: the token moves from seller to buyer", tx.hash);
    if !native {
        let paid = receipt.logs.iter().any(|log| {
            log.address == payment_token
                && Erc20Events::Transfer::decode_raw_log(log.topics.iter().copied(), &log.data)
                    .is_ok_and(|t| (t.from, t.to, t.value) == (sale.buyer_address, sale.seller_address, sale.price))
        });
        assert!(paid, "{}: the buyer pays the seller in {payment_token}", tx.hash);
    }
    Located { block: number, from: tx.from, call }
}

/// The last marketplace purchase of a token in the chain's history.
fn last_sale_call(history: &History, collection: Address, token_id: &str) -> Option<Located> {
    history
        .calls
        .iter()
        .rev()
        .find(|c| matches!(&c.call, Call::Sale { collection: a, id, .. } if *a == collection && id.to_string() == token_id))
        .cloned()
}

/// USD at the sale and now: the price times the payment token's price then and at `block`.
fn check_usd(session: &Session, sale: &NftLastSale, block: u64) {
    let rpc = session.rpc();
    let token = payment_contract(session, sale.payment_token.token_address);
    let whole: f64 = sale.price_formatted.parse().unwrap();
    let at = |to_block: u64| {
        let params = TokenPriceParams { to_block: Some(to_block), ..TokenPriceParams::new(token) };
        session.run(rpc.get_token_price(params)).unwrap().usd_price
    };
    let sold_at = sale.block_timestamp.timestamp() as u64;
    let sale_block = (sold_at - w3api_devnet::GENESIS_TIMESTAMP) / w3api_devnet::BLOCK_TIME;
    let close = |stated: &Option<String>, expected: f64| {
        let stated: f64 = stated.as_deref().expect("a priced payment token").parse().unwrap();
        assert!((stated - expected).abs() <= expected * 1e-9, "{stated} vs {expected}");
    };
    close(&sale.usd_price_at_sale, whole * at(sale_block));
    close(&sale.current_usd_value, whole * at(block));
}

/// The contract priced for a payment token: itself, or the wrapped native
/// token for the native currency (the gateway names it in `nativePrice`).
fn payment_contract(session: &Session, payment: Address) -> Address {
    static WRAPPED: std::sync::OnceLock<Address> = std::sync::OnceLock::new();
    if payment != NATIVE_TOKEN_ADDRESS && !payment.is_zero() {
        return payment;
    }
    *WRAPPED.get_or_init(|| {
        let rest = session.rest();
        let showcase = session.devnet().sample_wallets(1)[0];
        let page = session.run(Paginated::fetch(rest.data().get_wallet_token_balances_price().address(showcase)));
        let token = page.unwrap().result.into_iter().find(|t| !t.native_token && t.usd_price.is_some()).unwrap();
        let price = session.run(session.rpc().get_token_price(TokenPriceParams::new(token.token_address.unwrap())));
        let wrapped = price.unwrap().native_price.address.expect("the gateway names the wrapped native token");
        wrapped.parse().unwrap()
    })
}

/// What a sale call paid, in USD at its block: the raw price over the
/// payment token's decimals, times the token's price there.
fn usd_of(session: &Session, call: &Call, block: u64) -> f64 {
    let Call::Sale { payment_token, price, .. } = call else { unreachable!("only sales are priced") };
    let token = payment_contract(session, *payment_token);
    let params = TokenPriceParams { to_block: Some(block), ..TokenPriceParams::new(token) };
    let quote = session.run(session.rpc().get_token_price(params)).unwrap();
    let decimals = quote.token_decimals.expect("the gateway states the decimals");
    let whole: f64 = price.to_string().parse::<f64>().unwrap() / 10f64.powi(i32::from(decimals));
    whole * quote.usd_price
}
