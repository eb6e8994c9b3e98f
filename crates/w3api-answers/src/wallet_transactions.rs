//! `getWalletTransactions`: the transactions a wallet sent or was sent, one
//! page at a time, newest first unless asked otherwise, each as
//! `getTransaction` writes it without its logs, with the fee paid. Its page
//! is `eth_getTransactions`' too.

use w3api_query::wallet_transactions::WalletTransactions;
use w3api_types::{
    Address, B256, Chain, TransactionInclude, U256, WalletTransaction, WalletTransactionPage, format_units,
};

use crate::internal_transactions;
use crate::paging::{Cursors, Listing, Paging, begin_walk};
use crate::transaction::{block_time, fields, with_receipts};
use crate::{AnswerError, Backend, Window};

/// Production numbers transaction pages from 0.
const LISTING: Listing = Listing { kind: "wallet_transactions", first_page: 0 };

/// Whose transactions, which blocks, which way, which page.
#[derive(Debug)]
pub struct WalletTransactionsRequest {
    /// The chain read.
    pub chain: Chain,
    /// The wallet.
    pub address: Address,
    /// Which blocks, which way.
    pub window: Window,
    /// Which page.
    pub paging: Paging,
    /// What to add to each transaction.
    pub include: Option<TransactionInclude>,
}

/// One page of the wallet's transactions, each read in full from the
/// source, with its receipt.
pub async fn wallet_transactions_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: WalletTransactionsRequest,
) -> Result<WalletTransactionPage, AnswerError> {
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
            true => Some(internal_transactions::of_mined(source, chain, &receipt).await?),
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
