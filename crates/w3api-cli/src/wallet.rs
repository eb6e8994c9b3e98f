//! `w3api tokens`, `w3api nfts`, `w3api collections`: the wallet-data group.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{Address, Chain, NftCollectionPage, NftPage, TokenBalancePage, TokenIdFormat};

use crate::error::CliError;
use crate::listing::{PagingArgs, footer, list_pages};
use crate::output::{self, Table};

/// Whose token balances to read, where, when and of which tokens:
/// `w3api tokens` and `w3api erc20`.
#[derive(Args, Debug)]
pub(crate) struct HoldingsOf {
    /// Wallet address (0x and 40 hex digits).
    pub(crate) address: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    pub(crate) chain: Option<Chain>,
    /// Block to read the balances at (default: the latest).
    #[arg(long)]
    pub(crate) to_block: Option<u64>,
    /// Only these token contracts (repeat, at most 10).
    #[arg(long = "token-address", value_name = "ADDRESS")]
    pub(crate) token_addresses: Vec<Address>,
    /// Leave out spam tokens (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    pub(crate) exclude_spam: Option<bool>,
}

/// `w3api tokens <address>`: ERC20 and native balances with USD prices.
#[derive(Args, Debug)]
pub(crate) struct TokensArgs {
    #[command(flatten)]
    of: HoldingsOf,
    /// Leave out unverified contracts (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_unverified_contracts: Option<bool>,
    /// Leave out the native balance (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_native: Option<bool>,
    /// Leave out tokens with no transfer in this many days.
    #[arg(long)]
    max_token_inactivity: Option<u64>,
    /// Price only from pairs whose every side holds at least this much USD.
    #[arg(long)]
    min_pair_side_liquidity_usd: Option<f64>,
    #[command(flatten)]
    paging: PagingArgs,
}

/// `w3api nfts <address>`: the NFTs a wallet owns.
#[derive(Args, Debug)]
pub(crate) struct NftsArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// How token ids are written.
    #[arg(long)]
    format: Option<TokenIdFormat>,
    /// Leave out spam collections (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_spam: Option<bool>,
    /// Only these collections (repeat, at most 10).
    #[arg(long = "token-address", value_name = "ADDRESS")]
    token_addresses: Vec<Address>,
    /// Add normalized metadata (`--flag` or `--flag=true|false`; absent: the server's default, true).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    normalize_metadata: Option<bool>,
    /// Add media previews (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    media_items: Option<bool>,
    /// Add prices (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    include_prices: Option<bool>,
    #[command(flatten)]
    paging: PagingArgs,
}

/// `w3api collections <address>`: the NFT collections a wallet holds.
#[derive(Args, Debug)]
pub(crate) struct CollectionsArgs {
    /// Wallet address (0x and 40 hex digits).
    address: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// Add the wallet's token count per collection (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    token_counts: Option<bool>,
    /// Leave out spam collections (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    exclude_spam: Option<bool>,
    /// Add prices (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    include_prices: Option<bool>,
    #[command(flatten)]
    paging: PagingArgs,
}

/// Sets a builder option only when it was given, so the server's defaults apply otherwise.
macro_rules! set {
    ($request:ident, $($method:ident = $value:expr),* $(,)?) => {
        $(if let Some(value) = $value {
            $request = $request.$method(value);
        })*
    };
}
pub(crate) use set;

/// The request of `$operation` for the wallet, chain, block and tokens of `$of` (a [`HoldingsOf`]).
macro_rules! holdings {
    ($client:expr, $operation:ident, $of:expr) => {{
        let HoldingsOf { address, chain, to_block, token_addresses, exclude_spam } = $of;
        let mut request = $client.data().$operation().address(address);
        let token_addresses = (!token_addresses.is_empty()).then_some(token_addresses);
        set!(
            request,
            chain = chain,
            to_block = to_block,
            token_addresses = token_addresses,
            exclude_spam = exclude_spam
        );
        request
    }};
}
pub(crate) use holdings;

