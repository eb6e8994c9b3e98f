//! Streams over HTTP, through the generated client: the management API on
//! the store, and deliveries to a local receiver for blocks the test makes,
//! signed, matching the chain's own logs, retried on the configured
//! schedule, and recorded in the history.

use std::time::Duration;

use serde_json::json;
use uuid::Uuid;
use w3api_devnet::BlockPlan;
use w3api_rest::Error as RestError;
use w3api_server::ServerConfig;
use w3api_source::{Blocks, ChainControl, NewToken};
use w3api_streams::StreamsConfig;
use w3api_testkit::{Received, Webhooks};
use w3api_tests::local::{Local, Session, Setup};
use w3api_types::rpc::{LogFilter, TopicFilter};
use w3api_types::{
    AbiItem, AbiParameter, AddressList, Chain, DeliveryStatus, EvmStream, EvmStreamCreate, EvmStreamUpdate,
    StreamAddressChange, StreamHistoryPage, StreamSettings, StreamStatus, StreamStatusUpdate, StreamWebhook,
    TransactionHash, U256,
};

/// keccak256("Transfer(address,address,uint256)").
const TRANSFER: &str = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
const WAIT: Duration = Duration::from_secs(20);

/// A server whose streams confirm after 2 blocks and retry twice, quickly.
fn server() -> Local {
    Setup::new()
        .config(|config| ServerConfig {
            streams: StreamsConfig {
                retries: vec![Duration::from_millis(200), Duration::from_millis(200)],
                confirmations: Some(2),
                poll: Duration::from_millis(50),
                ..StreamsConfig::default()
            },
            ..config
        })
        .start()
}

/// Every ERC20 and ERC721 `Transfer` on eth, whoever is involved.
fn every_transfer(webhook_url: &str) -> EvmStreamCreate {
    let param = |name: &str, kind: &str, indexed: bool| AbiParameter {
        name: name.into(),
        kind: kind.into(),
        indexed: Some(indexed),
        components: None,
        internal_type: None,
    };
    EvmStreamCreate {
        webhook_url: webhook_url.into(),
        description: "every transfer".into(),
        tag: "transfers".into(),
        topic0: Some(vec!["Transfer(address,address,uint256)".into()]),
        all_addresses: Some(true),
        include_contract_logs: Some(true),
        abi: Some(vec![AbiItem {
            anonymous: Some(false),
            inputs: Some(vec![
                param("from", "address", true),
                param("to", "address", true),
                param("value", "uint256", false),
            ]),
            name: Some("Transfer".into()),
            kind: Some("event".into()),
            ..AbiItem::default()
        }]),
        chain_ids: vec!["0x1".into()],
        ..EvmStreamCreate::default()
    }
}

fn create(session: &Session<'_>, body: EvmStreamCreate) -> EvmStream {
    session.run(async { session.rest().streams().create_stream().body(body).send().await.unwrap().into_inner() })
}

fn secret(session: &Session<'_>) -> String {
    let settings = session.run(async { session.rest().streams().get_settings().send().await.unwrap().into_inner() });
    settings.secret_key.expect("a secret is always set")
}

/// A new token and a new wallet (blocks made before a test's stream exists).
fn new_token(session: &Session<'_>) -> (alloy_primitives::Address, alloy_primitives::Address) {
    let devnet = session.devnet().clone();
    session.run(async move {
        let token = NewToken {
            name: "Streamed".into(),
            symbol: "STRM".into(),
            decimals: 6,
            logo: None,
            spam: false,
            verified: true,
            usd_price: None,
            liquidity_usd: None,
            supply: Some(U256::from(1)),
        };
        let token = devnet.create_token(Chain::Eth, token).await.unwrap();
        let wallet = devnet.create_wallet(Chain::Eth, U256::ZERO).await.unwrap();
        (token, wallet.address)
    })
}

/// 2.5 tokens minted: a block with one `Transfer` from zero; its number.
fn mint(session: &Session<'_>, (token, wallet): (alloy_primitives::Address, alloy_primitives::Address)) -> u64 {
    let devnet = session.devnet().clone();
    session.run(async move {
        devnet.mint_token(Chain::Eth, token, wallet, U256::from(2_500_000)).await.unwrap();
        devnet.latest_block(Chain::Eth).await.unwrap()
    })
}

