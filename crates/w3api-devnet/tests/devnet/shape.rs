//! A test shapes a chain's world (wallets, tokens, NFTs, transfers, prices)
//! and every answer follows, from blocks that check out.

use alloy_primitives::{Address, U256};
use alloy_signer_local::PrivateKeySigner;
use w3api_devnet::{Asset, BlockPlan, Devnet, Moved, NewNftMetadata, NewToken, PriceFilter, Scale};
use w3api_source::prelude::*;
use w3api_source::{ChainControl, PageRequest, SourceError, WalletNftsQuery, WalletTokensQuery};
use w3api_types::{Chain, ContractType, NATIVE_TOKEN_ADDRESS};

use crate::chain::{check_blocks, check_transactions};

const ETHER: u128 = 1_000_000_000_000_000_000;

fn token(name: &str, symbol: &str, usd_price: Option<f64>, spam: bool) -> NewToken {
    NewToken {
        name: name.into(),
        symbol: symbol.into(),
        decimals: 6,
        logo: Some("https://example.com/logo.png".into()),
        spam,
        verified: !spam,
        usd_price,
        liquidity_usd: None,
        supply: None,
    }
}

async fn tokens_of(devnet: &Devnet, wallet: Address) -> Vec<(Address, U256, bool, Option<f64>)> {
    let page = devnet.wallet_tokens(WalletTokensQuery::new(Chain::Eth, wallet), PageRequest::first(100)).await.unwrap();
    page.holdings.items.iter().map(|h| (h.token.address, h.balance, h.token.possible_spam, h.usd_price)).collect()
}

fn close(actual: f64, expected: f64) -> bool {
    ((actual - expected) / expected).abs() < 1e-6
}

#[tokio::test]
async fn a_created_wallet_gets_tokens_spam_and_an_nft_and_sends_them_on() {
    let devnet = Devnet::new(3, Scale::TINY);
    let generated = devnet.latest_block(Chain::Eth).await.unwrap();
    let wallet = devnet.create_wallet(Chain::Eth, U256::from(2 * ETHER)).await.unwrap();
    let key = PrivateKeySigner::from_bytes(&wallet.private_key).unwrap();
    assert_eq!(key.address(), wallet.address, "the key is the wallet's");

    let priced = devnet.create_token(Chain::Eth, token("Test Dollar Token", "TDT", Some(2.5), false)).await.unwrap();
    let spam = devnet.create_token(Chain::Eth, token("Claim Rewards", "SCAM", None, true)).await.unwrap();
    let price = devnet.chain(Chain::Eth).usd_price(
        devnet.chain(Chain::Eth).world.asset_at(priced).unwrap(),
        devnet.latest_block(Chain::Eth).await.unwrap(),
        PriceFilter::default(),
    );
    assert!(close(price.unwrap(), 2.5), "{price:?}");
    devnet.mint_token(Chain::Eth, priced, wallet.address, U256::from(40_000_000u64)).await.unwrap();
    devnet.mint_token(Chain::Eth, spam, wallet.address, U256::from(7u64)).await.unwrap();
    let wrapped = devnet.chain(Chain::Eth).world.tokens[0].address;
    devnet.mint_token(Chain::Eth, wrapped, wallet.address, U256::from(ETHER)).await.unwrap();

    let held = tokens_of(&devnet, wallet.address).await;
    let find = |address: Address| held.iter().find(|h| h.0 == address).copied();
    assert_eq!(find(NATIVE_TOKEN_ADDRESS).map(|h| h.1), Some(U256::from(2 * ETHER)));
    let (_, balance, is_spam, usd) = find(priced).unwrap();
    assert_eq!((balance, is_spam), (U256::from(40_000_000u64), false));
    assert!(close(usd.unwrap(), 2.5), "{usd:?}");
    assert_eq!(find(spam).map(|h| (h.1, h.2)), Some((U256::from(7u64), true)));
    assert_eq!(find(wrapped).map(|h| h.1), Some(U256::from(ETHER)));

    let collection =
        devnet.chain(Chain::Eth).world.collections.iter().find(|c| c.kind == ContractType::Erc721).unwrap().address;
    let metadata = NewNftMetadata {
        name: Some("Test Badge".into()),
        attributes: vec![("Color".into(), "Teal".into())],
        ..NewNftMetadata::default()
    };
    let id = devnet.mint_nft(Chain::Eth, collection, wallet.address, 1, Some(metadata)).await.unwrap();
    let nfts =
        devnet.wallet_nfts(WalletNftsQuery::new(Chain::Eth, wallet.address), PageRequest::first(10)).await.unwrap();
    let [nft] = nfts.holdings.items.as_slice() else { panic!("one NFT: {:?}", nfts.holdings.items) };
    assert_eq!((nft.collection.address, nft.token_id), (collection, id));
    let normalized = nft.normalized_metadata.as_ref().unwrap();
    assert_eq!(normalized.name.as_deref(), Some("Test Badge"));
    assert_eq!(normalized.attributes.as_ref().unwrap()[0].trait_type.as_deref(), Some("Color"));
    let error = devnet.mint_nft(Chain::Eth, collection, wallet.address, 2, None).await.unwrap_err();
    assert!(error.to_string().contains("an ERC721 mints 1"), "{error}");

    // Live activity leaves a created wallet's balances as the test made them (prices move).
    let balances = |held: &[(Address, U256, bool, Option<f64>)]| held.iter().map(|h| (h.0, h.1)).collect::<Vec<_>>();
    devnet.mine_blocks(Chain::Eth, 30, BlockPlan::activity()).await.unwrap();
    assert_eq!(balances(&tokens_of(&devnet, wallet.address).await), balances(&held));

    // The wallet sends, signed with its key.
    let friend = Address::repeat_byte(0xf1);
    devnet.transfer(Chain::Eth, wallet.address, friend, Moved::Token(priced, U256::from(1_000_000u64))).await.unwrap();
    devnet.transfer(Chain::Eth, wallet.address, friend, Moved::Nft(collection, id, 1)).await.unwrap();
    devnet.transfer(Chain::Eth, wallet.address, friend, Moved::Native(U256::from(ETHER / 2))).await.unwrap();
    let friend_tokens = tokens_of(&devnet, friend).await;
    assert!(friend_tokens.iter().any(|h| h.0 == priced && h.1 == U256::from(1_000_000u64)), "{friend_tokens:?}");
    let nfts = devnet.wallet_nfts(WalletNftsQuery::new(Chain::Eth, friend), PageRequest::first(10)).await.unwrap();
    assert_eq!(nfts.holdings.items.len(), 1);
    let data = devnet.chain(Chain::Eth);
    let last = &data.transactions[data.transactions.len() - 1];
    assert_eq!(last.sender, wallet.address, "signed by the created wallet");

    // Refusals name what is wrong.
    drop(data);
    let stranger = Address::repeat_byte(0x99);
    let error = devnet.transfer(Chain::Eth, stranger, friend, Moved::Native(U256::from(1))).await.unwrap_err();
    assert!(error.to_string().contains("holds no key"), "{error}");
    let error = devnet
        .transfer(Chain::Eth, wallet.address, friend, Moved::Token(priced, U256::from(u64::MAX)))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("less than asked"), "{error}");
    let error = devnet.mint_token(Chain::Eth, stranger, friend, U256::from(1)).await.unwrap_err();
    assert!(matches!(&error, SourceError::InvalidChange(m) if m.contains("no ERC20 token")), "{error}");

    let data = devnet.chain(Chain::Eth);
    check_blocks(&data, generated + 1);
    check_transactions(&data, generated + 1);
}

