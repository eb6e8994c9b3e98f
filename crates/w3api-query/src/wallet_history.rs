//! A wallet's history (`getWalletHistory`, `eth_getDecodedTransactions`):
//! the transactions it sent or was sent, and those that moved its tokens
//! or NFTs, each with those movements. The backend then gives each
//! transaction in full, with its receipt; [`crate::history_category`] tells
//! what each one was for the wallet.

use crate::LedgerReads;
use alloy_primitives::{Address, B256, U256};
use w3api_ledger::{Asset, Holder, Movement, Place};
use w3api_source::{Page, PageRequest, SourceError};

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::resolve;
use crate::listing::{self, Order, Span, TransactionAt};
use crate::transfers::{NftTransfer, TokenTransfer, lists_erc20, lists_nft, nft_transfer, token_transfer};
use crate::view::TransactionFacts;

/// One page of a wallet's history, up to block `at_block` (the newest when
/// `None`).
#[derive(Clone, Debug)]
pub struct WalletHistory {
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

/// A transaction of the history, with what it moved to or from the wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryEntry {
    /// Its block.
    pub block: u64,
    /// Its index in the block.
    pub index: u32,
    /// The block's hash.
    pub block_hash: B256,
    /// The block's time (Unix seconds).
    pub timestamp: u64,
    /// Its hash, parties and value.
    pub facts: TransactionFacts,
    /// The wallet's ERC20 transfers in it, in log order.
    pub tokens: Vec<TokenTransfer>,
    /// The wallet's NFT transfers in it, in log order.
    pub nfts: Vec<NftTransfer>,
    /// Whether it gave a token or NFT that the wallet received to others
    /// too: an airdrop when another sent it.
    pub shared: bool,
    /// The native value its inner calls paid the wallet, or the wallet
    /// paid, in the order they began.
    pub inner: Vec<InnerValue>,
}

/// Native value a call inside a transaction moved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerValue {
    /// Who paid it.
    pub from: Address,
    /// Who received it.
    pub to: Address,
    /// How much, in wei.
    pub value: U256,
}

/// The native currency, as history items name it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NativeCurrency {
    /// Its symbol.
    pub symbol: String,
    /// Its logo, where the backend has one.
    pub logo: Option<String>,
    /// Its decimals.
    pub decimals: u8,
    /// The wrapped native token's contract, where the chain has one.
    pub wrapped: Option<Address>,
}

/// A page of history, with the block it was read up to.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryListing {
    /// The newest block read.
    pub block: u64,
    /// The page.
    pub page: Page<HistoryEntry>,
    /// The chain's native currency.
    pub native: NativeCurrency,
}

impl Question for WalletHistory {
    type Answer = HistoryListing;

    fn answer(self, view: &impl ChainView) -> Result<HistoryListing, SourceError> {
        let block = resolve(view, self.at_block)?;
        let ledger = view.ledger();
        let holder = ledger.find(self.address);
        let blocks = self.span.blocks(view, block);
        let listed = match (holder, blocks) {
            (Some(holder), Some(blocks)) => transactions_of(view, holder, blocks),
            _ => Vec::new(),
        };
        let page = listing::page(
            view,
            &listed,
            |at| at.0,
            (self.span, block, self.order),
            &self.page,
            |at| entry(view, holder?, *at),
        )?;
        let native = view.token(Asset::NATIVE);
        let native = NativeCurrency {
            symbol: native.map_or_else(String::new, |n| n.symbol.to_string()),
            logo: native.and_then(|n| n.logo.map(str::to_string)),
            decimals: native.map_or(18, |n| n.decimals),
            wrapped: view.wrapped_native(),
        };
        Ok(HistoryListing { block, page, native })
    }
}

