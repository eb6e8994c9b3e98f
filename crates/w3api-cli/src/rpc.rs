//! `w3api rpc ...`: the JSON-RPC gateway.

use alloy_primitives::{B256, U256};
use chrono::DateTime;
use clap::{Args, Subcommand};
use w3api_rpc::RpcClient;
use w3api_types::rpc::{
    Block, BlockNumberOrTag, BlockTransactions, TokenPrice, TokenPriceInclude, TokenPriceParams, Transaction,
};
use w3api_types::{Chain, format_units};

use crate::connection::ConnectionArgs;
use crate::error::CliError;
use crate::output::{self, Table};

/// `w3api rpc ...`
#[derive(Args, Debug)]
pub(crate) struct RpcArgs {
    /// Chain: RPC slug (eth, base, amoy, ...), data-API name or hex id.
    #[arg(long, global = true, default_value = "eth")]
    chain: Chain,
    #[command(subcommand)]
    command: RpcCommand,
}

#[derive(Subcommand, Debug)]
enum RpcCommand {
    /// A block by number or tag (eth_getBlockByNumber).
    Block {
        /// Block number (decimal or 0x hex) or latest, earliest, pending.
        #[arg(value_parser = parse_block)]
        block: BlockNumberOrTag,
        /// With full transactions instead of their hashes.
        #[arg(long)]
        full: bool,
    },
    /// A transaction by block hash and index (eth_getTransactionByBlockHashAndIndex).
    TxByHash {
        /// Block hash.
        hash: B256,
        /// Index in the block (decimal or 0x hex).
        #[arg(value_parser = parse_index)]
        index: u64,
    },
    /// A transaction by block number or tag and index (eth_getTransactionByBlockNumberAndIndex).
    TxByNumber {
        /// Block number (decimal or 0x hex) or latest, earliest, pending.
        #[arg(value_parser = parse_block)]
        block: BlockNumberOrTag,
        /// Index in the block (decimal or 0x hex).
        #[arg(value_parser = parse_index)]
        index: u64,
    },
    /// A token's USD price from its DEX pair (eth_getTokenPrice).
    Price(crate::prices::PriceOf),
}

/// A block number in decimal or 0x hex, or a tag.
fn parse_block(text: &str) -> Result<BlockNumberOrTag, String> {
    match text.parse::<u64>() {
        Ok(number) => Ok(BlockNumberOrTag::Number(number)),
        Err(_) => text.parse().map_err(|e: w3api_types::rpc::InvalidBlockNumberOrTag| e.to_string()),
    }
}

/// A transaction index in decimal or 0x hex (ruint's parser, as alloy reads quantities).
fn parse_index(text: &str) -> Result<u64, String> {
    text.parse::<alloy_primitives::U64>()
        .map(|index| index.to::<u64>())
        .map_err(|_| format!("{text:?} is not a transaction index (decimal or 0x hex)"))
}

pub(crate) async fn run(connection: &ConnectionArgs, args: RpcArgs, json: bool) -> Result<(), CliError> {
    let rpc = connection.rpc(args.chain)?;
    let chain = args.chain;
    match args.command {
        RpcCommand::Block { block, full } => {
            let found = rpc.get_block_by_number(block, full).await?;
            emit_found(json, found, || format!("no block {} on {chain}", describe(block)), |b| render_block(b, None))
        }
        RpcCommand::TxByHash { hash, index } => {
            let found = rpc.get_transaction_by_block_hash_and_index(hash, index.into()).await?;
            emit_found(json, found, || format!("no transaction {index} in block {hash} on {chain}"), render_transaction)
        }
        RpcCommand::TxByNumber { block, index } => {
            let found = rpc.get_transaction_by_block_number_and_index(block, index.into()).await?;
            let missing = || format!("no transaction {index} in block {} on {chain}", describe(block));
            emit_found(json, found, missing, render_transaction)
        }
        RpcCommand::Price(of) => {
            let params = TokenPriceParams {
                exchange: of.exchange,
                to_block: of.to_block,
                include: of.percent_change.then_some(TokenPriceInclude::PercentChange),
                ..TokenPriceParams::new(of.token)
            };
            output::emit(json, &price(&rpc, params).await?, render_price)
        }
    }
}

