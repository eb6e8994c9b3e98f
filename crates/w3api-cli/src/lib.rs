//! `w3api`: the command line of the w3api workspace: serve the interface on
//! the devnet, call each of its operations, or run them all (`demo`).
//!
//! The commands live in this library and `src/main.rs` is a thin binary
//! around [`main`]: the library compiles while the last dependencies are
//! still being built, and only the binary's short link waits for them all,
//! which is most of a first build's tail on 2 cores.

// Dev-dependencies of the package's suites, named so that
// `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use {tempfile as _, url as _, w3api_spec_check as _, w3api_testkit as _, w3api_tests as _};
// The binary's allocator (`src/main.rs`).
use mimalloc as _;
// Named for their features alone (see the manifest): the demo's build is
// then the one the workspace's tests reuse.
use {either as _, hyper as _, zerocopy as _};

mod balances;
mod blocks;
mod collection;
mod connection;
mod demo;
mod devnet;
mod error;
mod listing;
mod output;
mod prices;
mod rpc;
mod serve;
mod signin;
mod state_file;
mod stream;
mod transfers;
mod upstream;
mod wallet;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

use crate::connection::ConnectionArgs;
use crate::error::CliError;

#[derive(Parser)]
#[command(name = "w3api", version, about = "Serve and call the w3api interface")]
struct Cli {
    #[command(flatten)]
    connection: ConnectionArgs,
    /// Print the decoded answer as JSON (with --all: one array of every item).
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every operation through the clients against an in-process server on the devnet.
    Demo(demo::DemoArgs),
    /// Serve the whole interface (REST and JSON-RPC) on the devnet, or for real nodes (--upstream).
    Serve(Box<serve::ServeArgs>),
    /// Show devnet wallets, blocks and Solana keys, and sign with them.
    Devnet(devnet::DevnetArgs),
    /// Token balances of a wallet, with USD prices.
    Tokens(wallet::TokensArgs),
    /// NFTs owned by a wallet.
    Nfts(wallet::NftsArgs),
    /// NFT collections a wallet holds tokens of.
    Collections(wallet::CollectionsArgs),
    /// A wallet's native balance.
    Balance(balances::BalanceArgs),
    /// The native balances of several wallets, and their sum.
    Balances(balances::BalancesArgs),
    /// A wallet's ERC20 balances, without prices.
    Erc20(balances::Erc20Args),
    /// A wallet's USD value, per chain and in total.
    NetWorth(balances::NetWorthArgs),
    /// A wallet's counts: NFTs, collections, transactions, NFT and ERC20 transfers.
    Stats(balances::StatsArgs),
    /// A wallet's first and last transactions on each chain.
    ActiveChains(balances::ActiveChainsArgs),
    /// A token's price from its deepest DEX pair.
    Price(prices::PriceArgs),
    /// The prices of several tokens.
    Prices(prices::PricesArgs),
    /// What is known of ERC20 tokens: name, symbol, decimals, supply.
    Metadata(prices::MetadataArgs),
    /// The last block at or before a date.
    DateToBlock(prices::DateToBlockArgs),
    /// One NFT, by collection and token id, with its metadata.
    Nft(collection::NftArgs),
    /// Several NFTs at once, each as COLLECTION:ID.
    NftsById(collection::NftsByIdArgs),
    /// Every token of an NFT collection.
    CollectionNfts(collection::CollectionNftsArgs),
    /// Who holds a collection's NFTs (or one token's, with --token-id).
    NftOwners(collection::NftOwnersArgs),
    /// A block with its transactions, receipts and logs.
    Block(blocks::BlockArgs),
    /// A mined transaction with its receipt and logs (decoded with --verbose).
    Transaction(blocks::TransactionArgs),
    /// A wallet's ERC20 transfers, or a token's (--token).
    Transfers(transfers::TransfersArgs),
    /// A wallet's NFT transfers, or a collection's (--collection).
    NftTransfers(transfers::NftTransfersArgs),
    /// The transactions a wallet sent or was sent, with receipts and fees.
    Transactions(transfers::TransactionsArgs),
    /// A wallet's history: its transactions decoded, with what each moved, its category and a summary.
    History(transfers::HistoryArgs),
    /// EVM streams: create, change, list and delete them, their addresses, webhook settings and deliveries.
    #[command(subcommand)]
    Streams(stream::StreamsCommand),
    /// One EVM stream's configuration (the same as `streams get <id>`).
    Stream {
        /// Stream id (a UUID).
        id: uuid::Uuid,
    },
    /// Sign-in with a Solana account.
    #[command(subcommand)]
    Signin(signin::SigninCommand),
    /// The JSON-RPC gateway.
    Rpc(rpc::RpcArgs),
}

