//! What the data-source answers say: filters, formats, 24-hour changes,
//! exchanges, errors, and balances that agree with the transactions.

use std::sync::{Arc, OnceLock};

use alloy_consensus::Transaction as _;
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, sol};
use w3api_devnet::{Asset, BLOCKS_PER_DAY, ChainData, Devnet, Scale, TokenKind, format_units};
use w3api_source::{
    BlockRef, DataSource, SourceError, TokenPriceQuery, WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery,
};
use w3api_types::{Chain, ContractType, NATIVE_TOKEN_ADDRESS, TokenIdFormat};

sol! {
    function transfer(address to, uint256 amount) returns (bool);
    function buy(address collection, uint256 tokenId, address seller, address paymentToken, uint256 price) payable;
}

/// The default-scale chain (over a day of blocks), generated once for all tests.
fn default_eth() -> (Devnet, Arc<ChainData>) {
    static DEVNET: OnceLock<Devnet> = OnceLock::new();
    let devnet = DEVNET.get_or_init(|| Devnet::new(0, Scale::DEFAULT)).clone();
    let data = devnet.chain(Chain::Eth);
    (devnet, data)
}

/// A wallet with several tokens at the latest block.
fn busy_wallet(devnet: &Devnet, data: &ChainData) -> Address {
    devnet
        .sample_wallets(200)
        .into_iter()
        .max_by_key(|w| data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, *w)).unwrap().items.len())
        .unwrap()
}

#[test]
fn wallet_tokens_are_priced_formatted_and_ordered() {
    let (devnet, data) = default_eth();
    let wallet = busy_wallet(&devnet, &data);
    let tokens = data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, wallet)).unwrap();
    assert_eq!(tokens.block_number, data.latest());
    assert!(tokens.items.len() >= 3, "{} tokens", tokens.items.len());
    let native = &tokens.items[0];
    assert!(native.native_token);
    assert_eq!(native.token_address, Some(NATIVE_TOKEN_ADDRESS));
    for item in &tokens.items {
        assert_eq!(item.balance_formatted, format_units(item.balance, item.decimals));
        if let Some(price) = item.usd_price {
            let value = item.usd_value.unwrap();
            let whole = item.balance.to::<u128>() as f64 / 10f64.powi(item.decimals.into());
            assert!((value - price * whole).abs() <= value.abs() * 1e-12);
        }
    }
    let values: Vec<f64> = tokens.items[1..].iter().map(|i| i.usd_value.unwrap_or(-1.0)).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "ordered by value: {values:?}");
}

#[test]
fn day_old_prices_give_the_24_hour_changes() {
    let (devnet, data) = default_eth();
    assert!(data.latest() > BLOCKS_PER_DAY, "the default chain is over a day long");
    let wallet = busy_wallet(&devnet, &data);
    let tokens = data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, wallet)).unwrap();
    let day_before = data.latest() - BLOCKS_PER_DAY;
    let mut checked = 0;
    for item in tokens.items.iter().filter(|i| i.usd_price.is_some()) {
        let asset =
            if item.native_token { Asset::NATIVE } else { data.world.asset_at(item.token_address.unwrap()).unwrap() };
        let then = data.price(asset, day_before, Default::default()).unwrap().usd;
        let now = item.usd_price.unwrap();
        assert_eq!(item.usd_price_24hr_usd_change, Some(now - then));
        assert_eq!(item.usd_price_24hr_percent_change, Some((now - then) / then * 100.0));
        checked += 1;
    }
    assert!(checked > 0);
    // Before a day has passed there is nothing to compare with.
    let early = WalletTokensQuery { to_block: Some(BLOCKS_PER_DAY - 1), ..WalletTokensQuery::new(Chain::Eth, wallet) };
    assert!(data.wallet_tokens(&early).unwrap().items.iter().all(|i| i.usd_price_24hr_percent_change.is_none()));
}

