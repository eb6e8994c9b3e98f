//! Blocks of calls simulated on top of a block (`eth_simulateV1`), with
//! geth's semantics: each block's header fields default from the one
//! before and may be overridden, state is assumed before each block's
//! calls, and the calls run as the block's transactions through alloy-evm's
//! block executor (system calls, withdrawals, requests), so each block has
//! the roots, hash and receipts a real one would. Nothing is kept.

mod build;
mod logs;
mod overlay;
mod precompiles;

use std::borrow::Cow;

use alloy_consensus::proofs::{calculate_receipt_root, calculate_withdrawals_root};
use alloy_consensus::transaction::Recovered;
use alloy_consensus::{
    EMPTY_OMMER_ROOT_HASH, Header, ReceiptEnvelope, Signed, TxEip1559, TxEip4844, TxEip7702, TxEnvelope, TxLegacy,
    TxReceipt,
};
use alloy_eips::eip1559::BaseFeeParams;
use alloy_eips::eip2718::Encodable2718;
use alloy_eips::eip2930::AccessList;
use alloy_eips::eip4895::Withdrawal;
use alloy_eips::eip7702::SignedAuthorization;
use alloy_evm::block::{BlockExecutionError, BlockExecutor};
use alloy_evm::eth::receipt_builder::AlloyReceiptBuilder;
use alloy_evm::eth::{EthBlockExecutionCtx, EthBlockExecutor};
use alloy_evm::precompiles::PrecompilesMap;
use alloy_evm::{EthEvm, Evm, EvmEnv};
use alloy_hardforks::EthereumHardforks;
use alloy_primitives::{Address, B256, Bloom, Bytes, Signature, TxKind, U256};
use revm::context::result::{ExecutionResult, HaltReason, InvalidTransaction};
use revm::context::{Context, TxEnv};
use revm::context_interface::either::Either;
use revm::precompile::{PrecompileSpecId, Precompiles};
use revm::primitives::hardfork::SpecId;
use revm::{MainBuilder, MainContext};

pub use build::{Attributes, Built, GAS_CEILING, next_gas_limit};
pub use logs::{Collected, NATIVE_TOKEN};

use crate::forks::Forks;
use crate::{AccountOverride, ChainState};
use logs::CallLogs;
use overlay::Overlay;
use precompiles::Moved;

/// Most blocks one simulation spans, gaps included (geth's).
pub const MAX_BLOCKS: u64 = 256;
/// Most calls in one simulated block (geth's).
pub const MAX_CALLS_PER_BLOCK: usize = 5_000;
/// Most calls in one simulation (geth's).
pub const MAX_CALLS: usize = 10_000;
/// Seconds between a block and the next when its time is not given (geth's).
const TIME_STEP: u64 = 12;

/// Header fields a simulated block takes instead of its defaults.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HeaderOverrides {
    /// Its number: the block after the one before by default.
    pub number: Option<u64>,
    /// Its time: 12 s after the block before by default.
    pub time: Option<u64>,
    /// Its gas limit: the block before's by default.
    pub gas_limit: Option<u64>,
    /// Its fee recipient: the block before's by default.
    pub fee_recipient: Option<Address>,
    /// Its PREVRANDAO: zero by default.
    pub prev_randao: Option<B256>,
    /// Its base fee: 0 by default, or without validation the EIP-1559
    /// successor of the block before's.
    pub base_fee: Option<u64>,
    /// Its blob base fee, which only the EVM sees.
    pub blob_base_fee: Option<u128>,
    /// Its difficulty (before the merge).
    pub difficulty: Option<U256>,
    /// Its parent beacon block root: zero by default.
    pub beacon_root: Option<B256>,
    /// Its withdrawals: none by default.
    pub withdrawals: Option<Vec<Withdrawal>>,
}

