//! `w3api balance`, `w3api balances`, `w3api erc20`, `w3api net-worth`: what
//! wallets hold, without the paging of `w3api tokens`.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{Address, Chain, ChainNativeBalances, Erc20TokenBalance, NetWorth, format_units};

use crate::error::CliError;
use crate::output::{self, Table};
use crate::wallet::{HoldingsOf, holdings, set};

/// `w3api balance <address>`: a wallet's native balance.
#[derive(Args, Debug)]
pub(crate) struct BalanceArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// Block to read the balance at (default: the latest).
    #[arg(long)]
    to_block: Option<u64>,
}

/// `w3api balances <address>...`: the native balances of up to 25 wallets.
#[derive(Args, Debug)]
pub(crate) struct BalancesArgs {
    /// Wallet addresses (1 to 25).
    #[arg(required = true, num_args = 1..=25)]
    addresses: Vec<Address>,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// Block to read the balances at (default: the latest).
    #[arg(long)]
    to_block: Option<u64>,
}

/// `w3api erc20 <address>`: a wallet's ERC20 balances, without prices (the
/// server leaves out spam unless `--exclude-spam=false`).
#[derive(Args, Debug)]
pub(crate) struct Erc20Args {
    #[command(flatten)]
    of: HoldingsOf,
}

/// `w3api net-worth <address>`: a wallet's USD value per chain and in total.
#[derive(Args, Debug)]
pub(crate) struct NetWorthArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chains to count (repeat; default: eth).
    #[arg(long = "chain", value_name = "CHAIN")]
    chains: Vec<Chain>,
    /// Leave out spam tokens (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_spam: Option<bool>,
    /// Leave out unverified contracts (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_unverified_contracts: Option<bool>,
}

/// `w3api stats <address>`: a wallet's counts on one chain.
#[derive(Args, Debug)]
pub(crate) struct StatsArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

/// `w3api active-chains <address>`: a wallet's first and last transactions on each chain.
#[derive(Args, Debug)]
pub(crate) struct ActiveChainsArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chains to look at (repeat; default: eth).
    #[arg(long = "chain", value_name = "CHAIN")]
    chains: Vec<Chain>,
}

pub(crate) async fn balance(client: &Client, args: BalanceArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_native_balance().address(args.address);
    set!(request, chain = args.chain, to_block = args.to_block);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |a| format!("{} ({} wei)\n", format_units(a.balance, 18), a.balance))
}

pub(crate) async fn balances(client: &Client, args: BalancesArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_native_balances_for_addresses().wallet_addresses(args.addresses);
    set!(request, chain = args.chain, to_block = args.to_block);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |chains| chains.iter().map(render_balances).collect())
}

pub(crate) fn render_balances(chain: &ChainNativeBalances) -> String {
    let mut table = Table::new(&["WALLET", ">BALANCE"]);
    for wallet in &chain.wallet_balances {
        table.row(vec![format!("{:#x}", wallet.address), wallet.balance_formatted.clone()]);
    }
    format!(
        "{}{} ({}) at block {} ({}): {} in total\n",
        table.render(),
        chain.chain,
        chain.chain_id,
        chain.block_number,
        chain.block_timestamp.to_rfc3339(),
        chain.total_balance_formatted
    )
}

pub(crate) async fn erc20(client: &Client, args: Erc20Args, json: bool) -> Result<(), CliError> {
    let request = holdings!(client, get_wallet_token_balances, args.of);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |tokens| render_erc20(tokens))
}

pub(crate) fn render_erc20(tokens: &[Erc20TokenBalance]) -> String {
    let mut table = Table::new(&["SYMBOL", "NAME", ">BALANCE", "TOKEN"]);
    for token in tokens {
        let symbol = if token.possible_spam { format!("{} (spam)", token.symbol) } else { token.symbol.clone() };
        table.row(vec![
            symbol,
            output::clip(&token.name, 28),
            format_units(token.balance, token.decimals),
            format!("{:#x}", token.token_address),
        ]);
    }
    format!("{}{} tokens\n", table.render(), tokens.len())
}

pub(crate) async fn net_worth(client: &Client, args: NetWorthArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_net_worth().address(args.address);
    set!(
        request,
        chains = (!args.chains.is_empty()).then_some(args.chains),
        exclude_spam = args.exclude_spam,
        exclude_unverified_contracts = args.exclude_unverified_contracts,
    );
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, render_net_worth)
}

pub(crate) async fn stats(client: &Client, args: StatsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_stats().address(args.address);
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |stats| {
        output::fields(&[
            ("nfts", stats.nfts.to_string()),
            ("collections", stats.collections.to_string()),
            ("transactions", stats.transactions.total.to_string()),
            ("nft transfers", stats.nft_transfers.total.to_string()),
            ("token transfers", stats.token_transfers.total.to_string()),
        ])
    })
}

pub(crate) async fn active_chains(client: &Client, args: ActiveChainsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_active_chains().address(args.address);
    set!(request, chains = (!args.chains.is_empty()).then_some(args.chains));
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |answer| {
        let mut table = Table::new(&["CHAIN", "ID", ">FIRST BLOCK", "FIRST AT", ">LAST BLOCK", "LAST AT"]);
        for chain in &answer.active_chains {
            let (first, last) = (chain.first_transaction.as_ref(), chain.last_transaction.as_ref());
            table.row(vec![
                chain.chain.clone(),
                chain.chain_id.clone(),
                output::or_dash(first.map(|t| t.block_number)),
                output::or_dash(first.map(|t| t.block_timestamp.to_rfc3339())),
                output::or_dash(last.map(|t| t.block_number)),
                output::or_dash(last.map(|t| t.block_timestamp.to_rfc3339())),
            ]);
        }
        table.render()
    })
}

pub(crate) fn render_net_worth(worth: &NetWorth) -> String {
    let mut table = Table::new(&["CHAIN", ">NATIVE", ">NATIVE USD", ">TOKENS USD", ">NET WORTH USD"]);
    for chain in &worth.chains {
        table.row(vec![
            chain.chain.clone(),
            chain.native_balance_formatted.clone(),
            chain.native_balance_usd.clone(),
            chain.token_balance_usd.clone(),
            chain.networth_usd.clone(),
        ]);
    }
    let mut text = format!("{}total: ${}\n", table.render(), worth.total_networth_usd);
    if !worth.unsupported_chain_ids.is_empty() {
        text.push_str(&format!("not served here: {}\n", worth.unsupported_chain_ids.join(", ")));
    }
    if !worth.unavailable_chains.is_empty() {
        let ids: Vec<&str> = worth.unavailable_chains.iter().map(|c| c.chain_id.as_str()).collect();
        text.push_str(&format!("unavailable now: {}\n", ids.join(", ")));
    }
    text
}