pub(crate) async fn tokens(client: &Client, args: TokensArgs, json: bool) -> Result<(), CliError> {
    let mut request = holdings!(client, get_wallet_token_balances_price, args.of);
    set!(
        request,
        exclude_unverified_contracts = args.exclude_unverified_contracts,
        exclude_native = args.exclude_native,
        max_token_inactivity = args.max_token_inactivity,
        min_pair_side_liquidity_usd = args.min_pair_side_liquidity_usd,
        limit = args.paging.limit,
    );
    list_pages(request, &args.paging, json, render_tokens).await
}

pub(crate) async fn nfts(client: &Client, args: NftsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_nfts().address(args.address);
    set!(
        request,
        chain = args.chain,
        format = args.format,
        exclude_spam = args.exclude_spam,
        token_addresses = (!args.token_addresses.is_empty()).then_some(args.token_addresses),
        normalize_metadata = args.normalize_metadata,
        media_items = args.media_items,
        include_prices = args.include_prices,
        limit = args.paging.limit,
    );
    list_pages(request, &args.paging, json, render_nfts).await
}

pub(crate) async fn collections(client: &Client, args: CollectionsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_wallet_nft_collections().address(args.address);
    set!(
        request,
        chain = args.chain,
        token_counts = args.token_counts,
        exclude_spam = args.exclude_spam,
        include_prices = args.include_prices,
        limit = args.paging.limit,
    );
    list_pages(request, &args.paging, json, render_collections).await
}

pub(crate) fn render_tokens(pages: &[TokenBalancePage]) -> String {
    let mut table = Table::new(&["SYMBOL", "NAME", ">BALANCE", ">PRICE", ">VALUE", ">24H", ">PORTFOLIO", "TOKEN"]);
    for token in pages.iter().flat_map(|p| &p.result) {
        let symbol = if token.possible_spam { format!("{} (spam)", token.symbol) } else { token.symbol.clone() };
        table.row(vec![
            symbol,
            output::clip(&token.name, 28),
            token.balance_formatted.clone(),
            output::usd(token.usd_price),
            output::usd(token.usd_value),
            output::percent(token.usd_price_24hr_percent_change),
            output::percent(Some(token.portfolio_percentage)),
            output::or_dash(token.token_address.map(|a| format!("{a:#x}"))),
        ]);
    }
    let last = pages.last().expect("at least one page");
    let block = output::or_dash(pages[0].block_number);
    let items = pages.iter().map(|p| p.result.len()).sum();
    format!("{}at block {block}: {}", table.render(), footer(pages[0].page, pages.len(), items, last.cursor.as_deref()))
}

pub(crate) fn render_nfts(pages: &[NftPage]) -> String {
    let mut table = Table::new(&["COLLECTION", "TOKEN ID", "TYPE", ">AMOUNT", "NAME", "SYMBOL"]);
    for nft in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            format!("{:#x}", nft.token_address),
            nft.token_id.clone(),
            nft.contract_type.to_string(),
            output::or_dash(nft.amount),
            output::clip(&nft.name, 28),
            nft.symbol.clone(),
        ]);
    }
    let last = pages.last().expect("at least one page");
    let items = pages.iter().map(|p| p.result.len()).sum();
    let total = output::or_dash(pages[0].total);
    format!(
        "{}status {}, {total} in total; {}",
        table.render(),
        output::or_dash(last.status.as_ref()),
        footer(pages[0].page, pages.len(), items, last.cursor.as_deref())
    )
}

pub(crate) fn render_collections(pages: &[NftCollectionPage]) -> String {
    let mut table = Table::new(&["COLLECTION", "TYPE", "NAME", "SYMBOL", ">COUNT", "SPAM", "VERIFIED"]);
    for collection in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            format!("{:#x}", collection.token_address),
            collection.contract_type.to_string(),
            output::clip(&collection.name, 28),
            collection.symbol.clone(),
            output::or_dash(collection.count),
            output::or_dash(collection.possible_spam),
            output::or_dash(collection.verified_collection),
        ]);
    }
    let last = pages.last().expect("at least one page");
    let items = pages.iter().map(|p| p.result.len()).sum();
    format!(
        "{}status {}; {}",
        table.render(),
        output::or_dash(last.status.as_ref()),
        footer(pages[0].page, pages.len(), items, last.cursor.as_deref())
    )
}