/// A call, as `eth_call` takes one: every field optional.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Call {
    /// Sender: the zero address by default.
    pub from: Address,
    /// Recipient; a contract creation without one.
    pub to: Option<Address>,
    /// Gas: what is left of the block by default.
    pub gas: Option<u64>,
    /// Legacy gas price: makes the transaction a legacy one.
    pub gas_price: Option<u128>,
    /// EIP-1559 fee cap.
    pub max_fee_per_gas: Option<u128>,
    /// EIP-1559 tip cap.
    pub max_priority_fee_per_gas: Option<u128>,
    /// EIP-4844 blob fee cap.
    pub max_fee_per_blob_gas: Option<u128>,
    /// Wei sent.
    pub value: U256,
    /// Nonce: the sender's by default.
    pub nonce: Option<u64>,
    /// Call data or init code.
    pub input: Bytes,
    /// EIP-2930 access list.
    pub access_list: Option<AccessList>,
    /// EIP-4844 blob hashes.
    pub blob_hashes: Option<Vec<B256>>,
    /// EIP-7702 authorizations.
    pub authorizations: Option<Vec<SignedAuthorization>>,
    /// Chain id; must be the chain's when given.
    pub chain_id: Option<u64>,
}

/// A block to simulate.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BlockCalls {
    /// Its header fields.
    pub header: HeaderOverrides,
    /// State assumed before its calls, with precompiles moved away
    /// (`move_to`), which the blocks after keep (but the moves).
    pub state: Vec<(Address, AccountOverride, Option<Address>)>,
    /// Its calls.
    pub calls: Vec<Call>,
}

/// How to simulate.
pub struct Options<'a> {
    /// The chain's forks.
    pub forks: &'a Forks,
    /// The block simulated on: its header.
    pub base: &'a Header,
    /// Whether calls are checked as transactions of a block: nonce, and
    /// fees against a base fee that follows EIP-1559.
    pub validation: bool,
    /// Whether native transfers are logged.
    pub trace_transfers: bool,
    /// Most gas all calls may use together; 0 for no cap.
    pub gas_cap: u64,
    /// Asked while the EVM runs; the simulation ends once it says yes.
    pub stop: &'a dyn Fn() -> bool,
}

/// A simulated block.
#[derive(Clone, Debug)]
pub struct SimulatedBlock {
    /// Its header, roots and all.
    pub header: Header,
    /// Its hash.
    pub hash: B256,
    /// Its transactions, unsigned (a zero signature).
    pub transactions: Vec<TxEnvelope>,
    /// Each transaction's sender.
    pub senders: Vec<Address>,
    /// Each transaction's receipt.
    pub receipts: Vec<ReceiptEnvelope>,
    /// Its withdrawals, where its fork has them.
    pub withdrawals: Option<Vec<Withdrawal>>,
    /// What each call did.
    pub calls: Vec<CallOutcome>,
    /// Its EIP-7685 requests, where its fork has them.
    pub requests: Option<alloy_eips::eip7685::Requests>,
}

/// What a simulated call did.
#[derive(Clone, Debug)]
pub struct CallOutcome {
    /// What it returned; empty when it failed.
    pub output: Bytes,
    /// Its logs (and transfers), in order.
    pub logs: Vec<Collected>,
    /// Gas used, after refunds.
    pub gas_used: u64,
    /// Gas used before refunds.
    pub max_used_gas: u64,
    /// How it failed, if it did.
    pub failure: Option<Failure>,
    /// Whether its gas was cut to what the cap left.
    pub gas_capped: bool,
}

/// How a call failed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Failure {
    /// It ran REVERT, with this data.
    Reverted(Bytes),
    /// It stopped otherwise.
    Halted(HaltReason),
}

