//! Blocks, receipts and transactions as consensus encodes them
//! (`debug_getRawHeader`, `debug_getRawBlock`, `debug_getRawReceipts`,
//! `debug_getRawTransaction`): the RLP a node hashes and gossips, rebuilt
//! from what the chain keeps.

use alloy_consensus::{BlockBody, Eip658Value, Receipt, TxEnvelope};
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip4895::Withdrawals;
use alloy_primitives::Bytes;
use w3api_source::{BlockRef, Raw};

use crate::generate::{BlockRecord, ChainData, receipt_envelope};

impl ChainData {
    /// What `raw` asks for; `None` when its block or transaction does not exist.
    pub fn raw(&self, raw: Raw) -> Option<Bytes> {
        match raw {
            Raw::Header(block) => Some(alloy_rlp::encode(&self.record_of(block)?.header).into()),
            Raw::Block(block) => Some(self.raw_block(self.record_of(block)?)),
            Raw::Transaction(hash) => {
                let index = self.transaction_index(&hash)?;
                Some(self.transactions[index as usize].envelope.encoded_2718().into())
            }
        }
    }

    /// Each receipt of a block, with its bloom, as its receipts root hashes
    /// it; `None` when the block does not exist.
    pub fn raw_receipts(&self, block: BlockRef) -> Option<Vec<Bytes>> {
        let record = self.record_of(block)?;
        let first = record.first_tx;
        let encoded = (first..first + record.tx_count).map(|index| {
            let kept = &self.receipts[index as usize];
            let status = match self.receipt_root(index) {
                Some(root) => Eip658Value::PostState(root),
                None => Eip658Value::Eip658(kept.success),
            };
            let logs = self.logs_of(kept).to_vec();
            let receipt = Receipt { status, cumulative_gas_used: kept.cumulative_gas_used, logs }.with_bloom();
            let tx_type = self.transactions[index as usize].envelope.tx_type();
            receipt_envelope(tx_type, receipt).encoded_2718().into()
        });
        Some(encoded.collect())
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
}