#[test]
fn wallet_token_filters_each_do_what_they_say() {
    let (devnet, data) = default_eth();
    let wallets = devnet.sample_wallets(200);
    let all = |w: Address| data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, w)).unwrap().items;
    let with = |w: Address, edit: &dyn Fn(&mut WalletTokensQuery)| {
        let mut query = WalletTokensQuery::new(Chain::Eth, w);
        edit(&mut query);
        data.wallet_tokens(&query).unwrap().items
    };
    let spammed =
        wallets.iter().copied().find(|w| all(*w).iter().any(|i| i.possible_spam)).expect("spam reached a wallet");
    assert!(with(spammed, &|q| q.exclude_spam = true).iter().all(|i| !i.possible_spam));
    assert!(with(spammed, &|q| q.exclude_native = true).iter().all(|i| !i.native_token));
    let unverified =
        wallets.iter().copied().find(|w| all(*w).iter().any(|i| i.verified_contract == Some(false))).unwrap();
    assert!(
        with(unverified, &|q| q.exclude_unverified_contracts = true).iter().all(|i| i.verified_contract == Some(true))
    );
    let items = all(spammed);
    let chosen = items.last().unwrap().token_address.unwrap();
    let only = with(spammed, &|q| q.token_addresses = vec![chosen]);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].token_address, Some(chosen));
    // The native currency answers to its 0xeeee… address.
    assert!(with(spammed, &|q| q.token_addresses = vec![NATIVE_TOKEN_ADDRESS]).iter().all(|i| i.native_token));
    // No pair has a side worth a trillion dollars, so nothing is priced.
    assert!(with(spammed, &|q| q.min_pair_side_liquidity_usd = Some(1e12)).iter().all(|i| i.usd_price.is_none()));
    // Zero days of inactivity allowed: only tokens that moved in the very block remain.
    let block = data.latest();
    for item in with(spammed, &|q| q.max_token_inactivity_days = Some(0)) {
        let asset =
            if item.native_token { Asset::NATIVE } else { data.world.asset_at(item.token_address.unwrap()).unwrap() };
        assert_eq!(data.ledger.last_activity(asset, block as u32), Some(block as u32));
    }
}

#[test]
fn a_block_past_the_newest_is_an_error() {
    let (devnet, data) = default_eth();
    let wallet = devnet.sample_wallets(1)[0];
    let query = WalletTokensQuery { to_block: Some(data.latest() + 1), ..WalletTokensQuery::new(Chain::Eth, wallet) };
    assert_eq!(
        data.wallet_tokens(&query),
        Err(SourceError::BlockOutOfRange { requested: data.latest() + 1, latest: data.latest() })
    );
}

#[test]
fn erc20_balances_of_wallets_equal_their_decoded_transfers_and_purchases() {
    let (devnet, data) = default_eth();
    let wallets = devnet.sample_wallets(devnet.scale().wallets as usize);
    let block = data.latest();
    let mut sums: std::collections::HashMap<(Address, Address), i128> = std::collections::HashMap::new();
    for tx in &data.transactions {
        let Some(target) = tx.envelope.to() else { continue };
        let (token, to, amount) = if data.world.asset_at(target).is_some()
            && let Ok(call) = transferCall::abi_decode(tx.envelope.input())
        {
            (target, call.to, call.amount)
        } else if target == data.world.marketplace
            && let Ok(call) = buyCall::abi_decode(tx.envelope.input())
            && !call.paymentToken.is_zero()
        {
            (call.paymentToken, call.seller, call.price)
        } else {
            continue;
        };
        *sums.entry((tx.sender, token)).or_default() -= amount.to::<u128>() as i128;
        *sums.entry((to, token)).or_default() += amount.to::<u128>() as i128;
    }
    let mut checked = 0;
    for wallet in wallets {
        for item in data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, wallet)).unwrap().items {
            let Some(token) = item.token_address.filter(|_| !item.native_token) else { continue };
            assert_eq!(item.balance, U256::from(sums[&(wallet, token)] as u128), "{wallet} in {token} at {block}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} balances checked");
}