/// Why nothing is simulated.
#[derive(Debug, thiserror::Error)]
pub enum SimulateError {
    /// Block numbers that do not increase.
    #[error("block numbers must be in order: {number} <= {previous}")]
    NumberOrder {
        /// The block's number.
        number: u64,
        /// The number before.
        previous: u64,
    },
    /// Block times that do not increase.
    #[error("block timestamps must be in order: {time} <= {previous}")]
    TimeOrder {
        /// The block's time.
        time: u64,
        /// The time before.
        previous: u64,
    },
    /// More blocks than a simulation spans.
    #[error("too many blocks")]
    TooManyBlocks,
    /// A call needing more gas than its block has left.
    #[error("block gas limit reached: remaining: {remaining}, required: {required}")]
    BlockGasLimit {
        /// Gas left in the block.
        remaining: u64,
        /// Gas the call asked for.
        required: u64,
    },
    /// A call the chain would not take as a transaction.
    #[error("err: {message} (supplied gas {gas})")]
    Transaction {
        /// Why, as revm says it.
        reason: InvalidTransaction,
        /// In geth's words.
        message: String,
        /// The call's gas.
        gas: u64,
    },
    /// A call that is not well formed (fees of both kinds, another chain id).
    #[error("{0}")]
    Call(String),
    /// A state override that cannot be applied.
    #[error("{0}")]
    Override(String),
    /// All calls together used more gas than the cap.
    #[error("RPC gas cap exhausted: need {need}, remaining {remaining}")]
    GasCap {
        /// Gas the call used.
        need: u64,
        /// Gas the cap had left.
        remaining: u64,
    },
    /// The caller's stop said so.
    #[error("the simulation was stopped")]
    Stopped,
    /// A block the executor refused (a system call that failed).
    #[error("{0}")]
    Block(String),
}

/// A block's header fields once defaults are filled in, and its calls.
struct Planned {
    header: HeaderOverrides,
    number: u64,
    time: u64,
    state: Vec<(Address, AccountOverride, Option<Address>)>,
    transactions: Transactions,
}

/// What a block runs: calls, as a simulation runs them, or transactions
/// someone signed, checked as a block checks them.
enum Transactions {
    Calls(Vec<Call>),
    Signed(Vec<Recovered<TxEnvelope>>),
}

impl Transactions {
    fn len(&self) -> usize {
        match self {
            Transactions::Calls(calls) => calls.len(),
            Transactions::Signed(signed) => signed.len(),
        }
    }
}

/// Numbers and times in order, gaps filled with empty blocks 12 s apart.
fn plan(base: &Header, blocks: Vec<BlockCalls>) -> Result<Vec<Planned>, SimulateError> {
    let (mut number, mut time) = (base.number, base.timestamp);
    let mut planned = Vec::with_capacity(blocks.len());
    for block in blocks {
        let next = block.header.number.unwrap_or(number.saturating_add(1));
        if next <= number {
            return Err(SimulateError::NumberOrder { number: next, previous: number });
        }
        if next - base.number > MAX_BLOCKS {
            return Err(SimulateError::TooManyBlocks);
        }
        for gap in number + 1..next {
            time += TIME_STEP;
            let header = HeaderOverrides::default();
            let transactions = Transactions::Calls(Vec::new());
            planned.push(Planned { header, number: gap, time, state: Vec::new(), transactions });
        }
        let at = match block.header.time {
            Some(at) if at <= time => return Err(SimulateError::TimeOrder { time: at, previous: time }),
            Some(at) => at,
            None => time + TIME_STEP,
        };
        (number, time) = (next, at);
        let transactions = Transactions::Calls(block.calls);
        planned.push(Planned { header: block.header, number, time, state: block.state, transactions });
    }
    Ok(planned)
}

impl ChainState {
    /// Simulates `blocks` on top of `options.base`, which must be a block
    /// of this chain.
    pub fn simulate(
        &self,
        options: &Options<'_>,
        blocks: Vec<BlockCalls>,
    ) -> Result<Vec<SimulatedBlock>, SimulateError> {
        let planned = plan(options.base, blocks)?;
        let mut overlay = Overlay::new(self, options.base.number);
        let mut budget = if options.gas_cap == 0 { u64::MAX } else { options.gas_cap };
        let mut previous = options.base.clone();
        let mut results = Vec::with_capacity(planned.len());
        for block in planned {
            let header = preliminary(options, &previous, &block);
            let simulated = self.simulate_block(options, &mut overlay, &mut budget, header, block)?;
            overlay.set_block_hash(simulated.header.number, simulated.hash);
            previous = simulated.header.clone();
            results.push(simulated);
        }
        Ok(results)
    }

