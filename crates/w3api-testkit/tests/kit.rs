//! The kit as a user's test meets it: one line to a server, clients that
//! reach it, faults that make them retry, and a stop on drop.

use std::time::{Duration, Instant};

// Reached through the kit: named so that `unused_crate_dependencies` keeps watching the rest.
use {
    axum as _, serde_json as _, w3api_rest as _, w3api_rpc as _, w3api_server as _, w3api_store as _,
    w3api_streams as _,
};

use w3api_testkit::{ChainControl, Fault, FaultRule, Injection, RuleTarget, Server, StreamsConfig, Webhooks};
use w3api_types::Chain;

#[tokio::test]
async fn a_started_server_answers_its_clients_and_stops_when_dropped() {
    let server = Server::start().await;
    assert!(server.url().starts_with("http://127.0.0.1:"), "{}", server.url());
    let wallet = server.devnet().sample_wallets(1)[0];
    let tokens = server.rest().data().get_wallet_token_balances_price().address(wallet).send().await.unwrap();
    assert!(!tokens.result.is_empty());
    let block = server.rpc(Chain::Eth).block_number().await.unwrap();
    assert_eq!(Some(block.0), tokens.block_number, "both read the same newest block");
    assert!(server.rpc_url(Chain::Eth).ends_with(&format!("/eth/{}", server.api_key())));

    let url = server.url().to_string();
    drop(server);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(connects(&url).await.is_err(), "nothing listens once the server is dropped");
}

#[tokio::test]
async fn a_fault_rule_makes_the_rest_client_retry_until_it_is_spent() {
    let server = Server::builder().scale(w3api_devnet::Scale::TINY).start().await;
    let limited = Injection { fault: Some(Fault::Status(429u16.try_into().unwrap())), delay: None };
    let target = RuleTarget::Operation("getWalletTokenBalancesPrice".into());
    server.faults().add(FaultRule { target, injection: limited, times: Some(2) }).unwrap();
    let wallet = server.devnet().sample_wallets(1)[0];
    let started = Instant::now();
    let tokens = server.rest().data().get_wallet_token_balances_price().address(wallet).send().await.unwrap();
    assert!(!tokens.result.is_empty());
    assert!(started.elapsed() >= Duration::from_secs(2), "two Retry-After waits: {:?}", started.elapsed());
    assert!(server.faults().list().is_empty());
    server.shutdown().await.unwrap();
}

/// Whether anything accepts a TCP connection at `url`.
async fn connects(url: &str) -> std::io::Result<()> {
    let address = url.trim_start_matches("http://");
    tokio::net::TcpStream::connect(address).await.map(|_| ())
}

#[tokio::test]
async fn the_test_shapes_the_chain_and_the_clients_see_it() {
    use w3api_testkit::{ChainControl, Scale};
    let server = Server::builder().scale(Scale::TINY).start().await;
    let rpc = server.rpc(Chain::Eth);
    let someone = w3api_types::Address::repeat_byte(0x77);
    let snapshot = server.devnet().snapshot(Chain::Eth).await.unwrap();
    server.devnet().set_balance(Chain::Eth, someone, w3api_types::U256::from(5u8)).await.unwrap();
    assert_eq!(rpc.get_balance(someone, None).await.unwrap(), w3api_types::U256::from(5u8));
    // The gateway's cheat methods reach the same chain.
    rpc.anvil_mine(Some(w3api_types::rpc::Quantity(2)), None).await.unwrap();
    let mined = rpc.block_number().await.unwrap().0;
    assert!(server.devnet().revert(Chain::Eth, snapshot).await.unwrap());
    assert_eq!(rpc.block_number().await.unwrap().0, mined - 3);
    assert_eq!(rpc.get_balance(someone, None).await.unwrap(), w3api_types::U256::ZERO);
}

#[tokio::test]
async fn a_block_time_keeps_latest_moving_until_the_server_is_dropped() {
    let server =
        Server::builder().scale(w3api_testkit::Scale::TINY).block_time(Duration::from_millis(100)).start().await;
    let rpc = server.rpc(Chain::Eth);
    let first = rpc.block_number().await.unwrap().0;
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let later = rpc.block_number().await.unwrap().0;
    assert!(later >= first + 5, "{} blocks in a second at one every 100 ms", later - first);
    let devnet = server.devnet().clone();
    drop(server);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let stopped = w3api_source::Blocks::latest_block(&devnet, Chain::Eth).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(w3api_source::Blocks::latest_block(&devnet, Chain::Eth).await.unwrap(), stopped, "no blocks after drop");
}

