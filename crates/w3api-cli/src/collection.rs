//! `w3api nft`, `w3api nfts-by-id`, `w3api collection-nfts`, `w3api
//! nft-owners`: NFTs read by collection through the data API.

use clap::Args;
use w3api_rest::Client;
use w3api_types::{Address, Chain, MultipleNftsRequest, Nft, NftPage, NftTokenId, NftTokenItem, TokenIdFormat};

use crate::error::CliError;
use crate::listing::{PagingArgs, fetch, footer, list_pages, show};
use crate::output::{self, Table};
use crate::wallet::set;

/// `w3api nft <collection> <token-id>`: one NFT with its metadata.
#[derive(Args, Debug)]
pub(crate) struct NftArgs {
    /// Collection contract (0x and 40 hex digits).
    collection: Address,
    /// Token id: decimal digits, or 0x and hex digits.
    token_id: NftTokenId,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// How token ids are written.
    #[arg(long)]
    format: Option<TokenIdFormat>,
    /// Add prices (`--flag` or `--flag=true|false`; absent: the server's default).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    include_prices: Option<bool>,
}

/// `w3api nfts-by-id <collection:id>...`: up to 25 NFTs at once.
#[derive(Args, Debug)]
pub(crate) struct NftsByIdArgs {
    /// Tokens as COLLECTION:ID (1 to 25).
    #[arg(required = true, num_args = 1..=25, value_parser = token_item)]
    tokens: Vec<NftTokenItem>,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
}

/// `w3api collection-nfts <collection>`: every token of a collection.
#[derive(Args, Debug)]
pub(crate) struct CollectionNftsArgs {
    /// Collection contract (0x and 40 hex digits).
    collection: Address,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// How token ids are written.
    #[arg(long)]
    format: Option<TokenIdFormat>,
    /// Only run RANGE (from 1) of the ids split into --total-ranges runs.
    #[arg(long, requires = "total_ranges")]
    range: Option<std::num::NonZeroU64>,
    /// Into how many runs to split the ids (with --range).
    #[arg(long, requires = "range")]
    total_ranges: Option<std::num::NonZeroU64>,
    #[command(flatten)]
    paging: PagingArgs,
}

/// `w3api nft-owners <collection> [--token-id ID]`: who holds a
/// collection's tokens, or one of them.
#[derive(Args, Debug)]
pub(crate) struct NftOwnersArgs {
    /// Collection contract (0x and 40 hex digits).
    collection: Address,
    /// Only this token's holders.
    #[arg(long)]
    token_id: Option<NftTokenId>,
    /// Chain: name (eth, polygon, ...) or hex id (0x1).
    #[arg(long)]
    chain: Option<Chain>,
    /// How token ids are written.
    #[arg(long)]
    format: Option<TokenIdFormat>,
    #[command(flatten)]
    paging: PagingArgs,
}

fn token_item(text: &str) -> Result<NftTokenItem, String> {
    let (collection, id) = text.split_once(':').ok_or("expected COLLECTION:ID, such as 0xb47e…bbb:15")?;
    let token_address = collection.parse().map_err(|e| format!("collection {collection:?}: {e}"))?;
    let token_id = id.parse().map_err(|e| format!("{e}"))?;
    Ok(NftTokenItem { token_address, token_id })
}

pub(crate) async fn nft(client: &Client, args: NftArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_nft_metadata().address(args.collection).token_id(args.token_id);
    set!(request, chain = args.chain, format = args.format, include_prices = args.include_prices);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, render_nft)
}

pub(crate) async fn nfts_by_id(client: &Client, args: NftsByIdArgs, json: bool) -> Result<(), CliError> {
    let asked = args.tokens.len();
    let body = MultipleNftsRequest { tokens: args.tokens, normalize_metadata: None, media_items: None };
    let mut request = client.data().get_multiple_nfts().body(body);
    set!(request, chain = args.chain);
    let answer = request.send().await?.into_inner();
    output::emit(json, &answer, |found| {
        let held: Vec<&Nft> = found.iter().flatten().collect();
        format!("{}{} of {asked} tokens exist\n", held_table(held).render(), found.iter().flatten().count())
    })
}

pub(crate) async fn collection_nfts(client: &Client, args: CollectionNftsArgs, json: bool) -> Result<(), CliError> {
    let mut request = client.data().get_contract_nfts().address(args.collection);
    set!(
        request,
        chain = args.chain,
        format = args.format,
        range = args.range,
        total_ranges = args.total_ranges,
        limit = args.paging.limit,
    );
    list_pages(request, &args.paging, json, render_held).await
}

pub(crate) async fn nft_owners(client: &Client, args: NftOwnersArgs, json: bool) -> Result<(), CliError> {
    let limit = args.paging.limit;
    let pages = match args.token_id {
        Some(token_id) => {
            let mut request = client.data().get_nft_token_id_owners().address(args.collection).token_id(token_id);
            set!(request, chain = args.chain, format = args.format, limit = limit);
            fetch(request, &args.paging).await?
        }
        None => {
            let mut request = client.data().get_nft_owners().address(args.collection);
            set!(request, chain = args.chain, format = args.format, limit = limit);
            fetch(request, &args.paging).await?
        }
    };
    show(pages, args.paging.all, json, render_held)
}

fn render_nft(nft: &Nft) -> String {
    output::fields(&[
        ("collection", format!("{:#x} ({}, {} {})", nft.token_address, nft.contract_type, nft.name, nft.symbol)),
        ("token id", nft.token_id.clone()),
        ("owner", output::or_dash(nft.owner_of.map(|o| format!("{o:#x}")))),
        ("amount", output::or_dash(nft.amount)),
        ("minted at", nft.block_number_minted.to_string()),
        ("last moved at", nft.block_number.to_string()),
        ("token uri", output::or_dash(nft.token_uri.as_deref())),
    ])
}

/// NFTs with their holders (none for an ERC1155 token listed by itself).
fn held_table(nfts: Vec<&Nft>) -> Table {
    let mut table = Table::new(&["COLLECTION", "TOKEN ID", "TYPE", ">AMOUNT", "OWNER"]);
    for nft in nfts {
        table.row(vec![
            format!("{:#x}", nft.token_address),
            nft.token_id.clone(),
            nft.contract_type.to_string(),
            output::or_dash(nft.amount),
            output::or_dash(nft.owner_of.map(|o| format!("{o:#x}"))),
        ]);
    }
    table
}

pub(crate) fn render_held(pages: &[NftPage]) -> String {
    let table = held_table(pages.iter().flat_map(|p| &p.result).collect());
    let last = pages.last().expect("at least one page");
    let items = pages.iter().map(|p| p.result.len()).sum();
    let status = last.status.as_ref().map(|s| format!("status {s}, ")).unwrap_or_default();
    let total = output::or_dash(pages[0].total);
    format!(
        "{}{status}{total} in total; {}",
        table.render(),
        footer(pages[0].page, pages.len(), items, last.cursor.as_deref())
    )
}
