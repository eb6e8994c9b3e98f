//! The rest of a full node's read surface: receipts, logs, balances, nonces
//! and fees, all read from the generated chain.

use alloy_consensus::Transaction as _;
use alloy_eips::eip1559::BaseFeeParams;
use alloy_primitives::{Address, B256, Bloom, BloomInput, U256, logs_bloom};
use w3api_source::{BlockRef, FeeSuggestion, LogQuery, SourceError};
use w3api_types::rpc::{AddressFilter, FeeHistory, Log, LogFilter, Receipt, TopicFilter};

use crate::generate::{BlockRecord, ChainData};

/// Blocks looked back through for a tip to suggest.
const TIP_LOOKBACK: u64 = 20;
/// The tip suggested when no recent block has a transaction: 1 gwei.
const DEFAULT_TIP: u128 = 1_000_000_000;

impl ChainData {
    /// Index in [`ChainData::logs`] of a block's first log.
    fn first_log_of(&self, block: &BlockRecord) -> u32 {
        self.receipts.get(block.first_tx as usize).map_or(self.logs.len() as u32, |r| r.first_log)
    }

    /// The receipt of the transaction with this hash.
    pub fn rpc_receipt(&self, hash: &B256) -> Option<Receipt> {
        let at = self.transaction_position(hash)?;
        Some(self.receipt_at(&self.blocks[at.block as usize], at.index))
    }

    /// Every receipt of a block.
    pub fn rpc_block_receipts(&self, block: BlockRef) -> Option<Vec<Receipt>> {
        let record = self.record_of(block)?;
        Some((record.first_tx..record.first_tx + record.tx_count).map(|index| self.receipt_at(record, index)).collect())
    }

    fn receipt_at(&self, block: &BlockRecord, index: u32) -> Receipt {
        let tx = &self.transactions[index as usize];
        let receipt = &self.receipts[index as usize];
        let logs = self.logs_of(receipt);
        let first_in_block = self.first_log_of(block);
        let envelope = &tx.envelope;
        let root = self.receipt_root(index);
        Receipt {
            transaction_hash: tx.hash,
            transaction_index: u64::from(index - block.first_tx),
            block_hash: block.hash,
            block_number: block.header.number,
            from: tx.sender,
            to: envelope.to(),
            cumulative_gas_used: receipt.cumulative_gas_used,
            gas_used: receipt.gas_used,
            contract_address: envelope.to().is_none().then(|| tx.sender.create(envelope.nonce())),
            logs: (0..logs.len())
                .map(|i| self.rpc_log(block, index, receipt.first_log + i as u32 - first_in_block))
                .collect(),
            logs_bloom: logs_bloom(logs),
            tx_type: envelope.tx_type() as u8,
            status: root.is_none().then_some(u8::from(receipt.success)),
            root,
            effective_gas_price: envelope.effective_gas_price(block.header.base_fee_per_gas),
            blob_gas_used: envelope.blob_gas_used(),
            blob_gas_price: envelope
                .blob_gas_used()
                .and_then(|_| block.header.blob_fee(self.blob_params_at(block.header.timestamp))),
        }
    }

    /// Log `log_index` of a block, emitted by transaction `tx_index` of the chain.
    fn rpc_log(&self, block: &BlockRecord, tx_index: u32, log_index: u32) -> Log {
        let log = &self.logs[(self.first_log_of(block) + log_index) as usize];
        Log {
            address: log.address,
            topics: log.topics().to_vec(),
            data: log.data.data.clone(),
            block_number: Some(block.header.number),
            block_hash: Some(block.hash),
            block_timestamp: Some(block.header.timestamp),
            transaction_hash: Some(self.transactions[tx_index as usize].hash),
            transaction_index: Some(u64::from(tx_index - block.first_tx)),
            log_index: Some(u64::from(log_index)),
            removed: false,
        }
    }

    /// The logs of blocks `from..=to` that pass the filter.
    pub fn rpc_logs(&self, query: &LogQuery) -> Result<Vec<Log>, SourceError> {
        let mut found = Vec::new();
        for number in query.from_block..=query.to_block.min(self.latest()) {
            let block = &self.blocks[number as usize];
            if !bloom_may_match(&block.header.logs_bloom, &query.filter) {
                continue;
            }
            let first_in_block = self.first_log_of(block);
            for index in block.first_tx..block.first_tx + block.tx_count {
                let receipt = &self.receipts[index as usize];
                for (i, log) in self.logs_of(receipt).iter().enumerate() {
                    if !query.filter.matches(&log.address, log.topics()) {
                        continue;
                    }
                    if found.len() == query.max_logs {
                        return Err(SourceError::TooManyLogs { limit: query.max_logs });
                    }
                    found.push(self.rpc_log(block, index, receipt.first_log + i as u32 - first_in_block));
                }
            }
        }
        Ok(found)
    }

    /// The native balance of `address` after a block, as the EVM holds it.
    pub fn native_balance(&self, address: &Address, block: BlockRef) -> Result<U256, SourceError> {
        let number = self.existing_block(block)?;
        Ok(self.state.archive().account(*address, number).balance)
    }

    /// The nonce of `address` after a block, as the EVM holds it: the
    /// transactions an account sent, the contracts a contract created.
    pub fn nonce(&self, address: &Address, block: BlockRef) -> Result<u64, SourceError> {
        if block == BlockRef::Pending {
            return Ok(self.pending_nonce(*address));
        }
        let number = self.existing_block(block)?;
        Ok(self.state.archive().account(*address, number).nonce)
    }