/// Reads the command line, runs the command, and reports its error on stderr.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: starting the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<(), CliError> {
    let json = cli.json;
    match cli.command {
        Command::Demo(args) => demo::run(args).await,
        Command::Serve(args) => serve::run(*args, cli.connection.api_keys).await,
        Command::Devnet(args) => devnet::run(args),
        Command::Tokens(args) => wallet::tokens(&cli.connection.rest()?, args, json).await,
        Command::Nfts(args) => wallet::nfts(&cli.connection.rest()?, args, json).await,
        Command::Collections(args) => wallet::collections(&cli.connection.rest()?, args, json).await,
        Command::Balance(args) => balances::balance(&cli.connection.rest()?, args, json).await,
        Command::Balances(args) => balances::balances(&cli.connection.rest()?, args, json).await,
        Command::Erc20(args) => balances::erc20(&cli.connection.rest()?, args, json).await,
        Command::NetWorth(args) => balances::net_worth(&cli.connection.rest()?, args, json).await,
        Command::Stats(args) => balances::stats(&cli.connection.rest()?, args, json).await,
        Command::ActiveChains(args) => balances::active_chains(&cli.connection.rest()?, args, json).await,
        Command::Price(args) => prices::price(&cli.connection.rest()?, args, json).await,
        Command::Prices(args) => prices::prices(&cli.connection.rest()?, args, json).await,
        Command::Metadata(args) => prices::metadata(&cli.connection.rest()?, args, json).await,
        Command::DateToBlock(args) => prices::date_to_block(&cli.connection.rest()?, args, json).await,
        Command::Nft(args) => collection::nft(&cli.connection.rest()?, args, json).await,
        Command::NftsById(args) => collection::nfts_by_id(&cli.connection.rest()?, args, json).await,
        Command::CollectionNfts(args) => collection::collection_nfts(&cli.connection.rest()?, args, json).await,
        Command::NftOwners(args) => collection::nft_owners(&cli.connection.rest()?, args, json).await,
        Command::Block(args) => blocks::block(&cli.connection.rest()?, args, json).await,
        Command::Transaction(args) => blocks::transaction(&cli.connection.rest()?, args, json).await,
        Command::Transfers(args) => transfers::transfers(&cli.connection.rest()?, args, json).await,
        Command::NftTransfers(args) => transfers::nft_transfers(&cli.connection.rest()?, args, json).await,
        Command::Transactions(args) => transfers::transactions(&cli.connection.rest()?, args, json).await,
        Command::History(args) => transfers::history(&cli.connection.rest()?, args, json).await,
        Command::Streams(command) => stream::run(&cli.connection.rest()?, command, json).await,
        Command::Stream { id } => stream::run(&cli.connection.rest()?, stream::StreamsCommand::Get { id }, json).await,
        Command::Signin(command) => signin::run(&cli.connection.rest()?, command, json).await,
        Command::Rpc(args) => rpc::run(&cli.connection, args, json).await,
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// clap checks the whole command tree (clashing names, bad defaults) only
    /// when asked, or when the faulty subcommand runs.
    #[test]
    fn the_command_line_is_consistent() {
        super::Cli::command().debug_assert();
    }
}
