//! What the REST client puts on the wire and how it reads the answers, against
//! a stub HTTP server on loopback. Its retries are tested against the real
//! server's injected faults (`tests/tests/it/server/faults.rs`).

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {
    bytes as _, http as _, progenitor_client as _, reqwest as _, rustls as _, serde as _, thiserror as _, tracing as _,
    w3api_retry as _,
};

use std::collections::BTreeMap;

use futures::TryStreamExt;
use serde_json::{Value, json};
use w3api_rest::{Client, Error, Paginated, RetryPolicy};
use w3api_types::{Address, Chain, SolanaChallengeRequest, SolanaNetwork, SolanaVerifyRequest, TokenIdFormat};
use wiremock::matchers::{body_json, header, method, path};
use wiremock::{Match, Mock, MockServer, Request, ResponseTemplate};

const KEY: &str = "test-key-3f9a";

fn wallet() -> Address {
    "0xd8da6bf26964af9d7eed9e03e53415d37aa96045".parse().unwrap()
}

fn token(n: u8) -> Address {
    Address::repeat_byte(n)
}

/// Retries without waiting long, so tests stay fast.
async fn setup(retry: RetryPolicy) -> (MockServer, Client) {
    let server = MockServer::start().await;
    let client = Client::builder().base_url(server.uri()).api_key(KEY).retry_policy(retry).build().unwrap();
    (server, client)
}

/// Matches when the query string holds exactly these pairs (order of
/// distinct keys aside; repeated keys in order).
struct ExactQuery(Vec<(&'static str, String)>);

impl Match for ExactQuery {
    fn matches(&self, request: &Request) -> bool {
        let group = |pairs: Vec<(String, String)>| {
            let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
            for (k, v) in pairs {
                map.entry(k).or_default().push(v);
            }
            map
        };
        let actual = group(request.url.query_pairs().map(|(k, v)| (k.into_owned(), v.into_owned())).collect());
        let expected = group(self.0.iter().map(|(k, v)| (k.to_string(), v.clone())).collect());
        actual == expected
    }
}

fn query(pairs: &[(&'static str, &str)]) -> ExactQuery {
    ExactQuery(pairs.iter().map(|(k, v)| (*k, v.to_string())).collect())
}

fn token_page(cursor: Option<&str>, symbols: &[&str]) -> Value {
    let result: Vec<Value> = symbols
        .iter()
        .map(|symbol| {
            json!({
                "token_address": "0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48", "symbol": symbol, "name": symbol,
                "logo": null, "thumbnail": null, "decimals": 6, "balance": "1000000", "possible_spam": false,
                "balance_formatted": "1", "usd_price": 1.0, "usd_price_24hr_percent_change": 0.0,
                "usd_price_24hr_usd_change": 0.0, "usd_value": 1.0, "native_token": false, "portfolio_percentage": 50.0
            })
        })
        .collect();
    json!({ "cursor": cursor, "page": 0, "page_size": 2, "block_number": 100, "result": result })
}

#[tokio::test]
async fn wallet_tokens_sends_every_parameter_and_decodes_the_page() {
    let (server, client) = setup(RetryPolicy::none()).await;
    // Path segments carry the address as alloy displays it (EIP-55 checksummed).
    let wallet_path = format!("/api/v2.2/wallets/{}/tokens", wallet());
    Mock::given(method("GET"))
        .and(path(wallet_path.as_str()))
        .and(header("x-api-key", KEY))
        .and(header("accept", "application/json"))
        .and(query(&[
            ("chain", "base"),
            ("to_block", "123"),
            ("token_addresses", &format!("{:#x}", token(1))),
            ("token_addresses", &format!("{:#x}", token(2))),
            ("exclude_spam", "true"),
            ("exclude_unverified_contracts", "false"),
            ("cursor", "abc"),
            ("limit", "50"),
            ("exclude_native", "true"),
            ("max_token_inactivity", "30"),
            ("min_pair_side_liquidity_usd", "1000.5"),
        ]))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_page(None, &["USDC", "DAI"])))
        .expect(1)
        .mount(&server)
        .await;
    let page = client
        .data()
        .get_wallet_token_balances_price()
        .address(wallet())
        .chain(Chain::Base)
        .to_block(123u64)
        .token_addresses(vec![token(1), token(2)])
        .exclude_spam(true)
        .exclude_unverified_contracts(false)
        .cursor("abc")
        .limit(50)
        .exclude_native(true)
        .max_token_inactivity(30)
        .min_pair_side_liquidity_usd(1000.5)
        .send()
        .await
        .unwrap()
        .into_inner();
    assert_eq!(page.block_number, Some(100));
    assert_eq!(page.result.iter().map(|t| t.symbol.as_str()).collect::<Vec<_>>(), ["USDC", "DAI"]);
    assert_eq!(page.cursor, None);
}

#[tokio::test]
async fn unset_options_are_left_out_of_the_query() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET"))
        .and(query(&[]))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_page(None, &[])))
        .expect(1)
        .mount(&server)
        .await;
    client.data().get_wallet_token_balances_price().address(wallet()).send().await.unwrap();
}

