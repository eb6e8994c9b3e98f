//! What the data-source answers say: filters, formats, 24-hour changes,
//! exchanges, errors, and balances that agree with the transactions.

use std::sync::OnceLock;
use std::time::Duration;

use alloy_consensus::Transaction as _;
use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, sol};
use w3api_devnet::{Asset, BLOCKS_PER_DAY, ChainData, ChainRead, Devnet, Scale, TokenKind};
use w3api_source::prelude::*;
use w3api_source::{
    BlockRef, CollectionHolding, Contract, NftHolding, Page, PageRequest, SourceError, TokenHolding, TokenPriceQuery,
    WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery,
};
use w3api_types::{Chain, ContractType, NATIVE_TOKEN_ADDRESS, SyncStatus};

sol! {
    function transfer(address to, uint256 amount) returns (bool);
    function buy(address collection, uint256 tokenId, address seller, address paymentToken, uint256 price) payable;
}

/// The default-scale chain (over a day of blocks), generated once for all tests.
fn default_eth() -> (Devnet, ChainRead) {
    static DEVNET: OnceLock<Devnet> = OnceLock::new();
    let devnet = DEVNET.get_or_init(|| Devnet::new(0, Scale::DEFAULT)).clone();
    let data = devnet.chain(Chain::Eth);
    (devnet, data)
}

/// Every item of a listing, read in pages of `limit` as the server reads
/// them (so every query here also walks the source's page positions).
fn walk<T>(limit: usize, read: impl Fn(&PageRequest) -> Result<Page<T>, SourceError>) -> Vec<T> {
    let mut request = PageRequest::first(limit);
    let mut items = Vec::new();
    loop {
        let page = read(&request).unwrap();
        assert!(page.items.len() <= limit);
        items.extend(page.items);
        match page.next {
            Some(next) => request.after = Some(next),
            None => return items,
        }
    }
}

fn tokens(data: &ChainData, query: &WalletTokensQuery) -> Vec<TokenHolding> {
    walk(3, |page| data.wallet_tokens(query, page).map(|answer| answer.holdings))
}

fn nfts(data: &ChainData, query: &WalletNftsQuery) -> Vec<NftHolding> {
    walk(4, |page| data.wallet_nfts(query, page).map(|answer| answer.holdings))
}

fn collections(data: &ChainData, query: &WalletCollectionsQuery) -> Vec<CollectionHolding> {
    walk(2, |page| data.wallet_collections(query, page).map(|answer| answer.holdings))
}

/// A wallet with several tokens at the latest block.
fn busy_wallet(devnet: &Devnet, data: &ChainData) -> Address {
    let whole = PageRequest::first(usize::MAX);
    devnet
        .sample_wallets(200)
        .into_iter()
        .max_by_key(|w| {
            data.wallet_tokens(&WalletTokensQuery::new(Chain::Eth, *w), &whole).unwrap().holdings.items.len()
        })
        .unwrap()
}

fn asset_of(data: &ChainData, holding: &TokenHolding) -> Asset {
    if holding.token.native { Asset::NATIVE } else { data.world.asset_at(holding.token.address).unwrap() }
}

#[test]
fn wallet_tokens_are_priced_and_ordered_and_pages_join_up() {
    let (devnet, data) = default_eth();
    let wallet = busy_wallet(&devnet, &data);
    let query = WalletTokensQuery::new(Chain::Eth, wallet);
    let whole = data.wallet_tokens(&query, &PageRequest::first(usize::MAX)).unwrap();
    assert_eq!(whole.block_number, data.latest());
    assert_eq!(whole.holdings.next, None);
    let items = tokens(&data, &query);
    assert_eq!(items, whole.holdings.items, "pages of 3 join into the whole listing");
    assert!(items.len() >= 3, "{} tokens", items.len());
    assert!(items[0].token.native && items[0].token.address == NATIVE_TOKEN_ADDRESS);
    assert!(items[1..].iter().all(|i| !i.token.native));
    let values: Vec<f64> = items[1..].iter().map(|i| i.usd_value().unwrap_or(-1.0)).collect();
    assert!(values.windows(2).all(|w| w[0] >= w[1]), "ordered by value: {values:?}");
    let total: f64 = items.iter().filter_map(TokenHolding::usd_value).sum();
    assert!((total - whole.priced_total_usd).abs() <= total * 1e-12, "{total} vs {}", whole.priced_total_usd);
    for item in &items {
        assert!(item.balance > U256::ZERO);
        assert_eq!(item.usd_price, data.price(asset_of(&data, item), data.latest(), Default::default()).map(|p| p.usd));
    }
}

