//! The chain-control methods on the gateway (`spec/openrpc-cheats.json`),
//! through the generated client: each change is a block that every answer
//! follows (balances, wallet tokens, blocks), reverts put every answer
//! back, caches included, and a server started without them refuses them.

use serde_json::{Value, json};
use w3api_devnet::Scale;
use w3api_rpc::cheats::{ErrorCode as CheatError, method};
use w3api_server::ServerConfig;
use w3api_tests::local::{Session, Setup};
use w3api_types::rpc::{
    BlockNumberOrTag, BlockTransactions, NewToken, NftMetadataParams, NftTraitParam, Quantity, Uint64,
};
use w3api_types::{Address, U256};

const ETHER: u128 = 1_000_000_000_000_000_000;

/// What the three views say of `address` at the newest block: its balance
/// by `eth_getBalance`, its native balance in wallet tokens, and the
/// newest block's number and hash.
#[derive(Debug, PartialEq)]
struct Views {
    latest: u64,
    hash: String,
    balance: U256,
    wallet_native: Option<U256>,
    wallet_block: Option<u64>,
}

fn views(session: &Session<'_>, address: Address) -> Views {
    let rpc = session.rpc();
    let rest = session.rest();
    session.run(async {
        let block = rpc.get_block_by_number(BlockNumberOrTag::Latest, false).await.unwrap().unwrap();
        let balance = rpc.get_balance(address, Some(BlockNumberOrTag::Latest.into())).await.unwrap();
        let tokens = rest.data().get_wallet_token_balances_price().address(address).send().await.unwrap();
        Views {
            latest: block.number,
            hash: format!("{:#x}", block.hash),
            balance,
            wallet_native: tokens.result.iter().find(|t| t.native_token).map(|t| t.balance),
            wallet_block: tokens.block_number,
        }
    })
}

#[test]
fn snapshot_set_balance_mine_revert_agree_everywhere_caches_included() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let rpc = session.rpc();
    let someone = Address::repeat_byte(0xd0);
    let start = views(&session, someone);
    assert_eq!((start.balance, start.wallet_native), (U256::ZERO, None));

    let snapshot = session.run(rpc.evm_snapshot()).unwrap();
    session.run(rpc.anvil_set_balance(someone, U256::from(10 * ETHER))).unwrap();
    let funded = views(&session, someone);
    assert_eq!(funded.latest, start.latest + 1);
    assert_eq!(funded.balance, U256::from(10 * ETHER));
    assert_eq!(funded.wallet_native, Some(U256::from(10 * ETHER)));
    assert_eq!(funded.wallet_block, Some(funded.latest));
    // Written outside any transaction, as Anvil sets it: no faucet pays.
    let block = session.run(rpc.get_block_by_number(BlockNumberOrTag::Number(funded.latest), true)).unwrap().unwrap();
    assert!(match block.transactions {
        BlockTransactions::Full(transactions) => transactions.is_empty(),
        BlockTransactions::Hashes(hashes) => hashes.is_empty(),
    });

    session.run(rpc.anvil_mine(Some(Quantity(2)), None)).unwrap();
    let mined = views(&session, someone);
    assert_eq!((mined.latest, mined.balance), (funded.latest + 2, funded.balance));
    // Asked for twice, so that the caches keep them.
    let by_number = |number: u64| session.run(rpc.get_block_by_number(BlockNumberOrTag::Number(number), false));
    for _ in 0..2 {
        assert!(by_number(funded.latest).unwrap().is_some());
        views(&session, someone);
    }

    assert!(session.run(rpc.evm_revert(U256::from(snapshot))).unwrap());
    assert_eq!(views(&session, someone), start);
    assert_eq!(by_number(funded.latest).unwrap(), None, "a reverted block is gone, though it was cached");
    assert!(!session.run(rpc.evm_revert(U256::from(snapshot))).unwrap(), "a snapshot is used up");

    // Another block takes the reverted one's number: its answers are the new block's.
    session.run(rpc.hardhat_set_balance(someone, U256::from(3 * ETHER))).unwrap();
    let again = views(&session, someone);
    assert_eq!(again.latest, funded.latest);
    assert_ne!(again.hash, funded.hash);
    assert_eq!(again.wallet_native, Some(U256::from(3 * ETHER)));
    assert_eq!(format!("{:#x}", by_number(funded.latest).unwrap().unwrap().hash), again.hash);
    session.finish();
}

