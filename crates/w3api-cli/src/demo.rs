//! `w3api demo`: every operation of the interface through the generated
//! clients, against a server started in this process on the devnet.

use clap::Args;
use ed25519_dalek::Signer;
use w3api_devnet::{Devnet, Scale};
use w3api_rest::Client;
use w3api_rpc::RpcClient;
use w3api_server::{ServerConfig, new_api_key, serve, service};
use w3api_types::rpc::{BlockNumberOrTag, TokenPriceInclude, TokenPriceParams};
use w3api_types::{
    Address, Chain, MultipleTokenPricesRequest, SolanaChallengeRequest, SolanaNetwork, SolanaVerifyRequest,
    TokenPriceItem, U256,
};

use crate::connection::ConnectionArgs;
use crate::error::CliError;
use crate::output::{out, outln};
use crate::{balances, collection, prices, rpc, signin, stream, transfers, wallet};

/// Options of `w3api demo`.
#[derive(Args, Debug)]
pub(crate) struct DemoArgs {
    /// Seed of the devnet the server answers from.
    #[arg(long, default_value_t = 0)]
    seed: u64,
}

/// Transactions of the block listed; the rest are counted.
const BLOCK_ROWS: usize = 10;
/// Sample wallets tried, in order, for one that holds NFTs.
const NFT_WALLETS_TRIED: usize = 20;

pub(crate) async fn run(args: DemoArgs) -> Result<(), CliError> {
    let devnet = Devnet::new(args.seed, Scale::DEFAULT);
    let key = new_api_key();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| CliError::Server(format!("listening on 127.0.0.1: {e}")))?;
    let base = format!("http://{}", listener.local_addr().map_err(|e| CliError::Server(e.to_string()))?);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let app = service(devnet.clone(), ServerConfig::new(vec![key.clone()]));
    let server = tokio::spawn(serve(listener, app, async {
        let _ = stopped.await;
    }));
    outln!("w3api demo: a server on {base} (devnet seed {}), called through w3api-rest and w3api-rpc", args.seed);
    let connection = ConnectionArgs::local(&base, &key);
    let outcome = tour(&devnet, &connection.rest()?, &connection.rpc(Chain::Eth)?).await;
    let _ = stop.send(());
    server.await.map_err(|e| CliError::Server(e.to_string()))?.map_err(|e| CliError::Server(e.to_string()))?;
    outcome
}

async fn tour(devnet: &Devnet, client: &Client, rpc: &RpcClient) -> Result<(), CliError> {
    let wallet = devnet.sample_wallets(1)[0];
    let block_number = wallet_data(devnet, client, wallet).await?;
    stream_preview(client, block_number).await?;
    blocks_and_transactions(devnet, rpc).await?;
    token_price(client, rpc, wallet, block_number).await?;
    everyday(client, wallet, block_number).await?;
    solana_sign_in(devnet, client).await
}