#[test]
fn day_old_prices_come_with_each_holding() {
    let (devnet, data) = default_eth();
    assert!(data.latest() > BLOCKS_PER_DAY, "the default chain is over a day long");
    let wallet = busy_wallet(&devnet, &data);
    let day_before = data.latest() - BLOCKS_PER_DAY;
    let mut checked = 0;
    for item in tokens(&data, &WalletTokensQuery::new(Chain::Eth, wallet)).iter().filter(|i| i.usd_price.is_some()) {
        let then = data.price(asset_of(&data, item), day_before, Default::default()).map(|p| p.usd);
        assert_eq!(item.usd_price_day_before, then);
        checked += 1;
    }
    assert!(checked > 0);
    // Before a day has passed there is nothing to compare with.
    let early = WalletTokensQuery { to_block: Some(BLOCKS_PER_DAY - 1), ..WalletTokensQuery::new(Chain::Eth, wallet) };
    assert!(tokens(&data, &early).iter().all(|i| i.usd_price_day_before.is_none()));
}

#[test]
fn wallet_token_filters_each_do_what_they_say() {
    let (devnet, data) = default_eth();
    let wallets = devnet.sample_wallets(200);
    let all = |w: Address| tokens(&data, &WalletTokensQuery::new(Chain::Eth, w));
    let with = |w: Address, edit: &dyn Fn(&mut WalletTokensQuery)| {
        let mut query = WalletTokensQuery::new(Chain::Eth, w);
        edit(&mut query);
        tokens(&data, &query)
    };
    let spammed =
        wallets.iter().copied().find(|w| all(*w).iter().any(|i| i.token.possible_spam)).expect("spam reached a wallet");
    assert!(with(spammed, &|q| q.exclude_spam = true).iter().all(|i| !i.token.possible_spam));
    assert!(with(spammed, &|q| q.exclude_native = true).iter().all(|i| !i.token.native));
    let unverified = wallets.iter().copied().find(|w| all(*w).iter().any(|i| !i.token.verified_contract)).unwrap();
    assert!(with(unverified, &|q| q.exclude_unverified_contracts = true).iter().all(|i| i.token.verified_contract));
    let items = all(spammed);
    let chosen = items.last().unwrap().token.address;
    let only = with(spammed, &|q| q.token_addresses = vec![chosen]);
    assert_eq!(only.len(), 1);
    assert_eq!(only[0].token.address, chosen);
    // The native currency answers to its 0xeeee… address.
    assert!(with(spammed, &|q| q.token_addresses = vec![NATIVE_TOKEN_ADDRESS]).iter().all(|i| i.token.native));
    // No pair has a side worth a trillion dollars, so nothing is priced.
    assert!(with(spammed, &|q| q.min_pair_side_liquidity_usd = Some(1e12)).iter().all(|i| i.usd_price.is_none()));
    // Zero days of inactivity allowed: only tokens that moved in the very block remain.
    let block = data.latest();
    for item in with(spammed, &|q| q.max_token_inactivity_days = Some(0)) {
        assert_eq!(data.ledger.last_activity(asset_of(&data, &item), block as u32), Some(block as u32));
    }
}