#[tokio::test]
async fn a_price_is_set_by_moving_reserves_and_reads_back_everywhere() {
    let devnet = Devnet::new(4, Scale::TINY);
    let data = devnet.chain(Chain::Eth);
    let regular = data.world.tokens.iter().find(|t| t.kind == w3api_devnet::TokenKind::Regular).unwrap().address;
    let asset = data.world.asset_at(regular).unwrap();
    drop(data);
    for target in [123.45, 0.0321] {
        let read = devnet.set_price(Chain::Eth, regular, target).await.unwrap();
        assert!(close(read, target), "{read} for {target}");
        let quote = devnet
            .token_price(w3api_source::TokenPriceQuery {
                chain: Chain::Eth,
                address: regular,
                exchange: None,
                to_block: None,
                include_percent_change: false,
                max_token_inactivity_days: None,
                min_pair_side_liquidity_usd: None,
            })
            .await
            .unwrap();
        assert!(close(quote.usd_price, target), "eth_getTokenPrice says {}", quote.usd_price);
    }
    // Prices set again and again leave the pool as deep as it was.
    let reserves = |devnet: &Devnet| {
        let data = devnet.chain(Chain::Eth);
        let pair = &data.world.pairs[data.price(asset, data.latest(), PriceFilter::default()).unwrap().pair];
        let holder = data.ledger.find(pair.address).unwrap();
        data.ledger.balance(holder, pair.token0) as f64 * data.ledger.balance(holder, pair.token1) as f64
    };
    let depth = reserves(&devnet);
    for round in 0..20 {
        let target = if round % 2 == 0 { 1.0 } else { 40.0 };
        assert!(close(devnet.set_price(Chain::Eth, regular, target).await.unwrap(), target));
    }
    let ratio = reserves(&devnet) / depth;
    assert!((0.999..1.001).contains(&ratio), "the pool's depth changed by {ratio}");
    // The native currency's price moves every price quoted in it.
    let data = devnet.chain(Chain::Eth);
    let latest = data.latest();
    let before = data.usd_price(asset, latest, PriceFilter::default()).unwrap();
    let native = data.usd_price(Asset::NATIVE, latest, PriceFilter::default()).unwrap();
    drop(data);
    devnet.set_price(Chain::Eth, NATIVE_TOKEN_ADDRESS, native * 2.0).await.unwrap();
    let data = devnet.chain(Chain::Eth);
    let after = data.usd_price(asset, data.latest(), PriceFilter::default()).unwrap();
    let quoted_in_native = data.world.pairs[data.price(asset, data.latest(), PriceFilter::default()).unwrap().pair]
        .other(asset)
        == Asset::WRAPPED;
    assert_eq!(quoted_in_native, close(after, before * 2.0), "{before} -> {after}");
    drop(data);
    let stable = devnet.chain(Chain::Eth).world.tokens[1].address;
    let error = devnet.set_price(Chain::Eth, stable, 2.0).await.unwrap_err();
    assert!(error.to_string().contains("USD anchor"), "{error}");
    let data = devnet.chain(Chain::Eth);
    check_blocks(&data, latest);
}