fn deliveries_of(received: &[Received], block: u64, confirmed: bool) -> Vec<&Received> {
    received
        .iter()
        .filter(|r| r.webhook.as_ref().is_some_and(|w| w.block.number == block.to_string() && w.confirmed == confirmed))
        .collect()
}

/// The stream once it went to status `error` (within five seconds).
fn errored(session: &Session<'_>, id: Uuid) -> EvmStream {
    let rest = session.rest();
    let streams = rest.streams();
    session.run(async {
        for _ in 0..100 {
            let now = streams.get_stream().id(id).send().await.unwrap().into_inner();
            if now.status == StreamStatus::Error {
                return now;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("the stream never went to status error")
    })
}

fn webhook(received: &Received) -> &StreamWebhook {
    received.webhook.as_ref().expect("a payload")
}

#[test]
fn a_stream_gets_the_test_webhook_then_signed_deliveries_of_the_blocks_logs() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let stream = create(&session, every_transfer(webhooks.url()));
    assert_eq!((stream.status.clone(), stream.amount_of_addresses), (StreamStatus::Active, Some(0)));
    let secret = secret(&session);
    let received = webhooks.received();
    assert!(received.len() == 1 && received[0].is_test() && received[0].verifies(&secret), "the test webhook first");

    let devnet = session.devnet().clone();
    let first = session.run(async { devnet.latest_block(Chain::Eth).await.unwrap() }) + 1;
    session.run(async { devnet.mine_blocks(Chain::Eth, 4, BlockPlan::activity()).await.unwrap() });
    let last = first + 3;
    let rpc = session.rpc();
    let logs_of = |block: u64| {
        session.run(async {
            let filter = LogFilter {
                block_hash: None,
                from_block: Some(block.into()),
                to_block: Some(block.into()),
                address: None,
                topics: Some(vec![TopicFilter::One(TRANSFER.parse().unwrap())]),
            };
            rpc.get_logs(filter).await.unwrap()
        })
    };
    let with_transfers: Vec<u64> = (first..=last).filter(|block| !logs_of(*block).is_empty()).collect();
    // Each block with a transfer, unconfirmed; those up to `last - 2` (2 deep) confirmed too.
    let delivered_both_ways = |r: &[Received]| {
        with_transfers.iter().all(|block| {
            !deliveries_of(r, *block, false).is_empty()
                && (*block > last - 2 || !deliveries_of(r, *block, true).is_empty())
        })
    };
    let all = session.run(webhooks.wait_for(WAIT, delivered_both_ways)).unwrap();
    for delivery in all.iter().filter(|r| !r.is_test()) {
        assert!(delivery.verifies(&secret), "every delivery is signed with the project's secret");
        assert_eq!(delivery.answered, 200);
    }
    for block in first..=last {
        let chain_logs = logs_of(block);
        let unconfirmed = deliveries_of(&all, block, false);
        if chain_logs.is_empty() {
            assert!(unconfirmed.is_empty(), "block {block} has no transfer, so nothing is delivered for it");
            continue;
        }
        assert_eq!(unconfirmed.len(), 1, "block {block} is delivered once unconfirmed");
        let payload = webhook(unconfirmed[0]);
        let chain_block = session.run(async { rpc.get_block_by_number(block.into(), false).await.unwrap().unwrap() });
        assert_eq!(payload.block.hash, format!("{:#x}", chain_block.hash));
        assert_eq!(payload.block.timestamp, chain_block.timestamp.to_string());
        assert_eq!((payload.stream_id.as_str(), payload.tag.as_str()), (stream.id.to_string().as_str(), "transfers"));
        let delivered: Vec<_> = payload
            .logs
            .iter()
            .map(|log| {
                (
                    log.address.clone(),
                    log.log_index.clone(),
                    log.transaction_hash.clone(),
                    log.data.clone(),
                    log.topic1.clone(),
                )
            })
            .collect();
        let expected: Vec<_> = chain_logs
            .iter()
            .map(|log| {
                (
                    format!("{:#x}", log.address),
                    log.log_index.unwrap().to_string(),
                    format!("{:#x}", log.transaction_hash.unwrap()),
                    log.data.to_string(),
                    log.topics.get(1).map(|t| format!("{t:#x}")),
                )
            })
            .collect();
        assert_eq!(delivered, expected, "block {block}: the payload's logs are eth_getLogs' for the stream's topic");
        let fungible = chain_logs.iter().filter(|log| log.topics.len() == 3).count();
        let nft = chain_logs.iter().filter(|log| log.topics.len() == 4).count();
        assert_eq!((payload.erc20_transfers.len(), payload.nft_transfers.len()), (fungible, nft));
        if block <= last - 2 {
            let confirmed = deliveries_of(&all, block, true);
            assert_eq!(confirmed.len(), 1, "block {block} is delivered again confirmed");
            assert_eq!(webhook(confirmed[0]).logs, payload.logs);
        }
    }
    let history =
        session.run(async { session.rest().streams().get_history().limit(100u64).send().await.unwrap().into_inner() });
    let delivered = all.iter().filter(|r| !r.is_test()).count() as u64;
    assert_eq!(history.total, delivered, "the history holds every delivery (not the test webhook)");
    session.finish();
}

#[test]
fn a_receiver_that_fails_twice_gets_the_delivery_on_the_third_attempt_with_retries_2() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let token = new_token(&session);
    let stream = create(&session, every_transfer(webhooks.url()));
    webhooks.fail_next(2);
    let block = mint(&session, token);
    let all = session.run(webhooks.wait_for(WAIT, |r| deliveries_of(r, block, false).len() == 3)).unwrap();
    let token = token.0;
    let attempts = deliveries_of(&all, block, false);
    let seen: Vec<(u64, u16)> = attempts.iter().map(|r| (webhook(r).retries, r.answered)).collect();
    assert_eq!(seen, vec![(0, 500), (1, 500), (2, 200)]);
    let transfer = &webhook(attempts[2]).erc20_transfers[0];
    assert_eq!((transfer.contract.clone(), transfer.value.clone()), (format!("{token:#x}"), "2500000".to_string()));
    assert_eq!((transfer.token_symbol.as_str(), transfer.value_with_decimals.as_str()), ("STRM", "2.5"));
    let secret = secret(&session);
    assert!(attempts.iter().all(|r| r.verifies(&secret)), "each attempt is signed over its own body");

    let logs = session.run(async { session.rest().streams().get_delivery_logs().limit(100u64).send().await.unwrap() });
    let of_block: Vec<_> = logs.result.iter().filter(|l| l.block_number == block).collect();
    let outcomes: Vec<_> =
        of_block.iter().rev().map(|l| (l.retries, l.delivery_status.clone(), l.status_code)).collect();
    assert_eq!(
        outcomes,
        vec![
            (0, DeliveryStatus::Failed, Some(500)),
            (1, DeliveryStatus::Failed, Some(500)),
            (2, DeliveryStatus::Success, Some(200))
        ]
    );
    assert!(of_block.iter().all(|l| l.stream_id == stream.id.to_string() && l.kind == "evm"));
    let stats = session.run(async {
        session.rest().streams().get_stats_by_stream_id().stream_id(stream.id).send().await.unwrap().into_inner()
    });
    assert!(stats.total_webhooks_failed >= 2 && stats.total_webhooks_delivered >= 1, "{stats:?}");
    session.finish();
}