#[test]
fn time_methods_take_hex_or_integers_and_blocks_follow() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let latest = |session: &Session<'_>| {
        let block = session.call("eth_getBlockByNumber", json!(["latest", false]));
        let quantity = |field: &str| serde_json::from_value::<Uint64>(block[field].clone()).unwrap().0;
        (quantity("number"), quantity("timestamp"))
    };
    let (number, timestamp) = latest(&session);
    assert_eq!(session.call(method::EVM_INCREASE_TIME, json!([3600])), json!(3600));
    assert_eq!(session.call(method::EVM_INCREASE_TIME, json!(["0x3c"])), json!(3660));
    assert_eq!(session.call(method::EVM_MINE, json!([])), json!("0x0"));
    assert_eq!(latest(&session), (number + 1, timestamp + 12 + 3660));
    assert_eq!(session.call(method::EVM_SET_NEXT_BLOCK_TIMESTAMP, json!([timestamp + 90_000])), Value::Null);
    assert_eq!(session.call(method::HARDHAT_MINE, json!(["0x3", "0x5"])), json!(true));
    assert_eq!(latest(&session), (number + 4, timestamp + 90_000 + 10));
    assert_eq!(session.call(method::EVM_MINE, json!([timestamp + 100_000])), json!("0x0"));
    assert_eq!(latest(&session), (number + 5, timestamp + 100_000));
    session.finish();
}

#[test]
fn bad_changes_are_invalid_params_that_say_what_was_wrong() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let someone = format!("{:#x}", Address::repeat_byte(0xd1));
    session.call(method::ANVIL_SET_BALANCE, json!([someone, "0x100"]));
    let cases = [
        (method::EVM_SET_NEXT_BLOCK_TIMESTAMP, json!([1]), "not after the newest block's"),
        (method::ANVIL_MINE, json!(["0x186a1"]), "at most 100000"),
        (method::EVM_INCREASE_TIME, json!(["sixty"]), "hex quantity or a non-negative integer"),
        (method::ANVIL_SET_BALANCE, json!(["0x12", "0x1"]), "Invalid params"),
    ];
    for (name, params, says) in cases {
        let error = session.call_error(name, params.clone());
        assert_eq!(error["code"], CheatError::InvalidParams.code(), "{name} {params}: {error}");
        // The message says why a parameter does not parse.
        assert!(error["message"].as_str().unwrap().contains(says), "{name} {params}: {error}");
    }
    session.finish();
}

#[test]
fn a_server_without_cheats_refuses_each_method_saying_so() {
    let local = Setup::new().scale(Scale::TINY).config(|config| ServerConfig { cheats: false, ..config }).start();
    let session = local.session();
    let someone = format!("{:#x}", Address::repeat_byte(0xd2));
    let latest = session.call("eth_blockNumber", json!([]));
    for name in method::ALL {
        let params = match *name {
            method::W3API_CREATE_TOKEN => json!([{"name": "T", "symbol": "T", "decimals": 0}]),
            method::W3API_CREATE_COLLECTION => json!([{"name": "C", "symbol": "C", "standard": "ERC721"}]),
            method::W3API_ADD_FAULT_RULE => json!(["*", "code=503"]),
            method::W3API_REMOVE_FAULT_RULE => json!(["0x0"]),
            method::W3API_MINT_TOKEN => json!([someone, someone, "0x1"]),
            method::W3API_MINT_NFT => json!([someone, someone]),
            method::W3API_TRANSFER => json!([someone, someone, someone, "0x1"]),
            method::W3API_SET_PRICE => json!([someone, 1.5]),
            method::EVM_REVERT => json!(["0x1"]),
            method::EVM_INCREASE_TIME | method::EVM_SET_NEXT_BLOCK_TIMESTAMP => json!(["0x7fffffff"]),
            method::ANVIL_SET_BALANCE | method::HARDHAT_SET_BALANCE => json!([someone, "0x1"]),
            method::ANVIL_SET_CODE | method::HARDHAT_SET_CODE => json!([someone, "0x00"]),
            method::ANVIL_SET_STORAGE_AT | method::HARDHAT_SET_STORAGE_AT => {
                json!([someone, "0x0", format!("0x{}", "0".repeat(64))])
            }
            method::ANVIL_SET_NONCE | method::HARDHAT_SET_NONCE => json!([someone, "0x1"]),
            method::ANVIL_IMPERSONATE_ACCOUNT
            | method::HARDHAT_IMPERSONATE_ACCOUNT
            | method::ANVIL_STOP_IMPERSONATING_ACCOUNT
            | method::HARDHAT_STOP_IMPERSONATING_ACCOUNT => json!([someone]),
            method::EVM_SET_AUTOMINE => json!([false]),
            method::EVM_SET_INTERVAL_MINING | method::ANVIL_SET_INTERVAL_MINING => json!([5]),
            method::ANVIL_DROP_TRANSACTION | method::HARDHAT_DROP_TRANSACTION => {
                json!([format!("0x{}", "1".repeat(64))])
            }
            method::ANVIL_LOAD_STATE => json!(["0x7b7d"]),
            _ => json!([]),
        };
        let error = session.call_error(name, params);
        assert_eq!(error["code"], CheatError::MethodNotSupported.code(), "{name}: {error}");
        assert!(error["message"].as_str().unwrap().contains("--no-cheats"), "{name}: {error}");
    }
    assert_eq!(session.call("eth_blockNumber", json!([])), latest, "nothing was mined");
    session.finish();
}

