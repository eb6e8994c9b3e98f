//! `eth_simulateV1` on the devnet: the request read into the chain's
//! simulation (`w3api_chain::simulate`), which runs it over the state
//! after the block asked for, and its blocks answered as
//! `eth_getBlockByNumber` answers the chain's own.

use alloy_consensus::BlockBody;
use alloy_primitives::B256;
use alloy_rlp::Encodable;
use w3api_chain::revm::context::result::InvalidTransaction;
use w3api_chain::simulate::{
    BlockCalls, Call, CallOutcome, Failure, HeaderOverrides, MAX_BLOCKS, MAX_CALLS, MAX_CALLS_PER_BLOCK, Options,
    SimulateError, SimulatedBlock as Simulated,
};
use w3api_source::{BlockRef, SimulationRefusal, SourceError};
use w3api_types::rpc::{
    BlockOverrides, BlockStateCalls, BlockTransactions, Log, SimulatePayload, SimulatedBlock, SimulatedCall,
    SimulatedCallError, TransactionRequest,
};

use super::blocks::{block_json, rpc_withdrawals, withdrawal_of};
use super::execution::{
    account_override, evm_access_list, halt_message, input_of, revert_reason, signed_authorization,
};
use crate::generate::{BlockRecord, ChainData, TxRecord};