#[test]
fn a_delivery_out_of_retries_puts_its_stream_in_error_and_a_replay_sends_it_again() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let token = new_token(&session);
    let stream = create(&session, every_transfer(webhooks.url()));
    webhooks.fail_next(3);
    let block = mint(&session, token);
    session.run(webhooks.wait_for(WAIT, |r| deliveries_of(r, block, false).len() == 3)).unwrap();
    let rest = session.rest();
    let streams = rest.streams();
    let errored = errored(&session, stream.id);
    assert!(errored.status_message.contains("failed after 3 attempts"), "{}", errored.status_message);
    let history = session.run(async { streams.get_history().limit(10u64).stream_id(stream.id).send().await.unwrap() });
    let failed = history.result.iter().find(|h| h.tiny_payload.block == block.to_string()).unwrap();
    assert_eq!(failed.tiny_payload.retries, 2, "the last payload sent said 2 retries");
    assert!(failed.error_message.contains("HTTP 500"), "{}", failed.error_message);

    let replayed = session
        .run(async { streams.replay_history().stream_id(stream.id).id(failed.id).send().await.unwrap().into_inner() });
    assert_eq!(replayed.id, failed.id);
    let all = session.run(webhooks.wait_for(WAIT, |r| deliveries_of(r, block, false).len() == 4)).unwrap();
    let again = deliveries_of(&all, block, false)[3];
    assert_eq!((webhook(again).retries, again.answered), (3, 200), "the replay is a fourth attempt, delivered");
    let unknown = session.run(async { streams.replay_history().stream_id(stream.id).id(Uuid::new_v4()).send().await });
    assert_eq!(unknown.unwrap_err().status(), Some(reqwest::StatusCode::NOT_FOUND));
    session.finish();
}