    fn simulate_block(
        &self,
        options: &Options<'_>,
        overlay: &mut Overlay<'_>,
        budget: &mut u64,
        header: Header,
        block: Planned,
    ) -> Result<SimulatedBlock, SimulateError> {
        let forks = options.forks;
        overlay.clear_empty = forks.spec_at(header.number, header.timestamp) >= SpecId::SPURIOUS_DRAGON;
        for (address, assumed, _) in &block.state {
            overlay.assume(*address, assumed);
        }
        let withdrawals = forks
            .is_shanghai_active_at_timestamp(header.timestamp)
            .then(|| block.header.withdrawals.clone().unwrap_or_default());
        let evm = self.block_evm(options, &header, &block, &mut *overlay)?;
        let context = EthBlockExecutionCtx {
            parent_hash: header.parent_hash,
            parent_beacon_block_root: header.parent_beacon_block_root,
            ommers: &[],
            withdrawals: withdrawals.as_deref().map(Cow::Borrowed),
            extra_data: header.extra_data.clone(),
            tx_count_hint: Some(block.transactions.len()),
            slot_number: None,
        };
        let mut executor = EthBlockExecutor::new(evm, context, forks, AlloyReceiptBuilder::default());
        executor.apply_pre_execution_changes().map_err(|error| SimulateError::Block(error.to_string()))?;
        executor.evm_mut().inspector_mut().take();
        let mut ran = Ran::default();
        match block.transactions {
            Transactions::Calls(calls) => {
                for call in calls {
                    self.run_call(&mut executor, options, &header, call, budget, &mut ran)?;
                }
            }
            Transactions::Signed(signed) => {
                for tx in signed {
                    run_signed(&mut executor, tx, &mut ran)?;
                }
            }
        }
        let (_, result) = executor.finish().map_err(|error| SimulateError::Block(error.to_string()))?;
        Ok(seal(forks, header, ran, result, withdrawals, overlay))
    }

