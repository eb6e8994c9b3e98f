//! `getTransaction` and `getTransactionVerbose`: a mined transaction with
//! its receipt and logs, read from the source as `eth_getTransactionByHash`
//! and `eth_getTransactionReceipt` answer; the verbose form adds the fee
//! and decodes the call and the logs by the known ABIs.

use chrono::{DateTime, Utc};
use w3api_contracts::decode::{self, Decoded};
use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{Log, Receipt, Transaction};
use w3api_types::{
    B256, BlockTransaction, BlockTransactionVerbose, Chain, DecodedCall, DecodedEvent, DecodedParam,
    InternalTransaction, LogVerbose, MinedTransaction, TransactionInclude, TransactionLog, U256, format_units,
};

use crate::{Backend, internal_transactions};

/// Which transaction, on which chain, and what to add.
#[derive(Debug)]
pub struct TransactionRequest {
    /// The chain it is on.
    pub chain: Chain,
    /// Its hash.
    pub hash: B256,
    /// What to add to it.
    pub include: Option<TransactionInclude>,
}

/// `getTransaction`: the transaction with its receipt's fields and logs.
pub async fn transaction<S: Backend>(
    source: &S,
    request: &TransactionRequest,
) -> Result<BlockTransaction, SourceError> {
    let (transaction, receipt, time) = mined(source, request.chain, request.hash).await?;
    let mut answer = block_transaction(&transaction, &receipt, time)?;
    answer.internal_transactions = internal(source, request, &receipt).await?;
    Ok(answer)
}

/// `getTransactionVerbose`: the same with its fee, and its call and logs
/// decoded by the known ABIs.
pub async fn transaction_verbose<S: Backend>(
    source: &S,
    request: &TransactionRequest,
) -> Result<BlockTransactionVerbose, SourceError> {
    let (transaction, receipt, time) = mined(source, request.chain, request.hash).await?;
    let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    Ok(BlockTransactionVerbose {
        transaction: fields(&transaction, &receipt, time)?,
        transaction_fee: format_units(fee, 18),
        logs: verbose_logs(&receipt, time),
        decoded_call: decode::call(input(&transaction)?).map(call),
        internal_transactions: internal(source, request, &receipt).await?,
    })
}

/// The transaction's internal transactions, when the request asks for them.
async fn internal<S: Backend>(
    source: &S,
    request: &TransactionRequest,
    receipt: &Receipt,
) -> Result<Option<Vec<InternalTransaction>>, SourceError> {
    if !internal_transactions::wanted(request.include) {
        return Ok(None);
    }
    internal_transactions::of_mined(source, request.chain, receipt).await.map(Some)
}

/// A mined transaction, its receipt and its block's time.
pub async fn mined<S: Backend>(
    source: &S,
    chain: Chain,
    hash: B256,
) -> Result<(Transaction, Receipt, DateTime<Utc>), SourceError> {
    let (transaction, receipt) = with_receipt(source, chain, hash).await?;
    let block = source.block(chain, BlockRef::Hash(receipt.block_hash), false).await?;
    let block = block.ok_or_else(|| SourceError::NoBlock(format!("hash {:#x}", receipt.block_hash)))?;
    Ok((transaction, receipt, block_time(block.timestamp)?))
}

/// A mined transaction and its receipt.
pub async fn with_receipt<S: Backend>(
    source: &S,
    chain: Chain,
    hash: B256,
) -> Result<(Transaction, Receipt), SourceError> {
    let transaction = source.transaction_by_hash(chain, hash).await?.ok_or(SourceError::NoTransaction(hash))?;
    // A transaction still pending has no receipt: not mined.
    let receipt = source.receipt(chain, hash).await?.ok_or(SourceError::NoTransaction(hash))?;
    Ok((transaction, receipt))
}

/// Mined transactions and their receipts, in order, read together as the
/// source best reads many (node mode: in one JSON-RPC batch, where the node
/// takes batches); one not mined is [`SourceError::NoTransaction`].
pub async fn with_receipts<S: Backend>(
    source: &S,
    chain: Chain,
    hashes: &[B256],
) -> Result<Vec<(Transaction, Receipt)>, SourceError> {
    let read = source.transactions_with_receipts(chain, hashes.to_vec()).await?;
    read.into_iter().zip(hashes).map(|(found, hash)| found.ok_or(SourceError::NoTransaction(*hash))).collect()
}