/// The wallet's native and ERC20 balances, its tokens' prices and metadata,
/// the block at a date and its net worth, through the data API.
async fn everyday(client: &Client, wallet: Address, block: u64) -> Result<(), CliError> {
    let data = client.data();
    heading(&format!("Native balance of {wallet:#x} at block {block} (GET /api/v2.2/{{address}}/balance)"));
    let balance = data.get_native_balance().address(wallet).to_block(block).send().await?.into_inner();
    outln!("{} wei", balance.balance);
    heading("Its latest ERC20 transfers (GET /api/v2.2/{address}/erc20/transfers)");
    let transfers = data.get_wallet_token_transfers().address(wallet).to_block(block).limit(5).send().await?;
    out!("{}", transfers::render_erc20(&[transfers.into_inner()]));
    heading("ERC20 balances, without prices (GET /api/v2.2/{address}/erc20)");
    let tokens = data.get_wallet_token_balances().address(wallet).to_block(block).send().await?.into_inner();
    out!("{}", balances::render_erc20(&tokens));
    let first: Vec<Address> = tokens.iter().take(3).map(|t| t.token_address).collect();
    heading("Prices of its first three tokens (POST /api/v2.2/erc20/prices)");
    let items =
        first.iter().map(|t| TokenPriceItem { token_address: *t, exchange: None, to_block: Some(U256::from(block)) });
    let request = MultipleTokenPricesRequest { tokens: items.collect() };
    let priced = data.get_multiple_token_prices().body(request).send().await?.into_inner();
    out!("{}", prices::render_prices(&priced, first.len()));
    heading("Their metadata (GET /api/v2.2/erc20/metadata)");
    let metadata = data.get_token_metadata().addresses(first.clone()).send().await?.into_inner();
    out!("{}", prices::render_metadata(&metadata, first.len()));
    heading("The block at 2030-01-01 (GET /api/v2.2/dateToBlock)");
    let found = data.get_date_to_block().date("2030-01-01T00:00:00Z").send().await?.into_inner();
    out!("{}", prices::render_block_date(&found));
    heading(&format!("Net worth of {wallet:#x} on eth and polygon (GET /api/v2.2/wallets/{{address}}/net-worth)"));
    let worth = data.get_wallet_net_worth().address(wallet).chains(vec![Chain::Eth, Chain::Polygon]).send().await?;
    out!("{}", balances::render_net_worth(&worth.into_inner()));
    let held = data.get_wallet_nfts().address(wallet).limit(1).send().await?.into_inner();
    if let Some(nft) = held.result.first() {
        let collection = nft.token_address;
        heading(&format!("Who holds {collection:#x}'s tokens (GET /api/v2.2/nft/{{address}}/owners)"));
        let owners = data.get_nft_owners().address(collection).limit(5).send().await?.into_inner();
        out!("{}", collection::render_held(&[owners]));
    }
    Ok(())
}

/// What a stream of every ERC20 transfer gets for the block the tokens were read at.
async fn stream_preview(client: &Client, block: u64) -> Result<(), CliError> {
    heading(&format!(
        "A stream's payload for block {block} on eth (POST /streams/evm/{{chainId}}/block/{{blockNumber}})"
    ));
    let request = stream::erc20_transfers_preview("demo");
    let payload =
        client.streams().get_stream_block_data().chain_id("0x1").block_number(block).body(request).send().await?;
    out!("{}", stream::render_payload(&payload.into_inner()));
    Ok(())
}

fn heading(title: &str) {
    outln!("\n== {title}\n");
}

/// Tokens, NFTs and collections on eth; returns the block the tokens were read at.
async fn wallet_data(devnet: &Devnet, client: &Client, wallet: Address) -> Result<u64, CliError> {
    heading(&format!("Token balances of {wallet:#x} on eth (GET /api/v2.2/wallets/{{address}}/tokens)"));
    let tokens = client.data().get_wallet_token_balances_price().address(wallet).chain(Chain::Eth).send().await?;
    out!("{}", wallet::render_tokens(std::slice::from_ref(&tokens)));
    let collector = collector(devnet, client).await?;
    let nfts = client.data().get_wallet_nfts().address(collector).limit(10).send().await?.into_inner();
    heading(&format!("NFTs of {collector:#x}, first page of 10 (GET /api/v2.2/{{address}}/nft)"));
    out!("{}", wallet::render_nfts(std::slice::from_ref(&nfts)));
    heading(&format!("NFT collections of {collector:#x} (GET /api/v2.2/{{address}}/nft/collections)"));
    let collections = client.data().get_wallet_nft_collections().address(collector).token_counts(true).send().await?;
    out!("{}", wallet::render_collections(std::slice::from_ref(&collections)));
    Ok(tokens.block_number.unwrap_or_default())
}