#[test]
fn the_w3api_methods_shape_a_wallet_that_the_rest_api_then_shows() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let rpc = session.rpc();
    let rest = session.rest();
    session.run(async {
        let wallet = rpc.w3api_create_wallet(Some(U256::from(ETHER))).await.unwrap();
        let new_token = |symbol: &str, spam: bool, usd_price: Option<f64>| NewToken {
            name: format!("{symbol} Token"),
            symbol: symbol.into(),
            decimals: 8,
            logo: None,
            spam,
            verified: None,
            usd_price,
            liquidity_usd: None,
            supply: None,
        };
        let good = rpc.w3api_create_token(new_token("GOOD", false, Some(4.0))).await.unwrap();
        let junk = rpc.w3api_create_token(new_token("JUNK", true, None)).await.unwrap();
        for token in [good, junk] {
            rpc.w3api_mint_token(token, wallet.address, U256::from(300_000_000u64)).await.unwrap();
        }
        let price = rpc.w3api_set_price(good, 5.0).await.unwrap();
        assert!((price - 5.0).abs() < 1e-9, "the price read back: {price}");
        let world = session.devnet().chain(w3api_types::Chain::Eth);
        let collection =
            world.world.collections.iter().find(|c| c.kind == w3api_types::ContractType::Erc721).unwrap().address;
        drop(world);
        let metadata = NftMetadataParams {
            name: Some("Gold Key".into()),
            attributes: vec![NftTraitParam { trait_type: "Metal".into(), value: "Gold".into() }],
            ..NftMetadataParams::default()
        };
        let id = rpc.w3api_mint_nft(collection, wallet.address, None, Some(metadata)).await.unwrap();

        let tokens = rest.data().get_wallet_token_balances_price().address(wallet.address).send().await.unwrap();
        let of = |address: Address| tokens.result.iter().find(|t| t.token_address == Some(address)).unwrap();
        assert_eq!((of(good).balance, of(good).possible_spam), (U256::from(300_000_000u64), false));
        assert!((of(good).usd_value.unwrap() - 15.0).abs() < 1e-6, "3 GOOD at 5 USD: {:?}", of(good).usd_value);
        assert!(of(junk).possible_spam);
        let nfts = rest.data().get_wallet_nfts().address(wallet.address).normalize_metadata(true).send().await.unwrap();
        assert_eq!(nfts.result.len(), 1);
        assert_eq!(nfts.result[0].token_id, id.to_string());
        assert_eq!(nfts.result[0].normalized_metadata.as_ref().unwrap().name.as_deref(), Some("Gold Key"));

        // The wallet's key signs its transfers.
        let friend = Address::repeat_byte(0xfe);
        rpc.w3api_transfer(wallet.address, friend, good, U256::from(100_000_000u64), None).await.unwrap();
        rpc.w3api_transfer(wallet.address, friend, collection, U256::from(1), Some(id)).await.unwrap();
        let error = rpc.w3api_transfer(friend, wallet.address, good, U256::from(1), None).await.unwrap_err();
        assert!(error.to_string().contains("holds no key"), "{error}");
        let moved = rest.data().get_wallet_token_balances_price().address(friend).send().await.unwrap();
        assert_eq!(
            moved.result.iter().find(|t| t.token_address == Some(good)).unwrap().balance,
            U256::from(100_000_000u64)
        );
    });
    session.finish();
}

