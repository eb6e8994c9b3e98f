//! Turning the simulated transactions into a chain: each block's receipts
//! become its receipts root and logs bloom as it closes, then every
//! transaction is signed, in parallel, and the headers are sealed:
//! transactions root, and each header's hash linked to the next as its
//! parent.

use alloy_consensus::proofs::{calculate_receipt_root, calculate_transaction_root};
use alloy_consensus::{
    BlockBody, EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Header, ReceiptEnvelope, SignableTransaction, TxEip1559,
    TxEnvelope, TxLegacy,
};
use alloy_eips::eip4895::Withdrawals;
use alloy_eips::eip7685::EMPTY_REQUESTS_HASH;
use alloy_primitives::{Address, B64, B256, Bloom, Bytes, U256};
use alloy_signer::SignerSync;
use rayon::prelude::*;
use w3api_types::Chain;

use super::model::{BlockRecord, ReceiptRecord, TxRecord};
use super::simulation::Simulation;
use crate::accounts::Signers;
use crate::seed;

const EXTRA_DATA: &[u8] = b"w3api devnet";

/// An unsigned transaction and the account that signs it.
pub(super) enum Unsigned {
    Legacy(TxLegacy, u32),
    Eip1559(TxEip1559, u32),
    /// Signed already, by a user: kept as sent.
    Signed(Box<TxEnvelope>, Address),
}

pub(super) fn sign(unsigned: Vec<Unsigned>, accounts: Signers<'_>) -> Vec<TxRecord> {
    unsigned
        .into_par_iter()
        .map(|tx| {
            let (envelope, sender) = match tx {
                Unsigned::Legacy(tx, signer) => {
                    let signature = sign_hash(accounts, signer, tx.signature_hash());
                    (TxEnvelope::from(tx.into_signed(signature)), accounts.address(signer))
                }
                Unsigned::Eip1559(tx, signer) => {
                    let signature = sign_hash(accounts, signer, tx.signature_hash());
                    (TxEnvelope::from(tx.into_signed(signature)), accounts.address(signer))
                }
                Unsigned::Signed(envelope, sender) => (*envelope, sender),
            };
            let hash = *envelope.tx_hash();
            TxRecord { envelope, sender, hash }
        })
        .collect()
}

fn sign_hash(accounts: Signers<'_>, signer: u32, hash: B256) -> alloy_primitives::Signature {
    accounts.signer(signer).sign_hash_sync(&hash).expect("a valid key signs any hash")
}

/// A block before its transactions are signed: every header field but the
/// transactions root and the parent hash.
pub(super) struct PendingBlock {
    pub(super) header: Header,
    pub(super) first_tx: u32,
    pub(super) tx_count: u32,
}

/// Fills in transactions roots, then links and hashes the headers in order,
/// the first onto `parent` (zero for genesis).
pub(super) fn seal(
    seed: u64,
    chain: Chain,
    pending: Vec<PendingBlock>,
    transactions: &[TxRecord],
    parent: B256,
) -> Vec<BlockRecord> {
    let chain_id = crate::chain_id(chain).to_be_bytes();
    let mut headers: Vec<Header> = pending
        .par_iter()
        .map(|block| {
            let start = block.first_tx as usize;
            let envelopes: Vec<&TxEnvelope> =
                transactions[start..start + block.tx_count as usize].iter().map(|t| &t.envelope).collect();
            let mut header = block.header.clone();
            header.transactions_root = calculate_transaction_root(&envelopes);
            header.parent_beacon_block_root =
                Some(seed::derive(seed, &[b"beacon-root", &chain_id, &header.number.to_be_bytes()]));
            header
        })
        .collect();
    // Each header's hash is the next one's parent, so hashing goes in order.
    let mut hashes = Vec::with_capacity(headers.len());
    let mut parent = parent;
    for header in &mut headers {
        header.parent_hash = parent;
        parent = header.hash_slow();
        hashes.push(parent);
    }
    headers
        .into_par_iter()
        .zip(hashes)
        .zip(pending)
        .map(|((header, hash), block)| {
            let start = block.first_tx as usize;
            let envelopes: Vec<&TxEnvelope> =
                transactions[start..start + block.tx_count as usize].iter().map(|t| &t.envelope).collect();
            let body =
                BlockBody { transactions: envelopes, ommers: Vec::new(), withdrawals: Some(Withdrawals::default()) };
            let size = alloy_rlp::Encodable::length(&alloy_consensus::Block::new(&header, body)) as u64;
            BlockRecord { header, hash, first_tx: block.first_tx, tx_count: block.tx_count, size }
        })
        .collect()
}

