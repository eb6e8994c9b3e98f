//! The blocks and order a listing covers, as its request names them.

use w3api_query::listing::{Order, Span};

/// The blocks (or dates) and order of a listing.
#[derive(Clone, Copy, Debug, Hash)]
pub struct Window {
    /// Which blocks or dates.
    pub span: Span,
    /// Which way.
    pub order: Order,
}

impl Window {
    /// Every block, in `order`: the window of `eth_getDecodedTransactions`.
    pub fn every_block(order: Order) -> Window {
        Window { span: Span::default(), order }
    }

    /// The blocks from `from_block` to `to_block`, newest first: the
    /// window of `eth_getTransactions`, which names blocks by number only.
    pub fn by_blocks(from_block: Option<u64>, to_block: Option<u64>) -> Window {
        Window { span: Span { from_block, to_block, ..Span::default() }, order: Order::Descending }
    }
}
