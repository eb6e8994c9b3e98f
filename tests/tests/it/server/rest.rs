//! The REST operations over real HTTP: success paths, query forms, the
//! indexing rule, and every error case, each answer checked against the spec
//! (pagination at every page size is the contract suite's).

use std::collections::BTreeSet;

use serde_json::{Value, json};
use w3api_devnet::Scale;
use w3api_tests::local::{Session, Setup};
use w3api_types::Address;

const TOKENS: &str = "/api/v2.2/wallets/{address}/tokens";
const NFTS: &str = "/api/v2.2/{address}/nft";
const COLLECTIONS: &str = "/api/v2.2/{address}/nft/collections";
const STREAM: &str = "/streams/evm/{id}";
const INDEX_DELAY: std::time::Duration = std::time::Duration::from_millis(600);

fn tokens_path(wallet: Address, query: &str) -> String {
    format!("/api/v2.2/wallets/{wallet:#x}/tokens?{query}")
}

fn nfts_path(wallet: Address, query: &str) -> String {
    format!("/api/v2.2/{wallet:#x}/nft?{query}")
}

/// Percent-encodes a query value.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

#[test]
fn wallet_tokens_answer_by_chain_name_or_hex_id() {
    let h = Session::new();
    let showcase = h.devnet().sample_wallets(1)[0];
    let by_name = h.get(TOKENS, &tokens_path(showcase, "chain=base"));
    let by_hex = h.get(TOKENS, &tokens_path(showcase, "chain=0x2105"));
    assert_eq!(by_name.status, 200, "{}", by_name.text);
    assert_eq!(by_name.body, by_hex.body);
    let default_chain = h.get(TOKENS, &tokens_path(showcase, ""));
    assert_eq!(default_chain.body, h.get(TOKENS, &tokens_path(showcase, "chain=eth")).body);
    let items = default_chain.body["result"].as_array().unwrap();
    assert!(items.len() >= 6, "{}", default_chain.text);
    assert_eq!(items[0]["native_token"], true);
    let block_of = |answer: &Value| answer["block_number"].as_str().unwrap().parse::<u64>().unwrap();
    let latest = block_of(&default_chain.body);
    let earlier = h.get(TOKENS, &tokens_path(showcase, &format!("to_block={}", latest / 2)));
    assert_eq!(block_of(&earlier.body), latest / 2);
    let future = h.get(TOKENS, &tokens_path(showcase, "to_block=999999999"));
    assert_eq!(block_of(&future.body), latest, "a block past the newest reads the newest");
    assert_eq!(future.body["result"], default_chain.body["result"]);
}

#[test]
fn native_items_have_null_supply_and_tokens_the_chain_supply() {
    let h = Session::new();
    let answer = h.get(TOKENS, &tokens_path(h.devnet().sample_wallets(1)[0], ""));
    let items = answer.body["result"].as_array().unwrap();
    let native = &items[0];
    assert_eq!(native["native_token"], true);
    for field in ["total_supply", "total_supply_formatted", "percentage_relative_to_total_supply", "security_score"] {
        assert_eq!(native.get(field), Some(&Value::Null), "native {field} is present and null: {native}");
    }
    for token in &items[1..] {
        let supply: u128 = token["total_supply"].as_str().unwrap().parse().unwrap();
        let balance: u128 = token["balance"].as_str().unwrap().parse().unwrap();
        assert!(supply >= balance && balance > 0, "{token}");
        let share = token["percentage_relative_to_total_supply"].as_f64().unwrap();
        assert!((share - balance as f64 / supply as f64 * 100.0).abs() < 1e-9, "{token}");
        assert_eq!(token.get("security_score"), Some(&Value::Null), "not scored: {token}");
    }
}

