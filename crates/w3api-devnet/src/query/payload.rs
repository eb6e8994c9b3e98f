//! `testing_buildBlockV1` on the devnet: a block built on top of one of
//! the chain's by `w3api_chain::simulate::build`, from the transactions
//! given or the pool's, answered as the engine API answers a payload.
//! Nothing is kept.

use alloy_consensus::TxEnvelope;
use alloy_consensus::transaction::{Recovered, SignerRecoverable};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip2718::{Decodable2718, Encodable2718};
use alloy_primitives::{B256, Bytes, U256};
use w3api_chain::simulate::{Attributes, Built, SimulateError};
use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{BlobsBundle, BuiltPayload, ExecutionPayload, PayloadAttributes};

use super::blocks::{rpc_withdrawals, withdrawal_of};
use crate::generate::ChainData;

impl ChainData {
    /// The block after `parent` built with `attributes` from `transactions`
    /// (each as sent raw), or from the pool's ready ones when none are given.
    pub fn build_payload(
        &self,
        parent: B256,
        attributes: PayloadAttributes,
        transactions: Option<Vec<Bytes>>,
        extra_data: Option<Bytes>,
        stop: &dyn Fn() -> bool,
    ) -> Result<BuiltPayload, SourceError> {
        let number = self.block_number_of(BlockRef::Hash(parent)).ok_or(SourceError::UnknownBlockHash(parent))?;
        let parent_header = &self.blocks[number as usize].header;
        let transactions = match transactions {
            Some(raw) => raw.iter().enumerate().map(|(index, raw)| recovered(index, raw)).collect::<Result<_, _>>()?,
            None => self.ready_transactions(number),
        };
        let attributes = Attributes {
            timestamp: attributes.timestamp,
            prev_randao: attributes.prev_randao,
            fee_recipient: attributes.suggested_fee_recipient,
            withdrawals: attributes.withdrawals.unwrap_or_default().into_iter().map(withdrawal_of).collect(),
            beacon_root: attributes.parent_beacon_block_root,
            extra_data: extra_data.unwrap_or_default(),
        };
        let forks = self.forks();
        let built = self.state.build_block(&forks, parent_header, attributes, transactions, stop);
        built.map(payload).map_err(build_error)
    }

    /// The pool's transactions a block after `number` would take, in order.
    fn ready_transactions(&self, number: u64) -> Vec<Recovered<TxEnvelope>> {
        let header = &self.blocks[number as usize].header;
        let base_fee = header.next_block_base_fee(BaseFeeParams::ethereum()).unwrap_or_default();
        let archive = self.state.archive();
        let ready = self.producer.pool.ready(|sender| archive.account(sender, number).nonce, base_fee);
        ready.into_iter().map(|signed| Recovered::new_unchecked(signed.envelope, signed.sender)).collect()
    }
}

/// The `index`th transaction given, decoded and its signer recovered.
fn recovered(index: usize, raw: &Bytes) -> Result<Recovered<TxEnvelope>, SourceError> {
    let invalid = |why: String| SourceError::InvalidRequest(format!("transactions[{index}]: {why}"));
    let envelope = TxEnvelope::decode_2718_exact(raw).map_err(|e| invalid(format!("not a signed transaction: {e}")))?;
    let signer = envelope.recover_signer().map_err(|e| invalid(format!("its signer cannot be recovered: {e}")))?;
    Ok(Recovered::new_unchecked(envelope, signer))
}

/// A transaction the block cannot take refuses the build, as geth's
/// builder refuses it.
fn build_error(error: SimulateError) -> SourceError {
    match error {
        SimulateError::Transaction { message, .. } => SourceError::TransactionRefused(message),
        SimulateError::Stopped => SourceError::Interrupted("the build outlasted its time budget".into()),
        SimulateError::TimeOrder { time, previous } => SourceError::InvalidRequest(format!(
            "payloadAttributes.timestamp: {time} is not after the parent's, {previous}"
        )),
        other => SourceError::TransactionRefused(other.to_string()),
    }
}

fn payload(built: Built) -> BuiltPayload {
    let block = built.block;
    let header = &block.header;
    let execution_payload = ExecutionPayload {
        parent_hash: header.parent_hash,
        fee_recipient: header.beneficiary,
        state_root: header.state_root,
        receipts_root: header.receipts_root,
        logs_bloom: header.logs_bloom,
        prev_randao: header.mix_hash,
        block_number: header.number,
        gas_limit: header.gas_limit,
        gas_used: header.gas_used,
        timestamp: header.timestamp,
        extra_data: header.extra_data.clone(),
        base_fee_per_gas: U256::from(header.base_fee_per_gas.unwrap_or_default()),
        block_hash: block.hash,
        transactions: block.transactions.iter().map(|tx| tx.encoded_2718().into()).collect(),
        withdrawals: block.withdrawals.as_deref().map(rpc_withdrawals),
        blob_gas_used: header.blob_gas_used,
        excess_blob_gas: header.excess_blob_gas,
    };
    let execution_requests = block.requests.map(alloy_eips::eip7685::Requests::take);
    BuiltPayload {
        execution_payload,
        block_value: built.value,
        blobs_bundle: BlobsBundle::default(),
        execution_requests,
        should_override_builder: false,
    }
}