impl ChainData {
    /// Simulates `payload` on top of `block`, its calls together using at
    /// most `gas_cap` gas, until `stop` says so.
    pub fn simulate(
        &self,
        payload: SimulatePayload,
        block: BlockRef,
        gas_cap: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<SimulatedBlock>, SourceError> {
        check_size(&payload)?;
        let number = self.existing_block(block).map_err(|_| refused(SimulationRefusal::Refused, "header not found"))?;
        let base = &self.blocks[number as usize].header;
        let forks = self.forks();
        let options = Options {
            forks: &forks,
            base,
            validation: payload.validation,
            trace_transfers: payload.trace_transfers,
            gas_cap,
            stop,
        };
        let blocks = payload.block_state_calls.into_iter().map(block_calls).collect::<Result<_, _>>()?;
        let simulated = self.state.simulate(&options, blocks).map_err(simulation_error)?;
        Ok(simulated.into_iter().map(|block| answer(block, payload.return_full_transactions)).collect())
    }
}

/// Refuses more blocks or calls than geth simulates, before anything runs.
fn check_size(payload: &SimulatePayload) -> Result<(), SourceError> {
    let blocks = &payload.block_state_calls;
    if blocks.is_empty() {
        return Err(refused(SimulationRefusal::InvalidParams, "empty input"));
    }
    if blocks.len() as u64 > MAX_BLOCKS {
        return Err(refused(SimulationRefusal::ClientLimitExceeded, "too many blocks"));
    }
    let mut total = 0;
    for block in blocks {
        let calls = block.calls.len();
        if calls > MAX_CALLS_PER_BLOCK {
            let message = format!("too many calls in block: {calls} > {MAX_CALLS_PER_BLOCK}");
            return Err(refused(SimulationRefusal::ClientLimitExceeded, &message));
        }
        total += calls;
        if total > MAX_CALLS {
            let message = format!("too many calls: {total} > {MAX_CALLS}");
            return Err(refused(SimulationRefusal::ClientLimitExceeded, &message));
        }
    }
    Ok(())
}

fn refused(kind: SimulationRefusal, message: &str) -> SourceError {
    SourceError::SimulationRefused { kind, message: message.into() }
}

/// One block of the request as the chain simulates it.
fn block_calls(block: BlockStateCalls) -> Result<BlockCalls, SourceError> {
    let header = block.block_overrides.map(header_overrides).transpose()?.unwrap_or_default();
    let state = block
        .state_overrides
        .map(|overrides| overrides.0)
        .unwrap_or_default()
        .iter()
        .map(|(address, assumed)| {
            let account =
                account_override(address, assumed).map_err(|e| refused(SimulationRefusal::Refused, &e.to_string()))?;
            Ok((*address, account, assumed.move_precompile_to_address))
        })
        .collect::<Result<_, SourceError>>()?;
    let calls = block.calls.iter().map(call).collect::<Result<_, _>>()?;
    Ok(BlockCalls { header, state, calls })
}

fn header_overrides(overrides: BlockOverrides) -> Result<HeaderOverrides, SourceError> {
    let too_large =
        |field: &str| refused(SimulationRefusal::InvalidParams, &format!("blockOverrides.{field} is too large"));
    let base_fee = overrides.base_fee_per_gas.map(|fee| u64::try_from(fee).map_err(|_| too_large("baseFeePerGas")));
    let blob_base_fee = overrides.blob_base_fee.map(|fee| u128::try_from(fee).map_err(|_| too_large("blobBaseFee")));
    let withdrawals = overrides.withdrawals.map(|list| list.into_iter().map(withdrawal_of).collect());
    Ok(HeaderOverrides {
        number: overrides.number,
        time: overrides.time,
        gas_limit: overrides.gas_limit,
        fee_recipient: overrides.fee_recipient,
        prev_randao: overrides.prev_randao,
        base_fee: base_fee.transpose()?,
        blob_base_fee: blob_base_fee.transpose()?,
        difficulty: overrides.difficulty,
        beacon_root: overrides.beacon_root,
        withdrawals,
    })
}

fn call(request: &TransactionRequest) -> Result<Call, SourceError> {
    let input = input_of(request).map_err(|e| refused(SimulationRefusal::Refused, &e.to_string()))?;
    Ok(Call {
        from: request.from.unwrap_or_default(),
        to: request.to,
        gas: request.gas,
        gas_price: request.gas_price,
        max_fee_per_gas: request.max_fee_per_gas,
        max_priority_fee_per_gas: request.max_priority_fee_per_gas,
        max_fee_per_blob_gas: request.max_fee_per_blob_gas,
        value: request.value.unwrap_or_default(),
        nonce: request.nonce,
        input,
        access_list: request.access_list.as_deref().map(evm_access_list),
        blob_hashes: request.blob_versioned_hashes.clone(),
        authorizations: request.authorization_list.as_ref().map(|list| list.iter().map(signed_authorization).collect()),
        chain_id: request.chain_id,
    })
}

/// The code and words geth refuses a simulation with.
fn simulation_error(error: SimulateError) -> SourceError {
    let kind = match &error {
        SimulateError::NumberOrder { .. } => SimulationRefusal::BlockNumberOrder,
        SimulateError::TimeOrder { .. } => SimulationRefusal::BlockTimestampOrder,
        SimulateError::TooManyBlocks => SimulationRefusal::ClientLimitExceeded,
        SimulateError::BlockGasLimit { .. } => SimulationRefusal::BlockGasLimitReached,
        SimulateError::Transaction { reason, .. } => transaction_refusal(reason),
        SimulateError::Call(_) | SimulateError::Override(_) | SimulateError::GasCap { .. } => {
            SimulationRefusal::Refused
        }
        SimulateError::Stopped => {
            return SourceError::Interrupted("the simulation outlasted its time budget".into());
        }
        SimulateError::Block(_) => SimulationRefusal::Internal,
    };
    SourceError::SimulationRefused { kind, message: error.to_string() }
}

fn transaction_refusal(reason: &InvalidTransaction) -> SimulationRefusal {
    use InvalidTransaction as Invalid;
    match reason {
        Invalid::NonceTooLow { .. } => SimulationRefusal::NonceTooLow,
        Invalid::NonceTooHigh { .. } => SimulationRefusal::NonceTooHigh,
        Invalid::GasPriceLessThanBasefee => SimulationRefusal::BaseFeeTooLow,
        Invalid::CallGasCostMoreThanGasLimit { .. } => SimulationRefusal::IntrinsicGas,
        Invalid::LackOfFundForMaxFee { .. } | Invalid::OverflowPaymentInTransaction => {
            SimulationRefusal::InsufficientFunds
        }
        Invalid::RejectCallerWithCode => SimulationRefusal::SenderNotEoa,
        Invalid::CreateInitCodeSizeLimit => SimulationRefusal::InitCodeTooLarge,
        Invalid::PriorityFeeGreaterThanMaxFee => SimulationRefusal::InvalidParams,
        _ => SimulationRefusal::Internal,
    }
}

/// A simulated block as the gateway answers it.
fn answer(block: Simulated, full_transactions: bool) -> SimulatedBlock {
    let body = BlockBody {
        transactions: block.transactions.clone(),
        ommers: Vec::<alloy_consensus::Header>::new(),
        withdrawals: block.withdrawals.clone().map(Into::into),
    };
    let size = (alloy_consensus::Block { header: block.header.clone(), body }).length() as u64;
    let record = BlockRecord { header: block.header, hash: block.hash, first_tx: 0, tx_count: 0, size };
    let transactions: Vec<TxRecord> = block
        .transactions
        .into_iter()
        .zip(block.senders)
        .map(|(envelope, sender)| TxRecord { hash: *envelope.tx_hash(), envelope, sender })
        .collect();
    let withdrawals = block.withdrawals.as_deref().map(rpc_withdrawals);
    let calls = block
        .calls
        .into_iter()
        .zip(&transactions)
        .enumerate()
        .map(|(index, (call, tx))| call_answer(call, &record, tx.hash, index as u64));
    let calls = calls.collect();
    let mut block = block_json(&record, &transactions, full_transactions, Vec::new(), withdrawals);
    if let BlockTransactions::Full(transactions) = &mut block.transactions {
        // Unsigned, a legacy transaction's v is 0, as geth shows it (a
        // signature's parity cannot say so).
        for tx in transactions.iter_mut().filter(|tx| tx.tx_type == 0) {
            tx.v = Some(alloy_primitives::U256::ZERO);
        }
    }
    SimulatedBlock { block, calls }
}

fn call_answer(call: CallOutcome, block: &BlockRecord, tx: B256, index: u64) -> SimulatedCall {
    let logs = call
        .logs
        .into_iter()
        .map(|collected| Log {
            address: collected.log.address,
            topics: collected.log.topics().to_vec(),
            data: collected.log.data.data.clone(),
            block_number: Some(block.header.number),
            block_hash: Some(block.hash),
            block_timestamp: Some(block.header.timestamp),
            transaction_hash: Some(tx),
            transaction_index: Some(index),
            log_index: Some(collected.index),
            removed: false,
        })
        .collect();
    let error = call.failure.as_ref().map(|failure| match failure {
        Failure::Reverted(data) => {
            let message = match revert_reason(data) {
                Some(reason) => format!("execution reverted: {reason}"),
                None => "execution reverted".into(),
            };
            SimulatedCallError { message, code: 3, data: Some(data.clone()) }
        }
        Failure::Halted(reason) => {
            let mut message = halt_message(reason);
            if call.gas_capped {
                message.push_str(" (gas limit was capped by the RPC server's global gas cap)");
            }
            SimulatedCallError { message, code: -32015, data: None }
        }
    });
    SimulatedCall {
        return_data: call.output,
        logs,
        gas_used: call.gas_used,
        max_used_gas: Some(call.max_used_gas),
        status: u64::from(call.failure.is_none()),
        error,
    }
}