    /// The number of a block that must exist for a state query.
    pub(crate) fn existing_block(&self, block: BlockRef) -> Result<u64, SourceError> {
        self.block_number_of(block).ok_or_else(|| match block {
            BlockRef::Hash(hash) => SourceError::UnknownBlockHash(hash),
            BlockRef::Number(requested) => SourceError::BlockOutOfRange { requested, latest: self.latest() },
            // Every tag names an existing block of a generated chain.
            tag => SourceError::Unavailable(format!("no block for {tag:?}")),
        })
    }

    /// `eth_feeHistory` for `count` blocks ending at `newest`.
    pub fn fee_history(&self, count: u64, newest: BlockRef, percentiles: &[f64]) -> Result<FeeHistory, SourceError> {
        let newest = self.existing_block(newest)?;
        let oldest = (newest + 1).saturating_sub(count);
        let headers: Vec<_> = (oldest..=newest).map(|n| &self.blocks[n as usize]).collect();
        let last = &headers.last().expect("a run has a block").header;
        let blobs = |header: &alloy_consensus::Header| self.blob_params_at(header.timestamp);
        let mut base_fees: Vec<u128> =
            headers.iter().map(|b| u128::from(b.header.base_fee_per_gas.unwrap_or_default())).collect();
        base_fees.push(u128::from(last.next_block_base_fee(BaseFeeParams::ethereum()).unwrap_or_default()));
        let mut blob_fees: Vec<u128> =
            headers.iter().map(|b| b.header.blob_fee(blobs(&b.header)).unwrap_or_default()).collect();
        blob_fees.push(last.next_block_blob_fee(blobs(last)).unwrap_or_default());
        Ok(FeeHistory {
            oldest_block: oldest,
            base_fee_per_gas: base_fees,
            gas_used_ratio: headers.iter().map(|b| b.header.gas_used as f64 / b.header.gas_limit as f64).collect(),
            base_fee_per_blob_gas: Some(blob_fees),
            blob_gas_used_ratio: Some(
                headers
                    .iter()
                    .map(|b| {
                        let most = blobs(&b.header).max_blob_gas_per_block() as f64;
                        b.header.blob_gas_used.unwrap_or_default() as f64 / most
                    })
                    .collect(),
            ),
            reward: (!percentiles.is_empty()).then(|| headers.iter().map(|b| self.rewards(b, percentiles)).collect()),
        })
    }

    /// The tip at each percentile of a block's gas, as go-ethereum reports
    /// it: transactions sorted by tip, each percentile answered by the first
    /// transaction at which the gas summed so far reaches it.
    fn rewards(&self, block: &BlockRecord, percentiles: &[f64]) -> Vec<u128> {
        let tips = self.tips(block);
        if tips.is_empty() {
            return vec![0; percentiles.len()];
        }
        let mut index = 0;
        let mut summed = tips[0].1;
        percentiles
            .iter()
            .map(|percentile| {
                let threshold = (block.header.gas_used as f64 * percentile / 100.0) as u64;
                while summed < threshold && index < tips.len() - 1 {
                    index += 1;
                    summed += tips[index].1;
                }
                tips[index].0
            })
            .collect()
    }

    /// Each transaction's tip per gas and gas used, lowest tip first.
    fn tips(&self, block: &BlockRecord) -> Vec<(u128, u64)> {
        let base_fee = block.header.base_fee_per_gas;
        let mut tips: Vec<(u128, u64)> = (block.first_tx..block.first_tx + block.tx_count)
            .map(|index| {
                let envelope = &self.transactions[index as usize].envelope;
                let tip = envelope.effective_gas_price(base_fee) - u128::from(base_fee.unwrap_or_default());
                (tip, self.receipts[index as usize].gas_used)
            })
            .collect();
        tips.sort_unstable();
        tips
    }

    /// The next block's base fee, and the median tip of the newest block
    /// with transactions among the last few.
    pub fn fee_suggestion(&self) -> FeeSuggestion {
        let latest = &self.blocks[self.latest() as usize].header;
        let next_base_fee = u128::from(latest.next_block_base_fee(BaseFeeParams::ethereum()).unwrap_or_default());
        let tip = (self.latest().saturating_sub(TIP_LOOKBACK)..=self.latest())
            .rev()
            .map(|n| self.tips(&self.blocks[n as usize]))
            .find(|tips| !tips.is_empty())
            .map_or(DEFAULT_TIP, |tips| tips[tips.len() / 2].0);
        FeeSuggestion { next_base_fee, tip }
    }

    /// The number of transactions of a block.
    pub fn transaction_count(&self, block: BlockRef) -> Option<u64> {
        Some(u64::from(self.blocks[self.block_number_of(block)? as usize].tx_count))
    }

    /// An included transaction by hash.
    pub fn rpc_transaction_by_hash(&self, hash: &B256) -> Option<w3api_types::rpc::Transaction> {
        let Some(at) = self.transaction_position(hash) else {
            return self.waiting(hash).map(super::blocks::rpc_pending_transaction);
        };
        let block = &self.blocks[at.block as usize];
        self.rpc_transaction(BlockRef::Number(block.header.number), u64::from(at.index - block.first_tx))
    }
}

/// Whether a block whose logs make `bloom` may hold a log the filter passes.
fn bloom_may_match(bloom: &Bloom, filter: &LogFilter) -> bool {
    let has = |bytes: &[u8]| bloom.contains_input(BloomInput::Raw(bytes));
    let address = match &filter.address {
        None => true,
        Some(AddressFilter::One(address)) => has(address.as_slice()),
        Some(AddressFilter::AnyOf(list)) => list.is_empty() || list.iter().any(|a| has(a.as_slice())),
    };
    address
        && filter.topics.iter().flatten().all(|topic| match topic {
            TopicFilter::Any => true,
            TopicFilter::One(topic) => has(topic.as_slice()),
            TopicFilter::AnyOf(list) => list.is_empty() || list.iter().any(|t| has(t.as_slice())),
        })
}
