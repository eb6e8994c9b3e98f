//! Each API command of `w3api` as a user runs it, against a server on
//! 127.0.0.1:0 in this test process: text and JSON output, `--all`, and
//! errors that carry the server's message and a failure exit.

use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use serde_json::Value;
use unicode_width::UnicodeWidthStr;
use w3api_devnet::Scale;
use w3api_tests::local::{Session, Setup};
use w3api_types::rpc::{NewCollection, NewToken, NftStandard};
use w3api_types::{TokenBalance, TokenBalancePage, U256};

/// The session of this binary on the harness's shared server: its key is
/// the one the commands pass.
fn server() -> &'static Session<'static> {
    static SESSION: OnceLock<Session> = OnceLock::new();
    SESSION.get_or_init(Session::new)
}

fn key() -> &'static str {
    server().key()
}

/// `w3api <args>` against the test server (the key and URL as options).
fn w3api(args: &[&str]) -> Output {
    w3api_at(server().base(), key(), args)
}

/// `w3api <args>` against the server at `base` with `key`, as options; the
/// `W3API_` variables of the environment are left out.
pub(crate) fn w3api_at(base: &str, key: &str, args: &[&str]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_w3api"));
    for (name, _) in std::env::vars().filter(|(name, _)| name.starts_with("W3API_")) {
        command.env_remove(name);
    }
    command.args(["--base-url", base, "--api-key", key]).args(args).output().expect("w3api runs")
}