    /// The EVM a block's transactions run in: its header's environment
    /// (with the blob base fee overridden), calls as geth runs simulated
    /// ones (any sender, no per-transaction gas cap), and its precompiles
    /// as moved.
    fn block_evm<'r, 'c, 's>(
        &self,
        options: &Options<'s>,
        header: &Header,
        block: &Planned,
        overlay: &'r mut Overlay<'c>,
    ) -> Result<BlockEvm<'r, 'c, 's>, SimulateError> {
        let forks = options.forks;
        let blobs = forks.blob_params_at(header.timestamp);
        let mut env = EvmEnv::for_eth_block(header, forks, self.chain_id, blobs);
        if let (Some(fee), Some(priced)) =
            (block.header.blob_base_fee, env.block_env.blob_excess_gas_and_price.as_mut())
        {
            priced.blob_gasprice = fee;
        }
        if let Transactions::Calls(_) = block.transactions {
            env.cfg_env.disable_eip3607 = true;
            env.cfg_env.tx_gas_limit_cap = Some(u64::MAX);
            env.cfg_env.disable_nonce_check = !options.validation;
        }
        let fork_precompiles = Precompiles::new(PrecompileSpecId::from_spec_id(env.cfg_env.spec));
        let precompiles = Moved::new(PrecompilesMap::from_static(fork_precompiles), &block.state)?;
        let inner = Context::mainnet()
            .with_block(env.block_env)
            .with_cfg(env.cfg_env)
            .with_db(overlay)
            .build_mainnet_with_inspector(CallLogs::new(options.stop, options.trace_transfers))
            .with_precompiles(precompiles);
        Ok(EthEvm::new(inner, true))
    }

    /// Runs one call as the block's next transaction.
    fn run_call(
        &self,
        executor: &mut Executor<'_, '_, '_, '_>,
        options: &Options<'_>,
        header: &Header,
        call: Call,
        budget: &mut u64,
        ran: &mut Ran,
    ) -> Result<(), SimulateError> {
        let remaining = header.gas_limit.saturating_sub(ran.gas_used);
        let nonce = state_nonce(executor, &call);
        let (tx, mut env, gas_capped) = self.prepare_call(nonce, call, header, remaining, *budget)?;
        if options.validation {
            check_nonce(env.nonce, nonce, env.gas_limit)?;
        } else {
            // Unchecked, the nonce is only the transaction's: the EVM
            // would refuse the highest one even so.
            env.nonce = 0;
        }
        let (sender, gas) = (env.caller, env.gas_limit);
        executor.evm_mut().ctx_mut().cfg.disable_base_fee = !options.validation && unpriced(&env);
        let output = executor
            .execute_transaction_without_commit((env, Recovered::new_unchecked(&tx, sender)))
            .map_err(|error| refused(error, gas))?;
        if executor.evm_mut().inspector_mut().stopped() {
            return Err(SimulateError::Stopped);
        }
        let result = output.result.result.clone();
        executor.commit_transaction(output);
        if nonce == u64::MAX {
            // geth's nonce wraps past the highest (only an unchecked call
            // can get there); the EVM's stays at it.
            executor.evm_mut().db_mut().set_nonce(sender, 0);
        }
        let used = result.tx_gas_used();
        ran.gas_used += used;
        *budget = budget.checked_sub(used).ok_or(SimulateError::GasCap { need: used, remaining: *budget })?;
        let logs = executor.evm_mut().inspector_mut().take();
        ran.calls.push(outcome(result, logs, gas_capped));
        ran.transactions.push(tx);
        ran.senders.push(sender);
        Ok(())
    }
}

/// Runs a signed transaction as the block's next, checked as a block checks it.
fn run_signed(
    executor: &mut Executor<'_, '_, '_, '_>,
    tx: Recovered<TxEnvelope>,
    ran: &mut Ran,
) -> Result<(), SimulateError> {
    let gas = alloy_consensus::Transaction::gas_limit(tx.inner());
    let output = executor.execute_transaction_without_commit(&tx).map_err(|error| refused(error, gas))?;
    if executor.evm_mut().inspector_mut().stopped() {
        return Err(SimulateError::Stopped);
    }
    let result = output.result.result.clone();
    executor.commit_transaction(output);
    ran.gas_used += result.tx_gas_used();
    let logs = executor.evm_mut().inspector_mut().take();
    ran.calls.push(outcome(result, logs, false));
    let (tx, sender) = tx.into_parts();
    ran.transactions.push(tx);
    ran.senders.push(sender);
    Ok(())
}

/// The EVM of a simulated block: over the overlay it borrows (`'r`) of a
/// chain's state (`'c`), stopped by its caller's question (`'s`).
type BlockEvm<'r, 'c, 's> = EthEvm<&'r mut Overlay<'c>, CallLogs<'s>, Moved>;

/// The block executor of a simulated block.
type Executor<'a, 'r, 'c, 's> = EthBlockExecutor<'a, BlockEvm<'r, 'c, 's>, &'a Forks, AlloyReceiptBuilder>;

/// What a block's calls did so far.
#[derive(Default)]
struct Ran {
    transactions: Vec<TxEnvelope>,
    senders: Vec<Address>,
    calls: Vec<CallOutcome>,
    gas_used: u64,
}

