//! `w3api price`, `w3api prices`, `w3api metadata`, `w3api date-to-block`:
//! tokens and blocks through the data API.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{
    Address, BlockDate, Chain, DateInput, Erc20Metadata, MultipleTokenPricesRequest, TokenPrice, TokenPriceInclude,
    TokenPriceItem, U256,
};

use crate::error::CliError;
use crate::output::{self, Table};
use crate::rpc;
use crate::wallet::set;

/// Which token to price, and how: `w3api price` and `w3api rpc price`.
#[derive(Args, Debug)]
pub(crate) struct PriceOf {
    /// Token contract (0x and 40 hex digits).
    pub(crate) token: Address,
    /// Price on this exchange only: its name or its factory's address.
    #[arg(long)]
    pub(crate) exchange: Option<String>,
    /// Block to price at (default: the latest).
    #[arg(long)]
    pub(crate) to_block: Option<u64>,
    /// Add the 24-hour change as text (`24hrPercentChange`).
    #[arg(long)]
    pub(crate) percent_change: bool,
}

/// `w3api price <token>`: a token's price from its deepest DEX pair.
#[derive(Args, Debug)]
pub(crate) struct PriceArgs {
    #[command(flatten)]
    of: PriceOf,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

/// `w3api prices <token>...`: the prices of up to 30 tokens.
#[derive(Args, Debug)]
pub(crate) struct PricesArgs {
    /// Token contracts (1 to 30).
    #[arg(required = true, num_args = 1..=30)]
    tokens: Vec<Address>,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// Block to price every token at (default: the latest).
    #[arg(long)]
    to_block: Option<u64>,
}

/// `w3api metadata <token>...`: what is known of up to 10 ERC20 tokens.
#[derive(Args, Debug)]
pub(crate) struct MetadataArgs {
    /// Token contracts (1 to 10).
    #[arg(required = true, num_args = 1..=10)]
    tokens: Vec<Address>,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

/// `w3api date-to-block <date>`: the last block at or before a date.
#[derive(Args, Debug)]
pub(crate) struct DateToBlockArgs {
    /// Unix seconds, an RFC 3339 date-time (2024-10-19T03:39:11Z) or a date (2024-10-19).
    date: DateInput,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

pub(crate) async fn price(client: &Client, args: PriceArgs, json: bool) -> Result<(), CliError> {
    let PriceOf { token, exchange, to_block, percent_change } = args.of;
    let mut request = client.data().get_token_price().address(token);
    let include = percent_change.then_some(TokenPriceInclude::PercentChange);
    set!(request, chain = args.chain, exchange = exchange, to_block = to_block, include = include);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, rpc::render_price)
}

pub(crate) async fn prices(client: &Client, args: PricesArgs, json: bool) -> Result<(), CliError> {
    let tokens = args
        .tokens
        .iter()
        .map(|t| TokenPriceItem { token_address: *t, exchange: None, to_block: args.to_block.map(U256::from) })
        .collect();
    let mut request = client.data().get_multiple_token_prices().body(MultipleTokenPricesRequest { tokens });
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |prices| render_prices(prices, args.tokens.len()))
}

pub(crate) fn render_prices(prices: &[TokenPrice], asked: usize) -> String {
    let mut table = Table::new(&["SYMBOL", ">USD", ">24H", "EXCHANGE", "BLOCK", "TOKEN"]);
    for price in prices {
        table.row(vec![
            output::or_dash(price.token_symbol.as_deref()),
            output::usd(Some(price.usd_price)),
            output::percent(price.usd_price_24hr_percent_change),
            price.exchange_name.clone(),
            output::or_dash(price.to_block),
            output::or_dash(price.token_address.map(|a| format!("{a:#x}"))),
        ]);
    }
    format!("{}{} of {asked} tokens priced\n", table.render(), prices.len())
}

pub(crate) async fn metadata(client: &Client, args: MetadataArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_token_metadata().addresses(args.tokens.clone());
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |tokens| render_metadata(tokens, args.tokens.len()))
}

pub(crate) fn render_metadata(tokens: &[Erc20Metadata], asked: usize) -> String {
    let mut table = Table::new(&["SYMBOL", "NAME", ">DECIMALS", ">SUPPLY", "FIRST BLOCK", "TOKEN"]);
    for token in tokens {
        table.row(vec![
            token.symbol.clone(),
            output::clip(&token.name, 28),
            token.decimals.to_string(),
            token.total_supply_formatted.clone(),
            token.block_number.to_string(),
            format!("{:#x}", token.address),
        ]);
    }
    format!("{}{} of {asked} addresses are known tokens\n", table.render(), tokens.len())
}

pub(crate) async fn date_to_block(client: &Client, args: DateToBlockArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_date_to_block().date(args.date);
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, render_block_date)
}

pub(crate) fn render_block_date(found: &BlockDate) -> String {
    output::fields(&[
        ("date", found.date.to_rfc3339()),
        ("block", found.block.to_string()),
        ("time", format!("{} ({})", found.block_timestamp.to_rfc3339(), found.timestamp)),
        ("hash", format!("{:#x}", found.hash)),
        ("parent", format!("{:#x}", found.parent_hash)),
    ])
}