/// The stdout of a command that succeeded.
pub(crate) fn stdout(output: &Output) -> String {
    assert!(output.status.success(), "failed: {}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn json(args: &[&str]) -> Value {
    let mut with_json = args.to_vec();
    with_json.push("--json");
    serde_json::from_str(&stdout(&w3api(&with_json))).expect("--json prints one JSON document")
}

/// A failure: exit status 1 and the error on stderr.
fn failure(args: &[&str]) -> String {
    let output = w3api(args);
    assert_eq!(output.status.code(), Some(1), "{args:?}: {}", String::from_utf8_lossy(&output.stdout));
    String::from_utf8(output.stderr).unwrap()
}

fn showcase() -> String {
    format!("{:#x}", server().devnet().sample_wallets(1)[0])
}

#[test]
fn tokens_as_a_table_as_json_and_across_pages() {
    let wallet = showcase();
    let table = stdout(&w3api(&["tokens", &wallet, "--chain", "eth"]));
    let page: TokenBalancePage = serde_json::from_value(json(&["tokens", &wallet])).unwrap();
    assert!(page.result.len() >= 20);
    assert!(table.starts_with("SYMBOL"), "{table}");
    for token in &page.result {
        assert!(table.contains(&format!("{} ", token.symbol)) && table.contains(&token.balance_formatted), "{table}");
    }
    assert!(table.contains(&format!("at block {}", page.block_number.unwrap())), "{table}");

    let output = w3api(&["tokens", &wallet, "--limit", "5", "--all", "--json"]);
    let walked: Vec<TokenBalance> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(walked, page.result, "--all --json is one array of every item, in order");
    let progress = String::from_utf8(output.stderr).unwrap();
    let pages = page.result.len().div_ceil(5);
    assert!(progress.contains(&format!("page {pages}: {} items so far", page.result.len())), "{progress}");

    let first = stdout(&w3api(&["tokens", &wallet, "--limit", "5"]));
    // The page number is the server's: token pages count from 0, as production's do.
    assert!(first.contains("5 items, page 0; next page: --cursor "), "{first}");
}

#[test]
fn every_token_parameter_is_a_flag() {
    let wallet = showcase();
    let all: TokenBalancePage = serde_json::from_value(json(&["tokens", &wallet])).unwrap();
    let picked: Vec<String> = all
        .result
        .iter()
        .filter(|t| !t.native_token)
        .take(2)
        .map(|t| format!("{:#x}", t.token_address.unwrap()))
        .collect();
    let filtered = json(&[
        "tokens",
        &wallet,
        "--token-address",
        &picked[0],
        "--token-address",
        &picked[1],
        "--exclude-spam",
        "--exclude-unverified-contracts=false",
        "--exclude-native",
        "--max-token-inactivity",
        "36500",
        "--min-pair-side-liquidity-usd",
        "0",
        "--to-block",
        "4000",
    ]);
    assert_eq!(filtered["block_number"], "4000", "a decimal string, as production documents it");
    let addresses: Vec<&str> =
        filtered["result"].as_array().unwrap().iter().map(|t| t["token_address"].as_str().unwrap()).collect();
    assert!(!addresses.is_empty() && addresses.iter().all(|a| picked.iter().any(|p| p == a)), "{addresses:?}");
}

/// Whether `c` would act on a terminal instead of being shown: a control
/// character other than the line end, or a bidirectional override or isolate.
fn acts_on_a_terminal(c: char) -> bool {
    (c.is_control() && c != '\n') || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The lines of the table above a listing's one-line footer, and the
/// terminal column where each line's last cell starts (those cells hold no
/// space: an address, `-`, `true`, a symbol, the header).
fn last_column_starts(listing: &str) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = listing.lines().collect();
    assert!(lines.len() >= 3, "a header, a row and the footer:\n{listing}");
    let table = &lines[..lines.len() - 1];
    table.iter().map(|line| (line.width() - line.rsplit(' ').next().unwrap().width(), *line)).collect()
}

/// Shows that `listing` reaches the terminal inert, holds each of `shown`,
/// and keeps its last column in one place on every line.
fn assert_safe_and_aligned(listing: &str, shown: &[&str]) {
    let raw: Vec<char> = listing.chars().filter(|&c| acts_on_a_terminal(c)).collect();
    assert!(raw.is_empty(), "{raw:?} reach the terminal in:\n{listing:?}");
    assert!(listing.bytes().all(|b| b >= 0x20 || b == b'\n') && !listing.contains('\u{7f}'), "{listing:?}");
    for text in shown {
        assert!(listing.contains(text), "{text} in:\n{listing}");
    }
    let starts = last_column_starts(listing);
    assert!(starts.iter().all(|(start, _)| *start == starts[0].0), "the last column moves: {starts:#?}");
}

/// Names and symbols are whoever deployed the contract's choice: the tables
/// of `w3api tokens`, `nfts` and `collections` show escape sequences and
/// bidirectional overrides escaped, and keep their columns aligned around
/// wide characters.
#[test]
fn deployer_chosen_names_reach_the_terminal_escaped_and_aligned() {
    let local = Setup::new().scale(Scale::TINY).start();
    let session = local.session();
    let rpc = session.rpc();
    let (wallet, token) = session.run(async {
        let wallet = rpc.w3api_create_wallet(Some(U256::from(10u128.pow(18)))).await.unwrap().address;
        let token = NewToken {
            name: "\x1b[31m代币🚀".into(),
            symbol: "\u{202e}\x1b[2J币".into(),
            decimals: 6,
            logo: None,
            spam: false,
            verified: None,
            usd_price: Some(2.5),
            liquidity_usd: None,
            supply: None,
        };
        let token = rpc.w3api_create_token(token).await.unwrap();
        rpc.w3api_mint_token(token, wallet, U256::from(1_500_000u64)).await.unwrap();
        let collection = NewCollection {
            name: "画廊\x1b]0;pwned\x07🖼".into(),
            symbol: "\u{2066}NFT\x1b[1m".into(),
            standard: NftStandard::Erc721,
            spam: false,
            verified: None,
            logo: None,
        };
        let collection = rpc.w3api_create_collection(collection).await.unwrap();
        rpc.w3api_mint_nft(collection, wallet, None, None).await.unwrap();
        (wallet, token)
    });
    let wallet = format!("{wallet:#x}");
    let run = |args: &[&str]| stdout(&w3api_at(session.base(), session.key(), args));

    let tokens = run(&["tokens", &wallet, "--chain", "eth"]);
    // The wallet's ether and the token: rows of different widths around the name.
    assert_eq!(last_column_starts(&tokens).len(), 3, "{tokens}");
    assert_safe_and_aligned(&tokens, &[r"\u{1b}[31m代币🚀", r"\u{202e}\u{1b}[2J币", "ETH"]);
    let row = tokens.lines().find(|line| line.contains("代币")).unwrap();
    assert!(row.ends_with(&format!("{token:#x}")), "{row}");
    // The balance column (right-aligned, after the name) ends where its header does.
    let end = |line: &str, cell: &str| line[..line.find(cell).unwrap() + cell.len()].width();
    assert_eq!(end(row, "1.5"), end(tokens.lines().next().unwrap(), "BALANCE"), "{tokens}");

    let collections = run(&["collections", &wallet]);
    assert_safe_and_aligned(&collections, &[r"画廊\u{1b}]0;pwned\u{7}🖼", r"\u{2066}NFT\u{1b}[1m"]);
    let nfts = run(&["nfts", &wallet]);
    assert_safe_and_aligned(&nfts, &[r"画廊\u{1b}]0;pwned\u{7}🖼", r"\u{2066}NFT\u{1b}[1m"]);
    session.finish();
}

#[test]
fn nfts_and_collections() {
    let devnet = server().devnet();
    let collector = devnet
        .sample_wallets(20)
        .into_iter()
        .map(|w| format!("{w:#x}"))
        .max_by_key(|w| json(&["nfts", w, "--limit", "1"])["total"].as_u64().unwrap_or(0))
        .unwrap();
    let hex = json(&["nfts", &collector, "--format", "hex", "--normalize-metadata=false", "--media-items"]);
    let nfts = hex["result"].as_array().unwrap();
    assert!(!nfts.is_empty());
    assert!(nfts.iter().all(|n| n["token_id"].as_str().unwrap().starts_with("0x")), "{hex}");
    assert!(nfts.iter().all(|n| n.get("normalized_metadata").is_none_or(Value::is_null)), "{hex}");
    let table = stdout(&w3api(&["nfts", &collector]));
    assert!(table.starts_with("COLLECTION") && table.contains(&format!("{} in total", nfts.len())), "{table}");

    let collections = json(&["collections", &collector, "--token-counts", "--chain", "0x1"]);
    let listed = collections["result"].as_array().unwrap();
    assert!(listed.iter().all(|c| c["count"].as_u64().is_some_and(|n| n > 0)), "{collections}");
    let counted: u64 = listed.iter().map(|c| c["count"].as_u64().unwrap()).sum();
    assert_eq!(counted as usize, nfts.len(), "a count per collection adds up to the NFTs");
    assert!(stdout(&w3api(&["collections", &collector, "--all"])).contains("status SYNCED"));
}

#[test]
fn sign_in_with_a_devnet_key() {
    let dir = tempfile::tempdir().unwrap();
    let message = dir.path().join("message.txt");
    let address = server().devnet().solana_address(2);
    let request = [
        "signin",
        "request",
        "--domain",
        "cli.example",
        "--uri",
        "https://cli.example/login",
        "--address",
        &address,
        "--network",
        "devnet",
        "--timeout",
        "60",
        "--statement",
        "Sign in from the CLI test",
        "--resource",
        "https://cli.example/terms",
        "--message-out",
        message.to_str().unwrap(),
    ];
    let challenge = stdout(&w3api(&request));
    assert!(
        challenge.contains("message to sign:") && challenge.contains("  | Sign in from the CLI test"),
        "{challenge}"
    );
    let signed = w3api(&["devnet", "solana-sign", "--index", "2", "--message-file", message.to_str().unwrap()]);
    let signature = stdout(&signed).trim().to_string();
    let tampered = dir.path().join("tampered.txt");
    std::fs::write(&tampered, std::fs::read_to_string(&message).unwrap().replace("CLI test", "CLI tent")).unwrap();
    let refused =
        failure(&["signin", "verify", "--message-file", tampered.to_str().unwrap(), "--signature", &signature]);
    assert!(refused.contains("400") && refused.contains("tampered"), "{refused}");
    let verified = json(&["signin", "verify", "--message-file", message.to_str().unwrap(), "--signature", &signature]);
    assert_eq!(verified["address"], address.as_str());
    let replayed =
        failure(&["signin", "verify", "--message-file", message.to_str().unwrap(), "--signature", &signature]);
    assert!(replayed.contains("replay"), "{replayed}");
}

#[test]
fn rpc_blocks_transactions_and_prices() {
    let block = json(&["rpc", "block", "10", "--full"]);
    let transactions = block["transactions"].as_array().unwrap();
    assert_eq!(transactions.len(), 150);
    assert_eq!(json(&["rpc", "block", "0xa"])["hash"], block["hash"], "decimal and hex name the same block");
    let text = stdout(&w3api(&["rpc", "--chain", "eth", "block", "10", "--full"]));
    assert!(text.contains("transactions  150") && text.contains(transactions[149]["hash"].as_str().unwrap()), "{text}");

    let hash = block["hash"].as_str().unwrap();
    let by_hash = json(&["rpc", "tx-by-hash", hash, "0x2"]);
    assert_eq!(by_hash, transactions[2]);
    assert_eq!(json(&["rpc", "tx-by-number", "10", "2"]), by_hash);
    let latest = json(&["rpc", "block", "latest"]);
    if latest["transactions"].as_array().unwrap().is_empty() {
        assert!(failure(&["rpc", "tx-by-number", "latest", "0"]).contains("no transaction 0 in block latest"));
    } else {
        assert_eq!(json(&["rpc", "tx-by-number", "latest", "0"])["hash"], latest["transactions"][0]);
    }

    let missing = w3api(&["rpc", "block", "99999999", "--json"]);
    assert_eq!(missing.status.code(), Some(1));
    assert_eq!(String::from_utf8(missing.stdout).unwrap().trim(), "null");
    assert!(String::from_utf8(missing.stderr).unwrap().contains("no block 99999999 on eth"));
    assert!(failure(&["rpc", "tx-by-hash", hash, "150"]).contains("no transaction 150"));

    let wallet = showcase();
    let page: TokenBalancePage = serde_json::from_value(json(&["tokens", &wallet, "--exclude-native"])).unwrap();
    let token = page.result.iter().find(|t| t.usd_price.is_some()).unwrap();
    let address = format!("{:#x}", token.token_address.unwrap());
    let at = page.block_number.unwrap().to_string();
    let price = json(&["rpc", "price", &address, "--to-block", &at, "--percent-change"]);
    assert_eq!(price["usdPrice"].as_f64(), token.usd_price);
    assert!(price.get("24hrPercentChange").is_some(), "{price}");
    let exchange = price["exchangeName"].as_str().unwrap();
    let on_exchange = json(&["rpc", "price", &address, "--to-block", &at, "--exchange", exchange]);
    assert_eq!(on_exchange["usdPrice"], price["usdPrice"], "the deepest pair is on {exchange}");
    let text = stdout(&w3api(&["rpc", "price", &address]));
    assert!(text.contains("USD price") && text.contains(&token.symbol), "{text}");
}

#[test]
fn errors_carry_the_servers_message() {
    let wallet = showcase();
    let too_many = failure(&["tokens", &wallet, "--limit", "101"]);
    assert!(too_many.contains("400") && too_many.contains("limit"), "{too_many}");
    let unpriced = failure(&["rpc", "price", "0x000000000000000000000000000000000000dead"]);
    assert!(unpriced.contains("-32001") && unpriced.contains("no DEX pair"), "{unpriced}");

    let server = server();
    let run = |args: &[&str]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_w3api"));
        command.env_remove("W3API_API_KEY").env("W3API_BASE_URL", server.base()).args(args).output().unwrap()
    };
    let no_key = run(&["tokens", &wallet]);
    assert_eq!(no_key.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&no_key.stderr).contains("no API key: pass --api-key or set W3API_API_KEY"));
    let wrong_key = run(&["--api-key", "nope", "tokens", &wallet]);
    assert!(String::from_utf8_lossy(&wrong_key.stderr).contains("401 Unauthorized: Invalid API key"));
    let wrong_rpc_key = run(&["--api-key", "nope", "rpc", "block", "latest"]);
    assert!(String::from_utf8_lossy(&wrong_rpc_key.stderr).contains("HTTP 401"));
    let two_keys = run(&["--api-key", key(), "--api-key", "other", "tokens", &wallet]);
    assert_eq!(two_keys.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&two_keys.stderr).contains("2 API keys given"), "a client sends one key");
    let malformed_chain = run(&["--api-key", key(), "tokens", &wallet, "--chain", "Solana!"]);
    assert_eq!(malformed_chain.status.code(), Some(2), "clap refuses a value that is no chain before calling");
    assert!(String::from_utf8_lossy(&malformed_chain.stderr).contains("invalid chain \"Solana!\""));
    // A well-formed chain the table does not list is sent as written (production
    // may serve it); this server does not, and its 400 names the parameter.
    let other_chain = run(&["--api-key", key(), "tokens", &wallet, "--chain", "solana"]);
    assert_eq!(other_chain.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&other_chain.stderr).contains("400 Bad Request: chain"), "{other_chain:?}");
}