/// The transactions of a holder's history in blocks `from..=to`, in chain
/// order: those it sent or was sent, those with a transfer of its that the
/// listings show, and those whose inner calls paid it or that it paid
/// from. Each list is cut to the blocks first: a busy wallet's whole
/// history is many times a page.
fn transactions_of<V: ChainView>(view: &V, holder: Holder, (from, to): (u32, u32)) -> Vec<TransactionAt> {
    let ledger = view.ledger();
    let sent = ledger.transactions_of(holder);
    let sent = &sent[sent.partition_point(|(b, _)| *b < from)..sent.partition_point(|(b, _)| *b <= to)];
    let moves = ledger.moves_of(holder);
    let block_of = |index: &u32| ledger.movement(*index).place().block;
    let moves = &moves[moves.partition_point(|i| block_of(i) < from)..moves.partition_point(|i| block_of(i) <= to)];
    let mut listed: Vec<TransactionAt> = sent.iter().map(|(block, index)| TransactionAt(*block, *index)).collect();
    listed.extend(moves.iter().filter_map(|index| {
        let movement = ledger.movement(*index);
        let place = movement.place();
        let shown = lists_erc20(view, &movement) || lists_nft(view, &movement);
        shown.then_some(TransactionAt(place.block, place.transaction?))
    }));
    let paid = ledger.inner_transfers_of(holder);
    let block_of = |index: &u32| ledger.inner_transfer(*index).at.block;
    let paid = &paid[paid.partition_point(|i| block_of(i) < from)..paid.partition_point(|i| block_of(i) <= to)];
    listed.extend(paid.iter().filter_map(|index| {
        let at = ledger.inner_transfer(*index).at;
        Some(TransactionAt(at.block, at.transaction?))
    }));
    listed.sort_unstable();
    listed.dedup();
    listed
}

/// The native value inner calls of transaction `at` moved to or from `holder`.
fn inner_values<V: ChainView>(view: &V, holder: Holder, at: TransactionAt) -> Vec<InnerValue> {
    let ledger = view.ledger();
    let paid = ledger.inner_transfers_of(holder);
    let place = |index: &u32| ledger.inner_transfer(*index).at;
    let first = Place { block: at.0, transaction: Some(at.1), log: None };
    let range = paid.partition_point(|i| place(i) < first)..paid.partition_point(|i| place(i) <= first);
    let value = |index: &u32| {
        let moved = ledger.inner_transfer(*index);
        InnerValue { from: ledger.address(moved.from), to: ledger.address(moved.to), value: moved.value }
    };
    paid[range].iter().map(value).collect()
}

/// The positions in `moves` (movement numbers, in chain order) of those in transaction `at`.
fn moves_in(ledger: &impl LedgerReads, moves: &[u32], at: TransactionAt) -> std::ops::Range<usize> {
    let first = Place { block: at.0, transaction: Some(at.1), log: None };
    let next = Place { block: at.0, transaction: Some(at.1 + 1), log: None };
    let place = |index: &u32| ledger.movement(*index).place();
    moves.partition_point(|i| place(i) < first)..moves.partition_point(|i| place(i) < next)
}

fn entry<V: ChainView>(view: &V, holder: Holder, at: TransactionAt) -> Option<HistoryEntry> {
    let block = u64::from(at.0);
    let ledger = view.ledger();
    let moves = ledger.moves_of(holder);
    let mut entry = HistoryEntry {
        block,
        index: at.1,
        block_hash: view.block_hash(block)?,
        timestamp: view.timestamp(block)?,
        facts: view.transaction(block, at.1)?,
        tokens: Vec::new(),
        nfts: Vec::new(),
        shared: false,
        inner: inner_values(view, holder, at),
    };
    for index in &moves[moves_in(ledger, &moves, at)] {
        let movement = ledger.movement(*index);
        let (_, to) = movement.sides();
        entry.shared |= to == holder && shared_with_others(view, &movement, holder);
        match movement {
            Movement::Fungible { .. } => entry.tokens.extend(token_transfer(view, &movement)),
            Movement::Nft { .. } => entry.nfts.extend(nft_transfer(view, &movement, false)),
        }
    }
    Some(entry)
}

/// Whether the transaction of `movement` (to `holder`) also gave the same
/// token or collection to another holder.
fn shared_with_others<V: ChainView>(view: &V, movement: &Movement<V::Id>, holder: Holder) -> bool {
    let ledger = view.ledger();
    let place = movement.place();
    let Some(transaction) = place.transaction else { return false };
    let moves = match *movement {
        Movement::Fungible { asset, .. } => ledger.moves_of_asset(asset),
        Movement::Nft { collection, .. } => ledger.moves_of_collection(collection),
    };
    moves[moves_in(ledger, &moves, TransactionAt(place.block, transaction))].iter().any(|index| {
        let (_, to) = ledger.movement(*index).sides();
        to != holder && to != Holder::NOBODY
    })
}

#[cfg(test)]
mod tests;
