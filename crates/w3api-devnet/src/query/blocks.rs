//! Blocks and transactions as the JSON-RPC gateway returns them.
//!
//! The fields are copied straight from alloy's consensus types (a signed
//! envelope and its block's header): no re-encoding, so a full block of a
//! hundred transactions converts in microseconds.

use alloy_consensus::transaction::to_eip155_value;
use alloy_consensus::{Transaction as _, TxEnvelope};
use alloy_primitives::{Address, B64, B256, U256};
use w3api_source::{BlockRef, FINALIZED_DEPTH, SAFE_DEPTH};
use w3api_types::Lenient;
use w3api_types::rpc::{AccessListItem, Authorization, Block, BlockTransactions, Transaction, Withdrawal};

use crate::generate::{BlockRecord, ChainData, SignedTransaction, TxRecord};

impl ChainData {
    /// The number of the block a reference names, if it exists.
    pub fn block_number_of(&self, block: BlockRef) -> Option<u64> {
        match block {
            // No block is pending (only transactions are, with automine
            // off): pending is the newest block.
            BlockRef::Latest | BlockRef::Pending => Some(self.latest()),
            BlockRef::Earliest => Some(0),
            BlockRef::Safe => Some(self.settled(SAFE_DEPTH)),
            BlockRef::Finalized => Some(self.settled(FINALIZED_DEPTH)),
            BlockRef::Number(number) => (number <= self.latest()).then_some(number),
            BlockRef::Hash(hash) => self.block_number(&hash),
        }
    }

    /// The block `depth` below the newest, or the last one imported from
    /// another node if that is newer: its blocks were final there.
    fn settled(&self, depth: u64) -> u64 {
        let by_depth = self.latest().saturating_sub(depth);
        self.imported_head().map_or(by_depth, |head| by_depth.max(head.min(self.latest())))
    }

    /// The block a reference names, if it exists.
    pub(crate) fn record_of(&self, block: BlockRef) -> Option<&BlockRecord> {
        Some(&self.blocks[self.block_number_of(block)? as usize])
    }

    /// A block in the RPC form.
    pub fn rpc_block(&self, block: BlockRef, full_transactions: bool) -> Option<Block> {
        let record = self.record_of(block)?;
        let number = record.header.number;
        let uncles = self.ommers_of(number).iter().map(alloy_consensus::Header::hash_slow).collect();
        // From Shanghai on: a genesis from before it has none.
        let withdrawals = record.header.withdrawals_root.map(|_| self.rpc_withdrawals(number));
        Some(block_json(record, self.transactions_of(record), full_transactions, uncles, withdrawals))
    }

    /// The withdrawals of block `number` in the RPC form.
    fn rpc_withdrawals(&self, number: u64) -> Vec<Withdrawal> {
        rpc_withdrawals(self.withdrawals_of(number))
    }

    /// The transaction at `index` of a block in the RPC form.
    pub fn rpc_transaction(&self, block: BlockRef, index: u64) -> Option<Transaction> {
        let record = self.record_of(block)?;
        let tx = self.transactions_of(record).get(usize::try_from(index).ok()?)?;
        Some(rpc_transaction(record, index, tx))
    }
}

/// A block in the RPC form: its transactions whole or by hash, its
/// ommers' hashes and its withdrawals.
pub(crate) fn block_json(
    record: &BlockRecord,
    transactions: &[TxRecord],
    full_transactions: bool,
    uncles: Vec<B256>,
    withdrawals: Option<Vec<Withdrawal>>,
) -> Block {
    let transactions = if full_transactions {
        BlockTransactions::Full(
            transactions.iter().enumerate().map(|(i, tx)| rpc_transaction(record, i as u64, tx)).collect(),
        )
    } else {
        BlockTransactions::Hashes(transactions.iter().map(|tx| tx.hash).collect())
    };
    let header = &record.header;
    Block {
        base_fee_per_gas: header.base_fee_per_gas,
        blob_gas_used: header.blob_gas_used,
        difficulty: header.difficulty,
        excess_blob_gas: header.excess_blob_gas,
        extra_data: header.extra_data.clone(),
        gas_limit: header.gas_limit,
        gas_used: header.gas_used,
        hash: record.hash,
        logs_bloom: Lenient::new(header.logs_bloom),
        miner: header.beneficiary,
        mix_hash: Some(header.mix_hash),
        nonce: Some(B64::from(header.nonce)),
        number: header.number,
        parent_beacon_block_root: header.parent_beacon_block_root,
        parent_hash: header.parent_hash,
        receipts_root: header.receipts_root,
        requests_hash: header.requests_hash,
        sha3_uncles: header.ommers_hash,
        size: Some(record.size),
        state_root: header.state_root,
        timestamp: header.timestamp,
        total_difficulty: None,
        transactions,
        transactions_root: header.transactions_root,
        uncles,
        withdrawals,
        withdrawals_root: header.withdrawals_root,
    }
}

