//! Shutting down: requests in flight finish, new ones are not taken.

use std::time::Duration;

use w3api_devnet::{Devnet, Scale};
use w3api_server::{ServerConfig, spawn};
use w3api_tests::local::Setup;
use w3api_tests::observed::Observed;
use w3api_types::Chain;

/// The devnet, answering wallet tokens after a pause.
fn slow_tokens(devnet: Devnet) -> Observed {
    Observed::new(devnet, |method| (method == "wallet_tokens").then_some(Duration::from_millis(600)))
}

#[test]
fn requests_in_flight_finish_after_shutdown_begins() {
    let mut server = Setup::new().scale(Scale::TINY).source(slow_tokens).start();
    let (base, key) = {
        let session = server.session();
        (session.base().to_string(), session.key().to_string())
    };
    let wallet = server.devnet().sample_wallets(1)[0];
    server.devnet().prepare(Chain::Eth);
    let http = w3api_tests::http_client();
    let url = format!("{base}/api/v2.2/wallets/{wallet:#x}/tokens");
    let in_flight = server.spawn({
        let http = http.clone();
        async move { http.get(url).header("x-api-key", key).send().await.map(|r| r.status().as_u16()) }
    });
    std::thread::sleep(Duration::from_millis(200));
    server.stop();
    assert_eq!(server.run(in_flight).unwrap().unwrap(), 200, "the request in flight completes");
    let after = server.run(http.get(format!("{base}/health")).send());
    assert!(after.is_err(), "no new connection is accepted");
}

/// The harness stops its servers with `shutdown`; this is the other way.
#[tokio::test]
async fn dropping_the_handle_stops_the_server() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let server = spawn(listener, Devnet::new(0, Scale::TINY), ServerConfig::new(vec!["k".into()])).unwrap();
    let health = format!("{}/health", server.url());
    let http = w3api_tests::http_client();
    assert_eq!(http.get(&health).send().await.unwrap().status(), 200);
    drop(server);
    // Stopping is asynchronous: the server's task sees the signal on its next turn.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(5);
    while http.get(&health).send().await.is_ok() {
        assert!(tokio::time::Instant::now() < deadline, "the server still answers 5 s after its handle was dropped");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}