#[test]
fn wallet_nfts_carry_metadata_rarity_and_filters() {
    let (devnet, data) = default_eth();
    let wallets = devnet.sample_wallets(300);
    let nfts_of = |w: Address| data.wallet_nfts(&WalletNftsQuery::new(Chain::Eth, w)).unwrap();
    let owner = wallets.iter().copied().max_by_key(|w| nfts_of(*w).len()).unwrap();
    let nfts = nfts_of(owner);
    assert!(nfts.len() >= 3, "{} NFTs", nfts.len());
    for nft in &nfts {
        let metadata: serde_json::Value = serde_json::from_str(nft.metadata.as_deref().unwrap()).unwrap();
        assert_eq!(metadata["name"], nft.normalized_metadata.as_ref().unwrap().name.clone().unwrap());
        assert!(nft.rarity_rank.unwrap() >= 1 && nft.rarity_label.is_some());
        assert!(nft.block_number >= nft.block_number_minted);
        if nft.contract_type == ContractType::Erc721 {
            assert_eq!(nft.amount, Some(U256::from(1)));
        }
    }
    let hex = data
        .wallet_nfts(&WalletNftsQuery { format: TokenIdFormat::Hex, ..WalletNftsQuery::new(Chain::Eth, owner) })
        .unwrap();
    assert!(hex.iter().zip(&nfts).all(|(h, d)| h.token_id == format!("{:#x}", d.token_id.parse::<u64>().unwrap())));
    let bare = data
        .wallet_nfts(&WalletNftsQuery { normalize_metadata: false, ..WalletNftsQuery::new(Chain::Eth, owner) })
        .unwrap();
    assert!(bare.iter().all(|n| n.normalized_metadata.is_none() && n.media.is_none()));
    let with_media =
        data.wallet_nfts(&WalletNftsQuery { media_items: true, ..WalletNftsQuery::new(Chain::Eth, owner) }).unwrap();
    assert!(with_media.iter().all(|n| n.media.as_ref().is_some_and(|m| m.media_collection.is_some())));
    let one_collection = nfts[0].token_address;
    let filtered = data
        .wallet_nfts(&WalletNftsQuery {
            token_addresses: vec![one_collection],
            ..WalletNftsQuery::new(Chain::Eth, owner)
        })
        .unwrap();
    assert!(!filtered.is_empty() && filtered.iter().all(|n| n.token_address == one_collection));
    let airdropped =
        wallets.iter().copied().find(|w| nfts_of(*w).iter().any(|n| n.possible_spam == Some(true))).unwrap();
    let clean = data
        .wallet_nfts(&WalletNftsQuery { exclude_spam: true, ..WalletNftsQuery::new(Chain::Eth, airdropped) })
        .unwrap();
    assert!(clean.iter().all(|n| n.possible_spam == Some(false)));
}

#[test]
fn collections_count_the_wallets_tokens() {
    let (devnet, data) = default_eth();
    for wallet in devnet.sample_wallets(60) {
        let nfts = data.wallet_nfts(&WalletNftsQuery::new(Chain::Eth, wallet)).unwrap();
        let query = WalletCollectionsQuery {
            chain: Chain::Eth,
            address: wallet,
            at_block: None,
            exclude_spam: false,
            token_counts: true,
        };
        let collections = data.wallet_collections(&query).unwrap();
        for collection in &collections {
            let held = nfts.iter().filter(|n| n.token_address == collection.token_address).count() as u64;
            assert_eq!(collection.count, Some(held));
        }
        let uncounted = data.wallet_collections(&WalletCollectionsQuery { token_counts: false, ..query }).unwrap();
        assert!(uncounted.iter().all(|c| c.count.is_none()));
    }
}

#[test]
fn token_prices_follow_exchange_restrictions_and_refuse_what_has_no_pair() {
    let (_, data) = default_eth();
    let dual = data
        .world
        .tokens
        .iter()
        .enumerate()
        .find(|(i, t)| t.kind == TokenKind::Regular && data.world.pairs_of(Asset(*i as u16 + 1)).count() == 2)
        .map(|(_, t)| t.address)
        .expect("a token on both exchanges");
    let query = |exchange: Option<&str>| TokenPriceQuery {
        chain: Chain::Eth,
        address: dual,
        exchange: exchange.map(String::from),
        to_block: None,
        include_percent_change: true,
    };
    let best = data.token_price(&query(None)).unwrap();
    assert!(best.percent_change_24hr.is_some());
    for exchange in &data.world.exchanges {
        let by_name = data.token_price(&query(Some(&exchange.name.to_uppercase()))).unwrap();
        assert_eq!(by_name.exchange_name, exchange.name);
        let by_factory = data.token_price(&query(Some(&format!("{:#x}", exchange.factory)))).unwrap();
        assert_eq!(by_factory.pair_address, by_name.pair_address);
    }
    let unknown = data.token_price(&query(Some("NoSuchSwap"))).unwrap_err();
    assert!(matches!(&unknown, SourceError::UnknownExchange { known, .. } if known.len() == 2), "{unknown}");
    let unpaired = data.world.tokens.iter().filter(|t| t.kind == TokenKind::Spam).find(|t| {
        data.world.pairs.iter().all(|p| {
            data.world.asset_at(t.address) != Some(p.token0) && data.world.asset_at(t.address) != Some(p.token1)
        })
    });
    let unpaired = unpaired.expect("a spam token without a pair").address;
    assert_eq!(
        data.token_price(&TokenPriceQuery { address: unpaired, exchange: None, ..query(None) }).unwrap_err(),
        SourceError::NoPrice { token: unpaired, exchange: None }
    );
}