#[test]
fn rpc_chains_follow_the_option() {
    let base = json(&["rpc", "--chain", "base", "block", "0"]);
    let eth = json(&["rpc", "block", "0"]);
    assert_ne!(base["hash"], eth["hash"], "each chain has its own blocks");
    let polygon = json(&["tokens", &showcase(), "--chain", "polygon"]);
    assert!(polygon["result"].as_array().is_some_and(|r| !r.is_empty()));
}

#[test]
fn the_demo_runs_every_operation() {
    let output = Command::new(env!("CARGO_BIN_EXE_w3api")).arg("demo").output().unwrap();
    let text = stdout(&output);
    for section in [
        "GET /api/v2.2/wallets/{address}/tokens",
        "GET /api/v2.2/{address}/nft)",
        "GET /api/v2.2/{address}/nft/collections",
        "GET /api/v2.2/nft/{address}/owners",
        "GET /api/v2.2/{address}/erc20/transfers",
        "POST /streams/evm/{chainId}/block/{blockNumber}",
        "eth_getBlockByNumber",
        "eth_getTransactionByBlockHashAndIndex",
        "eth_getTransactionByBlockNumberAndIndex",
        "eth_getTokenPrice",
        "POST /challenge/request/solana",
    ] {
        assert!(text.contains(section), "the demo shows {section}:\n{text}");
    }
    assert!(text.contains("the same transaction as by hash and index: yes"), "{text}");
    assert!(text.contains("transactions  150") && text.contains("... and 140 more"), "{text}");
    assert!(text.contains("verified  ") && text.contains("USD price"), "{text}");
}

