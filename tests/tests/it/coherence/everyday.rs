//! The everyday operations agree with the gateway and with each other:
//! - a native balance (alone or among several wallets) is `eth_getBalance`
//!   at the same block;
//! - a wallet's ERC20 balances are its priced wallet tokens without prices,
//!   and `eth_getTokenBalances` answers the same;
//! - a REST token price is `eth_getTokenPrice`, and multiple prices are the
//!   single prices;
//! - token metadata is what `eth_call` reads of `name`, `symbol`,
//!   `decimals` and `totalSupply`, and `eth_getTokenMetadata` answers the same;
//! - `dateToBlock` names the last block at or before the date;
//! - net worth is the sum of the wallet tokens' USD values.

use alloy_sol_types::SolCall;
use w3api_tests::local::Session;
use w3api_types::rpc::{
    BalancesBlock, BlockId, BlockNumberOrTag, TokenBalancesParams, TokenMetadataParams, TokenPriceParams,
    TransactionRequest,
};
use w3api_types::{Address, MultipleTokenPricesRequest, TokenBalance, TokenPriceItem, U256, usd_text};

use crate::coherence::wallet_tokens_at;

mod erc20 {
    alloy_sol_types::sol! {
        function name() external view returns (string);
        function symbol() external view returns (string);
        function decimals() external view returns (uint8);
        function totalSupply() external view returns (uint256);
    }
}

const WALLETS: usize = 6;

fn latest(session: &Session<'_>) -> u64 {
    session.run(session.rpc().get_block_by_number(BlockNumberOrTag::Latest, false)).unwrap().unwrap().number
}

#[test]
fn native_balances_are_the_gateway_balances_at_the_same_block() {
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let latest = latest(&session);
    let wallets = session.devnet().sample_wallets(WALLETS);
    for block in [latest / 2, latest] {
        let at = Some(BlockId::Number(block.into()));
        let mut expected = Vec::new();
        for wallet in &wallets {
            let balance = session.run(rpc.get_balance(*wallet, at)).unwrap();
            let alone = session.run(rest.data().get_native_balance().address(*wallet).to_block(block).send());
            assert_eq!(alone.unwrap().into_inner().balance, balance, "{wallet} at block {block}");
            expected.push(balance);
        }
        let many = session
            .run(
                rest.data()
                    .get_native_balances_for_addresses()
                    .wallet_addresses(wallets.clone())
                    .to_block(block)
                    .send(),
            )
            .unwrap()
            .into_inner();
        let [chain] = many.as_slice() else { panic!("one chain asked, {} answered", many.len()) };
        assert_eq!(chain.block_number, block);
        let header = session.run(rpc.get_block_by_number(BlockNumberOrTag::Number(block), false)).unwrap();
        assert_eq!(chain.block_timestamp.timestamp() as u64, header.unwrap().timestamp);
        let listed: Vec<(Address, U256)> = chain.wallet_balances.iter().map(|w| (w.address, w.balance)).collect();
        assert_eq!(listed, wallets.iter().copied().zip(expected.iter().copied()).collect::<Vec<_>>());
        assert_eq!(chain.total_balance, expected.iter().fold(U256::ZERO, |sum, b| sum + b));
    }
    session.finish();
}

#[test]
fn erc20_balances_are_the_priced_wallet_tokens_without_prices() {
    let session = Session::new();
    let rest = session.rest();
    let latest = latest(&session);
    let mut listed = 0;
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let priced = session.run(wallet_tokens_at(&rest, wallet, latest, true));
        let plain = session
            .run(rest.data().get_wallet_token_balances().address(wallet).to_block(latest).exclude_spam(false).send())
            .unwrap()
            .into_inner();
        let priced: Vec<(Address, U256, &str)> =
            priced.iter().map(|t| (t.token_address.unwrap(), t.balance, t.symbol.as_str())).collect();
        let plain: Vec<(Address, U256, &str)> =
            plain.iter().map(|t| (t.token_address, t.balance, t.symbol.as_str())).collect();
        assert_eq!(plain, priced, "{wallet}: the same tokens, balances and order");
        listed += plain.len();
        let params = TokenBalancesParams {
            address: wallet,
            token_addresses: Vec::new(),
            exclude_spam: Some(false),
            to_block: Some(BalancesBlock::Number(latest)),
        };
        let rpc = session.run(session.rpc().get_token_balances(params)).unwrap();
        let rest = session
            .run(rest.data().get_wallet_token_balances().address(wallet).to_block(latest).exclude_spam(false).send())
            .unwrap()
            .into_inner();
        assert_eq!(rpc, rest, "{wallet}: eth_getTokenBalances is getWalletTokenBalances");
    }
    assert!(listed >= WALLETS, "the sampled wallets hold tokens ({listed})");
    session.finish();
}