/// A block's timestamp as a date.
pub fn block_time(timestamp: u64) -> Result<DateTime<Utc>, SourceError> {
    i64::try_from(timestamp)
        .ok()
        .and_then(|seconds| DateTime::from_timestamp(seconds, 0))
        .ok_or_else(|| SourceError::Unavailable(format!("block timestamp {timestamp} is past any date")))
}

/// A transaction with its receipt and logs, as the Data API writes it.
pub fn block_transaction(
    transaction: &Transaction,
    receipt: &Receipt,
    time: DateTime<Utc>,
) -> Result<BlockTransaction, SourceError> {
    Ok(BlockTransaction {
        transaction: fields(transaction, receipt, time)?,
        logs: receipt.logs.iter().map(|l| log(l, receipt, time)).collect(),
        internal_transactions: None,
    })
}

/// A receipt's logs, each with its event decoded where its ABI is known.
pub fn verbose_logs(receipt: &Receipt, time: DateTime<Utc>) -> Vec<LogVerbose> {
    let decoded = |l: &Log| LogVerbose {
        log: log(l, receipt, time),
        decoded_event: decode::event(&l.topics, &l.data).map(event),
    };
    receipt.logs.iter().map(decoded).collect()
}

/// A transaction's input; the source's failure when the node sent hex it
/// could not read.
pub fn input(transaction: &Transaction) -> Result<&w3api_types::Bytes, SourceError> {
    let hash = transaction.hash;
    transaction.input.parsed().map_err(|e| SourceError::Unavailable(format!("transaction {hash:#x}: input {e}")))
}

/// A mined transaction's fields as the Data API writes them, its
/// receipt's included.
pub fn fields(
    transaction: &Transaction,
    receipt: &Receipt,
    time: DateTime<Utc>,
) -> Result<MinedTransaction, SourceError> {
    Ok(MinedTransaction {
        hash: transaction.hash,
        nonce: transaction.nonce,
        transaction_index: receipt.transaction_index,
        from_address: transaction.from,
        from_address_label: None,
        from_address_entity: None,
        from_address_entity_logo: None,
        to_address: transaction.to,
        to_address_label: None,
        to_address_entity: None,
        to_address_entity_logo: None,
        value: transaction.value,
        gas: transaction.gas,
        // What each unit of gas cost: the effective price, for every type.
        gas_price: U256::from(receipt.effective_gas_price),
        input: input(transaction)?.clone(),
        receipt_cumulative_gas_used: receipt.cumulative_gas_used,
        receipt_gas_used: receipt.gas_used,
        receipt_contract_address: receipt.contract_address,
        receipt_root: receipt.root,
        // Only a pre-Byzantium receipt has no status (a root instead); none
        // of the chains served here predates Byzantium.
        receipt_status: receipt.status.unwrap_or(1),
        block_timestamp: time,
        block_number: receipt.block_number,
        block_hash: receipt.block_hash,
    })
}

/// A receipt's log, its block and transaction taken from the receipt.
fn log(log: &Log, receipt: &Receipt, time: DateTime<Utc>) -> TransactionLog {
    let topic = |i: usize| log.topics.get(i).copied();
    TransactionLog {
        // A mined receipt's logs all have their index.
        log_index: log.log_index.unwrap_or_default(),
        transaction_hash: receipt.transaction_hash,
        transaction_index: receipt.transaction_index,
        address: log.address,
        data: log.data.clone(),
        topic0: topic(0),
        topic1: topic(1),
        topic2: topic(2),
        topic3: topic(3),
        block_timestamp: time,
        block_number: receipt.block_number,
        block_hash: receipt.block_hash,
    }
}

fn params(decoded: Decoded) -> Vec<DecodedParam> {
    let param = |(name, value, kind): (&'static str, String, &'static str)| DecodedParam {
        name: name.into(),
        value,
        kind: kind.into(),
    };
    decoded.params.into_iter().map(param).collect()
}

fn event(decoded: Decoded) -> DecodedEvent {
    let (signature, label) = (decoded.signature.into(), decoded.name.into());
    DecodedEvent { signature, label, kind: "event".into(), params: params(decoded) }
}

fn call(decoded: Decoded) -> DecodedCall {
    let (signature, label) = (decoded.signature.into(), decoded.name.into());
    DecodedCall { signature, label, kind: "function".into(), params: params(decoded) }
}
