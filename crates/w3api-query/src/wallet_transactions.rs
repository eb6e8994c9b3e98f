//! A wallet's transactions (`getWalletTransactions`, `eth_getTransactions`):
//! those it sent or was sent, whatever they moved, read from the ledger's
//! list of each holder's transactions. The backend then gives each one in
//! full, with its receipt.

use crate::LedgerReads;
use alloy_primitives::Address;
use w3api_source::{Page, PageRequest, SourceError};

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::resolve;
use crate::listing::{self, Order, Span, TransactionAt as At};
use crate::view::TransactionFacts;

/// One page of a wallet's transactions, up to block `at_block` (the newest
/// when `None`).
#[derive(Clone, Debug)]
pub struct WalletTransactions {
    /// The wallet.
    pub address: Address,
    /// The blocks covered.
    pub span: Span,
    /// The newest block the listing reads.
    pub at_block: Option<u64>,
    /// Which way.
    pub order: Order,
    /// Which page.
    pub page: PageRequest,
}

/// A transaction of the listing: its block, its index there, and what the
/// view knows of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListedTransaction {
    /// Its block.
    pub block: u64,
    /// Its index in the block.
    pub index: u32,
    /// The block's time (Unix seconds).
    pub timestamp: u64,
    /// Its hash, parties and value.
    pub facts: TransactionFacts,
}

/// A page of transactions, with the block it was read up to.
#[derive(Clone, Debug, PartialEq)]
pub struct TransactionListing {
    /// The newest block read.
    pub block: u64,
    /// The page.
    pub page: Page<ListedTransaction>,
    /// Transactions on all pages (within the span).
    pub total: u64,
}

impl Question for WalletTransactions {
    type Answer = TransactionListing;

    fn answer(self, view: &impl ChainView) -> Result<TransactionListing, SourceError> {
        let block = resolve(view, self.at_block)?;
        let ledger = view.ledger();
        let listed: Vec<At> = match ledger.find(self.address) {
            Some(holder) => ledger.transactions_of(holder).iter().map(|(b, i)| At(*b, *i)).collect(),
            None => Vec::new(),
        };
        let window = (self.span, block, self.order);
        let total = listing::count(view, &listed, |at| at.0, window);
        let page = listing::page(
            view,
            &listed,
            |at| at.0,
            window,
            &self.page,
            |at| {
                let block = u64::from(at.0);
                let (facts, timestamp) = (view.transaction(block, at.1)?, view.timestamp(block)?);
                Some(ListedTransaction { block, index: at.1, timestamp, facts })
            },
        )?;
        Ok(TransactionListing { block, page, total })
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;
    use w3api_source::{PagePosition, PageRequest, SourceError};

    use super::*;
    use crate::testing::{A, B, Times};

    /// Blocks 10 to 13: A sends B a transaction in 10 (index 0) and 12
    /// (index 3), B sends A one in 11 (index 1), A creates a contract in 13.
    fn chain() -> Times {
        let mut view = Times::new(10, &[100, 110, 120, 130]);
        view.ledger.record_transaction(10, 0, A, Some(B));
        view.ledger.record_transaction(11, 1, B, Some(A));
        view.ledger.record_transaction(12, 3, A, Some(B));
        view.ledger.record_transaction(13, 2, A, None);
        view
    }

    fn of(address: Address, order: Order, limit: usize) -> WalletTransactions {
        WalletTransactions { address, span: Span::default(), at_block: None, order, page: PageRequest::first(limit) }
    }

    fn places(listing: &TransactionListing) -> Vec<(u64, u32)> {
        listing.page.items.iter().map(|t| (t.block, t.index)).collect()
    }

    #[test]
    fn a_wallets_transactions_are_those_it_sent_or_was_sent() {
        let view = chain();
        let a = of(A, Order::Descending, 10).answer(&view).unwrap();
        assert_eq!(places(&a), [(13, 2), (12, 3), (11, 1), (10, 0)]);
        assert_eq!(a.total, 4);
        assert_eq!(a.page.items[0].facts.hash, Times::hash(13, Some(2)));
        let b = of(B, Order::Ascending, 10).answer(&view).unwrap();
        assert_eq!(places(&b), [(10, 0), (11, 1), (12, 3)], "not the creation");
        let stranger = of(Address::repeat_byte(9), Order::Descending, 10).answer(&view).unwrap();
        assert!(stranger.page.items.is_empty() && stranger.total == 0);
    }

    #[test]
    fn pages_follow_their_position_and_spans_their_blocks() {
        let view = chain();
        let mut request = of(A, Order::Descending, 3);
        let first = request.clone().answer(&view).unwrap();
        assert_eq!(places(&first), [(13, 2), (12, 3), (11, 1)]);
        request.page.after = first.page.next.clone();
        assert_eq!(first.page.next, Some(PagePosition("11:1".into())));
        let second = request.answer(&view).unwrap();
        assert_eq!((places(&second), second.page.next), (vec![(10, 0)], None));
        let mut spanned = of(A, Order::Ascending, 10);
        spanned.span = Span { from_date: Some(105), to_block: Some(12), ..Span::default() };
        let within = spanned.answer(&view).unwrap();
        assert_eq!((places(&within), within.total), (vec![(11, 1), (12, 3)], 2));
        let mut bad = of(A, Order::Ascending, 1);
        bad.page.after = Some(PagePosition("11".into()));
        assert!(matches!(bad.answer(&view), Err(SourceError::BadPosition)));
    }
}
