//! The execution methods on the devnet: the EVM runs each request over the
//! chain's state after the block asked for, in that block's environment,
//! as geth's `eth_call` does. Calls take geth's state overrides; gas is
//! estimated by geth's search; access lists list what the run touched.

use std::time::Duration;

use alloy_eips::eip7702::SignedAuthorization;
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use alloy_sol_types::{Panic, Revert, SolError};
use w3api_chain::revm::DatabaseRef;
use w3api_chain::revm::context::TxEnv;
use w3api_chain::revm::context::result::{EVMError, ExecutionResult, HaltReason, OutOfGasError};
use w3api_chain::revm::context::transaction::{AccessList, AccessListItem as EvmAccessListItem};
use w3api_chain::revm::context_interface::either::Either;
use w3api_chain::trace::{Traced, Tracer, Untraced};
use w3api_chain::{AccountOverride, BlockSpec, Checks, Outcome, Overrides, Refused, Unfinished, describe};
use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{
    AccessListItem, AccessListResult, AccountProof, Authorization, BlockOverrides, StateOverrides, StorageKey,
    StorageProof, TransactionRequest,
};

use super::traces;
use crate::generate::ChainData;

/// The gas a call stipend adds, which geth's first guess allows for.
const CALL_STIPEND: u64 = 2_300;

/// A call read off the chain, ready to run over the state after its block
/// wherever that state is read from: under the caller's hold of the chain,
/// or value by value from an execution slot (see `crate::executions`).
pub(crate) struct Prepared {
    /// The block the call runs after, in that block's environment.
    number: u64,
    spec: BlockSpec,
    chain_id: u64,
    tx: TxEnv,
    checks: Checks,
    overrides: Overrides,
    /// What the access list leaves out besides the precompiles: the
    /// sender, the block's beneficiary, and the recipient without slots.
    sender: Address,
    beneficiary: Address,
    recipient: Option<Address>,
}

impl ChainData {
    /// `request` read for running after `block` with at most `gas_cap`
    /// gas: its own gas, or all the block holds, capped as geth caps.
    pub(crate) fn prepare(
        &self,
        request: &TransactionRequest,
        block: BlockRef,
        overrides: Option<&StateOverrides>,
        gas_cap: u64,
    ) -> Result<Prepared, SourceError> {
        let number = self.existing_block(block)?;
        let header = &self.blocks[number as usize].header;
        let gas = request.gas.unwrap_or(header.gas_limit).min(gas_cap);
        let spec = self.block_spec(number);
        let (tx, checks) = self.tx_env(request, number, gas)?;
        Ok(Prepared {
            number,
            spec,
            chain_id: self.state.chain_id(),
            tx,
            checks,
            overrides: overrides.map(evm_overrides).transpose()?.unwrap_or_default(),
            sender: request.from.unwrap_or_default(),
            beneficiary: header.beneficiary,
            recipient: request.to,
        })
    }

    /// The environment block `number` ran its transactions in.
    pub(crate) fn block_spec(&self, number: u64) -> BlockSpec {
        let header = &self.blocks[number as usize].header;
        BlockSpec {
            number,
            timestamp: header.timestamp,
            beneficiary: header.beneficiary,
            base_fee: header.base_fee_per_gas.unwrap_or_default(),
            gas_limit: header.gas_limit,
            prevrandao: header.mix_hash,
            excess_blob_gas: header.excess_blob_gas.unwrap_or_default(),
            blob_base_fee: header.blob_fee(self.blob_params_at(header.timestamp)).unwrap_or(1),
        }
    }

    /// The return data of `request` run after `block`, here, under the
    /// caller's hold of the chain: the devnet reads users' contracts so.
    pub fn call(
        &self,
        request: &TransactionRequest,
        block: BlockRef,
        overrides: Option<&StateOverrides>,
    ) -> Result<Bytes, SourceError> {
        let prepared = self.prepare(request, block, overrides, u64::MAX)?;
        prepared.call(&self.state.archive().at(prepared.number), &|| false)
    }

