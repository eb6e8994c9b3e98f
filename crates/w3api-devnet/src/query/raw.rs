//! Blocks, receipts and transactions as consensus encodes them
//! (`debug_getRawHeader`, `debug_getRawBlock`, `debug_getRawReceipts`,
//! `debug_getRawTransaction`): the RLP a node hashes and gossips, rebuilt
//! from what the chain keeps.

use alloy_consensus::{BlockBody, Eip658Value, Receipt, ReceiptEnvelope, TxEnvelope, TxType};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip4895::Withdrawals;
use alloy_primitives::Bytes;
use w3api_source::{Raw, RawEncoding};

use crate::generate::{BlockRecord, ChainData};

impl ChainData {
    /// What `raw` asks for; `None` when its block or transaction does not exist.
    pub fn raw(&self, raw: Raw) -> Option<RawEncoding> {
        match raw {
            Raw::Header(block) => {
                let record = self.record_of(block)?;
                Some(RawEncoding::One(alloy_rlp::encode(&record.header).into()))
            }
            Raw::Block(block) => Some(RawEncoding::One(self.raw_block(self.record_of(block)?))),
            Raw::Receipts(block) => Some(RawEncoding::Each(self.raw_receipts(self.record_of(block)?))),
            Raw::Transaction(hash) => {
                let index = self.transaction_index(&hash)?;
                Some(RawEncoding::One(self.transactions[index as usize].envelope.encoded_2718().into()))
            }
        }
    }

    fn record_of(&self, block: w3api_source::BlockRef) -> Option<&BlockRecord> {
        Some(&self.blocks[self.block_number_of(block)? as usize])
    }

    /// A whole block: its header, transactions, ommers (an imported
    /// chain's, before the merge) and its withdrawals from Shanghai on.
    fn raw_block(&self, record: &BlockRecord) -> Bytes {
        let transactions: Vec<&TxEnvelope> = self.transactions_of(record).iter().map(|tx| &tx.envelope).collect();
        let withdrawals = record
            .header
            .withdrawals_root
            .map(|_| Withdrawals::new(self.withdrawals_of(record.header.number).to_vec()));
        let ommers = self.ommers_of(record.header.number).to_vec();
        let body = BlockBody { transactions, ommers, withdrawals };
        alloy_rlp::encode(alloy_consensus::Block::new(record.header.clone(), body)).into()
    }

    /// Each receipt of a block, with its bloom, as its receipts root hashes it.
    fn raw_receipts(&self, record: &BlockRecord) -> Vec<Bytes> {
        let first = record.first_tx;
        (first..first + record.tx_count)
            .map(|index| {
                let kept = &self.receipts[index as usize];
                let status = match self.receipt_root(index) {
                    Some(root) => Eip658Value::PostState(root),
                    None => Eip658Value::Eip658(kept.success),
                };
                let logs = self.logs_of(kept).to_vec();
                let receipt = Receipt { status, cumulative_gas_used: kept.cumulative_gas_used, logs }.with_bloom();
                let envelope = match self.transactions[index as usize].envelope.tx_type() {
                    TxType::Legacy => ReceiptEnvelope::Legacy(receipt),
                    TxType::Eip2930 => ReceiptEnvelope::Eip2930(receipt),
                    TxType::Eip1559 => ReceiptEnvelope::Eip1559(receipt),
                    TxType::Eip4844 => ReceiptEnvelope::Eip4844(receipt),
                    TxType::Eip7702 => ReceiptEnvelope::Eip7702(receipt),
                };
                envelope.encoded_2718().into()
            })
            .collect()
    }
}