/// Every ERC20 the sampled wallets hold at `block`.
fn held_tokens(session: &Session<'_>, block: u64) -> Vec<TokenBalance> {
    let rest = session.rest();
    let mut tokens: Vec<TokenBalance> = Vec::new();
    for wallet in session.devnet().sample_wallets(WALLETS) {
        for token in session.run(wallet_tokens_at(&rest, wallet, block, true)) {
            if !tokens.iter().any(|t| t.token_address == token.token_address) {
                tokens.push(token);
            }
        }
    }
    tokens
}

#[test]
fn rest_prices_are_the_gateway_prices_and_multiple_prices_the_single_ones() {
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let block = latest(&session) * 3 / 4;
    let tokens = held_tokens(&session, block);
    let mut singles = Vec::new();
    for token in &tokens {
        let address = token.token_address.unwrap();
        let rest_price = session.run(rest.data().get_token_price().address(address).to_block(block).send());
        let params = TokenPriceParams { to_block: Some(block), ..TokenPriceParams::new(address) };
        match (rest_price, session.run(rpc.get_token_price(params))) {
            (Ok(rest_price), Ok(rpc_price)) => {
                let rest_price = rest_price.into_inner();
                assert_eq!(rest_price, rpc_price, "{address} at block {block}");
                assert_eq!(Some(rest_price.usd_price), token.usd_price, "{address}: wallet tokens");
                singles.push(rest_price);
            }
            (Err(rest_error), Err(_)) => {
                assert_eq!(rest_error.status().map(|s| s.as_u16()), Some(404), "{address}: {rest_error}");
                assert_eq!(token.usd_price, None, "{address}: unpriced here, priced in wallet tokens");
            }
            (rest_price, rpc_price) => panic!("{address}: REST {rest_price:?}, RPC {rpc_price:?}"),
        }
    }
    assert!(singles.len() >= 3, "a few of the tokens have prices ({})", singles.len());
    let priced = singles[0].token_address.unwrap();
    let nowhere = session.run(rest.data().get_token_price().address(priced).exchange("Nowhere").send()).unwrap_err();
    assert_eq!(nowhere.status().map(|s| s.as_u16()), Some(404), "an unknown exchange prices nothing: {nowhere}");
    assert!(nowhere.to_string().contains("known exchanges"), "{nowhere}");
    let items = tokens
        .iter()
        .take(30)
        .map(|t| TokenPriceItem {
            token_address: t.token_address.unwrap(),
            exchange: None,
            to_block: Some(U256::from(block)),
        })
        .collect();
    let many = session
        .run(rest.data().get_multiple_token_prices().body(MultipleTokenPricesRequest { tokens: items }).send())
        .unwrap()
        .into_inner();
    let expected: Vec<_> =
        singles.iter().filter(|p| tokens.iter().take(30).any(|t| t.token_address == p.token_address)).collect();
    assert_eq!(many.iter().collect::<Vec<_>>(), expected, "the priced tokens, in the order asked");
    session.finish();
}

/// What `eth_call` answers for `call` on `token`, decoded.
fn read<C: SolCall>(session: &Session<'_>, token: Address, call: C) -> C::Return {
    let request = TransactionRequest { to: Some(token), input: Some(call.abi_encode().into()), ..Default::default() };
    let output = session.run(session.rpc().call(request, None, None)).unwrap();
    C::abi_decode_returns(&output).unwrap()
}