    /// What a call of `input` to `to` returns after block `number`; `None`
    /// when it fails. The devnet reads users' contracts with it.
    pub(crate) fn view(&self, to: Address, input: Bytes, number: u64) -> Option<Bytes> {
        let request = TransactionRequest { to: Some(to), input: Some(input), ..TransactionRequest::default() };
        self.call(&request, BlockRef::Number(number), None).ok()
    }

    /// An account's code after `block`.
    pub fn code(&self, address: Address, block: BlockRef) -> Result<Bytes, SourceError> {
        let number = self.existing_block(block)?;
        let archive = self.state.archive();
        Ok(archive.code(archive.account(address, number).code_hash).original_bytes())
    }

    /// One storage slot after `block`, as 32 bytes.
    pub fn storage_at(&self, address: Address, slot: U256, block: BlockRef) -> Result<B256, SourceError> {
        let number = self.existing_block(block)?;
        Ok(B256::from(self.state.archive().storage(address, slot, number)))
    }

    /// An account and `keys` of its storage after `block`, with their
    /// proofs against that block's state root.
    pub fn proof(&self, address: Address, keys: &[StorageKey], block: BlockRef) -> Result<AccountProof, SourceError> {
        let number = self.existing_block(block)?;
        let slots: Vec<B256> = keys.iter().map(|key| key.slot).collect();
        let proof = self.state.proof(number, address, &slots);
        Ok(AccountProof {
            address,
            account_proof: proof.account_proof,
            balance: proof.account.balance,
            code_hash: proof.account.code_hash,
            nonce: proof.account.nonce,
            storage_hash: proof.storage_root,
            storage_proof: proof
                .storage
                .into_iter()
                .zip(keys)
                .map(|((_, value, proof), key)| StorageProof { key: *key, value, proof })
                .collect(),
        })
    }

    /// The EVM's transaction for `request`: the sender's nonce unless one is
    /// named, fees only when a price is named (geth's rules).
    fn tx_env(&self, request: &TransactionRequest, number: u64, gas: u64) -> Result<(TxEnv, Checks), SourceError> {
        let data = input_of(request)?;
        let chain_id = self.checked_chain_id(request)?;
        if request.gas_price.is_some()
            && (request.max_fee_per_gas.is_some() || request.max_priority_fee_per_gas.is_some())
        {
            return Err(invalid(
                "both gasPrice and maxFeePerGas or maxPriorityFeePerGas are given; send one kind".into(),
            ));
        }
        let from = request.from.unwrap_or_default();
        let dynamic = request.max_fee_per_gas.is_some() || request.max_priority_fee_per_gas.is_some();
        let blobs = request.blob_versioned_hashes.clone().unwrap_or_default();
        let tx_type = request.tx_type.unwrap_or(if request.authorization_list.is_some() {
            4
        } else if !blobs.is_empty() {
            3
        } else {
            match (dynamic, &request.access_list) {
                (true, _) => 2,
                (false, Some(_)) => 1,
                (false, None) => 0,
            }
        });
        let priority = request.max_priority_fee_per_gas.unwrap_or_default();
        let tx = TxEnv {
            tx_type,
            caller: from,
            gas_limit: gas,
            gas_price: request.gas_price.or(request.max_fee_per_gas).unwrap_or(priority),
            gas_priority_fee: (tx_type >= 2).then_some(priority),
            kind: request.to.map_or(TxKind::Create, TxKind::Call),
            value: request.value.unwrap_or_default(),
            data,
            nonce: request.nonce.unwrap_or_else(|| self.state.archive().account(from, number).nonce),
            chain_id: Some(chain_id),
            access_list: request.access_list.as_deref().map(evm_access_list).unwrap_or_default(),
            blob_hashes: blobs,
            max_fee_per_blob_gas: request.max_fee_per_blob_gas.unwrap_or_default(),
            authorization_list: request
                .authorization_list
                .iter()
                .flatten()
                .map(|authorization| Either::Left(signed_authorization(authorization)))
                .collect(),
        };
        let priced = request.gas_price.is_some() || request.max_fee_per_gas.is_some();
        Ok((tx, Checks::Call { priced }))
    }
}

