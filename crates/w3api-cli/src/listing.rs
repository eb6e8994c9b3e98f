//! Listings: the page a command asks for, or with `--all` every page to the
//! last, shown as JSON or as the command's table. The Data API's listings
//! and the streams' page alike; only their page-size options differ.

use clap::Args;
use futures::TryStreamExt;
use serde::Serialize;
use w3api_rest::{Page, Paginated};

use crate::error::CliError;
use crate::output::{self, Progress};

/// Where a listing starts, and whether it follows cursors to the last page.
pub(crate) trait Paging {
    /// The cursor of the first page to fetch; `None` for the first page.
    fn cursor(&self) -> Option<String>;
    /// Whether to fetch every page from there to the last.
    fn all(&self) -> bool;
}

/// Paging options of the Data API's listings.
#[derive(Args, Debug)]
pub(crate) struct PagingArgs {
    /// Page size, 1 to 100 (0 or absent: 100).
    #[arg(long)]
    pub(crate) limit: Option<i64>,
    /// Cursor of the page to fetch (from a previous answer).
    #[arg(long, conflicts_with = "all")]
    pub(crate) cursor: Option<String>,
    /// Follow cursors to the last page and show every item.
    #[arg(long)]
    pub(crate) all: bool,
}

impl Paging for PagingArgs {
    fn cursor(&self) -> Option<String> {
        self.cursor.clone()
    }

    fn all(&self) -> bool {
        self.all
    }
}

/// Fetches what `paging` asks for, `request` being the request of a first
/// page, and shows it.
pub(crate) async fn list_pages<R>(
    request: R,
    paging: &impl Paging,
    json: bool,
    render: impl FnOnce(&[R::Page]) -> String,
) -> Result<(), CliError>
where
    R: Paginated<Page: Serialize + Page<Item: Serialize>>,
{
    show(fetch(request, paging).await?, paging.all(), json, render)
}

/// The page `paging` asks for, or with `--all` every page to the last.
pub(crate) async fn fetch<R: Paginated>(request: R, paging: &impl Paging) -> Result<Vec<R::Page>, CliError> {
    let request = match paging.cursor() {
        Some(cursor) => request.at_cursor(cursor),
        None => request,
    };
    if !paging.all() {
        return Ok(vec![request.fetch().await?]);
    }
    let mut progress = Progress::new();
    let pages = request.pages().inspect_ok(|page| progress.page(page.items().len())).try_collect().await?;
    progress.finish();
    Ok(pages)
}

/// JSON: the page, or with `--all` one array of every item; text: `render`.
pub(crate) fn show<P: Page<Item: Serialize> + Serialize>(
    pages: Vec<P>,
    all: bool,
    json: bool,
    render: impl FnOnce(&[P]) -> String,
) -> Result<(), CliError> {
    match (json, all) {
        (true, true) => output::print_json(&pages.into_iter().flat_map(Page::into_items).collect::<Vec<_>>()),
        (true, false) => output::print_json(&pages[0]),
        (false, _) => {
            output::out!("{}", render(&pages));
            Ok(())
        }
    }
}

/// Where a listing stops: the page shown and how to get the next.
pub(crate) fn footer(first_page: u64, pages: usize, items: usize, cursor: Option<&str>) -> String {
    let shown = if pages == 1 { format!("page {first_page}") } else { format!("{pages} pages") };
    let more = match cursor.filter(|c| !c.is_empty()) {
        Some(cursor) => format!("; next page: --cursor {cursor} (or --all)"),
        None => String::new(),
    };
    format!("{items} items, {shown}{more}\n")
}
