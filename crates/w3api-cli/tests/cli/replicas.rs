//! Two `w3api serve` processes on one PostgreSQL database, as a team runs
//! replicas behind a load balancer: a challenge issued by one is verified
//! by the other, exactly once, and a replica killed with SIGKILL comes back
//! to the same state. Skipped, with the reason printed, when the
//! environment names no database (see `w3api_store::testing`).
#![cfg(unix)]

use futures::future::join_all;

use crate::serve::{
    CHALLENGE_REQUEST, Server, database, get, line_starting, nft_holder, post_json, runtime, signed_challenge,
};

const SECRET: &str = "one secret for every replica";

fn replica(url: &str) -> Server {
    replica_with(url, &[])
}

fn replica_with(url: &str, args: &[&str]) -> Server {
    let mut server =
        Server::start(&[&["--api-key", "k", "--database", url, "--secret", SECRET][..], args].concat(), &[]);
    let kept = line_starting(&mut server, "state (chain changes, sign-in challenges, NFT indexing) kept in");
    assert!(kept.contains("PostgreSQL"), "{kept}");
    server
}

const VERIFY: &str = "/challenge/verify/solana";

/// A devnet seed of this run's own, so that NFT collections a former run
/// on the same database asked for do not count as indexed already.
fn fresh_seed() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    (nanos as u64).to_string()
}

#[test]
fn replicas_share_challenges_verify_each_once_and_survive_a_kill() {
    let Some(url) = database("the replica tests") else { return };
    let runtime = runtime();
    let a = replica(&url);
    let b = replica(&url);

    // Issued on A, verified on B; then a replay on A is refused.
    let verify = runtime.block_on(signed_challenge(&a.base));
    let (status, body) = runtime.block_on(post_json(&b.base, VERIFY, &verify));
    assert_eq!(status, 201, "verify on B: {body}");
    let (status, body) = runtime.block_on(post_json(&a.base, VERIFY, &verify));
    assert_eq!((status, body.contains("already verified (replay)")), (400, true), "replay on A: {body}");

    // Fifty verifies of one signed message at once, across both.
    let verify = runtime.block_on(signed_challenge(&b.base));
    let outcomes = runtime.block_on(join_all((0..50).map(|i| {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        post_json(base, VERIFY, &verify)
    })));
    let won: Vec<_> = outcomes.iter().filter(|(status, _)| *status == 201).collect();
    assert_eq!(won.len(), 1, "exactly one of 50 concurrent verifies succeeds: {outcomes:?}");
    assert!(
        outcomes.iter().filter(|(status, _)| *status != 201).all(|(s, b)| *s == 400 && b.contains("replay")),
        "the others are replays: {outcomes:?}"
    );

    // A challenge issued on A survives A's SIGKILL: B verifies it, and A,
    // restarted on the same database, refuses it and goes on issuing.
    let pending = runtime.block_on(signed_challenge(&a.base));
    drop(a);
    let (status, body) = runtime.block_on(post_json(&b.base, VERIFY, &pending));
    assert_eq!(status, 201, "B verifies what the killed A issued: {body}");
    let a = replica(&url);
    assert_eq!(runtime.block_on(post_json(&a.base, VERIFY, &pending)).0, 400, "restarted A refuses the replay");
    let fresh = runtime.block_on(signed_challenge(&a.base));
    assert_eq!(runtime.block_on(post_json(&b.base, VERIFY, &fresh)).0, 201, "restarted A issues again");
}