impl Simulation<'_> {
    /// Closes block `number`: its receipts root and logs bloom go into its
    /// header, which waits with the others to be sealed.
    pub(super) fn close_block(&mut self, number: u32) {
        let receipts = std::mem::take(&mut self.block_receipts);
        let bloom = receipts.iter().fold(Bloom::ZERO, |bloom, r| bloom | r.logs_bloom());
        let root = if receipts.is_empty() { EMPTY_ROOT_HASH } else { calculate_receipt_root(&receipts) };
        self.keep_receipts(receipts);
        let state_root = self.chain.seal(u64::from(number));
        let header = self.header(u64::from(number), self.gas_used, (state_root, root), bloom);
        self.parent = (self.gas_used, self.base_fee);
        self.parent_blobs = (self.excess_blob_gas, self.blob_gas_used);
        let tx_count = self.unsigned.len() as u32 - self.first_tx;
        self.pending.push(PendingBlock { header, first_tx: self.first_tx, tx_count });
    }

    /// Keeps what the RPC needs of a block's receipts: gas and logs (the
    /// blooms are cheap to recompute and would cost 256 bytes a transaction).
    pub(super) fn keep_receipts(&mut self, receipts: Vec<ReceiptEnvelope>) {
        let mut previous = 0;
        for receipt in receipts {
            let cumulative_gas_used = receipt.cumulative_gas_used();
            let success = receipt.status();
            let logs = receipt.into_logs();
            self.receipts.push(ReceiptRecord {
                success,
                cumulative_gas_used,
                gas_used: cumulative_gas_used - previous,
                first_log: self.log_base + self.logs.len() as u32,
                log_count: logs.len() as u32,
            });
            previous = cumulative_gas_used;
            self.logs.extend(logs);
        }
    }

    /// Block `number`'s header but for its parent hash and transactions
    /// root; `roots` are its state root and receipts root.
    pub(super) fn header(&self, number: u64, gas_used: u64, roots: (B256, B256), logs_bloom: Bloom) -> Header {
        let (state_root, receipts_root) = roots;
        Header {
            parent_hash: B256::ZERO,
            ommers_hash: EMPTY_OMMER_ROOT_HASH,
            beneficiary: self.world.miner,
            state_root,
            transactions_root: EMPTY_ROOT_HASH,
            receipts_root,
            logs_bloom,
            difficulty: U256::ZERO,
            number,
            gas_limit: self.world.gas_limit,
            gas_used,
            timestamp: self.timestamp,
            extra_data: Bytes::from_static(EXTRA_DATA),
            mix_hash: self.prevrandao(number),
            nonce: B64::ZERO,
            base_fee_per_gas: Some(self.base_fee),
            withdrawals_root: Some(EMPTY_ROOT_HASH),
            blob_gas_used: Some(self.blob_gas_used),
            excess_blob_gas: Some(self.excess_blob_gas),
            parent_beacon_block_root: None,
            // Prague headers, as on mainnet: no execution-layer requests (EIP-7685).
            requests_hash: Some(EMPTY_REQUESTS_HASH),
            block_access_list_hash: None,
            slot_number: None,
        }
    }
}