fn nft_page(cursor: Option<&str>, ids: &[&str]) -> Value {
    let result: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({
                "token_address": "0xb47e3cd837ddf8e4c57f05d70ab865de6e193bbb", "token_id": id,
                "contract_type": "ERC721", "owner_of": "0xd8da6bf26964af9d7eed9e03e53415d37aa96045",
                "block_number": "10", "block_number_minted": "9", "token_uri": null, "metadata": null,
                "amount": "1", "name": "Punks", "symbol": "PNK", "token_hash": "h", "last_token_uri_sync": null,
                "last_metadata_sync": null, "possible_spam": false
            })
        })
        .collect();
    json!({ "status": "SYNCED", "total": null, "page": 0, "page_size": 2, "cursor": cursor, "result": result })
}

#[tokio::test]
async fn wallet_nfts_sends_every_parameter() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET"))
        .and(path(format!("/api/v2.2/{}/nft", wallet()).as_str()))
        .and(query(&[
            // A chain given by hex id is sent by name, the canonical form.
            ("chain", "polygon"),
            ("format", "hex"),
            ("limit", "2"),
            ("exclude_spam", "false"),
            ("token_addresses", &format!("{:#x}", token(7))),
            ("cursor", "next"),
            ("normalizeMetadata", "false"),
            ("media_items", "true"),
            ("include_prices", "true"),
        ]))
        .respond_with(ResponseTemplate::new(200).set_body_json(nft_page(None, &["0xf"])))
        .expect(1)
        .mount(&server)
        .await;
    let page = client
        .data()
        .get_wallet_nfts()
        .address(wallet())
        .chain("0x89".parse::<Chain>().unwrap())
        .format(TokenIdFormat::Hex)
        .limit(2)
        .exclude_spam(false)
        .token_addresses(vec![token(7)])
        .cursor("next")
        .normalize_metadata(false)
        .media_items(true)
        .include_prices(true)
        .send()
        .await
        .unwrap();
    assert_eq!(page.result[0].token_id, "0xf");
}

#[tokio::test]
async fn wallet_nft_collections_sends_every_parameter() {
    let (server, client) = setup(RetryPolicy::none()).await;
    let body = json!({
        "status": "SYNCING", "page": "0", "page_size": "100", "cursor": null,
        "result": [{ "token_address": "0xb47e3cd837ddf8e4c57f05d70ab865de6e193bbb", "contract_type": "ERC1155",
                     "name": "C", "symbol": "C", "possible_spam": "false", "verified_collection": true, "count": 3 }]
    });
    Mock::given(method("GET"))
        .and(path(format!("/api/v2.2/{}/nft/collections", wallet()).as_str()))
        .and(query(&[
            ("chain", "eth"),
            ("limit", "100"),
            ("token_counts", "true"),
            ("exclude_spam", "true"),
            ("cursor", "c"),
            ("include_prices", "false"),
        ]))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(&server)
        .await;
    let page = client
        .data()
        .get_wallet_nft_collections()
        .address(wallet())
        .chain(Chain::Eth)
        .limit(100)
        .token_counts(true)
        .exclude_spam(true)
        .cursor("c")
        .include_prices(false)
        .send()
        .await
        .unwrap();
    assert_eq!(page.result[0].count, Some(3));
    assert_eq!(page.result[0].possible_spam, Some(false));
}