#[test]
fn devnet_stats_counts_the_chain_the_server_serves() {
    // The shared server runs the default devnet (seed 0, default scale), as
    // `w3api devnet stats` does without options.
    let data = server().devnet().chain(w3api_types::Chain::Base);
    let text = stdout(&w3api(&["devnet", "stats", "--chain", "base"]));
    let summary = format!(
        "base: {} blocks, {} transactions, {} ledger movements,",
        data.blocks.len(),
        data.transactions.len(),
        data.ledger.movements().len()
    );
    assert!(text.starts_with(&summary), "{text}");
    assert!(text.contains("chain generated in") && text.contains("peak resident memory:"), "{text}");

    // A name the devnet has no chain for is refused by the command line
    // (clap's usage error, exit 2), not a panic.
    for command in ["stats", "blocks"] {
        let output = w3api(&["devnet", command, "--chain", "atlantis"]);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{command}: {stderr}");
        assert!(stderr.contains("the devnet has no chain \"atlantis\""), "{command}: {stderr}");
    }
}

#[test]
fn a_stdout_closed_early_ends_the_command_quietly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_w3api"))
        .args(["devnet", "wallets", "--count", "3"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes before anything is written, as `| head -0` does.
    drop(child.stdout.take());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success() && stderr.is_empty(), "{:?}: {stderr}", output.status);
}