/// A receiver on 127.0.0.2, which the server's `--webhook-host 127.0.0.1`
/// does not allow; `None` (with the reason printed) where that address
/// cannot be bound, which is only allowed off Linux.
fn receiver_elsewhere(session: &Session<'_>) -> Option<Webhooks> {
    match session.run(Webhooks::start_on(std::net::Ipv4Addr::new(127, 0, 0, 2))) {
        Ok(webhooks) => Some(webhooks),
        Err(error) if !cfg!(target_os = "linux") => {
            eprintln!("skipped: 127.0.0.2 cannot be bound here ({error}); alias it to lo0 to run this test");
            None
        }
        Err(error) => panic!("binding 127.0.0.2 on Linux: {error}"),
    }
}

#[test]
fn webhooks_never_follow_a_redirect_off_the_allowed_hosts() {
    let local = Setup::new()
        .config(|config| ServerConfig {
            streams: StreamsConfig {
                retries: vec![Duration::from_millis(100)],
                confirmations: Some(2),
                poll: Duration::from_millis(50),
                webhook_hosts: vec!["127.0.0.1".into()],
                ..StreamsConfig::default()
            },
            ..config
        })
        .start();
    let session = local.session();
    let Some(elsewhere) = receiver_elsewhere(&session) else { return };
    let allowed = session.run(Webhooks::start());
    let rest = session.rest();
    let streams = rest.streams();

    // The test webhook is redirected: the stream is refused.
    allowed.redirect_to(Some(elsewhere.url()));
    let refused = session.run(streams.create_stream().body(every_transfer(allowed.url())).send()).unwrap_err();
    assert_eq!(refused.status(), Some(reqwest::StatusCode::BAD_REQUEST));
    assert_eq!(allowed.received().len(), 1, "the test webhook reached the allowed receiver once");

    // Deliveries are redirected: each attempt fails, naming where it pointed.
    allowed.redirect_to(None);
    let token = new_token(&session);
    let stream = create(&session, every_transfer(allowed.url()));
    allowed.redirect_to(Some(elsewhere.url()));
    let block = mint(&session, token);
    session.run(allowed.wait_for(WAIT, |r| deliveries_of(r, block, false).len() == 2)).unwrap();
    let errored = errored(&session, stream.id);
    assert!(errored.status_message.contains("do not follow redirects"), "{}", errored.status_message);
    let logs = session.run(async { streams.get_delivery_logs().limit(100u64).send().await.unwrap() });
    let of_block: Vec<_> = logs.result.iter().filter(|l| l.block_number == block).collect();
    assert_eq!(of_block.len(), 2, "{of_block:?}");
    for log in of_block {
        assert_eq!((log.delivery_status.clone(), log.status_code), (DeliveryStatus::Failed, Some(307)));
        assert!(log.error_message.contains(elsewhere.url()), "the Location is recorded: {}", log.error_message);
    }
    assert!(elsewhere.received().is_empty(), "127.0.0.2 got {} requests", elsewhere.received().len());
    session.finish();
}

/// The blocks of `page`'s deliveries, as numbers.
fn blocks_of(page: &StreamHistoryPage) -> Vec<u64> {
    page.result.iter().map(|item| item.tiny_payload.block.parse().unwrap()).collect()
}