#[tokio::test]
async fn get_stream_puts_the_id_in_the_path() {
    let (server, client) = setup(RetryPolicy::none()).await;
    let id = uuid::Uuid::parse_str("3fa85f64-5717-4562-b3fc-2c963f66afa6").unwrap();
    let body = json!({
        "id": id, "webhookUrl": "https://hooks.example.org/x", "description": "d", "tag": "t",
        "chainIds": ["0x1"], "status": "paused", "statusMessage": "Paused by owner"
    });
    Mock::given(method("GET"))
        .and(path("/streams/evm/3fa85f64-5717-4562-b3fc-2c963f66afa6"))
        .and(header("x-api-key", KEY))
        .respond_with(ResponseTemplate::new(200).set_body_json(body))
        .expect(1)
        .mount(&server)
        .await;
    let stream = client.streams().get_stream().id(id).send().await.unwrap();
    assert_eq!(stream.status, w3api_types::StreamStatus::Paused);
}

fn challenge_request() -> SolanaChallengeRequest {
    SolanaChallengeRequest {
        domain: "defi.finance".into(),
        uri: "https://defi.finance/".into(),
        address: "26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3Uo".into(),
        network: SolanaNetwork::Devnet,
        timeout: 30,
        statement: None,
        expiration_time: None,
        not_before: None,
        resources: None,
    }
}

#[tokio::test]
async fn request_challenge_posts_json_and_reads_the_201() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("POST"))
        .and(path("/challenge/request/solana"))
        .and(header("content-type", "application/json"))
        .and(header("x-api-key", KEY))
        .and(body_json(json!({
            "domain": "defi.finance", "uri": "https://defi.finance/",
            "address": "26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3Uo", "network": "devnet", "timeout": 30
        })))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "id": "abcdefgh12", "message": "m", "profileId": format!("0x{}", "ab".repeat(32))
        })))
        .expect(1)
        .mount(&server)
        .await;
    let response = client.auth().request_solana_challenge().body(challenge_request()).send().await.unwrap();
    assert_eq!(response.status(), 201);
    assert_eq!(response.id, "abcdefgh12");
}

#[tokio::test]
async fn verify_challenge_posts_json_and_reads_the_201() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("POST"))
        .and(path("/challenge/verify/solana"))
        .and(body_json(json!({ "message": "hello", "signature": "5sig" })))
        .respond_with(ResponseTemplate::new(201).set_body_json(json!({
            "id": "abcdefgh12", "domain": "d", "network": "mainnet", "address": "a", "uri": "https://d/",
            "version": "1", "nonce": "n", "profileId": "0x00"
        })))
        .expect(1)
        .mount(&server)
        .await;
    let body = SolanaVerifyRequest { message: "hello".into(), signature: "5sig".into() };
    let verified = client.auth().verify_solana_challenge().body(body).send().await.unwrap();
    assert_eq!(verified.network, Some(SolanaNetwork::Mainnet));
}

async fn error_for(status: u16) -> Error {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET")).respond_with(body_for(status)).mount(&server).await;
    Error::from(client.streams().get_stream().id(uuid::Uuid::nil()).send().await.unwrap_err())
}

fn body_for(status: u16) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(json!({ "message": format!("status {status} said so") }))
}

#[tokio::test]
async fn every_error_status_becomes_an_api_error_with_its_message() {
    for status in [400, 401, 404, 413, 422, 429, 500, 502, 503] {
        let error = error_for(status).await;
        let api = error.api().unwrap_or_else(|| panic!("{status}: {error:?}"));
        assert_eq!(api.status, status);
        assert_eq!(api.messages(), [format!("status {status} said so")]);
        assert_eq!(error.to_string(), format!("{}: status {status} said so", api.status));
    }
}

#[tokio::test]
async fn a_list_of_messages_is_kept_as_a_list() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("POST"))
        .respond_with(ResponseTemplate::new(422).set_body_json(json!({ "message": ["domain: missing", "uri: bad"] })))
        .mount(&server)
        .await;
    let error =
        Error::from(client.auth().request_solana_challenge().body(challenge_request()).send().await.unwrap_err());
    assert_eq!(error.api().unwrap().messages(), ["domain: missing", "uri: bad"]);
}