/// A simulated block's header completed from what its calls did, and the block.
fn seal(
    forks: &Forks,
    mut header: Header,
    ran: Ran,
    result: alloy_evm::block::BlockExecutionResult<ReceiptEnvelope>,
    withdrawals: Option<Vec<Withdrawal>>,
    overlay: &mut Overlay<'_>,
) -> SimulatedBlock {
    header.gas_used = result.gas_used;
    if forks.is_cancun_active_at_timestamp(header.timestamp) {
        header.blob_gas_used = Some(result.blob_gas_used);
    }
    let requests = forks.is_prague_active_at_timestamp(header.timestamp).then_some(result.requests);
    header.requests_hash = requests.as_ref().map(alloy_eips::eip7685::Requests::requests_hash);
    header.transactions_root = transactions_root(&ran.transactions);
    header.receipts_root = calculate_receipt_root(&result.receipts);
    header.logs_bloom = result.receipts.iter().fold(Bloom::ZERO, |bloom, receipt| bloom | receipt.bloom());
    header.withdrawals_root = withdrawals.as_deref().map(calculate_withdrawals_root);
    header.state_root = overlay.root();
    let hash = header.hash_slow();
    let Ran { transactions, senders, calls, .. } = ran;
    SimulatedBlock { header, hash, transactions, senders, receipts: result.receipts, withdrawals, calls, requests }
}

/// The first base fee of a chain turning to EIP-1559 (geth's).
const INITIAL_BASE_FEE: u64 = 1_000_000_000;

/// A block's header before its calls run: numbers, time, and the fields
/// that default from the block before.
fn preliminary(options: &Options<'_>, previous: &Header, block: &Planned) -> Header {
    let (forks, number, time, overrides) = (options.forks, block.number, block.time, &block.header);
    let difficulty = if forks.is_paris_active_at_block(number) { U256::ZERO } else { previous.difficulty };
    let base_fee_per_gas = forks.is_london_active_at_block(number).then(|| {
        overrides.base_fee.unwrap_or_else(|| match options.validation {
            true => previous.next_block_base_fee(BaseFeeParams::ethereum()).unwrap_or(INITIAL_BASE_FEE),
            false => 0,
        })
    });
    let cancun = forks.is_cancun_active_at_timestamp(time);
    let excess_blob_gas = cancun.then(|| match (previous.excess_blob_gas, forks.blob_params_at(time)) {
        (Some(excess), Some(blobs)) => blobs.next_block_excess_blob_gas_osaka(
            excess,
            previous.blob_gas_used.unwrap_or_default(),
            previous.base_fee_per_gas.unwrap_or_default(),
        ),
        _ => 0,
    });
    Header {
        parent_hash: previous.hash_slow(),
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: overrides.fee_recipient.unwrap_or(previous.beneficiary),
        difficulty: overrides.difficulty.unwrap_or(difficulty),
        number,
        gas_limit: overrides.gas_limit.unwrap_or(previous.gas_limit),
        timestamp: time,
        mix_hash: overrides.prev_randao.unwrap_or_default(),
        base_fee_per_gas,
        parent_beacon_block_root: cancun.then(|| overrides.beacon_root.unwrap_or_default()),
        excess_blob_gas,
        ..Header::default()
    }
}

/// The nonce `call`'s sender has now, in the simulation.
fn state_nonce<E: BlockExecutor>(executor: &mut E, call: &Call) -> u64
where
    <E::Evm as Evm>::DB: revm::Database<Error = std::convert::Infallible>,
{
    use revm::Database;
    let info = executor.evm_mut().db_mut().basic(call.from);
    info.ok().flatten().map_or(0, |info| info.nonce)
}

/// A call's nonce against its sender's, checked first as geth checks it
/// (the EVM would check fees first).
fn check_nonce(tx: u64, state: u64, gas: u64) -> Result<(), SimulateError> {
    let reason = match tx.cmp(&state) {
        std::cmp::Ordering::Greater => InvalidTransaction::NonceTooHigh { tx, state },
        std::cmp::Ordering::Less => InvalidTransaction::NonceTooLow { tx, state },
        std::cmp::Ordering::Equal if state == u64::MAX => InvalidTransaction::NonceOverflowInTransaction,
        std::cmp::Ordering::Equal => return Ok(()),
    };
    Err(SimulateError::Transaction { message: crate::evm::describe_invalid(&reason), reason, gas })
}