/// A withdrawal given in the RPC form (a block override, payload attributes).
pub(crate) fn withdrawal_of(w: Withdrawal) -> alloy_eips::eip4895::Withdrawal {
    alloy_eips::eip4895::Withdrawal {
        index: w.index,
        validator_index: w.validator_index,
        address: w.address,
        amount: w.amount,
    }
}

/// Withdrawals in the RPC form.
pub(crate) fn rpc_withdrawals(withdrawals: &[alloy_eips::eip4895::Withdrawal]) -> Vec<Withdrawal> {
    let each = withdrawals.iter();
    each.map(|w| Withdrawal {
        index: w.index,
        validator_index: w.validator_index,
        address: w.address,
        amount: w.amount,
    })
    .collect()
}

/// One transaction of a block in the RPC form.
fn rpc_transaction(block: &BlockRecord, index: u64, record: &TxRecord) -> Transaction {
    let base_fee = block.header.base_fee_per_gas.unwrap_or_default();
    Transaction {
        block_hash: Some(block.hash),
        block_number: Some(block.header.number),
        block_timestamp: Some(block.header.timestamp),
        transaction_index: Some(index),
        gas_price: Some(record.envelope.effective_gas_price(Some(base_fee))),
        ..unplaced(&record.envelope, record.sender, record.hash)
    }
}

/// A transaction waiting for the next block: no block, and the most it may
/// pay per gas as its price, as geth shows its pool's.
pub(crate) fn rpc_pending_transaction(signed: &SignedTransaction) -> Transaction {
    let envelope = &signed.envelope;
    Transaction {
        gas_price: Some(envelope.max_fee_per_gas()),
        ..unplaced(envelope, signed.sender, *envelope.tx_hash())
    }
}

/// A set-code transaction's authorization in the RPC form.
fn rpc_authorization(signed: &alloy_eips::eip7702::SignedAuthorization) -> Authorization {
    Authorization {
        chain_id: signed.chain_id,
        address: signed.address,
        nonce: signed.nonce,
        y_parity: signed.y_parity(),
        r: signed.r(),
        s: signed.s(),
    }
}

/// A transaction's own fields, without the block that holds it.
fn unplaced(envelope: &TxEnvelope, sender: Address, hash: B256) -> Transaction {
    let signature = envelope.signature();
    let parity = signature.v();
    let mut tx = Transaction {
        block_hash: None,
        block_number: None,
        block_timestamp: None,
        from: sender,
        gas: envelope.gas_limit(),
        gas_price: None,
        max_fee_per_gas: None,
        max_priority_fee_per_gas: None,
        max_fee_per_blob_gas: None,
        hash,
        input: Lenient::new(envelope.input().clone()),
        nonce: envelope.nonce(),
        to: envelope.to(),
        transaction_index: None,
        value: envelope.value(),
        tx_type: envelope.tx_type() as u8,
        access_list: None,
        chain_id: envelope.chain_id(),
        blob_versioned_hashes: None,
        authorization_list: None,
        v: Some(U256::from(u8::from(parity))),
        r: signature.r(),
        s: signature.s(),
        y_parity: Some(u8::from(parity)),
    };
    match envelope {
        TxEnvelope::Legacy(_) => {
            tx.v = Some(U256::from(to_eip155_value(parity, envelope.chain_id())));
            tx.y_parity = None;
        }
        _ => {
            // Fee caps from EIP-1559 on; an EIP-2930 transaction names a gas price.
            if !matches!(envelope, TxEnvelope::Eip2930(_)) {
                tx.max_fee_per_gas = Some(envelope.max_fee_per_gas());
                tx.max_priority_fee_per_gas = envelope.max_priority_fee_per_gas();
            }
            tx.access_list = envelope.access_list().map(|list| {
                list.iter()
                    .map(|item| AccessListItem { address: item.address, storage_keys: item.storage_keys.clone() })
                    .collect()
            });
            tx.max_fee_per_blob_gas = envelope.max_fee_per_blob_gas();
            tx.blob_versioned_hashes = envelope.blob_versioned_hashes().map(<[B256]>::to_vec);
            tx.authorization_list =
                envelope.authorization_list().map(|list| list.iter().map(rpc_authorization).collect());
        }
    }
    tx
}
