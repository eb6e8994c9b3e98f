//! Otterscan's `ots_*` methods, answered from what every source gives:
//! blocks, receipts, state at a block, call trees and the index of each
//! address's transactions. So the devnet and node mode (over any node that
//! traces, not only those with an `ots_` namespace) answer them one way.

use jsonrpsee::core::RpcResult;
use w3api_query::listing::{Order, Span};
use w3api_query::wallet_transactions::{ListedTransaction, WalletTransactions};
use w3api_rpc::{ErrorCode, limits};
use w3api_source::{BlockRef, PageRequest, SourceError};
use w3api_types::rpc::{
    Address, Block, BlockTransactions, CallFrame, Hash32, OtsBlock, OtsBlockDetails, OtsBlockTransactions,
    OtsContractCreator, OtsIssuance, OtsReceipt, OtsTransactions, Transaction,
};
use w3api_types::{Bytes, Lenient, U256};

use super::{Gateway, execution_error, invalid_params, rpc_error, source_error};
use crate::Backend;
use w3api_answers::transaction::with_receipts;

impl<S: Backend> Gateway<S> {
    /// The tree of calls of a mined transaction; `None` when no block holds it.
    pub(super) async fn ots_call_tree(&self, name: &str, hash: Hash32) -> RpcResult<Option<CallFrame>> {
        if self.source.receipt(self.chain, hash).await.map_err(source_error)?.is_none() {
            return Ok(None);
        }
        self.mined_call_tree(name, hash).await.map(Some)
    }

    /// The tree of calls of the transaction `hash`, which a block holds.
    async fn mined_call_tree(&self, name: &str, hash: Hash32) -> RpcResult<CallFrame> {
        match self.source.call_tree(self.chain, hash).await {
            Ok(Some(tree)) => Ok(tree),
            Ok(None) => Err(untraced(name)),
            Err(error) => Err(execution_error(name, error)),
        }
    }

    /// The revert data of a mined transaction: `0x` when it succeeded.
    pub(super) async fn ots_transaction_error(&self, name: &str, hash: Hash32) -> RpcResult<Option<Bytes>> {
        let Some(receipt) = self.source.receipt(self.chain, hash).await.map_err(source_error)? else {
            return Ok(None);
        };
        if receipt.status != Some(0) {
            return Ok(Some(Bytes::new()));
        }
        let top = self.mined_call_tree(name, hash).await?;
        Ok(Some(top.output.unwrap_or_default()))
    }

    /// A block without its transactions, with their number and the fees
    /// they paid.
    pub(super) async fn ots_block_details(&self, block: BlockRef) -> RpcResult<Option<OtsBlockDetails>> {
        let Some(mut block) = self.source.block(self.chain, block, false).await.map_err(source_error)? else {
            return Ok(None);
        };
        let receipts = self.source.block_receipts(self.chain, BlockRef::Hash(block.hash)).await;
        let total_fees = receipts
            .map_err(source_error)?
            .unwrap_or_default()
            .iter()
            .fold(U256::ZERO, |sum, r| sum + U256::from(r.gas_used) * U256::from(r.effective_gas_price));
        let transaction_count = block.transactions.len() as u64;
        block.transactions = BlockTransactions::Hashes(Vec::new());
        let block = OtsBlock { block, transaction_count };
        Ok(Some(OtsBlockDetails { block, issuance: OtsIssuance::default(), total_fees }))
    }

    /// Page `page` of block `number`'s transactions, counted from its end
    /// as Erigon counts them, with their receipts.
    pub(super) async fn ots_block_transactions(
        &self,
        number: u64,
        page: u64,
        size: u64,
    ) -> RpcResult<Option<OtsBlockTransactions>> {
        let size = page_size(
            "pageSize",
            size,
            limits::OTS_GET_BLOCK_TRANSACTIONS_PAGE_SIZE_MIN,
            limits::OTS_GET_BLOCK_TRANSACTIONS_PAGE_SIZE_MAX,
        )?;
        let at = BlockRef::Number(number);
        let Some(mut block) = self.source.block(self.chain, at, true).await.map_err(source_error)? else {
            return Ok(None);
        };
        let receipts = self.source.block_receipts(self.chain, BlockRef::Hash(block.hash)).await;
        let receipts = receipts.map_err(source_error)?.unwrap_or_default();
        let Some(all) = std::mem::replace(&mut block.transactions, BlockTransactions::Hashes(vec![])).into_full()
        else {
            return Err(broken(&block, "hashes where full transactions were asked"));
        };
        if receipts.len() != all.len() {
            return Err(broken(&block, "receipts that do not match its transactions"));
        }
        let skipped = usize::try_from(page).ok().and_then(|page| page.checked_mul(size)).unwrap_or(usize::MAX);
        let end = all.len().saturating_sub(skipped);
        let start = end.saturating_sub(size);
        let transaction_count = all.len() as u64;
        block.transactions = BlockTransactions::Full(all[start..end].iter().cloned().map(selector_only).collect());
        let receipts = receipts[start..end].iter().map(|receipt| OtsReceipt::slim(receipt, None)).collect();
        Ok(Some(OtsBlockTransactions { fullblock: OtsBlock { block, transaction_count }, receipts }))
    }