/// Whether a call names no fee at all, so that no base fee applies to it
/// without validation (geth's `NoBaseFee`).
fn unpriced(env: &TxEnv) -> bool {
    env.gas_price == 0 && env.gas_priority_fee.unwrap_or_default() == 0
}

/// Why a call was not run, by the class of its refusal.
fn refused(error: BlockExecutionError, gas: u64) -> SimulateError {
    let invalid = error.as_validation().and_then(|validation| match validation {
        alloy_evm::block::BlockValidationError::InvalidTx { error, .. } => error.as_invalid_tx_err().cloned(),
        _ => None,
    });
    match invalid {
        Some(reason) => SimulateError::Transaction { message: crate::evm::describe_invalid(&reason), reason, gas },
        None => SimulateError::Block(error.to_string()),
    }
}

/// A call's outcome from its execution and the logs collected.
fn outcome(result: ExecutionResult, logs: Vec<Collected>, gas_capped: bool) -> CallOutcome {
    let gas = result.gas();
    let (gas_used, max_used_gas) = (gas.tx_gas_used(), gas.total_gas_spent().max(gas.tx_gas_used()));
    let (output, failure) = match result {
        ExecutionResult::Success { output, .. } => (output.into_data(), None),
        ExecutionResult::Revert { output, .. } => (Bytes::new(), Some(Failure::Reverted(output))),
        ExecutionResult::Halt { reason, .. } => (Bytes::new(), Some(Failure::Halted(reason))),
    };
    let logs = if failure.is_some() { Vec::new() } else { logs };
    CallOutcome { output, logs, gas_used, max_used_gas, failure, gas_capped }
}

/// The zero signature of a simulated transaction, which nobody signed.
fn unsigned() -> Signature {
    Signature::new(U256::ZERO, U256::ZERO, false)
}

/// A legacy transaction nobody signed, as geth encodes one: v, r and s all
/// zero (a signature type cannot say v = 0, so the encoding is written here).
pub fn unsigned_legacy_encoding(tx: &TxLegacy) -> Vec<u8> {
    use alloy_consensus::transaction::RlpEcdsaEncodableTx;
    use alloy_rlp::{EMPTY_STRING_CODE, Header as RlpHeader};
    let payload_length = tx.rlp_encoded_fields_length() + 3;
    let mut out = Vec::with_capacity(payload_length + 9);
    RlpHeader { list: true, payload_length }.encode(&mut out);
    tx.rlp_encode_fields(&mut out);
    out.extend([EMPTY_STRING_CODE; 3]);
    out
}

fn unsigned_legacy(tx: TxLegacy) -> TxEnvelope {
    let hash = alloy_primitives::keccak256(unsigned_legacy_encoding(&tx));
    TxEnvelope::Legacy(Signed::new_unchecked(tx, unsigned(), hash))
}

/// The transactions root of a simulated block, each transaction encoded as
/// geth encodes it unsigned.
fn transactions_root(transactions: &[TxEnvelope]) -> B256 {
    alloy_trie::root::ordered_trie_root_with_encoder(transactions, |tx, out| match tx {
        TxEnvelope::Legacy(signed) => out.extend(unsigned_legacy_encoding(signed.tx())),
        typed => typed.encode_2718(out),
    })
}