#[test]
fn the_everyday_commands_answer_as_the_data_api_does() {
    let wallet = showcase();
    let page: TokenBalancePage = serde_json::from_value(json(&["tokens", &wallet, "--exclude-native"])).unwrap();
    let at = page.block_number.unwrap().to_string();
    let priced: Vec<String> = page
        .result
        .iter()
        .filter(|t| t.usd_price.is_some())
        .take(2)
        .map(|t| format!("{:#x}", t.token_address.unwrap()))
        .collect();

    let balance = json(&["balance", &wallet, "--to-block", &at]);
    let tokens: TokenBalancePage = serde_json::from_value(json(&["tokens", &wallet, "--to-block", &at])).unwrap();
    let native = tokens.result.iter().find(|t| t.native_token).unwrap();
    assert_eq!(balance["balance"].as_str().unwrap(), native.balance.to_string());
    let text = stdout(&w3api(&["balances", &wallet, "0x0000000000000000000000000000000000000001"]));
    assert!(text.contains(&wallet) && text.contains("in total"), "{text}");

    let erc20 = json(&["erc20", &wallet, "--to-block", &at, "--exclude-spam=false"]);
    assert_eq!(erc20.as_array().unwrap().len(), page.result.len(), "every ERC20 the priced answer lists");

    let price = json(&["price", &priced[0], "--to-block", &at, "--percent-change"]);
    let rpc = json(&["rpc", "price", &priced[0], "--to-block", &at, "--percent-change"]);
    assert_eq!(price, rpc, "REST and the gateway give one price");
    let prices = json(&["prices", &priced[0], &priced[1], "--to-block", &at]);
    assert_eq!(prices.as_array().unwrap().len(), 2);
    let text = stdout(&w3api(&["prices", &priced[0], "0x000000000000000000000000000000000000dead"]));
    assert!(text.contains("1 of 2 tokens priced"), "{text}");

    let metadata = json(&["metadata", &priced[0]]);
    let known = page.result.iter().find(|t| format!("{:#x}", t.token_address.unwrap()) == priced[0]).unwrap();
    assert_eq!(metadata[0]["symbol"].as_str(), Some(known.symbol.as_str()));
    assert_eq!(metadata[0]["decimals"].as_str(), Some(known.decimals.to_string().as_str()));

    let found = json(&["date-to-block", "2999-01-01"]);
    let latest = json(&["rpc", "block", "latest"]);
    assert_eq!(found["hash"], latest["hash"], "a date past the newest block names the newest");
    let bad = w3api(&["date-to-block", "yesterday"]);
    let said = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "a usage error: {said}");
    assert!(said.contains("\"yesterday\" is not Unix seconds"), "{said}");

    let worth = json(&["net-worth", &wallet, "--chain", "eth", "--chain", "polygon"]);
    assert_eq!(worth["chains"].as_array().unwrap().len(), 2, "{worth}");
    let text = stdout(&w3api(&["net-worth", &wallet]));
    assert!(text.contains("total: $"), "{text}");
}

