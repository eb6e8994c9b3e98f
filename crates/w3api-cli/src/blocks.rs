//! `w3api block` and `w3api transaction`: blocks and transactions through
//! the data API, with receipts, logs and (with `--verbose`) decoded calls
//! and events.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{B256, BlockNumberOrHash, BlockTransactionVerbose, Chain, ChainBlock, MinedTransaction};

use crate::error::CliError;
use crate::output::{self, Table};
use crate::wallet::set;

/// `w3api block <number|hash>`: a block with its transactions.
#[derive(Args, Debug)]
pub(crate) struct BlockArgs {
    /// Block number (decimal digits) or hash (0x and 64 hex digits).
    block: BlockNumberOrHash,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

/// `w3api transaction <hash>`: a mined transaction with its receipt and logs.
#[derive(Args, Debug)]
pub(crate) struct TransactionArgs {
    /// Transaction hash (0x and 64 hex digits).
    hash: B256,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// Add the fee, and decode the call and the logs' events.
    #[arg(long)]
    verbose: bool,
}

pub(crate) async fn block(client: &Client, args: BlockArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_block().block_number_or_hash(args.block);
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, render_block)
}

pub(crate) async fn transaction(client: &Client, args: TransactionArgs, json: bool) -> Result<(), CliError> {
    if args.verbose {
        let mut request = client.data().get_transaction_verbose().transaction_hash(args.hash);
        set!(request, chain = args.chain);
        let answer = request.send().await?.into_inner();
        return output::emit(json, &answer, render_verbose);
    }
    let mut request = client.data().get_transaction().transaction_hash(args.hash);
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |t| format!("{}{} logs\n", render_mined(&t.transaction), t.logs.len()))
}

fn render_block(block: &ChainBlock) -> String {
    let head = output::fields(&[
        ("block", format!("{} ({:#x})", block.number, block.hash)),
        ("time", block.timestamp.to_rfc3339()),
        ("gas", format!("{} of {}", block.gas_used, block.gas_limit)),
        ("miner", format!("{:#x}", block.miner)),
    ]);
    let mut table = Table::new(&["#", "HASH", "FROM", "TO", ">VALUE", "STATUS", ">LOGS"]);
    for t in &block.transactions {
        let mined = &t.transaction;
        table.row(vec![
            mined.transaction_index.to_string(),
            format!("{:#x}", mined.hash),
            format!("{:#x}", mined.from_address),
            output::or_dash(mined.to_address.map(|a| format!("{a:#x}"))),
            mined.value.to_string(),
            mined.receipt_status.to_string(),
            t.logs.len().to_string(),
        ]);
    }
    format!("{head}{}{} transactions\n", table.render(), block.transaction_count)
}

fn render_mined(mined: &MinedTransaction) -> String {
    output::fields(&[
        ("transaction", format!("{:#x}", mined.hash)),
        (
            "block",
            format!(
                "{} (index {}), {}",
                mined.block_number,
                mined.transaction_index,
                mined.block_timestamp.to_rfc3339()
            ),
        ),
        ("from", format!("{:#x} (nonce {})", mined.from_address, mined.nonce)),
        ("to", output::or_dash(mined.to_address.map(|a| format!("{a:#x}")))),
        ("value", format!("{} wei", mined.value)),
        ("gas", format!("{} used of {}, at {} wei", mined.receipt_gas_used, mined.gas, mined.gas_price)),
        ("status", if mined.receipt_status == 1 { "success".into() } else { "reverted".into() }),
    ])
}

fn render_verbose(t: &BlockTransactionVerbose) -> String {
    let call = t
        .decoded_call
        .as_ref()
        .map(|c| format!("{}({})", c.label, c.params.iter().map(|p| p.value.as_str()).collect::<Vec<_>>().join(", ")));
    let mut out = render_mined(&t.transaction);
    out.push_str(&output::fields(&[("fee", t.transaction_fee.clone()), ("call", output::or_dash(call))]));
    let mut table = Table::new(&["#", "CONTRACT", "EVENT"]);
    for log in &t.logs {
        let event = log.decoded_event.as_ref().map(|e| {
            let params: Vec<String> = e.params.iter().map(|p| format!("{}={}", p.name, p.value)).collect();
            format!("{}({})", e.label, params.join(", "))
        });
        table.row(vec![log.log.log_index.to_string(), format!("{:#x}", log.log.address), output::or_dash(event)]);
    }
    out.push_str(&table.render());
    out
}