#[test]
fn history_logs_and_streams_are_filtered_by_productions_parameters() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let rest = session.rest();
    let streams = rest.streams();
    let token = new_token(&session);
    let stream = create(&session, every_transfer(webhooks.url()));
    let paused = create(&session, every_transfer(webhooks.url()));
    let status = StreamStatusUpdate { status: StreamStatus::Paused };
    session.run(streams.update_stream_status().id(paused.id).body(status).send()).unwrap();
    let started = chrono::Utc::now().timestamp() - 1;
    let first = mint(&session, token);
    session.run(webhooks.wait_for(WAIT, |r| !deliveries_of(r, first, false).is_empty())).unwrap();
    webhooks.fail_next(1);
    let second = mint(&session, token);
    let all = session.run(webhooks.wait_for(WAIT, |r| deliveries_of(r, second, false).len() == 2)).unwrap();
    let hash: TransactionHash = webhook(deliveries_of(&all, first, false)[0]).logs[0].transaction_hash.parse().unwrap();

    let history = |build: &dyn Fn(
        w3api_rest::streams::builder::GetHistory<'_>,
    ) -> w3api_rest::streams::builder::GetHistory<'_>| {
        session.run(build(streams.get_history().limit(100u64)).send()).unwrap().into_inner()
    };
    let carried = history(&|h| h.transaction_hash(hash));
    assert_eq!((blocks_of(&carried), carried.total), (vec![first], 1), "only the delivery that carries it");
    let second_only = history(&|h| h.block_number(vec![second]));
    assert_eq!(blocks_of(&second_only), vec![second]);
    assert!(history(&|h| h.chain_id(vec![Chain::Polygon])).result.is_empty(), "no delivery on polygon");
    assert_eq!(history(&|h| h.chain_id(vec![Chain::Eth, Chain::Polygon])).total, 2, "one of the chains");
    let later = (chrono::Utc::now().timestamp() + 3600) as f64;
    assert!(history(&|h| h.from_timestamp(later)).result.is_empty(), "nothing from an hour ahead");
    let backwards = history(&|h| h.from_timestamp(later).to_timestamp(started as f64));
    assert_eq!(backwards.total, 0, "a window that ends before it starts holds nothing");
    assert_eq!(history(&|h| h.from_timestamp(started as f64).to_timestamp(later)).total, 2);
    let in_millis = history(&|h| h.from_timestamp(started as f64 * 1000.0).stream_id(stream.id));
    assert_eq!(in_millis.total, 2, "a time of 10^12 or more is read in milliseconds");
    // The JS SDK sends arrays with brackets; a raw request says so too.
    let bracketed = session.get("/history", &format!("/history?limit=10&chainId[]=0x1&blockNumber[]={first}"));
    assert_eq!((bracketed.status, bracketed.body["total"].as_u64()), (200, Some(1)), "{}", bracketed.text);

    let logs = |query: &str| {
        let answer = session.get("/history/logs", &format!("/history/logs?limit=100&{query}"));
        assert_eq!(answer.status, 200, "{query}: {}", answer.text);
        answer.body["result"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| (l["blockNumber"].as_u64().unwrap(), l["deliveryStatus"].as_str().unwrap().to_owned()))
            .collect::<Vec<_>>()
    };
    assert_eq!(logs("deliveryStatus=failed"), vec![(second, "failed".to_owned())], "the one refused attempt");
    let of_stream = logs(&format!("streamId={}&deliveryStatus=success&blockNumber={second}", stream.id));
    assert_eq!(of_stream, vec![(second, "success".to_owned())]);
    assert_eq!(logs(&format!("transactionHash={hash:#x}")), vec![(first, "success".to_owned())]);
    assert_eq!(logs(&format!("streamId={}", paused.id)), vec![], "the paused stream got nothing");

    let listed = |status: StreamStatus| {
        let page = session.run(streams.get_streams().limit(10u64).status(status).send()).unwrap().into_inner();
        page.result.iter().map(|s| s.id).collect::<Vec<_>>()
    };
    assert_eq!(listed(StreamStatus::Paused), vec![paused.id]);
    assert_eq!(listed(StreamStatus::Active), vec![stream.id]);
    assert!(listed(StreamStatus::Error).is_empty());

    for (path, name) in [
        ("/history?limit=5&transactionHash=0x12", "transactionHash"),
        ("/history?limit=5&blockNumber=-1", "blockNumber"),
        ("/history?limit=5&fromTimestamp=soon", "fromTimestamp"),
        ("/history/logs?limit=5&deliveryStatus=lost", "deliveryStatus"),
        ("/history/logs?limit=5&streamId=12", "streamId"),
        ("/streams/evm?limit=5&status=deleted", "status"),
    ] {
        let template = path.split('?').next().unwrap();
        let answer = session.get(template, path);
        assert_eq!(answer.status, 400, "{path}: {}", answer.text);
        assert!(answer.text.contains(name), "{path} names {name}: {}", answer.text);
    }
    session.finish();
}