pub(crate) async fn price(rpc: &RpcClient, params: TokenPriceParams) -> Result<TokenPrice, CliError> {
    Ok(rpc.get_token_price(params).await?)
}

/// A `null` result: JSON `null` (or a message) and a failure exit.
fn emit_found<T: serde::Serialize>(
    json: bool,
    found: Option<T>,
    missing: impl FnOnce() -> String,
    render: impl FnOnce(&T) -> String,
) -> Result<(), CliError> {
    match found {
        Some(value) => output::emit(json, &value, render),
        None => {
            if json {
                output::print_json(&serde_json::Value::Null)?;
            }
            Err(CliError::NotFound(missing()))
        }
    }
}

fn describe(block: BlockNumberOrTag) -> String {
    match block {
        BlockNumberOrTag::Number(n) => n.to_string(),
        tag => output::wire_name(&tag),
    }
}

fn ether(wei: U256) -> String {
    format_units(wei, 18)
}

fn gwei(wei: u128) -> String {
    format!("{} gwei", format_units(U256::from(wei), 9))
}

fn time(timestamp: u64) -> String {
    let at = i64::try_from(timestamp).ok().and_then(|t| DateTime::from_timestamp(t, 0));
    at.map_or_else(|| timestamp.to_string(), |at| format!("{} ({timestamp})", at.to_rfc3339()))
}

/// A block's header and its transactions (at most `rows` of them listed).
pub(crate) fn render_block(block: &Block, rows: Option<usize>) -> String {
    let count = match &block.transactions {
        BlockTransactions::Hashes(hashes) => hashes.len(),
        BlockTransactions::Full(transactions) => transactions.len(),
    };
    let header = output::fields(&[
        ("number", block.number.to_string()),
        ("hash", format!("{}", block.hash)),
        ("parent", format!("{}", block.parent_hash)),
        ("time", time(block.timestamp)),
        ("miner", format!("{:#x}", block.miner)),
        ("gas used", format!("{} of {}", block.gas_used, block.gas_limit)),
        ("base fee", output::or_dash(block.base_fee_per_gas.map(|fee| gwei(u128::from(fee))))),
        ("size", output::or_dash(block.size)),
        ("transactions", count.to_string()),
    ]);
    let listing = match &block.transactions {
        BlockTransactions::Hashes(hashes) => {
            hashes.iter().take(rows.unwrap_or(usize::MAX)).map(|hash| format!("  {hash}\n")).collect()
        }
        BlockTransactions::Full(transactions) => {
            let mut table = Table::new(&[">INDEX", "HASH", "FROM", "TO", ">VALUE (ETH)", ">TYPE"]);
            for tx in transactions.iter().take(rows.unwrap_or(usize::MAX)) {
                table.row(vec![
                    output::or_dash(tx.transaction_index),
                    format!("{}", tx.hash),
                    format!("{:#x}", tx.from),
                    tx.to.map_or_else(|| "(contract creation)".into(), |to| format!("{to:#x}")),
                    ether(tx.value),
                    tx.tx_type.to_string(),
                ]);
            }
            table.render()
        }
    };
    let more = count.saturating_sub(rows.unwrap_or(usize::MAX));
    let more = if more > 0 { format!("... and {more} more\n") } else { String::new() };
    header + &listing + &more
}