#[tokio::test]
async fn a_body_that_is_not_an_error_body_is_kept_raw_with_its_status() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(502).set_body_raw("<html>Bad Gateway</html>", "text/html"))
        .mount(&server)
        .await;
    let error = Error::from(client.streams().get_stream().id(uuid::Uuid::nil()).send().await.unwrap_err());
    let api = error.api().unwrap();
    assert_eq!(api.status, 502);
    assert!(api.body.is_none());
    assert_eq!(api.raw_body.as_deref(), Some("<html>Bad Gateway</html>"));
}

#[tokio::test]
async fn a_transport_failure_is_not_an_api_error() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let client = Client::local(format!("http://127.0.0.1:{port}"), KEY).unwrap();
    let error = Error::from(client.streams().get_stream().id(uuid::Uuid::nil()).send().await.unwrap_err());
    assert!(matches!(error, Error::Transport(_)), "{error:?}");
    assert_eq!(error.status(), None);
}

#[tokio::test]
async fn a_success_body_off_the_spec_is_an_invalid_response() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({"id": 5})))
        .mount(&server)
        .await;
    let error = Error::from(client.streams().get_stream().id(uuid::Uuid::nil()).send().await.unwrap_err());
    assert!(matches!(error, Error::InvalidResponse { .. }), "{error:?}");
}

#[tokio::test]
async fn items_follow_cursors_across_three_pages_with_the_same_filters() {
    let (server, client) = setup(RetryPolicy::none()).await;
    let pages = [(None, Some("p2"), ["a", "b"]), (Some("p2"), Some("p3"), ["c", "d"]), (Some("p3"), None, ["e", "f"])];
    for (cursor, next, ids) in pages {
        let mut pairs = vec![("chain", "base".to_string()), ("limit", "2".to_string())];
        if let Some(cursor) = cursor {
            pairs.push(("cursor", cursor.to_string()));
        }
        Mock::given(method("GET"))
            .and(ExactQuery(pairs))
            .respond_with(ResponseTemplate::new(200).set_body_json(nft_page(next, &ids)))
            // Once by items(), once by pages().
            .expect(2)
            .mount(&server)
            .await;
    }
    let request = client.data().get_wallet_nfts().address(wallet()).chain(Chain::Base).limit(2);
    let ids: Vec<String> = request.clone().items().map_ok(|nft| nft.token_id).try_collect().await.unwrap();
    assert_eq!(ids, ["a", "b", "c", "d", "e", "f"]);
    let page_count = request.pages().try_collect::<Vec<_>>().await.unwrap().len();
    assert_eq!(page_count, 3);
}

#[tokio::test]
async fn a_cursor_that_repeats_stops_pagination_with_an_error() {
    let (server, client) = setup(RetryPolicy::none()).await;
    Mock::given(method("GET"))
        .respond_with(ResponseTemplate::new(200).set_body_json(token_page(Some("same"), &["A"])))
        .mount(&server)
        .await;
    let result: Result<Vec<_>, _> =
        client.data().get_wallet_token_balances_price().address(wallet()).items().try_collect().await;
    assert!(matches!(result, Err(Error::CursorLoop)), "{result:?}");
    assert_eq!(server.received_requests().await.unwrap().len(), 2);
}

#[test]
fn the_api_key_never_shows_in_debug_output() {
    let builder = Client::builder().api_key(KEY);
    assert!(!format!("{builder:?}").contains(KEY));
    let client = builder.base_url("http://127.0.0.1:9").build().unwrap();
    assert!(!format!("{client:?}").contains(KEY), "{client:?}");
}

#[test]
fn bad_configuration_is_refused_with_a_reason() {
    let error = Client::builder().base_url("ftp://example.org").build().unwrap_err();
    assert!(error.to_string().contains("not http or https"), "{error}");
    let error = Client::builder().api_key("bad\nkey").build().unwrap_err();
    assert!(matches!(error, w3api_rest::BuildError::InvalidApiKey));
    assert!(!error.to_string().contains("bad"));
}