impl ChainState {
    /// A call as the block's next transaction: its defaults filled in as
    /// geth fills them, the transaction it stands for (for hashes and
    /// roots) and what the EVM runs.
    fn prepare_call(
        &self,
        state_nonce: u64,
        call: Call,
        header: &Header,
        remaining: u64,
        budget: u64,
    ) -> Result<(TxEnvelope, TxEnv, bool), SimulateError> {
        let nonce = call.nonce.unwrap_or(state_nonce);
        let asked = call.gas.unwrap_or(remaining);
        if remaining < asked {
            return Err(SimulateError::BlockGasLimit { remaining, required: asked });
        }
        let gas = asked.min(budget);
        if call.gas_price.is_some() && (call.max_fee_per_gas.is_some() || call.max_priority_fee_per_gas.is_some()) {
            return Err(SimulateError::Call(
                "both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified".into(),
            ));
        }
        let chain_id = self.chain_id;
        if let Some(have) = call.chain_id.filter(|have| *have != chain_id) {
            return Err(SimulateError::Call(format!("chainId does not match node's (have={have}, want={chain_id})")));
        }
        let gas_price = call.gas_price.or(header.base_fee_per_gas.is_none().then_some(0));
        let max_fee = call.max_fee_per_gas.unwrap_or_default();
        let tip = call.max_priority_fee_per_gas.unwrap_or_default();
        let to = call.to.map_or(TxKind::Create, TxKind::Call);
        let access_list = call.access_list.clone().unwrap_or_default();
        let needs_to = |kind: &str| {
            call.to.ok_or_else(|| SimulateError::Call(format!("a {kind} transaction needs a recipient (\"to\")")))
        };
        let tx: TxEnvelope = match (gas_price, &call.authorizations, &call.blob_hashes) {
            (Some(gas_price), _, _) => unsigned_legacy(TxLegacy {
                chain_id: None,
                nonce,
                gas_price,
                gas_limit: gas,
                to,
                value: call.value,
                input: call.input.clone(),
            }),
            (None, Some(authorizations), _) => TxEnvelope::Eip7702(Signed::new_unhashed(
                TxEip7702 {
                    chain_id,
                    nonce,
                    gas_limit: gas,
                    max_fee_per_gas: max_fee,
                    max_priority_fee_per_gas: tip,
                    to: needs_to("set-code")?,
                    value: call.value,
                    access_list,
                    authorization_list: authorizations.clone(),
                    input: call.input.clone(),
                },
                unsigned(),
            )),
            (None, None, Some(hashes)) => TxEnvelope::Eip4844(Signed::new_unhashed(
                TxEip4844 {
                    chain_id,
                    nonce,
                    gas_limit: gas,
                    max_fee_per_gas: max_fee,
                    max_priority_fee_per_gas: tip,
                    to: needs_to("blob")?,
                    value: call.value,
                    access_list,
                    blob_versioned_hashes: hashes.clone(),
                    max_fee_per_blob_gas: call.max_fee_per_blob_gas.unwrap_or_default(),
                    input: call.input.clone(),
                }
                .into(),
                unsigned(),
            )),
            (None, None, None) => TxEnvelope::Eip1559(Signed::new_unhashed(
                TxEip1559 {
                    chain_id,
                    nonce,
                    gas_limit: gas,
                    max_fee_per_gas: max_fee,
                    max_priority_fee_per_gas: tip,
                    to,
                    value: call.value,
                    access_list,
                    input: call.input.clone(),
                },
                unsigned(),
            )),
        };
        // geth runs a call's access list whatever its transaction's type:
        // a legacy one with an access list runs as EIP-2930's.
        let evm_type = match tx.tx_type() as u8 {
            0 if call.access_list.is_some() => 1,
            other => other,
        };
        let env = TxEnv {
            tx_type: evm_type,
            caller: call.from,
            gas_limit: gas,
            gas_price: gas_price.unwrap_or(max_fee),
            gas_priority_fee: gas_price.is_none().then_some(tip),
            kind: to,
            value: call.value,
            data: call.input,
            nonce,
            chain_id: Some(chain_id),
            access_list: call.access_list.unwrap_or_default(),
            blob_hashes: call.blob_hashes.unwrap_or_default(),
            max_fee_per_blob_gas: call.max_fee_per_blob_gas.unwrap_or_default(),
            authorization_list: call.authorizations.unwrap_or_default().into_iter().map(Either::Left).collect(),
        };
        Ok((tx, env, gas < asked))
    }
}