#[test]
fn chains_added_to_the_table_are_served_and_others_refused() {
    // Eight chains are generated: a tiny devnet keeps that to a moment.
    let server = Setup::new().scale(Scale::TINY).start();
    let h = server.session();
    let wallet = h.devnet().sample_wallets(1)[0];
    for chain in ["flow", "0x2eb", "ronin-testnet", "lisk-sepolia", "pulse", "sei", "0x530", "monad"] {
        let answer = h.get(TOKENS, &tokens_path(wallet, &format!("chain={chain}")));
        assert_eq!(answer.status, 200, "{chain}: {}", answer.text);
        assert!(!answer.body["result"].as_array().unwrap().is_empty(), "{chain}");
    }
    // Well-formed chains the table does not list parse on the client side,
    // and this server, which does not serve them, names the accepted values.
    for chain in ["newchain", "0x1234", "blast"] {
        h.get(TOKENS, &tokens_path(wallet, &format!("chain={chain}"))).expect_error(400, "monad, 0x8f");
    }
}

#[test]
fn include_prices_adds_every_price_field_and_nothing_without_it() {
    let h = Session::new();
    let owner = nft_owner(&h);
    let price_fields = ["floor_price", "floor_price_usd", "floor_price_currency", "last_sale"];
    for path in [nfts_path(owner, ""), format!("/api/v2.2/{owner:#x}/nft/collections?")] {
        let template = if path.contains("collections") { "/api/v2.2/{address}/nft/collections" } else { NFTS };
        let priced = h.get(template, &format!("{path}&include_prices=true"));
        let plain = h.get(template, &path);
        let (priced, plain) = (priced.body["result"].as_array().unwrap(), plain.body["result"].as_array().unwrap());
        assert!(!priced.is_empty() && priced.len() == plain.len(), "{path}");
        for (with, without) in priced.iter().zip(plain) {
            for field in price_fields {
                // Null where the item has no sale; the coherence suite checks the values.
                assert!(with.get(field).is_some(), "{path}: {field} in {with}");
                assert_eq!(without.get(field), None, "{path}: {field} without include_prices");
            }
            assert_eq!(with["floor_price"].is_null(), with["floor_price_currency"].is_null(), "{with}");
        }
    }
}