    /// An address's transactions before (`older`) or after block
    /// `from`, newest first, the last block of the page given whole.
    pub(super) async fn ots_search(
        &self,
        address: Address,
        from: u64,
        size: u64,
        older: bool,
    ) -> RpcResult<OtsTransactions> {
        let (min, max) = match older {
            true => (
                limits::OTS_SEARCH_TRANSACTIONS_BEFORE_PAGE_SIZE_MIN,
                limits::OTS_SEARCH_TRANSACTIONS_BEFORE_PAGE_SIZE_MAX,
            ),
            false => (
                limits::OTS_SEARCH_TRANSACTIONS_AFTER_PAGE_SIZE_MIN,
                limits::OTS_SEARCH_TRANSACTIONS_AFTER_PAGE_SIZE_MAX,
            ),
        };
        let size = page_size("pageSize", size, min, max)?;
        let head = self.source.latest_block(self.chain).await.map_err(source_error)?;
        // Both bounds leave `from` itself out; 0 is the newest block, or the genesis.
        let (span, order) = match (older, from) {
            (true, 0) => (Span::default(), Order::Descending),
            (true, from) => (Span { to_block: Some(from - 1), ..Span::default() }, Order::Descending),
            (false, 0) => (Span::default(), Order::Ascending),
            (false, from) => (Span { from_block: Some(from.saturating_add(1)), ..Span::default() }, Order::Ascending),
        };
        let (mut listed, more) = self.listed_whole_blocks(address, span, order, head, size).await?;
        let (first_page, last_page) = match older {
            true => (from == 0 || from > head, !more),
            false => (!more, from == 0),
        };
        if !older {
            listed.reverse();
        }
        let hashes: Vec<Hash32> = listed.iter().map(|item| item.facts.hash).collect();
        let read = with_receipts(&*self.source, self.chain, &hashes).await.map_err(source_error)?;
        let (mut txs, mut receipts) = (Vec::with_capacity(read.len()), Vec::with_capacity(read.len()));
        for (item, (transaction, receipt)) in listed.iter().zip(read) {
            receipts.push(OtsReceipt::slim(&receipt, Some(item.timestamp)));
            txs.push(transaction);
        }
        Ok(OtsTransactions { txs, receipts, first_page, last_page })
    }

    /// At least `size` of the address's transactions in `span` (where it
    /// has as many), in `order`, with every one of the last block's; and
    /// whether the span holds more.
    async fn listed_whole_blocks(
        &self,
        address: Address,
        span: Span,
        order: Order,
        head: u64,
        size: usize,
    ) -> RpcResult<(Vec<ListedTransaction>, bool)> {
        let ask = |span: Span, limit: usize| {
            let question =
                WalletTransactions { address, span, at_block: Some(head), order, page: PageRequest::first(limit) };
            self.source.ask(self.chain, question)
        };
        let listing = ask(span, size).await.map_err(source_error)?;
        let mut listed = listing.page.items;
        let Some(last) = listed.last().map(|item| item.block) else { return Ok((listed, false)) };
        if listing.page.next.is_some() {
            let count = self.source.block_transaction_count(self.chain, BlockRef::Number(last)).await;
            let count = count.map_err(source_error)?.unwrap_or_default();
            let whole = Span { from_block: Some(last), to_block: Some(last), ..Span::default() };
            let block = ask(whole, usize::try_from(count).unwrap_or(usize::MAX)).await.map_err(source_error)?;
            listed.retain(|item| item.block != last);
            listed.extend(block.page.items);
        }
        let more = listing.total > listed.len() as u64;
        Ok((listed, more))
    }