#[test]
fn a_cursor_from_one_replica_reads_on_the_other() {
    let Some(url) = database("the replica tests") else { return };
    let runtime = runtime();
    let (a, b) = (replica(&url), replica(&url));
    // The servers' devnet: seed 0, default scale.
    let wallet = w3api_devnet::Devnet::new(0, w3api_devnet::Scale::DEFAULT).sample_wallets(1)[0];
    let get = |base: &str, query: &str| {
        let answer = get(&runtime, base, &format!("/api/v2.2/wallets/{wallet:#x}/tokens?chain=eth&limit=1{query}"));
        (answer.status, answer.json())
    };
    let (status, first) = get(&a.base, "");
    assert_eq!(status, 200, "{first}");
    let cursor = first["cursor"].as_str().expect("a sample wallet holds several tokens").to_string();
    let (status, second) = get(&b.base, &format!("&cursor={cursor}"));
    assert_eq!(status, 200, "B reads A's cursor: {second}");
    assert_eq!(second["page"].as_u64(), first["page"].as_u64().map(|p| p + 1), "{second}");
    drop(b);
    // A server with a secret of its own refuses it.
    let other = Server::start(&["--api-key", "k", "--database", &url], &[]);
    let (status, refused) = get(&other.base, &format!("&cursor={cursor}"));
    assert_eq!(status, 400, "{refused}");
}

#[test]
fn replicas_agree_on_when_an_nft_collection_started_indexing() {
    let Some(url) = database("the replica tests") else { return };
    let seed = fresh_seed();
    // `Server::start` sets an indexing delay of 1 s.
    let args = ["--seed", &seed];
    let (a, b) = (replica_with(&url, &args), replica_with(&url, &args));
    let runtime = runtime();
    let (owner, collection) = nft_holder(&runtime, &b.base, seed.parse().unwrap());
    let status = |base: &str, filter: bool| {
        let filter = if filter { format!("&token_addresses={collection:#x}") } else { String::new() };
        let answer = get(&runtime, base, &format!("/api/v2.2/{owner:#x}/nft?chain=eth{filter}"));
        assert_eq!(answer.status, 200, "{}", answer.body);
        answer.json()["status"].as_str().unwrap().to_string()
    };
    assert_eq!(status(&a.base, true), "SYNCING", "named on A: indexing starts");
    assert_eq!(status(&b.base, false), "SYNCING", "B sees the indexing A started");
    std::thread::sleep(std::time::Duration::from_millis(1_200));
    assert_eq!(status(&b.base, true), "SYNCED", "named again on B: indexed, not started again");
    assert_eq!(status(&a.base, true), "SYNCED");
}

/// A TCP relay to the database that the test can cut (every connection
/// reset, new ones refused) and mend: the database going away, as the
/// server sees it, without stopping the cluster other tests share.
struct Relay {
    address: std::net::SocketAddr,
    open: std::sync::Arc<std::sync::atomic::AtomicBool>,
    connections: std::sync::Arc<std::sync::Mutex<Vec<tokio::task::AbortHandle>>>,
}

impl Relay {
    async fn start(target: std::net::SocketAddr) -> Relay {
        use std::sync::atomic::Ordering;
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let relay = Relay {
            address: listener.local_addr().unwrap(),
            open: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
            connections: std::sync::Arc::default(),
        };
        let (open, connections) = (relay.open.clone(), relay.connections.clone());
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !open.load(Ordering::SeqCst) {
                    continue; // dropped: the connection is refused
                }
                let task = tokio::spawn(async move {
                    if let Ok(mut server) = tokio::net::TcpStream::connect(target).await {
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                    }
                });
                connections.lock().unwrap().push(task.abort_handle());
            }
        });
        relay
    }

    fn cut(&self) {
        self.open.store(false, std::sync::atomic::Ordering::SeqCst);
        for connection in self.connections.lock().unwrap().drain(..) {
            connection.abort();
        }
    }

    fn mend(&self) {
        self.open.store(true, std::sync::atomic::Ordering::SeqCst);
    }
}

