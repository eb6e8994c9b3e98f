//! `w3api transfers`, `w3api nft-transfers`, `w3api transactions` and
//! `w3api history`: the ERC20 or NFT transfers of a wallet, token or
//! collection, and a wallet's transactions, plain or decoded, a page at a
//! time through the data API.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{
    Address, Chain, DateInput, Erc20TransferPage, ListingOrder, NftTransferPage, TokenIdFormat, WalletHistoryPage,
    WalletTransactionPage, format_units,
};

use crate::error::CliError;
use crate::output::Table;
use w3api_rest::Page;

use crate::listing::{PagingArgs, fetch, footer, list_pages, show};
use crate::wallet::set;

/// Which blocks and which way: what both listings share.
#[derive(Args, Debug)]
pub(crate) struct WindowArgs {
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// First block (wins over --from-date).
    #[arg(long)]
    from_block: Option<u64>,
    /// Last block (wins over --to-date; default: the latest).
    #[arg(long)]
    to_block: Option<u64>,
    /// From the first block at or after this date (Unix seconds, 2024-10-19 or an RFC 3339 date-time).
    #[arg(long)]
    from_date: Option<DateInput>,
    /// Up to the last block at or before this date.
    #[arg(long)]
    to_date: Option<DateInput>,
    /// ASC (oldest first) or DESC (newest first, the server's default).
    #[arg(long)]
    order: Option<ListingOrder>,
    #[command(flatten)]
    paging: PagingArgs,
}

/// `w3api transfers <address>`: a wallet's ERC20 transfers, or a token's
/// with --token.
#[derive(Args, Debug)]
pub(crate) struct TransfersArgs {
    /// Wallet address, or with --token the token's contract (0x and 40 hex digits).
    address: Address,
    /// ADDRESS is an ERC20 token: list its transfers.
    #[arg(long)]
    token: bool,
    /// Only these tokens' transfers (repeat; a wallet's listing only).
    #[arg(long = "contract", value_name = "ADDRESS", conflicts_with = "token")]
    contracts: Vec<Address>,
    #[command(flatten)]
    window: WindowArgs,
}

/// `w3api nft-transfers <address>`: a wallet's NFT transfers, or a
/// collection's with --collection.
#[derive(Args, Debug)]
pub(crate) struct NftTransfersArgs {
    /// Wallet address, or with --collection the collection's contract.
    address: Address,
    /// ADDRESS is an NFT collection: list its transfers.
    #[arg(long)]
    collection: bool,
    /// Only these collections' transfers (repeat; a wallet's listing only).
    #[arg(long = "contract", value_name = "ADDRESS", conflicts_with = "collection")]
    contracts: Vec<Address>,
    /// How token ids are written.
    #[arg(long)]
    format: Option<TokenIdFormat>,
    #[command(flatten)]
    window: WindowArgs,
}

/// `w3api transactions <address>`: the transactions a wallet sent or was sent.
#[derive(Args, Debug)]
pub(crate) struct TransactionsArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    #[command(flatten)]
    window: WindowArgs,
}

/// `w3api history <address>`: a wallet's transactions decoded, each with
/// its category and summary.
#[derive(Args, Debug)]
pub(crate) struct HistoryArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Name the function each transaction called (include_input_data).
    #[arg(long)]
    methods: bool,
    #[command(flatten)]
    window: WindowArgs,
}

/// Sets the window's parameters on a request builder.
macro_rules! windowed {
    ($request:ident, $window:expr) => {{
        let w = $window;
        set!(
            $request,
            chain = w.chain,
            from_block = w.from_block,
            to_block = w.to_block,
            from_date = w.from_date.clone(),
            to_date = w.to_date.clone(),
            order = w.order,
            limit = w.paging.limit,
        );
    }};
}

pub(crate) async fn transfers(client: &Client, args: TransfersArgs, json: bool) -> Result<(), CliError> {
    let pages = if args.token {
        let mut request = client.data().get_token_transfers().address(args.address);
        windowed!(request, &args.window);
        fetch(request, &args.window.paging).await?
    } else {
        let mut request = client.data().get_wallet_token_transfers().address(args.address);
        windowed!(request, &args.window);
        if !args.contracts.is_empty() {
            request = request.contract_addresses(args.contracts);
        }
        fetch(request, &args.window.paging).await?
    };
    show(pages, args.window.paging.all, json, render_erc20)
}