impl Prepared {
    /// The block the call runs after.
    pub(crate) fn block(&self) -> u64 {
        self.number
    }

    /// The call's return data.
    pub(crate) fn call<D: DatabaseRef>(&self, state: &D, stop: &dyn Fn() -> bool) -> Result<Bytes, SourceError> {
        answer(self.run(state, self.tx.gas_limit, None, stop)?).map(|(output, _)| output)
    }

    /// The call traced with `tracer` for at most `timeout`, in its block
    /// with `block` overrides (`debug_traceCall`, `trace_call`).
    pub(crate) fn trace<D: DatabaseRef>(
        &self,
        state: &D,
        block: Option<&BlockOverrides>,
        (tracer, timeout): (&Tracer, Duration),
        stop: &dyn Fn() -> bool,
    ) -> Result<Traced, SourceError> {
        let environment = (self.chain_id, traces::overridden_block(self.spec, block));
        let bounded = traces::within(timeout, stop);
        let tx = self.tx.clone();
        let traced = (tracer, traces::TRACE_BOUNDS);
        match w3api_chain::trace::trace_call(state, environment, tx, self.checks, &self.overrides, traced, &bounded) {
            Ok(trace) => Ok(trace),
            Err(Untraced::Refused(EVMError::Transaction(refused))) => {
                Err(refusal(EVMError::<D::Error>::Transaction(refused)))
            }
            Err(failed) => Err(traces::untraced(failed, stop)),
        }
    }

    /// The least gas with which the call succeeds, found as geth finds it:
    /// a run with all the gas it may have, then what it spent, a guess from
    /// that, and a binary search. Failing with all of it is geth's "gas
    /// required exceeds allowance" unless it reverted.
    pub(crate) fn estimate_gas<D: DatabaseRef>(&self, state: &D, stop: &dyn Fn() -> bool) -> Result<U256, SourceError> {
        let mut high = self.tx.gas_limit;
        let succeeds =
            |gas: u64| -> Result<bool, SourceError> { Ok(self.run(state, gas, None, stop)?.result.is_success()) };
        let first = self.run(state, high, None, stop)?;
        if let ExecutionResult::Halt { reason: HaltReason::OutOfGas(_), .. } = first.result {
            return Err(SourceError::Halted(format!("gas required exceeds allowance ({high})")));
        }
        let (_, spent) = answer(first)?;
        // What it spent is enough unless a sub-call needed the 64th kept
        // back (a plain transfer: exactly 21,000).
        if succeeds(spent)? {
            return Ok(U256::from(spent));
        }
        let mut low = spent;
        let guess = (spent + CALL_STIPEND) * 64 / 63;
        if guess < high {
            match succeeds(guess)? {
                true => high = guess,
                false => low = guess,
            }
        }
        // Within 1.5%, as geth stops: a little over is what the answer is for.
        while low + 1 < high && (high - low) * 1000 / high > 15 {
            let middle = low + (high - low) / 2;
            match succeeds(middle)? {
                true => high = middle,
                false => low = middle,
            }
        }
        Ok(U256::from(high))
    }