#[test]
fn the_database_going_away_is_a_503_with_retry_after_and_the_server_reconnects() {
    let Some(url) = database("the replica tests") else { return };
    let runtime = runtime();
    let target = url::Url::parse(&url).unwrap();
    let database = std::net::SocketAddr::new(
        target.host_str().unwrap().parse().expect("the test database is on an IP address"),
        target.port().unwrap_or(5432),
    );
    let relay = runtime.block_on(Relay::start(database));
    let mut relayed = target.clone();
    relayed.set_port(Some(relay.address.port())).unwrap();
    let seed = fresh_seed();
    let server = replica_with(relayed.as_str(), &["--seed", &seed]);
    let request = |base: &str| {
        runtime.block_on(async {
            let response = w3api_tests::http_client()
                .post(format!("{base}/challenge/request/solana"))
                .header("X-API-Key", "k")
                .header("Content-Type", "application/json")
                .body(CHALLENGE_REQUEST)
                .send()
                .await
                .unwrap();
            let retry_after = response.headers().get("retry-after").map(|v| v.to_str().unwrap().to_string());
            (response.status().as_u16(), retry_after, response.text().await.unwrap())
        })
    };
    assert_eq!(request(&server.base).0, 201);
    let (owner, _) = nft_holder(&runtime, &server.base, seed.parse().unwrap());

    relay.cut();
    let (status, retry_after, body) = request(&server.base);
    assert_eq!((status, retry_after.as_deref()), (503, Some("1")), "{body}");
    let message: serde_json::Value = serde_json::from_str(&body).unwrap();
    let text = message["message"].as_str().unwrap();
    assert!(text.starts_with("the database is unavailable; retry later"), "{text}");
    assert!(!text.contains("connection") && !text.contains("sqlx"), "no driver message reaches the client: {text}");
    // Reading a wallet's NFTs reads their collections' indexing from the store.
    let nfts = get(&runtime, &server.base, &format!("/api/v2.2/{owner:#x}/nft?chain=eth"));
    assert_eq!((nfts.status, nfts.retry_after.as_deref()), (503, Some("1")), "{}", nfts.body);
    assert!(nfts.json()["message"].as_str().unwrap().starts_with("the database is unavailable"), "{}", nfts.body);
    // The chain answers from what this replica holds, its journal's head out of reach.
    let number = runtime.block_on(rpc(&server.base, "eth_blockNumber", serde_json::json!([])));
    assert!(number.is_string(), "the gateway answers during the outage: {number}");
    let refused = runtime.block_on(async {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "evm_mine", "params": []});
        let response = w3api_tests::http_client().post(format!("{}/eth/k", server.base)).json(&body).send();
        response.await.unwrap().json::<serde_json::Value>().await.unwrap()
    });
    assert_eq!(refused["error"]["code"], -32000, "a change is refused during the outage: {refused}");
    assert_eq!(refused["error"]["message"], "the database is unavailable; retry later", "{refused}");

    relay.mend();
    let started = std::time::Instant::now();
    while request(&server.base).0 != 201 {
        assert!(started.elapsed() < std::time::Duration::from_secs(30), "the server did not reconnect within 30 s");
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

/// Every ERC20 and ERC721 `Transfer` on eth: a body for `PUT /streams/evm`.
fn every_transfer(webhook_url: &str) -> String {
    serde_json::json!({
        "webhookUrl": webhook_url, "description": "replicas", "tag": "replicas", "chainIds": ["0x1"],
        "topic0": ["Transfer(address,address,uint256)"], "allAddresses": true, "includeContractLogs": true,
        "abi": [{"anonymous": false, "name": "Transfer", "type": "event", "inputs": [
            {"indexed": true, "name": "from", "type": "address"},
            {"indexed": true, "name": "to", "type": "address"},
            {"indexed": false, "name": "value", "type": "uint256"}]}],
    })
    .to_string()
}

/// What a receiver got: (block hash, confirmed) of each delivery, test webhooks aside.
fn delivered(received: &[w3api_testkit::Received]) -> Vec<(String, bool, u64)> {
    received
        .iter()
        .filter(|r| !r.is_test())
        .filter_map(|r| r.webhook.as_ref())
        .map(|w| (w.block.hash.clone(), w.confirmed, w.block.number.parse().unwrap()))
        .collect()
}

#[test]
fn replicas_deliver_each_block_once_and_lose_nothing_when_one_is_killed() {
    let Some(url) = database("the replica tests") else { return };
    let runtime = runtime();
    let webhooks = runtime.block_on(w3api_testkit::Webhooks::start());
    // The same seed and block time make the same blocks on both replicas,
    // so both follow the same chain and queue the same deliveries.
    let seed = fresh_seed();
    let args =
        ["--seed", &seed, "--scale", "tiny", "--block-time", "1s", "--confirmations", "2", "--delivery-timeout", "2s"];
    let a = replica_with(&url, &args);
    let b = replica_with(&url, &args);
    let (status, body) = runtime.block_on(put_json(&a.base, "/streams/evm", &every_transfer(webhooks.url())));
    assert_eq!(status, 200, "{body}");
    let stream: serde_json::Value = serde_json::from_str(&body).unwrap();

    // While both are up, each block goes out once unconfirmed and once confirmed.
    std::thread::sleep(std::time::Duration::from_secs(8));
    let both_up = delivered(&webhooks.received());
    assert!(both_up.len() >= 4, "deliveries while both replicas run: {both_up:?}");
    let mut keys: Vec<_> = both_up.iter().map(|(hash, confirmed, _)| (hash.clone(), *confirmed)).collect();
    keys.sort();
    keys.dedup();
    assert_eq!(keys.len(), both_up.len(), "no block is delivered twice while both replicas run: {both_up:?}");

    // B dies with deliveries in flight (the receiver is slow now); what it
    // had claimed goes out from A once B's leases (3 × 2 s) run out.
    webhooks.delay(std::time::Duration::from_millis(1500));
    std::thread::sleep(std::time::Duration::from_millis(1200));
    drop(b);
    webhooks.delay(std::time::Duration::ZERO);
    let killed_at = delivered(&webhooks.received()).iter().map(|(_, _, n)| *n).max().unwrap_or(0);
    let last = killed_at + 3;
    // Blocks come every second: wait for the last one asked about, as a
    // log range past the head is refused (geth's rule), not answered empty.
    runtime.block_on(async {
        let head = || async { rpc(&a.base, "eth_blockNumber", serde_json::json!([])).await };
        let reached = tokio::time::timeout(std::time::Duration::from_secs(30), async {
            while u64::from_str_radix(head().await.as_str().unwrap_or("0x0").trim_start_matches("0x"), 16).unwrap_or(0)
                < last
            {
                tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            }
        });
        reached.await.unwrap_or_else(|_| panic!("block {last} within 30 s"));
    });
    let transfers = |number: u64| {
        let logs = runtime.block_on(rpc(
            &a.base,
            "eth_getLogs",
            serde_json::json!([{
            "fromBlock": format!("{number:#x}"), "toBlock": format!("{number:#x}"),
            "topics": ["0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef"]}]),
        ));
        !logs.as_array().unwrap().is_empty()
    };
    let first = both_up.iter().map(|(_, _, n)| *n).min().unwrap();
    let wanted: Vec<u64> = (first..=last).filter(|n| transfers(*n)).collect();
    let all = runtime
        .block_on(webhooks.wait_for(std::time::Duration::from_secs(40), |received| {
            let got = delivered(received);
            wanted
                .iter()
                .all(|n| [false, true].iter().all(|c| got.iter().any(|(_, confirmed, b)| b == n && confirmed == c)))
        }))
        .unwrap_or_else(|e| panic!("every block {first}..={last} with transfers, both ways: {e}"));
    assert!(delivered(&all).len() >= wanted.len() * 2);
    let history =
        runtime.block_on(get_json(&a.base, &format!("/history?limit=100&streamId={}", stream["id"].as_str().unwrap())));
    assert!(history["total"].as_u64().unwrap() >= (wanted.len() * 2) as u64, "{history}");
}

async fn put_json(base: &str, path: &str, body: &str) -> (u16, String) {
    let response = w3api_tests::http_client()
        .put(format!("{base}{path}"))
        .header("X-API-Key", "k")
        .header("Content-Type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    (response.status().as_u16(), response.text().await.unwrap())
}

async fn get_json(base: &str, path: &str) -> serde_json::Value {
    let response =
        w3api_tests::http_client().get(format!("{base}{path}")).header("X-API-Key", "k").send().await.unwrap();
    response.json().await.unwrap()
}

async fn rpc(base: &str, method: &str, params: serde_json::Value) -> serde_json::Value {
    let call = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = w3api_tests::http_client().post(format!("{base}/eth/k")).json(&call).send().await.unwrap();
    let answer: serde_json::Value = response.json().await.unwrap();
    answer["result"].clone()
}