#[test]
fn fault_rules_set_over_json_rpc_spoil_answers_as_many_times_as_asked() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let rpc = session.rpc();
    // The client's default retry policy, which the session's clients turn off.
    let rest = w3api_rest::Client::builder().base_url(session.base()).api_key(session.key()).build().unwrap();
    let wallet = session.devnet().sample_wallets(1)[0];
    session.run(async {
        let tokens = "getWalletTokenBalancesPrice".to_string();
        rpc.w3api_add_fault_rule(tokens, "code=429".into(), Some(Quantity(2))).await.unwrap();
        let started = std::time::Instant::now();
        let page = rest.data().get_wallet_token_balances_price().address(wallet).send().await.unwrap();
        assert!(!page.result.is_empty());
        assert!(
            started.elapsed() >= std::time::Duration::from_secs(2),
            "two Retry-After waits: {:?}",
            started.elapsed()
        );

        let once =
            rpc.w3api_add_fault_rule("eth_blockNumber".into(), "code=503".into(), Some(Quantity(1))).await.unwrap();
        let spoiled = rpc.block_number().await.unwrap_err();
        assert!(spoiled.to_string().contains("503"), "{spoiled}");
        assert!(rpc.block_number().await.is_ok(), "spent after one answer");
        assert!(!rpc.w3api_remove_fault_rule(once).await.unwrap(), "a spent rule is gone");

        let forever = rpc.w3api_add_fault_rule("*".into(), "delay=50ms".into(), None).await.unwrap();
        assert!(rpc.w3api_remove_fault_rule(forever).await.unwrap());
        rpc.w3api_add_fault_rule("eth_chainId".into(), "fault=malformed".into(), None).await.unwrap();
        rpc.w3api_clear_fault_rules().await.unwrap();
        assert!(rpc.chain_id().await.is_ok(), "cleared");

        for (target, prefer, says) in [
            ("getWalletTokenBalancesPrice", "code=200", "code=200"),
            ("eth_noSuchMethod", "code=503", "no JSON-RPC method is named"),
            ("eth_chainId", "return=minimal", "asks for no code, delay or fault"),
        ] {
            let error = rpc.w3api_add_fault_rule(target.into(), prefer.into(), None).await.unwrap_err();
            assert!(error.to_string().contains(says), "{target} {prefer}: {error}");
        }
    });
    session.finish();
}

#[test]
fn time_past_what_the_data_api_can_date_is_refused_and_the_chain_answers_on() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let before = session.call("eth_blockNumber", json!([]));
    let last = w3api_devnet::LAST_TIMESTAMP;
    let refused = [
        ("evm_increaseTime", json!(["0xffffffffffffffff"])),
        ("evm_setNextBlockTimestamp", json!(["0xffffffffffffffff"])),
        ("evm_setNextBlockTimestamp", json!([format!("{:#x}", last + 1)])),
        ("anvil_mine", json!(["0x2", "0xffffffffffffffff"])),
        ("hardhat_mine", json!(["0x2", "0xffffffffffff"])),
    ];
    for (method, params) in refused {
        let error = session.call_error(method, params.clone());
        assert_eq!(error["code"], -32602, "{method} {params}: {error}");
        let message = error["message"].as_str().unwrap();
        assert!(message.contains(&last.to_string()) && message.contains("9999-12-31T23:59:59Z"), "{message}");
    }
    assert_eq!(session.call("eth_blockNumber", json!([])), before, "nothing refused made a block");
    // Time may still move up to the last date the chain takes.
    session.call("evm_setNextBlockTimestamp", json!([format!("{last:#x}")]));
    session.call("evm_mine", json!([]));
    let mined = session.call("eth_getBlockByNumber", json!(["latest", false]));
    assert_eq!(mined["timestamp"], format!("{last:#x}"));
    let number = u64::from_str_radix(mined["number"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    let answer = session.get("/api/v2.2/block/{block_number_or_hash}", &format!("/api/v2.2/block/{number}?chain=eth"));
    assert_eq!(answer.status, 200, "{}", answer.text);
    assert_eq!(answer.body["timestamp"], "9999-12-31T23:59:59Z", "{}", answer.text);
    let refused = session.call_error("evm_mine", json!([]));
    assert!(refused["message"].as_str().unwrap().contains("9999-12-31T23:59:59Z"), "{refused}");
    session.finish();
}