    /// The accounts and slots the call touches (but its sender, the
    /// block's beneficiary and the precompiles; its recipient only with
    /// slots), and the gas it uses with them declared.
    pub(crate) fn access_list<D: DatabaseRef>(
        &self,
        state: &D,
        stop: &dyn Fn() -> bool,
    ) -> Result<AccessListResult, SourceError> {
        let gas = self.tx.gas_limit;
        let first = self.run(state, gas, None, stop)?;
        let (from, to, beneficiary) = (self.sender, self.recipient, self.beneficiary);
        let mut list: Vec<AccessListItem> = first
            .state
            .iter()
            .filter(|(address, _)| **address != from && **address != beneficiary && !is_precompile(address))
            .map(|(address, account)| {
                let mut storage_keys: Vec<B256> = account.storage.keys().map(|slot| B256::from(*slot)).collect();
                storage_keys.sort();
                AccessListItem { address: *address, storage_keys }
            })
            .filter(|item| Some(item.address) != to || !item.storage_keys.is_empty())
            .collect();
        list.sort_by_key(|item| item.address);
        let declared = self.run(state, gas, Some(&list), stop)?;
        let error = match &declared.result {
            ExecutionResult::Success { .. } => None,
            ExecutionResult::Revert { output, .. } => Some(reverted(output.clone()).to_string()),
            ExecutionResult::Halt { reason, .. } => Some(halt_message(reason)),
        };
        Ok(AccessListResult { access_list: list, gas_used: U256::from(declared.result.tx_gas_used()), error })
    }