#[test]
fn the_collection_commands_read_nfts_by_collection() {
    let wallet = showcase();
    let held = json(&["nfts", &wallet, "--limit", "1"]);
    let first = &held["result"][0];
    let (collection, id) = (first["token_address"].as_str().unwrap(), first["token_id"].as_str().unwrap());

    let one = json(&["nft", collection, id]);
    assert_eq!((&one["token_address"], &one["token_id"]), (&first["token_address"], &first["token_id"]));
    let missing = failure(&["nft", collection, "999999999"]);
    assert!(missing.contains("404") && missing.contains("No NFT found"), "{missing}");

    let both = json(&["nfts-by-id", &format!("{collection}:{id}"), &format!("{collection}:999999999")]);
    assert_eq!(both[0]["token_id"].as_str(), Some(id), "{both}");
    assert!(both[1].is_null(), "a token that does not exist is null: {both}");
    let bad = w3api(&["nfts-by-id", collection]);
    assert_eq!(bad.status.code(), Some(2), "a usage error: {}", String::from_utf8_lossy(&bad.stderr));

    let owners = json(&["nft-owners", collection, "--token-id", id]);
    let holders: Vec<&str> =
        owners["result"].as_array().unwrap().iter().map(|o| o["owner_of"].as_str().unwrap()).collect();
    assert!(holders.contains(&wallet.as_str()), "{owners}");
    let every = json(&["nft-owners", collection, "--all"]);
    let tokens = json(&["collection-nfts", collection, "--all"]);
    let tokens = tokens.as_array().unwrap();
    assert!(every.as_array().unwrap().len() >= tokens.len(), "each token has a holder or more");
    let run = json(&["collection-nfts", collection, "--range", "1", "--total-ranges", "2", "--all"]);
    assert_eq!(run.as_array().unwrap().len(), tokens.len().div_ceil(2), "the first of two runs");
    let text = stdout(&w3api(&["nft-owners", collection, "--limit", "2"]));
    assert!(text.starts_with("COLLECTION") && text.contains("--cursor"), "{text}");
}