#[test]
fn a_block_past_the_newest_is_an_error() {
    let (devnet, data) = default_eth();
    let wallet = devnet.sample_wallets(1)[0];
    let query = WalletTokensQuery { to_block: Some(data.latest() + 1), ..WalletTokensQuery::new(Chain::Eth, wallet) };
    let error = data.wallet_tokens(&query, &PageRequest::first(10)).map(|_| ()).unwrap_err();
    let (requested, latest) = (data.latest() + 1, data.latest());
    assert!(matches!(error, SourceError::BlockOutOfRange { requested: r, latest: l } if (r, l) == (requested, latest)));
}

#[test]
fn a_position_the_source_did_not_write_is_refused() {
    let (devnet, data) = default_eth();
    let query = WalletTokensQuery::new(Chain::Eth, devnet.sample_wallets(1)[0]);
    let forged = PageRequest { limit: 5, after: Some(w3api_source::PagePosition("0x12:oops".into())) };
    let error = data.wallet_tokens(&query, &forged).map(|_| ()).unwrap_err();
    assert!(matches!(error, SourceError::BadPosition), "{error}");
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
        for item in tokens(&data, &WalletTokensQuery::new(Chain::Eth, wallet)) {
            if item.token.native {
                continue;
            }
            let token = item.token.address;
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
    let nfts_of = |w: Address| nfts(&data, &WalletNftsQuery::new(Chain::Eth, w));
    let owner = wallets.iter().copied().max_by_key(|w| nfts_of(*w).len()).unwrap();
    let held = nfts_of(owner);
    assert!(held.len() >= 3, "{} NFTs", held.len());
    let keys: Vec<_> = held.iter().map(|n| (n.collection.address, n.token_id)).collect();
    assert!(keys.windows(2).all(|w| w[0] < w[1]), "ordered by collection then id, each once");
    for nft in &held {
        let metadata: serde_json::Value = serde_json::from_str(nft.metadata.as_deref().unwrap()).unwrap();
        assert_eq!(metadata["name"], nft.normalized_metadata.as_ref().unwrap().name.clone().unwrap());
        assert!(nft.media.as_ref().is_some_and(|m| m.media_collection.is_some()));
        assert!(nft.rarity.as_ref().is_some_and(|r| r.rank >= 1));
        assert!(nft.block_number >= nft.block_number_minted);
        assert_eq!(nft.owner, Some(owner));
        if nft.collection.contract_type == ContractType::Erc721 {
            assert_eq!(nft.amount, U256::from(1));
        }
        assert_eq!(nft.prices, None, "prices only when asked");
    }
    let one_collection = held[0].collection.address;
    let filtered = nfts(
        &data,
        &WalletNftsQuery { token_addresses: vec![one_collection], ..WalletNftsQuery::new(Chain::Eth, owner) },
    );
    assert!(!filtered.is_empty() && filtered.iter().all(|n| n.collection.address == one_collection));
    let airdropped = wallets.iter().copied().find(|w| nfts_of(*w).iter().any(|n| n.collection.possible_spam)).unwrap();
    let clean = nfts(&data, &WalletNftsQuery { exclude_spam: true, ..WalletNftsQuery::new(Chain::Eth, airdropped) });
    assert!(clean.iter().all(|n| !n.collection.possible_spam));
    let priced = nfts(&data, &WalletNftsQuery { include_prices: true, ..WalletNftsQuery::new(Chain::Eth, owner) });
    assert!(priced.iter().all(|n| n.prices.is_some()), "asked-for prices are there, null fields where no sale");
}

#[test]
fn collections_count_the_wallets_tokens() {
    let (devnet, data) = default_eth();
    for wallet in devnet.sample_wallets(60) {
        let held = nfts(&data, &WalletNftsQuery::new(Chain::Eth, wallet));
        let query = WalletCollectionsQuery {
            chain: Chain::Eth,
            address: wallet,
            at_block: None,
            exclude_spam: false,
            include_prices: false,
        };
        let listed = collections(&data, &query);
        for collection in &listed {
            let count = held.iter().filter(|n| n.collection.address == collection.collection.address).count();
            assert_eq!(collection.token_count, count as u64);
        }
        let mut distinct: Vec<_> = held.iter().map(|n| n.collection.address).collect();
        distinct.dedup();
        assert_eq!(listed.iter().map(|c| c.collection.address).collect::<Vec<_>>(), distinct);
    }
}

#[tokio::test]
async fn collections_named_in_a_filter_sync_after_the_delay() {
    let devnet = Devnet::new(0, Scale::TINY).with_index_delay(Duration::from_millis(300));
    let data = devnet.chain(Chain::Eth);
    let (owner, collection) = devnet
        .sample_wallets(20)
        .into_iter()
        .find_map(|w| nfts(&data, &WalletNftsQuery::new(Chain::Eth, w)).first().map(|n| (w, n.collection.address)))
        .expect("a sample wallet holding an NFT");
    let status = async |filter: Vec<Address>| {
        let query = WalletNftsQuery { token_addresses: filter, ..WalletNftsQuery::new(Chain::Eth, owner) };
        let nfts = devnet.wallet_nfts(query, PageRequest::first(100)).await.unwrap().status;
        let query = WalletCollectionsQuery {
            chain: Chain::Eth,
            address: owner,
            at_block: None,
            exclude_spam: false,
            include_prices: false,
        };
        let collections = devnet.wallet_collections(query, PageRequest::first(100)).await.unwrap().status;
        assert_eq!(nfts, collections, "both listings concern the wallet's collections");
        nfts
    };
    assert_eq!(status(vec![]).await, SyncStatus::Synced, "nothing asked for by name yet");
    assert_eq!(status(vec![collection]).await, SyncStatus::Syncing);
    assert_eq!(status(vec![]).await, SyncStatus::Syncing, "the wallet's result holds a collection being indexed");
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(status(vec![collection]).await, SyncStatus::Synced, "indexed, and a second request does not restart it");
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
        max_token_inactivity_days: None,
        min_pair_side_liquidity_usd: None,
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
    let error = data.token_price(&TokenPriceQuery { address: unpaired, exchange: None, ..query(None) }).unwrap_err();
    assert!(matches!(&error, SourceError::NoPrice { token, exchange: None } if *token == unpaired), "{error}");
}

#[tokio::test]
async fn the_data_source_answers_through_the_trait() {
    let devnet = Devnet::new(9, Scale::TINY);
    let wallet = devnet.sample_wallets(1)[0];
    let tokens =
        devnet.wallet_tokens(WalletTokensQuery::new(Chain::Linea, wallet), PageRequest::first(2)).await.unwrap();
    assert!(!tokens.holdings.items.is_empty());
    let block = devnet.block(Chain::Linea, BlockRef::Latest, false).await.unwrap().unwrap();
    assert_eq!(Some(block.number), tokens.block_number.into());
    assert!(devnet.transaction(Chain::Linea, BlockRef::Number(u64::MAX), 0).await.unwrap().is_none());
    let data = devnet.chain(Chain::Linea);
    let (token, collection) = (&data.world.tokens[0], &data.world.collections[0]);
    let (token_address, collection_address) = (token.address, collection.address);
    let (token_symbol, collection_name) = (token.symbol.clone(), collection.name.clone());
    drop(data);
    let known = devnet.contracts(Chain::Linea, vec![wallet, collection_address, token_address]).await.unwrap();
    assert!(
        matches!(&known[..], [Contract::Collection(c), Contract::Token(t)]
            if c.address == collection_address && c.name == collection_name
                && t.address == token_address && t.symbol == token_symbol),
        "a wallet is neither; the others come in the order asked: {known:?}"
    );
}

#[test]
fn the_showcase_wallet_holds_every_token_and_some_blocks_are_full() {
    let (devnet, data) = default_eth();
    let showcase = devnet.sample_wallets(1)[0];
    let held = tokens(&data, &WalletTokensQuery::new(Chain::Eth, showcase));
    assert!(held.len() >= 20, "{} tokens", held.len());
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
    assert!(matches!(error, SourceError::TooManyLogs { limit } if limit == every.len() - 1), "{error}");
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
