//! The wallet view against a server of the test kit: a wallet shaped by
//! the test, spam the view must hide, and a rate limit the client rides out.

use std::time::{Duration, Instant};

// Used by the library, not by these tests: named so that
// `unused_crate_dependencies` keeps watching the rest.
use {futures as _, thiserror as _, w3api_rest as _};

use portfolio::{Holding, portfolio};
use w3api_testkit::{
    ChainControl, CreatedWallet, Fault, FaultRule, Injection, NewNftMetadata, NewToken, RuleTarget, Scale, Server,
};
use w3api_types::{Address, Chain, ContractType, U256, format_units};

const ONE_ETH: u128 = 10u128.pow(18);

/// An ERC20 named `symbol`, with 18 decimals unless said, priced or not.
fn token(symbol: &str, decimals: u8, usd_price: Option<f64>, spam: bool) -> NewToken {
    NewToken {
        name: format!("{symbol} Token"),
        symbol: symbol.into(),
        decimals,
        logo: None,
        spam,
        verified: !spam,
        usd_price,
        liquidity_usd: None,
        supply: None,
    }
}

/// A fresh wallet with one ETH.
async fn wallet(server: &Server) -> CreatedWallet {
    server.devnet().create_wallet(Chain::Eth, U256::from(ONE_ETH)).await.unwrap()
}

/// The first collection of the devnet of this kind that is spam, or that is not.
fn collection(server: &Server, kind: ContractType, spam: bool) -> Address {
    let chain = server.devnet().chain(Chain::Eth);
    let found = chain.world.collections.iter().find(|c| c.kind == kind && c.spam == spam);
    found.map(|c| c.address).expect("the devnet has such a collection")
}

fn holding<'a>(tokens: &'a [Holding], symbol: &str) -> &'a Holding {
    tokens.iter().find(|t| t.symbol == symbol).unwrap_or_else(|| panic!("no {symbol} in {tokens:?}"))
}

fn assert_close(actual: f64, expected: f64) {
    assert!((actual - expected).abs() <= expected.abs() * 1e-6, "{actual} is not {expected}");
}

#[tokio::test]
async fn the_view_lists_what_the_wallet_holds_without_spam() {
    let server = Server::builder().scale(Scale::TINY).start().await;
    let wallet = wallet(&server).await.address;
    let devnet = server.devnet();

    // (symbol, decimals, price, spam, raw amount minted)
    let minted = [
        ("GOOD", 18, 2.5, false, U256::from(3 * ONE_ETH + ONE_ETH / 4)),
        ("FINE", 6, 0.1, false, U256::from(1_234_567u64)),
        ("JUNK", 18, 1.0, true, U256::from(1_000 * ONE_ETH)),
    ];
    for (symbol, decimals, price, spam, amount) in minted {
        let address = devnet.create_token(Chain::Eth, token(symbol, decimals, Some(price), spam)).await.unwrap();
        devnet.mint_token(Chain::Eth, address, wallet, amount).await.unwrap();
    }
    // The devnet's spam collection (the spammer's airdrop) is its last ERC1155 one.
    let good_nft = collection(&server, ContractType::Erc721, false);
    let junk_nft = collection(&server, ContractType::Erc1155, true);
    let named = Some(NewNftMetadata { name: Some("Gold Badge".into()), ..Default::default() });
    let id = devnet.mint_nft(Chain::Eth, good_nft, wallet, 1, named).await.unwrap();
    devnet.mint_nft(Chain::Eth, junk_nft, wallet, 1, None).await.unwrap();

    let view = portfolio(&server.rest(), Chain::Eth, wallet).await.unwrap();

    let mut symbols: Vec<&str> = view.tokens.iter().map(|t| t.symbol.as_str()).collect();
    symbols.sort_unstable();
    assert_eq!(symbols, ["ETH", "FINE", "GOOD"], "{view:?}");
    assert_eq!(holding(&view.tokens, "ETH").balance_formatted, format_units(U256::from(ONE_ETH), 18));
    for (symbol, decimals, price, _, amount) in &minted[..2] {
        let held = holding(&view.tokens, symbol);
        assert_eq!(held.balance_formatted, format_units(*amount, *decimals));
        let whole: f64 = held.balance_formatted.parse().unwrap();
        assert_close(held.usd_value.expect("a priced token has a value"), price * whole);
    }
    assert_close(view.total_usd, view.tokens.iter().filter_map(|t| t.usd_value).sum());
    assert_eq!(view.nfts.len(), 1, "{view:?}");
    assert_eq!(view.nfts[0].collection, good_nft);
    assert_eq!(view.nfts[0].token_id, id.to_string());
    assert_eq!(view.nfts[0].name.as_deref(), Some("Gold Badge"));

    // The API itself answers with the spam: hiding it is the view's doing.
    let raw = server.rest().data().get_wallet_token_balances_price().address(wallet).send().await.unwrap();
    assert!(raw.result.iter().any(|t| t.symbol == "JUNK" && t.possible_spam), "{:?}", raw.result);
    let raw = server.rest().data().get_wallet_nfts().address(wallet).send().await.unwrap();
    assert!(raw.result.iter().any(|n| n.token_address == junk_nft && n.possible_spam == Some(true)));
}

#[tokio::test]
async fn the_client_rides_out_a_rate_limit_for_the_view() {
    let server = Server::builder().scale(Scale::TINY).start().await;
    let wallet = wallet(&server).await.address;
    let limited = Injection { fault: Some(Fault::Status(429u16.try_into().unwrap())), delay: None };
    let target = RuleTarget::Operation("getWalletTokenBalancesPrice".into());
    server.faults().add(FaultRule { target, injection: limited, times: Some(2) }).unwrap();

    let started = Instant::now();
    let view = portfolio(&server.rest(), Chain::Eth, wallet).await.unwrap();
    assert!(started.elapsed() >= Duration::from_secs(2), "two Retry-After waits: {:?}", started.elapsed());
    assert_eq!(view.tokens.len(), 1, "the native currency alone: {view:?}");
    assert!(server.faults().list().is_empty(), "both 429s were answered, so the client retried twice");
}