    /// One run with `gas`, and `access_list` declared when given.
    fn run<D: DatabaseRef>(
        &self,
        state: &D,
        gas: u64,
        access_list: Option<&[AccessListItem]>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Outcome, SourceError> {
        let mut tx = TxEnv { gas_limit: gas, ..self.tx.clone() };
        if let Some(list) = access_list {
            tx.access_list = evm_access_list(list);
        }
        match w3api_chain::execute(state, self.chain_id, &self.spec, tx, self.checks, &self.overrides, stop) {
            Ok(outcome) => Ok(outcome),
            Err(Unfinished::Stopped) => {
                Err(SourceError::Interrupted("the call was stopped: its caller no longer waits for it".into()))
            }
            Err(Unfinished::Refused(EVMError::Database(replaced))) => {
                Err(SourceError::Interrupted(replaced.to_string()))
            }
            Err(Unfinished::Refused(refused)) => Err(refusal(refused)),
        }
    }
}

impl ChainData {
    /// The chain id a request may name: this chain's.
    pub(super) fn checked_chain_id(&self, request: &TransactionRequest) -> Result<u64, SourceError> {
        let chain_id = self.state.chain_id();
        match request.chain_id.filter(|id| *id != chain_id) {
            Some(asked) => Err(invalid(format!("chainId {asked}: this chain's id is {chain_id}"))),
            None => Ok(chain_id),
        }
    }
}

/// A request's input: `input` or `data`, which must agree when both are given.
pub(super) fn input_of(request: &TransactionRequest) -> Result<Bytes, SourceError> {
    match (&request.input, &request.data) {
        (Some(input), Some(data)) if input != data => {
            Err(invalid("both input and data are given, and they differ; send one".into()))
        }
        (Some(input), _) | (None, Some(input)) => Ok(input.clone()),
        (None, None) => Ok(Bytes::new()),
    }
}

/// A run's return data and the gas it spent (refunds not taken off), or
/// why it failed.
fn answer(outcome: Outcome) -> Result<(Bytes, u64), SourceError> {
    // The least gas limit it runs with: a call of little data costs less than
    // the floor EIP-7623 sets on its data, and a limit below that is refused.
    let gas = outcome.result.gas();
    let spent = gas.total_gas_spent().max(gas.floor_gas());
    match outcome.result {
        ExecutionResult::Success { output, .. } => Ok((output.into_data(), spent)),
        ExecutionResult::Revert { output, .. } => Err(reverted(output)),
        ExecutionResult::Halt { reason, .. } => Err(SourceError::Halted(halt_message(&reason))),
    }
}

/// A revert, with its reason when the data is an `Error(string)` or a `Panic(uint256)`.
fn reverted(data: Bytes) -> SourceError {
    let reason = revert_reason(&data);
    SourceError::Reverted { data, reason }
}

/// The reason revert data gives, when it is an `Error(string)` or a `Panic(uint256)`.
pub(super) fn revert_reason(data: &Bytes) -> Option<String> {
    Revert::abi_decode(data)
        .map(|revert| revert.reason)
        .or_else(|_| Panic::abi_decode(data).map(|panic| panic.to_string()))
        .ok()
}

/// What geth says when a call stops without reverting.
pub(super) fn halt_message(reason: &HaltReason) -> String {
    match reason {
        HaltReason::OutOfGas(OutOfGasError::Basic | OutOfGasError::Memory | OutOfGasError::MemoryLimit) => {
            "out of gas".into()
        }
        HaltReason::OutOfGas(other) => format!("out of gas ({other:?})"),
        HaltReason::OpcodeNotFound | HaltReason::InvalidFEOpcode => "invalid opcode".into(),
        HaltReason::StackUnderflow => "stack underflow".into(),
        HaltReason::StackOverflow => "stack limit reached 1024".into(),
        HaltReason::InvalidJump => "invalid jump destination".into(),
        HaltReason::CreateCollision => "contract address collision".into(),
        HaltReason::CreateContractSizeLimit => "max code size exceeded".into(),
        other => format!("execution halted: {other:?}"),
    }
}

/// Why the EVM would not run the request.
fn refusal<E: std::fmt::Display>(error: Refused<E>) -> SourceError {
    match error {
        EVMError::Transaction(_) => SourceError::TransactionRefused(describe(&error)),
        other => SourceError::Unavailable(format!("the EVM failed: {other}")),
    }
}

pub(super) fn invalid(message: String) -> SourceError {
    SourceError::InvalidRequest(message)
}

/// Prague's precompiles: 0x01 to 0x11.
fn is_precompile(address: &Address) -> bool {
    address[..19].iter().all(|byte| *byte == 0) && (1..=0x11).contains(&address[19])
}

pub(super) fn evm_access_list(list: &[AccessListItem]) -> AccessList {
    AccessList(
        list.iter()
            .map(|item| EvmAccessListItem { address: item.address, storage_keys: item.storage_keys.clone() })
            .collect(),
    )
}

/// The overrides as the EVM reads them for a call, which cannot move a
/// precompile (only `eth_simulateV1` does).
fn evm_overrides(overrides: &StateOverrides) -> Result<Overrides, SourceError> {
    overrides
        .0
        .iter()
        .map(|(address, assumed)| {
            if assumed.move_precompile_to_address.is_some() {
                return Err(invalid(format!(
                    "state override of {address}: movePrecompileToAddress is taken by eth_simulateV1, not by this method"
                )));
            }
            Ok((*address, account_override(address, assumed)?))
        })
        .collect()
}

/// One account's override as the EVM reads it; an account may not both
/// replace and change its storage.
pub(super) fn account_override(
    address: &Address,
    assumed: &w3api_types::rpc::AccountOverride,
) -> Result<AccountOverride, SourceError> {
    if assumed.state.is_some() && assumed.state_diff.is_some() {
        return Err(invalid(format!(
            "state override of {address}: both state (replacing the storage) and stateDiff (changing it) are given; \
             send one"
        )));
    }
    let slots = |map: &std::collections::BTreeMap<B256, B256>| {
        map.iter().map(|(slot, value)| (U256::from_be_bytes(slot.0), U256::from_be_bytes(value.0))).collect()
    };
    Ok(AccountOverride {
        balance: assumed.balance,
        nonce: assumed.nonce,
        code: assumed.code.clone(),
        storage: assumed.state.as_ref().map(slots),
        storage_diff: assumed.state_diff.as_ref().map(slots).unwrap_or_default(),
    })
}

/// An authorization of a request (EIP-7702) as alloy signs and revm applies it.
pub(crate) fn signed_authorization(authorization: &Authorization) -> SignedAuthorization {
    let unsigned = alloy_eips::eip7702::Authorization {
        chain_id: authorization.chain_id,
        address: authorization.address,
        nonce: authorization.nonce,
    };
    SignedAuthorization::new_unchecked(unsigned, authorization.y_parity, authorization.r, authorization.s)
}
