//! `getWalletTransactions`: the transactions a wallet sent or was sent, one
//! page at a time, newest first unless asked otherwise, each as
//! `getTransaction` writes it without its logs, with the fee paid. Its page
//! is `eth_getTransactions`' too.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::listing::{Order, Span};
use w3api_query::wallet_transactions::WalletTransactions;
use w3api_types::params::operations::get_wallet_transactions as op;
use w3api_types::{
    Address, B256, Chain, TransactionInclude, U256, WalletTransaction, WalletTransactionPage, format_units,
};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Paging, Request};
use super::internal_transactions;
use super::query::Query;
use super::token_transfers::Window;
use super::transaction::{block_time, fields, with_receipts};
use super::{Listing, begin_walk};
use crate::error::ApiError;
use crate::rest::pagination::Cursors;
use crate::{App, Backend};

/// Production numbers transaction pages from 0.
const LISTING: Listing = Listing { kind: "wallet_transactions", first_page: 0 };

/// Adds the operation to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    super::operation(router, &op::OPERATION, wallet_transactions::<S>)
}

/// The request: whose transactions, which blocks, which way, which page.
#[derive(Debug)]
pub(crate) struct WalletTransactionsRequest {
    pub(crate) chain: Chain,
    pub(crate) address: Address,
    pub(crate) window: Window,
    pub(crate) paging: Paging,
    pub(crate) include: Option<TransactionInclude>,
}

impl FromQuery for WalletTransactionsRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        WalletTransactionsRequest {
            chain: q.chain(&op::CHAIN),
            address,
            window: Window::read(q, [&op::FROM_BLOCK, &op::TO_BLOCK, &op::FROM_DATE, &op::TO_DATE, &op::ORDER]),
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
            include: q.schema_value(&op::INCLUDE),
        }
    }
}

async fn wallet_transactions<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<WalletTransactionsRequest>,
) -> Result<JsonAnswer<WalletTransactionPage>, ApiError> {
    Ok(JsonAnswer(wallet_transactions_page((&*app.source, &app.cursors), request).await?))
}

/// One page of the wallet's transactions, each read in full from the
/// source, with its receipt.
pub(crate) async fn wallet_transactions_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: WalletTransactionsRequest,
) -> Result<WalletTransactionPage, ApiError> {
    let WalletTransactionsRequest { chain, address, window, ref paging, include } = request;
    let key = (chain, address, window);
    let (walk, block) = begin_walk((source, cursors), LISTING, &key, paging, (chain, None)).await?;
    let Window { span, order } = window;
    let question = WalletTransactions { address, span, at_block: Some(block), order, page: walk.request.clone() };
    let answer = source.ask(chain, question).await?;
    let hashes: Vec<B256> = answer.page.items.iter().map(|listed| listed.facts.hash).collect();
    let read = with_receipts(source, chain, &hashes).await?;
    let mut result = Vec::with_capacity(read.len());
    for (listed, (transaction, receipt)) in answer.page.items.iter().zip(read) {
        let time = block_time(listed.timestamp)?;
        let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
        let internal_transactions = match internal_transactions::wanted(include) {
            true => {
                let block = (receipt.block_number, receipt.block_hash);
                Some(internal_transactions::of_transaction(source, chain, transaction.hash, block).await?)
            }
            false => None,
        };
        let transaction = fields(&transaction, &receipt, time)?;
        result.push(WalletTransaction { transaction, transaction_fee: format_units(fee, 18), internal_transactions });
    }
    Ok(WalletTransactionPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        result,
    })
}

/// The window of `eth_getTransactions`, which names blocks by number only
/// and lists newest first.
pub(crate) fn by_blocks(from_block: Option<u64>, to_block: Option<u64>) -> Window {
    Window { span: Span { from_block, to_block, ..Span::default() }, order: Order::Descending }
}
