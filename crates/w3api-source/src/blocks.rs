//! Blocks and the transactions in them: the chain's head, blocks by
//! number, tag or hash, transactions and receipts, logs, fees, and news
//! of the head as it moves. Every backend answers all of it.

use std::future::Future;

use w3api_types::rpc::{
    Block, EthCapabilities, EthConfig, FeeHistory, Hash32, Log, Receipt, SyncingStatus, Transaction,
};
use w3api_types::{Bytes, Chain};

use crate::{BlockRef, FeeSuggestion, Head, LogQuery, SourceError};

/// What `debug_getRawHeader`, `debug_getRawBlock` and
/// `debug_getRawTransaction` ask for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Raw {
    /// A block's header, RLP.
    Header(BlockRef),
    /// A whole block, RLP: header, transactions, ommers, withdrawals.
    Block(BlockRef),
    /// An included transaction, EIP-2718.
    Transaction(Hash32),
}

/// The blocks of a source's chains, and what is in them.
pub trait Blocks: Send + Sync {
    /// The newest block of a chain.
    fn latest_block(&self, chain: Chain) -> impl Future<Output = Result<u64, SourceError>> + Send;

    /// Moves on whenever blocks of `chain` already answered for may have
    /// been replaced (a revert, a reset). Answers kept for reuse are kept
    /// under it, so that none outlives the block it was read from. Read it
    /// before the answer it keys.
    fn revision(&self, chain: Chain) -> u64 {
        let _ = chain;
        0
    }

    /// A block, with its transactions as hashes or in full; `None` when it
    /// does not exist.
    fn block(
        &self,
        chain: Chain,
        block: BlockRef,
        full_transactions: bool,
    ) -> impl Future<Output = Result<Option<Block>, SourceError>> + Send;

    /// The transaction at `index` in a block; `None` when the block or the
    /// index does not exist.
    fn transaction(
        &self,
        chain: Chain,
        block: BlockRef,
        index: u64,
    ) -> impl Future<Output = Result<Option<Transaction>, SourceError>> + Send;

    /// The id a chain's blocks and transactions carry, where it is not the
    /// one the interface's chain table gives it (a node serving `eth` for
    /// a development chain): `eth_chainId` and `net_version` answer it.
    fn chain_id(&self, chain: Chain) -> Option<u64> {
        let _ = chain;
        None
    }

    /// What the source is, for `web3_clientVersion` (`devnet`, a node's name).
    fn kind(&self) -> &'static str;

    /// The chains outside the interface's chain table this source was
    /// started for (a genesis of their own), which the Data API then takes
    /// by hex id; any other chain outside the table it refuses, as
    /// production does.
    fn own_chains(&self) -> Vec<Chain> {
        Vec::new()
    }

    /// Whether the source is still catching up with its chain.
    fn syncing(&self, chain: Chain) -> impl Future<Output = Result<SyncingStatus, SourceError>> + Send;

    /// The number of the block a reference names; `None` when it does not exist.
    fn block_number(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<u64>, SourceError>> + Send;

    /// The number of transactions of a block; `None` when it does not exist.
    fn block_transaction_count(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<u64>, SourceError>> + Send;

    /// An included transaction by hash.
    fn transaction_by_hash(
        &self,
        chain: Chain,
        hash: Hash32,
    ) -> impl Future<Output = Result<Option<Transaction>, SourceError>> + Send;

    /// The receipt of an included transaction.
    fn receipt(&self, chain: Chain, hash: Hash32) -> impl Future<Output = Result<Option<Receipt>, SourceError>> + Send;

    /// The fork the chain's newest block follows, and the next and last
    /// ones scheduled by time (`eth_config`, EIP-7910). Refused with
    /// [`SourceError::NotExecuted`] unless the source takes it.
    fn chain_config(&self, chain: Chain) -> impl Future<Output = Result<EthConfig, SourceError>> + Send {
        let _ = chain;
        crate::not_executed()
    }

    /// Which blocks' data the source holds (`eth_capabilities`). Refused
    /// with [`SourceError::NotExecuted`] unless the source takes it.
    fn capabilities(&self, chain: Chain) -> impl Future<Output = Result<EthCapabilities, SourceError>> + Send {
        let _ = chain;
        crate::not_executed()
    }

    /// A block's header or whole block, or an included transaction, as
    /// consensus encodes it; `None` when the block or the transaction does
    /// not exist. Refused with [`SourceError::NotExecuted`] unless the
    /// source takes it.
    fn raw(&self, chain: Chain, raw: Raw) -> impl Future<Output = Result<Option<Bytes>, SourceError>> + Send {
        let _ = (chain, raw);
        crate::not_executed()
    }

    /// Each receipt of a block, EIP-2718-encoded as its receipts root
    /// hashes it (`debug_getRawReceipts`); `None` when the block does not
    /// exist. Refused with [`SourceError::NotExecuted`] unless the source
    /// takes it.
    fn raw_receipts(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<Vec<Bytes>>, SourceError>> + Send {
        let _ = (chain, block);
        crate::not_executed()
    }

    /// Included transactions with their receipts, in the order of
    /// `hashes`; `None` for one the source has no receipt of (unknown, or
    /// not yet in a block). One after the other by default; a source that
    /// can ask for them all at once (node mode, in a JSON-RPC batch) does.
    fn transactions_with_receipts(
        &self,
        chain: Chain,
        hashes: Vec<Hash32>,
    ) -> impl Future<Output = Result<Vec<Option<(Transaction, Receipt)>>, SourceError>> + Send {
        async move {
            let mut read = Vec::with_capacity(hashes.len());
            for hash in &hashes {
                let transaction = self.transaction_by_hash(chain, *hash).await?;
                let receipt = match transaction {
                    Some(_) => self.receipt(chain, *hash).await?,
                    None => None,
                };
                read.push(transaction.zip(receipt));
            }
            Ok(read)
        }
    }

    /// Every receipt of a block, in order; `None` when the block does not exist.
    fn block_receipts(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<Vec<Receipt>>, SourceError>> + Send;

    /// The logs of a range of existing blocks that pass a filter's address
    /// and topic conditions, in chain order; [`SourceError::TooManyLogs`]
    /// past `query.max_logs`.
    fn logs(&self, query: LogQuery) -> impl Future<Output = Result<Vec<Log>, SourceError>> + Send;

    /// Fees of `count` blocks ending at `newest` (fewer where the chain is
    /// shorter), with the tip at each of `percentiles` (increasing, 0 to 100);
    /// a missing `newest` is an error, as for [`State::balance`](crate::State::balance).
    fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: Vec<f64>,
    ) -> impl Future<Output = Result<FeeHistory, SourceError>> + Send;

    /// The fees a new transaction should offer.
    fn fee_suggestion(&self, chain: Chain) -> impl Future<Output = Result<FeeSuggestion, SourceError>> + Send;

    /// News of every change of a chain's newest block: a block added, or
    /// the chain put back (a revert, a reset). `None` for a source whose
    /// chains never change.
    fn heads(&self) -> Option<tokio::sync::broadcast::Receiver<Head>> {
        None
    }
}
