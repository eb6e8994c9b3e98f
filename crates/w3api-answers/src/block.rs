//! `getBlock`: a block by number or hash, with every transaction, each
//! with its receipt and logs, read from the source as
//! `eth_getBlockByNumber` (full transactions) and `eth_getBlockReceipts`
//! answer.

use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{Block, BlockTransactions, Receipt};
use w3api_types::{BlockNumberOrHash, Bytes, Chain, ChainBlock, TransactionInclude};

use crate::transaction::{block_time, block_transaction};
use crate::{Backend, internal_transactions};

/// Which block, on which chain, and what to add.
#[derive(Debug)]
pub struct BlockRequest {
    /// The chain read.
    pub chain: Chain,
    /// The block, by number or hash.
    pub block: BlockNumberOrHash,
    /// What to add to each transaction.
    pub include: Option<TransactionInclude>,
}

/// The block `request` names, as the Data API writes it.
pub async fn block<S: Backend>(source: &S, request: BlockRequest) -> Result<ChainBlock, SourceError> {
    let BlockRequest { chain, block, include } = request;
    let missing = || {
        SourceError::NoBlock(match block {
            BlockNumberOrHash::Number(number) => format!("number {number}"),
            BlockNumberOrHash::Hash(hash) => format!("hash {hash:#x}"),
        })
    };
    let at = match block {
        BlockNumberOrHash::Number(number) => BlockRef::Number(number),
        BlockNumberOrHash::Hash(hash) => BlockRef::Hash(hash),
    };
    let found = source.block(chain, at, true).await?.ok_or_else(missing)?;
    // By its hash from here on: a reorganisation between the two reads
    // then shows as a missing block, never as another block's receipts.
    let receipts = source.block_receipts(chain, BlockRef::Hash(found.hash)).await?.ok_or_else(missing)?;
    let mut written = written(found, &receipts)?;
    if internal_transactions::wanted(include) {
        let block = (written.number, written.hash);
        let traced = internal_transactions::of_block(source, chain, block, written.transactions.len()).await?;
        for (transaction, internal) in written.transactions.iter_mut().zip(traced) {
            transaction.internal_transactions = Some(internal);
        }
    }
    Ok(written)
}

/// The block as the Data API writes it, each transaction beside its receipt.
fn written(mut block: Block, receipts: &[Receipt]) -> Result<ChainBlock, SourceError> {
    let time = block_time(block.timestamp)?;
    let Some(transactions) =
        std::mem::replace(&mut block.transactions, BlockTransactions::Hashes(Vec::new())).into_full()
    else {
        return Err(SourceError::Unavailable(format!("block {} came without its transactions", block.number)));
    };
    if transactions.len() != receipts.len() {
        let (count, receipts) = (transactions.len(), receipts.len());
        return Err(SourceError::Unavailable(format!(
            "block {}: {count} transactions, {receipts} receipts",
            block.number
        )));
    }
    Ok(ChainBlock {
        timestamp: time,
        number: block.number,
        hash: block.hash,
        parent_hash: block.parent_hash,
        nonce: format!("{:#x}", block.nonce.unwrap_or_default()),
        sha3_uncles: block.sha3_uncles,
        logs_bloom: Bytes::copy_from_slice(bloom(&block)?.as_slice()),
        transactions_root: block.transactions_root,
        state_root: block.state_root,
        receipts_root: block.receipts_root,
        miner: block.miner,
        difficulty: block.difficulty,
        total_difficulty: block.total_difficulty.unwrap_or_default(),
        size: block.size.unwrap_or_default(),
        extra_data: block.extra_data.clone(),
        gas_limit: block.gas_limit,
        gas_used: block.gas_used,
        transaction_count: transactions.len() as u64,
        transactions: transactions
            .iter()
            .zip(receipts)
            .map(|(t, r)| block_transaction(t, r, time))
            .collect::<Result<_, _>>()?,
    })
}

/// The block's bloom; the source's failure when the node sent hex it could not read.
fn bloom(block: &Block) -> Result<&w3api_types::Bloom, SourceError> {
    let number = block.number;
    block.logs_bloom.parsed().map_err(|e| SourceError::Unavailable(format!("block {number}: logs bloom {e}")))
}