#[test]
fn a_stream_is_managed_through_the_api_and_watched_addresses_select_what_it_gets() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let rest = session.rest();
    let streams = rest.streams();
    let only_native = EvmStreamCreate {
        include_native_txs: Some(true),
        include_contract_logs: Some(false),
        all_addresses: None,
        topic0: None,
        abi: None,
        ..every_transfer(webhooks.url())
    };
    let stream = create(&session, only_native);
    let devnet = session.devnet().clone();
    let wallets: Vec<String> = session.run(async {
        let mut wallets = Vec::new();
        for _ in 0..3 {
            wallets.push(format!("{:#x}", devnet.create_wallet(Chain::Eth, U256::ZERO).await.unwrap().address));
        }
        wallets
    });
    let change = |list: AddressList| StreamAddressChange { address: list };
    session.run(async {
        streams
            .add_address_to_stream()
            .id(stream.id)
            .body(change(AddressList::Many(wallets.clone())))
            .send()
            .await
            .unwrap();
        let page = streams.get_stream_addresses().id(stream.id).limit(2u64).send().await.unwrap().into_inner();
        assert_eq!((page.result.len(), page.total), (2, 3));
        let rest =
            streams.get_stream_addresses().id(stream.id).limit(2u64).cursor(page.cursor.unwrap()).send().await.unwrap();
        assert_eq!(rest.result.len(), 1);
        assert!(rest.cursor.is_none());
        streams
            .replace_stream_addresses()
            .id(stream.id)
            .body(change(AddressList::One(wallets[0].clone())))
            .send()
            .await
            .unwrap();
        let after = streams.get_stream_addresses().id(stream.id).limit(10u64).send().await.unwrap().into_inner();
        assert_eq!(after.result.iter().map(|a| a.address.clone()).collect::<Vec<_>>(), vec![wallets[0].clone()]);
        let shown = streams.get_stream().id(stream.id).send().await.unwrap().into_inner();
        assert_eq!(shown.amount_of_addresses, Some(1));
    });
    // The one watched wallet receives native currency: that transaction is delivered, with nothing else.
    let watched: alloy_primitives::Address = wallets[0].parse().unwrap();
    let block = session.run(pay(&session, watched, 10u128.pow(18)));
    let all = session.run(webhooks.wait_for(WAIT, |r| !deliveries_of(r, block, false).is_empty())).unwrap();
    let payload = webhook(deliveries_of(&all, block, false)[0]);
    assert!(payload.logs.is_empty());
    assert!(
        payload
            .txs
            .iter()
            .all(|tx| tx.to_address.as_deref() == Some(wallets[0].as_str()) || tx.from_address == wallets[0])
    );
    assert_eq!(payload.txs.len(), 1, "{:?}", payload.txs);

    session.run(async {
        let paused = streams
            .update_stream_status()
            .id(stream.id)
            .body(StreamStatusUpdate { status: StreamStatus::Paused })
            .send()
            .await
            .unwrap();
        assert_eq!((paused.status.clone(), paused.status_message.as_str()), (StreamStatus::Paused, "Stream is paused"));
        let renamed = EvmStreamUpdate { description: Some("renamed".into()), ..EvmStreamUpdate::default() };
        let updated = streams.update_stream().id(stream.id).body(renamed).send().await.unwrap().into_inner();
        assert_eq!((updated.description.as_str(), updated.include_native_txs), ("renamed", Some(true)));
        let copy = streams.duplicate_stream().id(stream.id).send().await.unwrap().into_inner();
        assert_ne!(copy.id, stream.id);
        assert_eq!((copy.description.as_str(), copy.amount_of_addresses), ("renamed", Some(1)));
        let listed = streams.get_streams().limit(1u64).send().await.unwrap().into_inner();
        assert_eq!((listed.result.len(), listed.total), (1, 2));
        let second = streams.get_streams().limit(1u64).cursor(listed.cursor.unwrap()).send().await.unwrap();
        assert_eq!(second.result[0].id, copy.id, "oldest first");
        let deleted = streams.delete_stream().id(copy.id).send().await.unwrap();
        assert_eq!(deleted.id, copy.id);
        let gone = streams.get_stream().id(copy.id).send().await.unwrap_err();
        assert_eq!(gone.status(), Some(reqwest::StatusCode::NOT_FOUND));
        let new_secret = StreamSettings { secret_key: Some("rotated-secret".into()), region: None };
        let settings = streams.set_settings().body(new_secret).send().await.unwrap().into_inner();
        assert_eq!(settings.secret_key.as_deref(), Some("rotated-secret"));
    });
    // A paused stream gets nothing; resumed, it gets the next block, signed with the new secret.
    let before = webhooks.received().len();
    session.run(pay(&session, watched, 2 * 10u128.pow(18)));
    session.run(async { tokio::time::sleep(Duration::from_millis(500)).await });
    assert_eq!(webhooks.received().len(), before, "nothing is delivered to a paused stream");
    let resumed = session.run(async {
        let active = StreamStatusUpdate { status: StreamStatus::Active };
        streams.update_stream_status().id(stream.id).body(active).send().await.unwrap();
        pay(&session, watched, 3 * 10u128.pow(18)).await
    });
    let all = session.run(webhooks.wait_for(WAIT, |r| !deliveries_of(r, resumed, false).is_empty())).unwrap();
    assert!(deliveries_of(&all, resumed, false)[0].verifies("rotated-secret"));
    session.finish();
}