pub(crate) fn render_transaction(tx: &Transaction) -> String {
    output::fields(&[
        ("hash", format!("{}", tx.hash)),
        ("block", format!("{} ({})", output::or_dash(tx.block_number), output::or_dash(tx.block_hash))),
        ("index", output::or_dash(tx.transaction_index)),
        ("type", tx.tx_type.to_string()),
        ("from", format!("{:#x}", tx.from)),
        ("to", tx.to.map_or_else(|| "(contract creation)".into(), |to| format!("{to:#x}"))),
        ("value", format!("{} ETH", ether(tx.value))),
        ("nonce", tx.nonce.to_string()),
        ("gas limit", tx.gas.to_string()),
        ("gas price", output::or_dash(tx.gas_price.map(gwei))),
        ("max fee", output::or_dash(tx.max_fee_per_gas.map(gwei))),
        ("max priority fee", output::or_dash(tx.max_priority_fee_per_gas.map(gwei))),
        ("input", tx.input.get().map_or_else(|| "(malformed)".into(), |input| format!("{} bytes", input.len()))),
    ])
}

pub(crate) fn render_price(price: &TokenPrice) -> String {
    let native = &price.native_price;
    let name = match (&price.token_name, &price.token_symbol) {
        (Some(name), Some(symbol)) => format!("{name} ({symbol})"),
        (name, symbol) => output::or_dash(name.clone().or(symbol.clone())),
    };
    output::fields(&[
        ("token", format!("{name} {}", output::or_dash(price.token_address.map(|a| format!("{a:#x}"))))),
        ("USD price", output::usd(Some(price.usd_price))),
        ("native price", format!("{} {}", format_units(native.value, native.decimals), native.symbol)),
        ("24h change", output::percent(price.percent_change_24hr)),
        ("exchange", format!("{} ({:#x})", price.exchange_name, price.exchange_address)),
        ("pair", output::or_dash(price.pair_address.map(|a| format!("{a:#x}")))),
        ("pair liquidity", output::usd(price.pair_total_liquidity_usd)),
        ("at block", output::or_dash(price.to_block)),
    ])
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;
    use w3api_types::rpc::NativePrice;

    use super::*;

    #[test]
    fn amounts_are_exact_without_trailing_zeros() {
        assert_eq!(ether(U256::from(1_500_000_000_000_000_000u128)), "1.5");
        assert_eq!(ether(U256::from(1u8)), "0.000000000000000001");
        assert_eq!(ether(U256::ZERO), "0");
        assert_eq!(ether(U256::from(2_000_000_000_000_000_000u128)), "2");
        assert_eq!(gwei(1_000_000_000), "1 gwei");
        assert_eq!(gwei(1_250_000_007), "1.250000007 gwei");
        assert_eq!(gwei(0), "0 gwei");
    }

    fn token_price(name: &str, value: U256, decimals: u8) -> TokenPrice {
        TokenPrice {
            token_name: Some(name.into()),
            token_symbol: Some("\u{1b}[5mTKN".into()),
            token_logo: None,
            token_decimals: Some(18),
            native_price: NativePrice { value, decimals, name: "Ether".into(), symbol: "ETH".into(), address: None },
            usd_price: 2.5,
            usd_price_formatted: None,
            usd_price_24h: None,
            usd_price_24hr_usd_change: None,
            usd_price_24hr_percent_change: None,
            percent_change_24hr: None,
            exchange_address: Address::ZERO,
            exchange_name: "Uniswap v2".into(),
            token_address: Some(Address::repeat_byte(0x11)),
            to_block: Some(7),
            possible_spam: None,
            verified_contract: None,
            pair_address: None,
            pair_total_liquidity_usd: None,
            security_score: None,
        }
    }

    #[test]
    fn a_price_shows_its_native_amount_exactly_and_its_names_escaped() {
        let text = render_price(&token_price("代币\u{1b}[31m", U256::from(1_230_000_000_000_000u64), 18));
        assert!(text.contains("native price    0.00123 ETH\n"), "{text}");
        assert!(text.contains(r"token           代币\u{1b}[31m (\u{1b}[5mTKN) 0x1111"), "{text}");
        assert!(!text.chars().any(|c| c.is_control() && c != '\n'), "{text:?}");
        // More decimals than alloy's units go to (77) are still divided.
        let text = render_price(&token_price("x", U256::from(5u8), 80));
        assert!(text.contains(&format!("native price    0.{}5 ETH\n", "0".repeat(79))), "{text}");
    }
}