#[test]
fn blocks_and_transactions_through_the_data_api() {
    let block = json(&["block", "20"]);
    let rpc = json(&["rpc", "block", "20"]);
    assert_eq!(block["hash"], rpc["hash"], "the data API's block 20 is the gateway's");
    let hash = block["transactions"][0]["hash"].as_str().unwrap().to_string();
    let by_hash = json(&["block", rpc["hash"].as_str().unwrap()]);
    assert_eq!(by_hash, block);
    let text = stdout(&w3api(&["block", "20"]));
    assert!(text.contains(&hash) && text.contains("1 transactions"), "{text}");
    let transaction = json(&["transaction", &hash]);
    assert_eq!(transaction, block["transactions"][0], "a transaction is its block's item");
    let decoded = stdout(&w3api(&["transaction", &hash, "--verbose"]));
    assert!(
        decoded.contains("call") && decoded.contains("transfer(") && decoded.contains("Transfer(from="),
        "{decoded}"
    );
    let missing = failure(&["block", "99999999"]);
    assert!(missing.contains("404") && missing.contains("No block found"), "{missing}");
    let bad = w3api(&["block", "latest"]);
    assert_eq!(bad.status.code(), Some(2), "a usage error: {}", String::from_utf8_lossy(&bad.stderr));
}