#[test]
fn bad_requests_name_what_is_wrong() {
    let local = server();
    let session = local.session();
    let rest = session.rest();
    let streams = rest.streams();
    // A port nothing listens on: the test webhook cannot be posted.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let url = format!("http://{closed}/hook");
    let refused = session.run(async { streams.create_stream().body(every_transfer(&url)).send().await.unwrap_err() });
    let RestError::Api(error) = RestError::from(refused) else { panic!("a typed API error") };
    assert_eq!(error.status.as_u16(), 400);
    assert_eq!(error.messages(), vec![format!("Could not POST to {url}. Please check your webhook URL.").as_str()]);
    let answer = session.send(|c| {
        c.put(format!("{}/streams/evm", session.base())).header("x-api-key", session.key()).json(&json!({
            "webhookUrl": "not a url", "description": "d", "tag": "t", "chainIds": ["eth"],
            "topic0": ["Nope("], "includeNativeTxs": true,
        }))
    });
    assert_eq!(answer.status, 400);
    let messages = answer.body["message"].to_string();
    for field in ["webhookUrl", "chainIds[0]", "topic0[0]"] {
        assert!(messages.contains(field), "{field} is named: {messages}");
    }
    let unknown_field = session.send(|c| {
        c.put(format!("{}/streams/evm", session.base())).header("x-api-key", session.key()).json(&json!({
            "webhookUrl": "http://127.0.0.1:1/", "description": "d", "tag": "t", "chainIds": ["0x1"], "includeNativeTx": true,
        }))
    });
    assert_eq!(unknown_field.status, 400);
    assert!(unknown_field.text.contains("includeNativeTx"), "{}", unknown_field.text);
    let no_limit = session.get("/streams/evm", "/streams/evm");
    assert_eq!((no_limit.status, no_limit.body["message"].as_str()), (400, Some("limit: required")));
    let too_many = session.get("/streams/evm", "/streams/evm?limit=101");
    assert_eq!(too_many.status, 400);
    let missing = session.get("/streams/evm/{id}", &format!("/streams/evm/{}", Uuid::new_v4()));
    assert_eq!((missing.status, missing.body["message"].as_str()), (404, Some("Stream not found")));
    let not_uuid = session.get("/streams/evm/{id}", "/streams/evm/12");
    assert_eq!(not_uuid.status, 400);
    let bad_cursor = session.get("/streams/evm", "/streams/evm?limit=5&cursor=abc");
    assert_eq!(bad_cursor.status, 400);
    session.finish();
}