#[test]
fn token_metadata_is_what_the_contracts_say() {
    let session = Session::new();
    let rest = session.rest();
    let tokens = held_tokens(&session, latest(&session));
    let addresses: Vec<Address> = tokens.iter().take(9).map(|t| t.token_address.unwrap()).collect();
    let unknown = Address::repeat_byte(0x5a);
    let metadata = session
        .run(rest.data().get_token_metadata().addresses([&addresses[..], &[unknown]].concat()).send())
        .unwrap()
        .into_inner();
    let answered: Vec<Address> = metadata.iter().map(|m| m.address).collect();
    assert_eq!(answered, addresses, "every token asked, in order; the unknown address left out");
    let params = TokenMetadataParams { addresses: [&addresses[..], &[unknown]].concat() };
    let rpc = session.run(session.rpc().get_token_metadata(params)).unwrap();
    assert_eq!(rpc, metadata, "eth_getTokenMetadata is getTokenMetadata");
    for token in &metadata {
        let at = token.address;
        assert_eq!(token.name, read(&session, at, erc20::nameCall {}), "{at}");
        assert_eq!(token.symbol, read(&session, at, erc20::symbolCall {}), "{at}");
        assert_eq!(token.decimals, read(&session, at, erc20::decimalsCall {}), "{at}");
        assert_eq!(token.total_supply, read(&session, at, erc20::totalSupplyCall {}), "{at}");
        let first = session.run(session.rpc().get_block_by_number(BlockNumberOrTag::Number(token.block_number), false));
        assert_eq!(token.created_at.timestamp() as u64, first.unwrap().unwrap().timestamp, "{at}");
    }
    session.finish();
}

#[test]
fn date_to_block_names_the_last_block_at_or_before_the_date() {
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let latest = latest(&session);
    let time =
        |n: u64| session.run(rpc.get_block_by_number(BlockNumberOrTag::Number(n), false)).unwrap().unwrap().timestamp;
    for block in [1, latest / 3, latest / 2, latest - 1] {
        let (at, next) = (time(block), time(block + 1));
        // The block's own second, and the last second before the next block.
        for date in [at, next - 1] {
            let found =
                session.run(rest.data().get_date_to_block().date(date.to_string()).send()).unwrap().into_inner();
            let expected = if next - 1 == at || date < next { block } else { block + 1 };
            // Blocks may share a second; the last of them is the answer.
            let mut last = expected;
            while last < latest && time(last + 1) <= date {
                last += 1;
            }
            assert_eq!(found.block, last, "date {date}");
            assert_eq!(found.timestamp, time(last));
            assert!(found.timestamp <= date && (last == latest || time(last + 1) > date));
            assert_eq!(found.date.timestamp() as u64, date);
        }
    }
    let after = session.run(rest.data().get_date_to_block().date("2999-01-01T00:00:00Z").send()).unwrap();
    assert_eq!(after.into_inner().block, latest, "a date past the newest block names the newest");
    let before = session.run(rest.data().get_date_to_block().date("1971-01-01").send()).unwrap_err();
    assert_eq!(before.status().map(|s| s.as_u16()), Some(404), "{before}");
    session.finish();
}

#[test]
fn net_worth_is_the_sum_of_the_wallet_tokens_values() {
    let session = Session::new();
    let rest = session.rest();
    let latest = latest(&session);
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let tokens = session.run(wallet_tokens_at(&rest, wallet, latest, false));
        let worth = session.run(rest.data().get_wallet_net_worth().address(wallet).send()).unwrap().into_inner();
        let [chain] = worth.chains.as_slice() else { panic!("{wallet}: one chain by default") };
        let native: f64 = tokens.iter().filter(|t| t.native_token).filter_map(|t| t.usd_value).sum();
        let erc20: f64 = tokens.iter().filter(|t| !t.native_token).filter_map(|t| t.usd_value).sum();
        assert_eq!(chain.native_balance_usd, usd_text(native), "{wallet}");
        assert_eq!(chain.token_balance_usd, usd_text(erc20), "{wallet}");
        assert_eq!(chain.networth_usd, usd_text(native + erc20), "{wallet}");
        assert_eq!(worth.total_networth_usd, usd_text(native + erc20), "{wallet}");
        let native_balance = tokens.iter().find(|t| t.native_token).map_or(U256::ZERO, |t| t.balance);
        assert_eq!(chain.native_balance, native_balance, "{wallet}");
    }
    session.finish();
}