#[tokio::test]
async fn a_scenario_built_in_rust_shapes_what_the_rest_api_answers() {
    use w3api_testkit::{Scale, Scenario};
    let server = Server::builder().scale(Scale::TINY).start().await;
    let scenario = Scenario::on(Chain::Eth)
        .wallet("alice", 2)
        .token("GOOD", "Good Token", 6, Some(2.0))
        .spam_token("JUNK", "Claim JUNK")
        .collection("Badges", "BDG")
        .mint("GOOD", "alice", "10.5")
        .mint("JUNK", "alice", 1000)
        .nft("Badges", "alice", "Gold Badge")
        .mine(2);
    let applied = server.apply(&scenario).await.unwrap();
    let alice = applied.address("alice").unwrap();
    let tokens = server.rest().data().get_wallet_token_balances_price().address(alice).send().await.unwrap();
    let symbols: Vec<(&str, bool)> = tokens.result.iter().map(|t| (t.symbol.as_str(), t.possible_spam)).collect();
    assert_eq!(symbols.len(), 3, "{symbols:?}");
    assert!(symbols.contains(&("GOOD", false)) && symbols.contains(&("JUNK", true)), "{symbols:?}");
    let good = tokens.result.iter().find(|t| t.symbol == "GOOD").unwrap();
    assert_eq!(good.balance, w3api_types::U256::from(10_500_000u64));
    let nfts = server.rest().data().get_wallet_nfts().address(alice).send().await.unwrap();
    assert_eq!(nfts.result.len(), 1);
    assert_eq!(nfts.result[0].token_address, applied.address("Badges").unwrap());

    let error = server.apply(&Scenario::on(Chain::Eth).mint("GOOD", "bob", 1)).await.unwrap_err();
    assert!(error.to_string().contains("step 1: mint: no token of the scenario is named \"GOOD\""), "{error}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_delivers_to_the_kits_receiver_signed_and_retried() {
    let quick = StreamsConfig {
        retries: vec![Duration::from_millis(100)],
        poll: Duration::from_millis(50),
        ..StreamsConfig::default()
    };
    let server = Server::builder()
        .scale(w3api_devnet::Scale::TINY)
        .config(|config| w3api_server::ServerConfig { streams: quick, ..config })
        .start()
        .await;
    let webhooks = Webhooks::start().await;
    let wallet = server.devnet().create_wallet(Chain::Eth, w3api_types::U256::ZERO).await.unwrap().address;
    let stream = w3api_types::EvmStreamCreate {
        webhook_url: webhooks.url().to_string(),
        description: "one wallet".into(),
        tag: "wallet".into(),
        chain_ids: vec!["0x1".into()],
        include_native_txs: Some(true),
        ..Default::default()
    };
    let streams = server.rest();
    let stream = streams.streams().create_stream().body(stream).send().await.unwrap().into_inner();
    let watched = w3api_types::StreamAddressChange { address: w3api_types::AddressList::One(format!("{wallet:#x}")) };
    streams.streams().add_address_to_stream().id(stream.id).body(watched).send().await.unwrap();
    webhooks.fail_next(1);
    // A dev account pays the wallet: a native transaction, which the stream delivers.
    let from = w3api_devnet::dev_addresses().next();
    let pay = w3api_types::rpc::TransactionRequest {
        from,
        to: Some(wallet),
        value: Some(w3api_types::U256::from(7u64)),
        ..Default::default()
    };
    server.rpc(Chain::Eth).send_transaction(pay).await.unwrap();
    let received = webhooks
        .wait_for(Duration::from_secs(20), |received| {
            received.iter().filter(|r| r.answered == 200 && !r.is_test()).count() == 1
        })
        .await
        .unwrap();
    let deliveries: Vec<_> = received.iter().filter(|r| !r.is_test()).collect();
    assert_eq!(
        deliveries.iter().map(|r| r.answered).collect::<Vec<_>>(),
        vec![500, 200],
        "failed once, then delivered"
    );
    assert!(deliveries.iter().all(|r| r.verifies(server.api_key())), "signed with the API key, the default secret");
    let payload = deliveries[1].webhook.as_ref().unwrap();
    assert_eq!((payload.retries, payload.txs[0].to_address.clone()), (1, Some(format!("{wallet:#x}"))));
}