#[test]
fn the_block_preview_is_what_a_stream_of_those_settings_gets() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let token = new_token(&session);
    create(&session, every_transfer(webhooks.url()));
    let block = mint(&session, token);
    let all = session.run(webhooks.wait_for(WAIT, |r| !deliveries_of(r, block, false).is_empty())).unwrap();
    let delivered = webhook(deliveries_of(&all, block, false)[0]).clone();
    let created = every_transfer("http://unused.invalid/");
    let request = w3api_types::StreamBlockRequest {
        tag: Some(created.tag),
        topic0: created.topic0,
        all_addresses: created.all_addresses,
        include_contract_logs: created.include_contract_logs,
        abi: created.abi,
        ..Default::default()
    };
    let preview = session.run(async {
        session
            .rest()
            .streams()
            .get_stream_block_data()
            .chain_id("0x1")
            .block_number(block)
            .body(request)
            .send()
            .await
            .unwrap()
            .into_inner()
    });
    assert_eq!(preview, StreamWebhook { stream_id: String::new(), ..delivered });
    session.finish();
}

#[test]
fn triggers_read_the_token_at_the_delivered_block() {
    let local = server();
    let session = local.session();
    let webhooks = session.run(Webhooks::start());
    let token = new_token(&session);
    let read = |name: &str, inputs: serde_json::Value, outputs: &str| {
        json!({"type": "erc20transfer", "contractAddress": "$contract", "inputs": [],
            "functionAbi": {"name": name, "type": "function", "stateMutability": "view", "inputs": inputs,
                "outputs": [{"name": "", "type": outputs}]}})
    };
    let mut balance = read("balanceOf", json!([{"name": "owner", "type": "address"}]), "uint256");
    balance["inputs"] = json!(["$to"]);
    let triggers = json!([balance, read("symbol", json!([]), "string")]);
    let stream =
        EvmStreamCreate { triggers: Some(serde_json::from_value(triggers).unwrap()), ..every_transfer(webhooks.url()) };
    create(&session, stream);
    let block = mint(&session, token);
    let all = session.run(webhooks.wait_for(WAIT, |r| !deliveries_of(r, block, false).is_empty())).unwrap();
    let transfer = &webhook(deliveries_of(&all, block, false)[0]).erc20_transfers[0];
    let outputs: Vec<(String, serde_json::Value)> =
        transfer.triggers.iter().flatten().map(|t| (t.name.clone(), t.value.clone())).collect();
    assert_eq!(outputs, vec![("balanceOf".into(), json!("2500000")), ("symbol".into(), json!("STRM"))]);

    let mut unanswered = every_transfer(webhooks.url());
    let allowance =
        read("allowance", json!([{"name": "a", "type": "address"}, {"name": "b", "type": "address"}]), "uint256");
    unanswered.triggers = Some(serde_json::from_value(json!([allowance])).unwrap());
    let refused = session.send(|c| {
        c.put(format!("{}/streams/evm", session.base())).header("x-api-key", session.key()).json(&unanswered)
    });
    assert_eq!(refused.status, 400);
    assert!(
        refused.text.contains("triggers[0].functionAbi: allowance(address,address) is not a read answered here"),
        "{}",
        refused.text
    );
    session.finish();
}

/// Sends `wei` to `to` from the second dev account, in a block of its own;
/// that block's number.
async fn pay(session: &Session<'_>, to: alloy_primitives::Address, wei: u128) -> u64 {
    let from = w3api_devnet::dev_addresses().nth(1);
    let send =
        w3api_types::rpc::TransactionRequest { from, to: Some(to), value: Some(U256::from(wei)), ..Default::default() };
    let rpc = session.rpc();
    rpc.send_transaction(send).await.unwrap();
    rpc.block_number().await.unwrap().0
}
