//! What every listing over the chain shares: the blocks it covers (by
//! number or by date), which way it runs, and its pages, cut from a list of
//! keys in chain order by binary search.

use std::fmt::Display;
use std::str::FromStr;

use w3api_source::{Page, PagePosition, PageRequest, SourceError};

use crate::ChainView;
use crate::blocks::{last_block_at, ledger_block};

/// Which way a listing runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Oldest first.
    Ascending,
    /// Newest first, as production lists by default.
    #[default]
    Descending,
}

/// The blocks a listing covers, as a request names them. A block number
/// wins over a date (as production has it); a date covers the blocks at or
/// after it (`from`), or at or before it (`to`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// The first block.
    pub from_block: Option<u64>,
    /// The last block.
    pub to_block: Option<u64>,
    /// The first block at or after this time (Unix seconds).
    pub from_date: Option<i64>,
    /// The last block at or before this time (Unix seconds).
    pub to_date: Option<i64>,
}

impl Span {
    /// The first and last blocks covered, the last no later than `head`;
    /// `None` when the span covers no block of the view.
    pub(crate) fn blocks(&self, view: &impl ChainView, head: u64) -> Option<(u32, u32)> {
        let from = match (self.from_block, self.from_date) {
            (Some(block), _) => block,
            (None, Some(date)) => match u64::try_from(date).ok().and_then(|date| date.checked_sub(1)) {
                Some(before) => last_block_at(view, before, head).map_or(view.first_block(), |b| b + 1),
                None => view.first_block(),
            },
            (None, None) => view.first_block(),
        };
        let to = match (self.to_block, self.to_date) {
            (Some(block), _) => block.min(head),
            (None, Some(date)) => last_block_at(view, u64::try_from(date).ok()?, head)?,
            (None, None) => head,
        };
        (from <= to).then(|| (ledger_block(from), ledger_block(to)))
    }
}

/// Where a transaction stands: a page's position, written `block:index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TransactionAt(pub(crate) u32, pub(crate) u32);

impl Display for TransactionAt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.0, self.1)
    }
}

impl FromStr for TransactionAt {
    type Err = ();

    fn from_str(text: &str) -> Result<Self, ()> {
        let (block, index) = text.split_once(':').ok_or(())?;
        Ok(TransactionAt(block.parse().map_err(|_| ())?, index.parse().map_err(|_| ())?))
    }
}

/// One page of `keys` (in chain order, each in block `block_of`) within
/// `span` up to `head`, in `order`, each kept as `keep` writes it (`None`
/// leaves it out). The page's position is the last key listed: the next
/// page starts past it, whichever the order.
pub(crate) fn page<K, T>(
    view: &impl ChainView,
    keys: &[K],
    block_of: impl Fn(&K) -> u32,
    (span, head, order): (Span, u64, Order),
    page: &PageRequest,
    keep: impl Fn(&K) -> Option<T>,
) -> Result<Page<T>, SourceError>
where
    K: Copy + Ord + Display + FromStr,
{
    let after = match &page.after {
        Some(position) => Some(position.0.parse::<K>().map_err(|_| SourceError::BadPosition)?),
        None => None,
    };
    let Some((from, to)) = span.blocks(view, head) else { return Ok(Page { items: Vec::new(), next: None }) };
    let covered = &keys[keys.partition_point(|k| block_of(k) < from)..keys.partition_point(|k| block_of(k) <= to)];
    let remaining: Box<dyn Iterator<Item = &K>> = match (order, after) {
        (Order::Ascending, None) => Box::new(covered.iter()),
        (Order::Ascending, Some(after)) => Box::new(covered[covered.partition_point(|k| *k <= after)..].iter()),
        (Order::Descending, None) => Box::new(covered.iter().rev()),
        (Order::Descending, Some(after)) => Box::new(covered[..covered.partition_point(|k| *k < after)].iter().rev()),
    };
    let mut kept = remaining.filter_map(|key| keep(key).map(|item| (*key, item)));
    let items: Vec<(K, T)> = kept.by_ref().take(page.limit.max(1)).collect();
    let next = match (items.last(), kept.next()) {
        (Some((last, _)), Some(_)) => Some(PagePosition(last.to_string())),
        _ => None,
    };
    Ok(Page { items: items.into_iter().map(|(_, item)| item).collect(), next })
}

/// How many of `keys` (in chain order, each in block `block_of`) `span`
/// covers up to `head`.
pub(crate) fn count<K>(
    view: &impl ChainView,
    keys: &[K],
    block_of: impl Fn(&K) -> u32,
    (span, head, _): (Span, u64, Order),
) -> u64 {
    let Some((from, to)) = span.blocks(view, head) else { return 0 };
    (keys.partition_point(|k| block_of(k) <= to) - keys.partition_point(|k| block_of(k) < from)) as u64
}