#[tokio::test]
async fn the_data_source_answers_through_the_trait() {
    let devnet = Devnet::new(9, Scale::TINY);
    let wallet = devnet.sample_wallets(1)[0];
    let tokens = devnet.wallet_tokens(WalletTokensQuery::new(Chain::Linea, wallet)).await.unwrap();
    assert!(!tokens.items.is_empty());
    let block = devnet.block(Chain::Linea, BlockRef::Latest, false).await.unwrap().unwrap();
    assert_eq!(Some(block.number), tokens.block_number.into());
    assert!(devnet.transaction(Chain::Linea, BlockRef::Number(u64::MAX), 0).await.unwrap().is_none());
    let streams = devnet.streams().to_vec();
    assert_eq!(streams.len(), 4);
    assert_eq!(DataSource::stream(&devnet, streams[2].id).await.unwrap(), Some(streams[2].clone()));
    assert_eq!(DataSource::stream(&devnet, uuid::Uuid::nil()).await.unwrap(), None);
    // Stream ids are stable for a seed, and differ between seeds.
    assert_eq!(Devnet::new(9, Scale::TINY).streams()[0].id, streams[0].id);
    assert_ne!(Devnet::new(10, Scale::TINY).streams()[0].id, streams[0].id);
}

#[test]
fn the_showcase_wallet_holds_every_token_and_some_blocks_are_full() {
    let (devnet, data) = default_eth();
    let showcase = devnet.sample_wallets(1)[0];
    let tokens = data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, showcase)).unwrap();
    assert!(tokens.items.len() >= 20, "{} tokens", tokens.items.len());
    let largest = data.blocks.iter().map(|b| b.tx_count).max().unwrap();
    assert_eq!(largest, devnet.scale().max_block_transactions);
}

#[test]
fn logs_stop_at_the_limit_with_an_error_that_names_it() {
    let (_, data) = default_eth();
    let query = |max_logs| w3api_source::LogQuery {
        chain: Chain::Eth,
        from_block: 0,
        to_block: data.latest(),
        filter: w3api_types::rpc::LogFilter::default(),
        max_logs,
    };
    let every = data.rpc_logs(&query(usize::MAX)).unwrap();
    assert_eq!(every.len(), data.logs.len(), "an empty filter passes every log of the chain");
    assert_eq!(data.rpc_logs(&query(every.len())).unwrap(), every, "exactly the limit is still an answer");
    let error = data.rpc_logs(&query(every.len() - 1)).unwrap_err();
    assert_eq!(error, SourceError::TooManyLogs { limit: every.len() - 1 });
    assert!(error.to_string().contains("narrow the block range"), "{error}");
}

#[test]
fn receipts_rebuild_each_block_receipts_root() {
    let (_, data) = default_eth();
    for number in [1, 9, 16, data.latest()] {
        let receipts = data.rpc_block_receipts(BlockRef::Number(number)).unwrap();
        let envelopes: Vec<_> =
            receipts.iter().map(|r| r.to_alloy().unwrap().inner.into_primitives_receipt()).collect();
        let root = if envelopes.is_empty() {
            alloy_consensus::EMPTY_ROOT_HASH
        } else {
            alloy_consensus::proofs::calculate_receipt_root(&envelopes)
        };
        assert_eq!(root, data.blocks[number as usize].header.receipts_root, "block {number}");
    }
}