pub(crate) async fn nft_transfers(client: &Client, args: NftTransfersArgs, json: bool) -> Result<(), CliError> {
    let pages = if args.collection {
        let mut request = client.data().get_nft_contract_transfers().address(args.address);
        windowed!(request, &args.window);
        set!(request, format = args.format);
        fetch(request, &args.window.paging).await?
    } else {
        let mut request = client.data().get_wallet_nft_transfers().address(args.address);
        windowed!(request, &args.window);
        set!(request, format = args.format);
        if !args.contracts.is_empty() {
            request = request.contract_addresses(args.contracts);
        }
        fetch(request, &args.window.paging).await?
    };
    show(pages, args.window.paging.all, json, render_nfts)
}

pub(crate) async fn transactions(client: &Client, args: TransactionsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_transactions().address(args.address);
    windowed!(request, &args.window);
    list_pages(request, &args.window.paging, json, render_transactions).await
}

pub(crate) async fn history(client: &Client, args: HistoryArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_history().address(args.address);
    if args.methods {
        request = request.include_input_data(true);
    }
    windowed!(request, &args.window);
    list_pages(request, &args.window.paging, json, render_history).await
}

fn render_history(pages: &[WalletHistoryPage]) -> String {
    let mut table = Table::new(&[">BLOCK", "CATEGORY", "SUMMARY", "METHOD", "HASH"]);
    for item in pages.iter().flat_map(|p| &p.result) {
        let category = serde_json::to_value(item.category).ok().and_then(|c| c.as_str().map(str::to_string));
        table.row(vec![
            item.transaction.block_number.to_string(),
            category.unwrap_or_default(),
            item.summary.clone(),
            item.method_label.clone().unwrap_or_default(),
            format!("{:#x}", item.transaction.hash),
        ]);
    }
    format!("{}{}", table.render(), pages_footer(pages, pages[0].page))
}

fn render_transactions(pages: &[WalletTransactionPage]) -> String {
    let mut table = Table::new(&[">BLOCK", ">INDEX", "FROM", "TO", ">VALUE", ">FEE", "STATUS", "HASH"]);
    for item in pages.iter().flat_map(|p| &p.result) {
        let tx = &item.transaction;
        table.row(vec![
            tx.block_number.to_string(),
            tx.transaction_index.to_string(),
            format!("{:#x}", tx.from_address),
            tx.to_address.map_or_else(|| "(creation)".to_string(), |to| format!("{to:#x}")),
            format_units(tx.value, 18),
            item.transaction_fee.clone(),
            if tx.receipt_status == 1 { "ok" } else { "reverted" }.to_string(),
            format!("{:#x}", tx.hash),
        ]);
    }
    format!("{}{}", table.render(), pages_footer(pages, pages[0].page))
}

pub(crate) fn render_erc20(pages: &[Erc20TransferPage]) -> String {
    let mut table = Table::new(&[">BLOCK", "SYMBOL", ">AMOUNT", "FROM", "TO", "TRANSACTION"]);
    for transfer in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            transfer.block_number.to_string(),
            transfer.token_symbol.clone(),
            format_units(transfer.value, transfer.token_decimals),
            format!("{:#x}", transfer.parties.from_address),
            format!("{:#x}", transfer.parties.to_address),
            format!("{:#x}", transfer.transaction_hash),
        ]);
    }
    format!("{}{}", table.render(), pages_footer(pages, pages[0].page))
}

fn render_nfts(pages: &[NftTransferPage]) -> String {
    let mut table = Table::new(&[">BLOCK", "COLLECTION", "TOKEN ID", ">AMOUNT", "FROM", "TO", "TRANSACTION"]);
    for transfer in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            transfer.block_number.to_string(),
            format!("{:#x}", transfer.token_address),
            transfer.token_id.clone(),
            transfer.amount.to_string(),
            format!("{:#x}", transfer.parties.from_address),
            format!("{:#x}", transfer.parties.to_address),
            format!("{:#x}", transfer.transaction_hash),
        ]);
    }
    format!("{}{}", table.render(), pages_footer(pages, pages[0].page))
}

/// The footer of a listing shown from page `first` on.
fn pages_footer<P: Page>(pages: &[P], first: u64) -> String {
    let items = pages.iter().map(|p| p.items().len()).sum();
    footer(first, pages.len(), items, pages.last().and_then(Page::next_cursor))
}