    /// The mined transaction `sender` sent with `nonce`: the block where its
    /// nonce passed `nonce`, by binary search, then that block's.
    pub(super) async fn ots_by_sender_and_nonce(&self, sender: Address, nonce: u64) -> RpcResult<Option<Hash32>> {
        let head = self.source.latest_block(self.chain).await.map_err(source_error)?;
        let sent_past = |block: u64| async move {
            let count = self.source.transaction_count(self.chain, sender, BlockRef::Number(block)).await;
            count.map(|count| count > nonce).map_err(source_error)
        };
        let Some(block) = first_block_where(head, sent_past).await? else { return Ok(None) };
        let at = BlockRef::Number(block);
        let Some(block) = self.source.block(self.chain, at, true).await.map_err(source_error)? else {
            return Ok(None);
        };
        let Some(transactions) = block.transactions.into_full() else { return Ok(None) };
        Ok(transactions.into_iter().find(|tx| tx.from == sender && tx.nonce == nonce).map(|tx| tx.hash))
    }

    /// The transaction that created the contract at `address`: the block
    /// where its code appeared, by binary search, then the creation there,
    /// from the block's call trees or, where the source traces none, its
    /// receipts.
    pub(super) async fn ots_contract_creator(
        &self,
        name: &str,
        address: Address,
    ) -> RpcResult<Option<OtsContractCreator>> {
        let head = self.source.latest_block(self.chain).await.map_err(source_error)?;
        let has_code = |block: u64| async move {
            let code = self.source.code(self.chain, address, BlockRef::Number(block)).await;
            code.map(|code| !code.is_empty()).map_err(|error| execution_error(name, error))
        };
        let Some(number) = first_block_where(head, has_code).await? else { return Ok(None) };
        let at = BlockRef::Number(number);
        let Some(block) = self.source.block(self.chain, at, false).await.map_err(source_error)? else {
            return Ok(None);
        };
        match self.source.call_trees(self.chain, block.hash).await {
            Ok(Some(trees)) => Ok(trees.iter().find_map(|(hash, tree)| {
                created(tree, address).map(|creator| OtsContractCreator { hash: *hash, creator })
            })),
            Ok(None) => {
                let receipts = self.source.block_receipts(self.chain, BlockRef::Hash(block.hash)).await;
                let receipts = receipts.map_err(source_error)?.unwrap_or_default();
                Ok(receipts
                    .iter()
                    .find(|r| r.contract_address == Some(address))
                    .map(|r| OtsContractCreator { hash: r.transaction_hash, creator: r.from }))
            }
            Err(error) => Err(execution_error(name, error)),
        }
    }
}

/// The first block after the genesis for which `holds` is true, when it is
/// true of `head`, found by binary search: what it tests only turns true,
/// once (a nonce passing a value, code appearing). `None` when it is not
/// true of `head`, or already of the genesis, where no transaction did it.
async fn first_block_where<F, Fut>(head: u64, holds: F) -> RpcResult<Option<u64>>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = RpcResult<bool>>,
{
    if !holds(head).await? || holds(0).await? {
        return Ok(None);
    }
    let (mut low, mut high) = (0, head);
    while high - low > 1 {
        let middle = low + (high - low) / 2;
        match holds(middle).await? {
            true => high = middle,
            false => low = middle,
        }
    }
    Ok(Some(high))
}

/// Who created `address` within `tree`: the frame of a successful creation
/// of it, its caller.
fn created(tree: &CallFrame, address: Address) -> Option<Address> {
    let creation = |(frame, _): &(&CallFrame, u32)| {
        matches!(frame.kind.as_str(), "CREATE" | "CREATE2") && frame.to == Some(address) && frame.error.is_none()
    };
    tree.frames().find(creation).map(|(frame, _)| frame.from)
}

/// A transaction with its input cut to its 4-byte selector.
fn selector_only(mut transaction: Transaction) -> Transaction {
    if let Some(input) = transaction.input.get() {
        let cut = Bytes::copy_from_slice(&input[..input.len().min(4)]);
        transaction.input = Lenient::new(cut);
    }
    transaction
}

/// `size` as a length, once within the spec's bounds.
fn page_size(name: &str, size: u64, min: usize, max: usize) -> RpcResult<usize> {
    match usize::try_from(size) {
        Ok(size) if (min..=max).contains(&size) => Ok(size),
        _ => Err(invalid_params(format!("{name}: {size}; from {min} to {max}"))),
    }
}

/// A source that traces no calls, said for the method `name`.
fn untraced(name: &str) -> jsonrpsee::types::ErrorObjectOwned {
    let why = SourceError::NodeLacks("debug_traceTransaction with callTracer, or trace_transaction");
    rpc_error(ErrorCode::MethodNotSupported, format!("{name} is not supported: {why}"))
}

/// A source that answered a block inconsistently; the cause goes to the log.
fn broken(block: &Block, what: &str) -> jsonrpsee::types::ErrorObjectOwned {
    tracing::error!(number = block.number, what, "the data source answered a block inconsistently");
    rpc_error(ErrorCode::InternalError, "Internal error")
}