/// The sample wallet with the most NFTs (the one holding every token holds none).
async fn collector(devnet: &Devnet, client: &Client) -> Result<Address, CliError> {
    let mut best = (0, devnet.sample_wallets(1)[0]);
    for wallet in devnet.sample_wallets(NFT_WALLETS_TRIED) {
        let page = client.data().get_wallet_nfts().address(wallet).limit(1).send().await?;
        best = best.max((page.total.unwrap_or_default(), wallet));
    }
    Ok(best.1)
}

/// The busiest block with its transactions, and one of them by hash and by number.
async fn blocks_and_transactions(devnet: &Devnet, rpc: &RpcClient) -> Result<(), CliError> {
    let chain = devnet.chain(Chain::Eth);
    let busiest = chain.blocks.iter().max_by_key(|b| (b.tx_count, std::cmp::Reverse(b.header.number)));
    let number = busiest.map_or(0, |b| b.header.number);
    heading(&format!("Block {number} on eth with its transactions (eth_getBlockByNumber)"));
    let missing = || CliError::NotFound(format!("no block {number}"));
    let block = rpc.get_block_by_number(BlockNumberOrTag::Number(number), true).await?.ok_or_else(missing)?;
    out!("{}", rpc::render_block(&block, Some(BLOCK_ROWS)));
    let index = 1;
    heading(&format!("Transaction {index} of block {} (eth_getTransactionByBlockHashAndIndex)", block.hash));
    let by_hash = rpc.get_transaction_by_block_hash_and_index(block.hash, index.into()).await?;
    let by_hash = by_hash.ok_or_else(|| CliError::NotFound(format!("no transaction {index} in block {number}")))?;
    out!("{}", rpc::render_transaction(&by_hash));
    heading(&format!("Transaction {index} of block {number} (eth_getTransactionByBlockNumberAndIndex)"));
    let by_number =
        rpc.get_transaction_by_block_number_and_index(BlockNumberOrTag::Number(number), index.into()).await?;
    let same = by_number.as_ref() == Some(&by_hash);
    outln!("the same transaction as by hash and index: {}", if same { "yes" } else { "NO" });
    Ok(())
}

/// The price of the wallet's first priced token, at the block its balances were read at.
async fn token_price(client: &Client, rpc: &RpcClient, wallet: Address, block: u64) -> Result<(), CliError> {
    let tokens = client.data().get_wallet_token_balances_price().address(wallet).exclude_native(true).send().await?;
    let Some(token) = tokens.result.iter().find(|t| t.usd_price.is_some()).and_then(|t| t.token_address) else {
        return Ok(());
    };
    heading(&format!("Price of {token:#x} at block {block} (eth_getTokenPrice)"));
    let params = TokenPriceParams {
        to_block: Some(block),
        include: Some(TokenPriceInclude::PercentChange),
        ..TokenPriceParams::new(token)
    };
    out!("{}", rpc::render_price(&rpc::price(rpc, params).await?));
    Ok(())
}

/// Requests a challenge for a devnet Solana account, signs it, verifies it.
async fn solana_sign_in(devnet: &Devnet, client: &Client) -> Result<(), CliError> {
    let address = devnet.solana_address(0);
    heading(&format!("Solana sign-in for {address} (POST /challenge/request/solana, /challenge/verify/solana)"));
    let request = SolanaChallengeRequest {
        domain: "demo.w3api.example".into(),
        uri: "https://demo.w3api.example/login".into(),
        address,
        network: SolanaNetwork::Devnet,
        timeout: 60,
        statement: Some("Sign in to the w3api demo".into()),
        expiration_time: None,
        not_before: None,
        resources: None,
    };
    let challenge = signin::request(client, request).await?;
    out!("{}", signin::render_challenge(&challenge));
    let signature = bs58::encode(devnet.solana_key(0).sign(challenge.message.as_bytes()).to_bytes()).into_string();
    outln!("signed with devnet Solana key 0: {signature}\n");
    let verified = signin::verify(client, SolanaVerifyRequest { message: challenge.message, signature }).await?;
    out!("{}", signin::render_verified(&verified));
    Ok(())
}