#[test]
fn array_parameters_take_every_form() {
    let h = Session::new();
    let showcase = h.devnet().sample_wallets(1)[0];
    let all = h.get(TOKENS, &tokens_path(showcase, ""));
    let addresses: Vec<&str> = all.body["result"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .take(2)
        .map(|i| i["token_address"].as_str().unwrap())
        .collect();
    let [a, b] = addresses[..] else { panic!("two tokens") };
    let forms = [
        format!("token_addresses={a}&token_addresses={b}"),
        format!("token_addresses%5B%5D={a}&token_addresses%5B%5D={b}"),
        format!("token_addresses%5B1%5D={b}&token_addresses%5B0%5D={a}"),
    ];
    let answers: Vec<Value> = forms.iter().map(|q| h.get(TOKENS, &tokens_path(showcase, q)).body).collect();
    assert_eq!(answers[0]["result"].as_array().unwrap().len(), 2);
    assert!(answers.iter().all(|a| a == &answers[0]));
}

#[test]
fn cursors_are_bound_to_their_query_and_signed() {
    let h = Session::new();
    let showcase = h.devnet().sample_wallets(1)[0];
    let first = h.get(TOKENS, &tokens_path(showcase, "limit=1"));
    let cursor = urlencode(first.body["cursor"].as_str().unwrap());
    // The same query with another page size is fine.
    assert_eq!(h.get(TOKENS, &tokens_path(showcase, &format!("limit=3&cursor={cursor}"))).status, 200);
    h.get(TOKENS, &tokens_path(showcase, &format!("limit=1&exclude_spam=true&cursor={cursor}")))
        .expect_error(400, "belongs to a query with other parameters");
    let tampered = cursor.replacen('A', "B", 1).replacen('Q', "R", 1);
    h.get(TOKENS, &tokens_path(showcase, &format!("limit=1&cursor={tampered}"))).expect_error(400, "cursor:");
    h.get(TOKENS, &tokens_path(showcase, "cursor=not-a-cursor")).expect_error(400, "cursor: malformed");
    h.get(TOKENS, &tokens_path(showcase, "cursor=")).expect_error(400, "cursor:");
}

#[test]
fn invalid_parameters_are_each_named() {
    let h = Session::new();
    let wallet = h.devnet().sample_wallets(1)[0];
    let cases = [
        ("chain=solana", "chain: \"solana\" is not a chain of the data API"),
        ("chain=amoy", "chain: \"amoy\""),
        ("chain=blast", "chain: \"blast\""),
        ("limit=101", "limit: \"101\" is not an integer from 0 to 100"),
        ("limit=-1", "limit:"),
        ("limit=ten", "limit:"),
        ("exclude_spam=yes", "exclude_spam: \"yes\" is not true or false"),
        ("exclude_native=1", "exclude_native:"),
        ("to_block=soon", "to_block:"),
        ("to_block=1.5", "to_block: \"1.5\" is not an integer"),
        ("max_token_inactivity=-2", "max_token_inactivity:"),
        ("min_pair_side_liquidity_usd=NaN", "min_pair_side_liquidity_usd:"),
        ("token_addresses=0x12", "token_addresses: \"0x12\" is not a 0x-prefixed 20-byte hex address"),
        ("chain=eth&chain=base", "chain: given 2 times"),
        ("colour=blue", "colour: not a parameter of this operation"),
    ];
    for (query, fragment) in cases {
        h.get(TOKENS, &tokens_path(wallet, query)).expect_error(400, fragment);
    }
    let eleven =
        (1..=11).map(|i| format!("token_addresses={:#x}", Address::repeat_byte(i))).collect::<Vec<_>>().join("&");
    h.get(TOKENS, &tokens_path(wallet, &eleven)).expect_error(400, "11 addresses given; at most 10");
    h.get(TOKENS, "/api/v2.2/wallets/0xnothex/tokens").expect_error(400, "address: \"0xnothex\"");
    // Several problems come back together.
    let answer = h.get(TOKENS, "/api/v2.2/wallets/nope/tokens?limit=500&chain=x");
    assert_eq!(answer.messages().len(), 3, "{}", answer.text);
    h.get(NFTS, &nfts_path(wallet, "format=octal"))
        .expect_error(400, "format: \"octal\" is not a token id format (decimal or hex)");
    h.get(NFTS, &nfts_path(wallet, "normalizeMetadata=no")).expect_error(400, "normalizeMetadata:");
    h.get(COLLECTIONS, &format!("/api/v2.2/{wallet:#x}/nft/collections?token_counts=maybe"))
        .expect_error(400, "token_counts:");
}

#[test]
fn the_key_is_required_and_any_configured_key_works() {
    let h = Session::new();
    let path = format!("{}{}", h.base(), tokens_path(h.devnet().sample_wallets(1)[0], ""));
    let missing = h.send(|c| c.get(&path));
    missing.check(TOKENS, "get");
    missing.expect_error(401, "API KEY missing");
    let wrong = h.send(|c| c.get(&path).header("x-api-key", "nope"));
    wrong.expect_error(401, "Invalid API key");
    assert_eq!(h.send(|c| c.get(&path).header("x-api-key", Session::new().key())).status, 200);
    let stream = h.send(|c| c.get(format!("{}/streams/evm/{}", h.base(), uuid::Uuid::nil())));
    stream.expect_error(401, "API KEY missing");
}

fn nft_owner(h: &Session) -> Address {
    h.devnet()
        .sample_wallets(24)
        .into_iter()
        .max_by_key(|w| h.get(NFTS, &nfts_path(*w, "")).body["result"].as_array().map_or(0, Vec::len))
        .unwrap()
}

#[test]
fn wallet_nfts_and_collections_agree() {
    let h = Session::new();
    let owner = nft_owner(&h);
    let all = h.get(NFTS, &nfts_path(owner, "limit=100"));
    assert_eq!(all.body["cursor"], Value::Null, "one page of 100 holds them: {}", all.text);
    let nfts = all.body["result"].as_array().unwrap();
    assert!(nfts.len() >= 2, "{nfts:?}");
    let page = h.get(NFTS, &nfts_path(owner, ""));
    assert_eq!(page.body["total"], nfts.len());
    assert_eq!(page.body["status"], "SYNCED");
    let hex = h.get(NFTS, &nfts_path(owner, "format=hex"));
    assert!(hex.body["result"].as_array().unwrap().iter().all(|n| n["token_id"].as_str().unwrap().starts_with("0x")));
    let collections = h.get(COLLECTIONS, &format!("/api/v2.2/{owner:#x}/nft/collections?token_counts=true"));
    assert_eq!(collections.status, 200, "{}", collections.text);
    let counted: u64 =
        collections.body["result"].as_array().unwrap().iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!(counted as usize, nfts.len());
    let addresses: BTreeSet<&str> = nfts.iter().map(|n| n["token_address"].as_str().unwrap()).collect();
    let listed: BTreeSet<&str> =
        collections.body["result"].as_array().unwrap().iter().map(|c| c["token_address"].as_str().unwrap()).collect();
    assert_eq!(addresses, listed);
}

/// The server encodes with sonic-rs; serde_json, which clients use, must
/// write the very same bytes for the values it decodes from them (numbers
/// with their shortest round-trip digits, strings escaped alike).
#[test]
fn answers_are_the_bytes_serde_json_writes() {
    fn same_as_serde_json<T: serde::de::DeserializeOwned + serde::Serialize>(text: &str) {
        let decoded: T = serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(serde_json::to_string(&decoded).unwrap(), text);
    }
    let h = Session::new();
    for chain in ["eth", "polygon"] {
        let latest = h.get(TOKENS, &tokens_path(h.devnet().sample_wallets(1)[0], &format!("chain={chain}")));
        let latest: u64 = latest.body["block_number"].as_str().unwrap().parse().unwrap();
        for (i, wallet) in h.devnet().sample_wallets(40).into_iter().enumerate() {
            let block = latest * (i as u64 % 4) / 3;
            let tokens = h.get(TOKENS, &tokens_path(wallet, &format!("chain={chain}&to_block={block}")));
            assert_eq!(tokens.status, 200, "{}", tokens.text);
            same_as_serde_json::<w3api_types::TokenBalancePage>(&tokens.text);
            let path = format!("/api/v2.2/{wallet:#x}/nft/collections?chain={chain}&token_counts=true");
            same_as_serde_json::<w3api_types::NftCollectionPage>(&h.get(COLLECTIONS, &path).text);
        }
    }
}

#[test]
fn a_collection_requested_by_filter_syncs_after_the_delay() {
    // A server of its own: the shared one indexes in 3 s, and other tests' requests would change what is SYNCING.
    let server = Setup::new().scale(Scale::TINY).source(|devnet| devnet.with_index_delay(INDEX_DELAY)).start();
    let h = server.session();
    let owner = nft_owner(&h);
    let fresh = Address::repeat_byte(0xab);
    let filtered = nfts_path(owner, &format!("token_addresses={fresh:#x}"));
    assert_eq!(h.get(NFTS, &filtered).body["status"], "SYNCING");
    assert_eq!(h.get(NFTS, &filtered).body["status"], "SYNCING", "responses that follow report it too");
    std::thread::sleep(INDEX_DELAY + std::time::Duration::from_millis(200));
    assert_eq!(h.get(NFTS, &filtered).body["status"], "SYNCED");
    // A collection of the wallet, newly requested, also makes the unfiltered answers SYNCING.
    let collection =
        h.get(NFTS, &nfts_path(owner, "")).body["result"][0]["token_address"].as_str().unwrap().to_string();
    h.get(NFTS, &nfts_path(owner, &format!("token_addresses={collection}&chain=gnosis")));
    let on_gnosis = h.get(COLLECTIONS, &format!("/api/v2.2/{owner:#x}/nft/collections?chain=gnosis"));
    let holds_it =
        on_gnosis.body["result"].as_array().unwrap().iter().any(|c| c["token_address"] == collection.as_str());
    assert_eq!(on_gnosis.body["status"], if holds_it { "SYNCING" } else { "SYNCED" });
}

#[test]
fn an_unknown_stream_and_a_malformed_id() {
    let h = Session::new();
    h.get(STREAM, &format!("/streams/evm/{}", uuid::Uuid::nil())).expect_error(404, "Stream not found");
    h.get(STREAM, "/streams/evm/not-a-uuid").expect_error(400, "id: \"not-a-uuid\" is not a UUID");
}

#[test]
fn unknown_paths_and_methods_have_error_bodies() {
    let h = Session::new();
    let unknown = h.send(|c| c.get(format!("{}/api/v2.2/nothing/here/at/all", h.base())).header("x-api-key", h.key()));
    unknown.expect_error(404, "No route for GET");
    let wrong_method =
        h.send(|c| c.patch(format!("{}/streams/evm/{}", h.base(), uuid::Uuid::nil())).header("x-api-key", h.key()));
    wrong_method.expect_error(405, "PATCH is not allowed");
    let mut allowed: Vec<&str> = wrong_method.headers["allow"].to_str().unwrap().split(',').collect();
    allowed.sort_unstable();
    assert_eq!(allowed, ["DELETE", "GET", "HEAD", "POST"]);
    let rpc_get = h.send(|c| c.get(format!("{}/eth/{}", h.base(), h.key())));
    assert_eq!(rpc_get.status, 405);
    assert_eq!(rpc_get.headers["allow"], "POST");
}

#[test]
fn bodies_that_are_too_large_malformed_or_misshapen_are_refused() {
    let h = Session::new();
    let url = format!("{}/challenge/request/solana", h.base());
    let huge = h.send(|c| {
        c.post(&url)
            .header("x-api-key", h.key())
            .header("content-type", "application/json")
            .body(vec![b' '; 1024 * 1024 + 1])
    });
    huge.check("/challenge/request/solana", "post");
    huge.expect_error(413, "exceeds 1048576 bytes");
    let malformed = h.send(|c| {
        c.post(&url).header("x-api-key", h.key()).header("content-type", "application/json").body("{\"domain\":")
    });
    malformed.expect_error(400, "body: malformed JSON");
    let text = h.send(|c| c.post(&url).header("x-api-key", h.key()).header("content-type", "text/plain").body("{}"));
    text.expect_error(400, "Content-Type must be application/json");
    let shapeless = h.post("/challenge/request/solana", &json!({"domain": "defi.finance", "network": "moon"}));
    shapeless.expect_error(400, "network");
    let missing = h.post("/challenge/verify/solana", &json!({"signature": "abc"}));
    missing.expect_error(400, "missing field `message`");
}

#[test]
fn the_service_routes_answer() {
    let h = Session::new();
    let health = h.send(|c| c.get(format!("{}/health", h.base())));
    assert_eq!((health.status, health.body["status"].as_str()), (200, Some("ok")));
    let openapi = h.send(|c| c.get(format!("{}/openapi.yaml", h.base())));
    assert!(openapi.text.starts_with("openapi: 3.0.3"));
    assert_eq!(openapi.headers["content-type"], "application/yaml");
    let openrpc = h.send(|c| c.get(format!("{}/openrpc.json", h.base())));
    assert_eq!(openrpc.body["openrpc"], "1.3.2");
    let id = h.send(|c| c.get(format!("{}/health", h.base())).header("x-request-id", "trace-me"));
    assert_eq!(id.headers["x-request-id"], "trace-me");
    assert!(!health.headers["x-request-id"].is_empty(), "an id is made when none is given");
}

#[test]
fn transfer_listings_name_each_bad_parameter_and_bind_their_cursors() {
    const WALLET_TRANSFERS: &str = "/api/v2.2/{address}/erc20/transfers";
    const COLLECTION_TRANSFERS: &str = "/api/v2.2/nft/{address}/transfers";
    let h = Session::new();
    let wallet = h.devnet().sample_wallets(1)[0];
    let path = |query: &str| format!("/api/v2.2/{wallet:#x}/erc20/transfers?{query}");
    let cases = [
        ("order=UP", "order: \"UP\" is not an order (ASC or DESC)"),
        ("order=asc", "order: \"asc\""),
        ("from_date=yesterday", "from_date: \"yesterday\" is not Unix seconds"),
        ("to_date=2024-13-01", "to_date:"),
        ("from_block=-1", "from_block:"),
        ("to_block=1.5", "to_block:"),
        ("contract_addresses=0x12", "contract_addresses: \"0x12\" is not a 0x-prefixed 20-byte hex address"),
    ];
    for (query, fragment) in cases {
        h.get(WALLET_TRANSFERS, &path(query)).expect_error(400, fragment);
    }
    let first = h.get(WALLET_TRANSFERS, &path("limit=1"));
    assert_eq!(first.body["page"], 0, "transfer pages count from 0");
    let cursor = urlencode(first.body["cursor"].as_str().expect("the wallet moved more than one token"));
    let second = h.get(WALLET_TRANSFERS, &path(&format!("limit=1&cursor={cursor}")));
    assert_eq!(second.body["page"], 1);
    assert_ne!(second.body["result"][0], first.body["result"][0], "the next page moves on");
    h.get(WALLET_TRANSFERS, &path(&format!("limit=1&order=ASC&cursor={cursor}")))
        .expect_error(400, "belongs to a query with other parameters");
    let moved = h.get("/api/v2.2/{address}/nft/transfers", &format!("/api/v2.2/{wallet:#x}/nft/transfers?limit=1"));
    let collection = moved.body["result"][0]["token_address"].as_str().expect("the wallet moved an NFT").to_string();
    let nfts = format!("/api/v2.2/nft/{collection}/transfers");
    h.get(COLLECTION_TRANSFERS, &format!("{nfts}?format=octal")).expect_error(400, "format:");
    h.get(COLLECTION_TRANSFERS, &format!("{nfts}?include_prices=maybe")).expect_error(400, "include_prices:");
    let beyond = h.get(COLLECTION_TRANSFERS, &format!("{nfts}?to_block=99999999&limit=1"));
    assert_eq!(beyond.body["block_exists"], false, "a to_block past the newest block");
    let within = h.get(COLLECTION_TRANSFERS, &format!("{nfts}?from_block=1&limit=1"));
    assert_eq!(within.body["block_exists"], true);
}

/// A marketplace sale moves the NFT in the sale's transaction: with
/// `include_prices`, that transfer's `last_sale` is the sale itself, and
/// without it there is none.
#[test]
fn an_nft_sold_lists_its_sale_with_include_prices() {
    const COLLECTION_TRANSFERS: &str = "/api/v2.2/nft/{address}/transfers";
    let h = Session::new();
    let wallet = h.devnet().sample_wallets(1)[0];
    let moved = h.get("/api/v2.2/{address}/nft/transfers", &format!("/api/v2.2/{wallet:#x}/nft/transfers?limit=1"));
    let collection = moved.body["result"][0]["token_address"].as_str().expect("the wallet moved an NFT").to_string();
    let path = |query: &str| format!("/api/v2.2/nft/{collection}/transfers?limit=100&{query}");
    let priced = h.get(COLLECTION_TRANSFERS, &path("include_prices=true"));
    let sold = priced.body["result"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["last_sale"]["transaction_hash"] == t["transaction_hash"]);
    let sold = sold.expect("a sale among the collection's latest transfers");
    let sale = &sold["last_sale"];
    assert_eq!(
        (&sale["buyer_address"], &sale["seller_address"]),
        (&sold["to_address"], &sold["from_address"]),
        "{sold}"
    );
    assert_eq!(sale["token_id"], sold["token_id"]);
    let plain = h.get(COLLECTION_TRANSFERS, &path(""));
    let same =
        plain.body["result"].as_array().unwrap().iter().find(|t| t["transaction_hash"] == sold["transaction_hash"]);
    assert!(same.expect("the same transfer")["last_sale"].is_null(), "no sale without include_prices");
}
