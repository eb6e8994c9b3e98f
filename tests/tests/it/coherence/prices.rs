//! Prices agree across the two APIs: each ERC20's `usd_price` in a wallet's
//! tokens at block N equals `eth_getTokenPrice` with `toBlock = N`, and a
//! token the data API cannot price is a PriceNotFound error on the gateway.
//! (The native currency has no contract to ask the gateway about.)

use w3api_rpc::ErrorCode;
use w3api_tests::local::Session;
use w3api_types::TokenBalance;
use w3api_types::rpc::{BlockNumberOrTag, TokenPriceParams};

use crate::coherence::wallet_tokens_at;

const WALLETS: usize = 10;

/// Compares one page's tokens with the gateway's prices at the same block;
/// returns how many were priced and how many were not.
async fn compare(session: &Session<'_>, items: &[TokenBalance], block: u64) -> (usize, usize) {
    let rpc = session.rpc();
    let mut batch = rpc.batch();
    let calls: Vec<_> = items
        .iter()
        .map(|item| {
            let params =
                TokenPriceParams { to_block: Some(block), ..TokenPriceParams::new(item.token_address.unwrap()) };
            batch.get_token_price(params)
        })
        .collect();
    let answers = batch.send().await.unwrap();
    let (mut priced, mut unpriced) = (0, 0);
    for (item, call) in items.iter().zip(&calls) {
        let what = format!("{} ({}) at block {block}", item.symbol, item.token_address.unwrap());
        match (item.usd_price, answers.get(call)) {
            (Some(usd), Ok(price)) => {
                assert_eq!(price.usd_price, usd, "{what}: gateway vs wallet tokens");
                assert_eq!(price.to_block, Some(block), "{what}");
                assert_eq!(price.token_address, item.token_address, "{what}");
                assert_eq!(price.token_symbol.as_deref(), Some(item.symbol.as_str()), "{what}");
                assert_eq!(price.token_decimals, Some(item.decimals), "{what}");
                priced += 1;
            }
            (None, Err(error)) => {
                assert_eq!(error.kind(), Some(ErrorCode::PriceNotFound), "{what}: {error}");
                unpriced += 1;
            }
            (usd, answer) => panic!("{what}: wallet tokens price it at {usd:?}, the gateway answers {answer:?}"),
        }
    }
    (priced, unpriced)
}

#[test]
fn wallet_token_prices_are_the_gateway_prices_at_the_same_block() {
    let session = Session::new();
    let rest = session.rest();
    let latest =
        session.run(session.rpc().get_block_by_number(BlockNumberOrTag::Latest, false)).unwrap().unwrap().number;
    let (mut priced, mut unpriced) = (0, 0);
    for block in [latest / 3, 2 * latest / 3, latest] {
        for wallet in session.devnet().sample_wallets(WALLETS) {
            let items = session.run(wallet_tokens_at(&rest, wallet, block, true));
            if items.is_empty() {
                continue;
            }
            let (p, u) = session.run(compare(&session, &items, block));
            (priced, unpriced) = (priced + p, unpriced + u);
        }
    }
    assert!(priced >= 20, "only {priced} priced tokens compared");
    assert!(unpriced >= 1, "no unpriced token among the sampled wallets; the PriceNotFound side went unchecked");
    session.finish();
}