#[test]
fn transfers_of_a_wallet_token_and_collection() {
    let wallet = showcase();
    let page = json(&["transfers", &wallet, "--limit", "3"]);
    let result = page["result"].as_array().unwrap();
    assert_eq!(result.len(), 3, "{page}");
    let token = result[0]["address"].as_str().unwrap().to_string();
    let oldest = json(&["transfers", &wallet, "--order", "ASC", "--limit", "1"]);
    let (newest_block, oldest_block) =
        (result[0]["block_number"].as_str().unwrap(), &oldest["result"][0]["block_number"]);
    assert!(newest_block.parse::<u64>().unwrap() >= oldest_block.as_str().unwrap().parse::<u64>().unwrap());
    let of_token = json(&["transfers", &token, "--token", "--to-block", newest_block, "--limit", "100"]);
    assert!(of_token["result"].as_array().unwrap().iter().all(|t| t["address"] == token.as_str()));
    let named = json(&["transfers", &wallet, "--contract", &token, "--all"]);
    assert!(named.as_array().unwrap().iter().all(|t| t["address"] == token.as_str()), "--all lists the items");
    let table = stdout(&w3api(&["transfers", &wallet, "--limit", "2"]));
    assert!(table.contains("SYMBOL") && table.contains("next page: --cursor"), "{table}");
    let nfts = json(&["nft-transfers", &wallet, "--format", "hex", "--limit", "2"]);
    let collection = nfts["result"][0]["token_address"].as_str().unwrap().to_string();
    assert!(nfts["result"][0]["token_id"].as_str().unwrap().starts_with("0x"), "{nfts}");
    let of_collection = stdout(&w3api(&["nft-transfers", &collection, "--collection", "--from-date", "2020-01-01"]));
    assert!(of_collection.contains("TOKEN ID") && of_collection.contains(&collection), "{of_collection}");
    let usage = |args: &[&str]| {
        let output = w3api(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}: a usage error");
        String::from_utf8(output.stderr).unwrap()
    };
    assert!(usage(&["transfers", &wallet, "--order", "sideways"]).contains("ASC or DESC"));
    assert!(usage(&["nft-transfers", &wallet, "--collection", "--contract", &collection]).contains("cannot be used"));
}

#[test]
fn transactions_of_a_wallet_newest_first() {
    let wallet = showcase();
    let page = json(&["transactions", &wallet, "--limit", "3"]);
    let result = page["result"].as_array().unwrap();
    assert_eq!(result.len(), 3, "{page}");
    let blocks: Vec<u64> = result.iter().map(|t| t["block_number"].as_str().unwrap().parse().unwrap()).collect();
    assert!(blocks.windows(2).all(|w| w[0] >= w[1]), "newest first: {blocks:?}");
    let first = json(&["transactions", &wallet, "--order", "ASC", "--limit", "1", "--to-block", "8000"]);
    assert!(first["result"][0]["transaction_fee"].is_string(), "{first}");
    let table = stdout(&w3api(&["transactions", &wallet, "--limit", "2"]));
    assert!(table.contains("FEE") && table.contains(result[0]["hash"].as_str().unwrap()), "{table}");
}

#[test]
fn a_wallets_history_decoded() {
    let wallet = showcase();
    let page = json(&["history", &wallet, "--limit", "4", "--methods"]);
    let result = page["result"].as_array().unwrap();
    assert_eq!(result.len(), 4, "{page}");
    assert!(result.iter().all(|t| t["category"].is_string() && t["summary"].is_string()), "{page}");
    assert!(result.iter().any(|t| t["method_label"].is_string()), "--methods names the calls: {page}");
    let plain = json(&["history", &wallet, "--limit", "4"]);
    assert!(plain["result"].as_array().unwrap().iter().all(|t| t["method_label"].is_null()), "{plain}");
    let table = stdout(&w3api(&["history", &wallet, "--limit", "2"]));
    let summary = result[0]["summary"].as_str().unwrap();
    assert!(table.contains("CATEGORY") && table.contains(summary), "{table}");
}

#[test]
fn a_wallets_stats_and_active_chains() {
    let wallet = showcase();
    let stats = json(&["stats", &wallet]);
    let transactions: u64 = stats["transactions"]["total"].as_str().unwrap().parse().unwrap();
    assert!(transactions > 0, "{stats}");
    let text = stdout(&w3api(&["stats", &wallet, "--chain", "polygon"]));
    assert!(text.contains("token transfers"), "{text}");
    let chains = json(&["active-chains", &wallet, "--chain", "eth", "--chain", "base"]);
    assert_eq!(chains["active_chains"].as_array().map(Vec::len), Some(2), "{chains}");
    let table = stdout(&w3api(&["active-chains", &wallet]));
    assert!(table.contains("FIRST BLOCK") && table.contains("0x1"), "{table}");
}
