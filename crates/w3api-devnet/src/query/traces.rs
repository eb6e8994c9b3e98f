//! Traces on the devnet, as geth's `debug_trace*` methods give them.
//!
//! Nothing is recorded while a block is made: a trace reads the block off
//! the chain ([`ChainData::block_replay`]), then runs its transactions
//! again over the state before it in an execution slot, those before the
//! one asked for untraced (`w3api_chain::trace`). Each traced transaction
//! has its own timeout; a struct log and what a tracer copies are bounded
//! by [`TRACE_BOUNDS`].

use std::ops::Range;
use std::time::{Duration, Instant};

use alloy_primitives::B256;
use w3api_chain::revm::DatabaseRef;
use w3api_chain::revm::context::TxEnv;
use w3api_chain::revm::context::result::EVMError;
use w3api_chain::trace::{
    CallConfig, GethDefaultTracingOptions, GethTrace as EvmTrace, PreStateConfig, Replay, TraceBounds, Traced, Tracer,
    Untraced,
};
use w3api_chain::{BlockSpec, Checks, describe};
use w3api_source::{BlockRef, SourceError};
use w3api_types::rpc::{
    BlockOverrides, BlockTraceResult, CallFrame, GethTrace, StructLogTrace, TraceConfig, TracerKind,
};

use crate::generate::{ChainData, signed_tx_env};

/// What one transaction's trace may record: a struct log of at most this
/// many steps, and this many bytes of memory, call data and return data.
/// A struct log's answer must also fit the gateway's response limit.
pub(crate) const TRACE_BOUNDS: TraceBounds = TraceBounds { most_steps: 100_000, most_recorded_bytes: 64 << 20 };

/// A block read off the chain to be run again: its environment, and its
/// transactions as the EVM takes them.
pub(crate) struct BlockReplay {
    /// The block's number and hash.
    pub(crate) block: (u64, B256),
    /// The block before, whose state the replay starts from.
    parent: u64,
    chain_id: u64,
    spec: BlockSpec,
    transactions: Vec<ReplayedTx>,
}

struct ReplayedTx {
    hash: B256,
    tx: TxEnv,
    /// The block's logs before this transaction's: a call trace's log
    /// indexes count from it, as the receipt's do.
    logs_before: u64,
}

/// One transaction of a replayed block, traced: its hash and place, and
/// its trace or why it has none.
pub(crate) struct TracedTx {
    pub(crate) hash: B256,
    /// Its index in the block.
    pub(crate) position: u64,
    logs_before: u64,
    pub(crate) trace: Result<Traced, String>,
}

impl TracedTx {
    /// The trace as geth's `debug_trace*` methods write a block's.
    pub(crate) fn geth(self) -> Result<BlockTraceResult, SourceError> {
        let (result, error) = match self.trace {
            Ok(trace) => (Some(answer(trace, self.logs_before)?), None),
            Err(error) => (None, Some(error)),
        };
        Ok(BlockTraceResult { tx_hash: self.hash, result, error })
    }
}

impl ChainData {
    /// `block`, read for a replay; geth's error when it has no parent state.
    pub(crate) fn block_replay(&self, block: BlockRef) -> Result<BlockReplay, SourceError> {
        let number = self.existing_block(block).map_err(|_| match block {
            BlockRef::Hash(hash) => SourceError::Untraced(format!("block {hash:#x} not found")),
            BlockRef::Number(number) => SourceError::Untraced(format!("block #{number} not found")),
            tag => SourceError::Untraced(format!("block {tag:?} not found")),
        })?;
        if number == 0 {
            return Err(SourceError::Untraced("genesis is not traceable".into()));
        }
        let record = &self.blocks[number as usize];
        let first = record.first_tx as usize;
        let receipts = &self.receipts[first..first + record.tx_count as usize];
        let first_log = receipts.first().map_or(0, |receipt| receipt.first_log);
        let transactions = self
            .transactions_of(record)
            .iter()
            .zip(receipts)
            .map(|(signed, receipt)| ReplayedTx {
                hash: signed.hash,
                tx: signed_tx_env(&signed.envelope, signed.sender),
                logs_before: u64::from(receipt.first_log - first_log),
            })
            .collect();
        Ok(BlockReplay {
            block: (number, record.hash),
            parent: number - 1,
            chain_id: self.state.chain_id(),
            spec: self.block_spec(number),
            transactions,
        })
    }

    /// The block of the mined transaction `hash`, read for a replay, and
    /// the transaction's place in it.
    pub(crate) fn transaction_replay(&self, hash: B256) -> Result<(BlockReplay, usize), SourceError> {
        let not_found = || SourceError::Untraced("transaction not found".into());
        let position = self.transaction_position(&hash).ok_or_else(not_found)?;
        let block = u64::from(position.block);
        let index = (position.index - self.blocks[block as usize].first_tx) as usize;
        Ok((self.block_replay(BlockRef::Number(block))?, index))
    }
}

impl BlockReplay {
    /// The block whose state after it the replay starts from.
    pub(crate) fn parent(&self) -> u64 {
        self.parent
    }

    /// How many transactions the block holds.
    pub(crate) fn len(&self) -> usize {
        self.transactions.len()
    }

    /// Runs the block's transactions up to the end of `traced` over
    /// `state` (the state after its parent): those before `traced`
    /// untraced, those in it each with `tracer` and at most `timeout`. A
    /// transaction past its timeout or bounds carries its error instead,
    /// and runs again untraced for those after it.
    pub(crate) fn trace<D: DatabaseRef>(
        self,
        state: D,
        traced: Range<usize>,
        (tracer, timeout): (&Tracer, Duration),
        stop: &dyn Fn() -> bool,
    ) -> Result<Vec<TracedTx>, SourceError> {
        let mut replay = Replay::new(state, self.chain_id, self.spec);
        let mut results = Vec::with_capacity(traced.len());
        for (index, replayed) in self.transactions.into_iter().enumerate().take(traced.end) {
            if index < traced.start {
                replay.skip(replayed.tx, stop).map_err(|failed| untraced(failed, stop))?;
                continue;
            }
            let bounded = within(timeout, stop);
            let tx = replayed.tx.clone();
            let trace = match replay.trace(tx, Checks::Impersonated, tracer, TRACE_BOUNDS, &bounded) {
                Ok(trace) => Ok(trace),
                // Past this transaction's own bounds: it carries the error, the block goes on.
                Err(failed @ (Untraced::Stopped | Untraced::TooLarge(_))) if !stop() => {
                    replay.skip(replayed.tx, stop).map_err(|failed| untraced(failed, stop))?;
                    Err(untraced(failed, stop).to_string())
                }
                Err(failed) => return Err(untraced(failed, stop)),
            };
            let (hash, position, logs_before) = (replayed.hash, index as u64, replayed.logs_before);
            results.push(TracedTx { hash, position, logs_before, trace });
        }
        Ok(results)
    }
}

/// `stop`, or else once `timeout` has passed from now: one trace's bound.
pub(super) fn within(timeout: Duration, stop: &dyn Fn() -> bool) -> impl Fn() -> bool + '_ {
    let deadline = Instant::now().checked_add(timeout);
    move || stop() || deadline.is_none_or(|deadline| Instant::now() >= deadline)
}

/// A trace that could not go on: stopped by its caller, its chain
/// replaced under it, or a transaction the chain included refused on the
/// way (which would be a bug of the replay).
pub(super) fn untraced<E: std::fmt::Display>(failed: Untraced<E>, stop: &dyn Fn() -> bool) -> SourceError {
    match failed {
        Untraced::Stopped if stop() => {
            SourceError::Interrupted("the trace was stopped: its caller no longer waits for it".into())
        }
        Untraced::Stopped => SourceError::Untraced("execution timeout".into()),
        Untraced::TooLarge(bound) => SourceError::Untraced(format!("trace too large: {bound}")),
        Untraced::Refused(EVMError::Database(replaced)) => SourceError::Interrupted(replaced.to_string()),
        Untraced::Refused(refused) => {
            let why = describe(&refused);
            tracing::error!(%why, "a transaction the chain included did not run again");
            SourceError::Unavailable(format!("a transaction of the block did not run again: {why}"))
        }
    }
}

/// The tracer `config` names (checked already), with its options.
pub(crate) fn tracer_of(config: &TraceConfig, kind: TracerKind) -> Tracer {
    let options = config.tracer_config.clone().unwrap_or_default();
    match kind {
        TracerKind::StructLogger => Tracer::StructLogs(GethDefaultTracingOptions {
            enable_memory: config.enable_memory,
            disable_memory: config.disable_memory,
            disable_stack: config.disable_stack,
            disable_storage: config.disable_storage,
            enable_return_data: config.enable_return_data,
            disable_return_data: config.disable_return_data,
            debug: None,
            // A limit of 0 is none, as in geth.
            limit: config.limit.filter(|limit| *limit > 0),
        }),
        TracerKind::Call => {
            Tracer::Calls(CallConfig { only_top_call: options.only_top_call, with_log: options.with_log })
        }
        TracerKind::Prestate => Tracer::Prestate(PreStateConfig {
            diff_mode: options.diff_mode,
            disable_code: options.disable_code,
            disable_storage: options.disable_storage,
        }),
        TracerKind::FourByte => Tracer::FourByte,
        TracerKind::Noop => Tracer::Noop,
    }
}

/// Refuses the block overrides only `eth_simulateV1` takes (in geth's
/// words), and those a traced call's environment has no field for here.
pub(crate) fn check_call_overrides(overrides: Option<&BlockOverrides>) -> Result<(), SourceError> {
    let Some(overrides) = overrides else { return Ok(()) };
    let simulation_only =
        [("beaconRoot", overrides.beacon_root.is_some()), ("withdrawals", overrides.withdrawals.is_some())];
    if let Some((name, _)) = simulation_only.iter().find(|(_, given)| *given) {
        return Err(SourceError::InvalidRequest(format!(
            "block override \"{name}\" is not supported for this RPC method"
        )));
    }
    let unsupported =
        [("blobBaseFee", overrides.blob_base_fee.is_some()), ("difficulty", overrides.difficulty.is_some())];
    match unsupported.iter().find(|(_, given)| *given) {
        Some((name, _)) => Err(SourceError::InvalidRequest(format!(
            "block override \"{name}\" is taken by eth_simulateV1 only on the devnet; debug_traceCall takes number, \
             time, gasLimit, feeRecipient, prevRandao and baseFeePerGas"
        ))),
        None => Ok(()),
    }
}

/// `spec` with the fields `overrides` names replaced.
pub(crate) fn overridden_block(spec: BlockSpec, overrides: Option<&BlockOverrides>) -> BlockSpec {
    let Some(overrides) = overrides else { return spec };
    BlockSpec {
        number: overrides.number.unwrap_or(spec.number),
        timestamp: overrides.time.unwrap_or(spec.timestamp),
        beneficiary: overrides.fee_recipient.unwrap_or(spec.beneficiary),
        base_fee: overrides.base_fee_per_gas.map_or(spec.base_fee, |fee| fee.saturating_to()),
        gas_limit: overrides.gas_limit.unwrap_or(spec.gas_limit),
        prevrandao: overrides.prev_randao.unwrap_or(spec.prevrandao),
        ..spec
    }
}

/// A trace as the gateway writes it; a call trace's log indexes counted
/// in the block, after the `logs_before` of the transactions before.
pub(crate) fn answer(trace: Traced, logs_before: u64) -> Result<GethTrace, SourceError> {
    let Traced::Geth(trace) = trace else {
        return Err(SourceError::Unavailable("a trace in parity's shape where geth's was asked".into()));
    };
    let value = serde_json::to_value(&trace).map_err(unwritten)?;
    let typed = match *trace {
        EvmTrace::Default(_) => serde_json::from_value(value).map(|mut logs: StructLogTrace| {
            // geth leaves a refund counter of zero out.
            for step in &mut logs.struct_logs {
                step.refund = step.refund.filter(|refund| *refund > 0);
            }
            GethTrace::StructLogs(logs)
        }),
        EvmTrace::CallTracer(_) => serde_json::from_value(value).map(|mut frame: CallFrame| {
            count_logs_in_block(&mut frame, logs_before);
            GethTrace::Call(Box::new(frame))
        }),
        EvmTrace::PreStateTracer(_) if value.get("pre").is_some() => {
            serde_json::from_value(value).map(GethTrace::PrestateDiff)
        }
        EvmTrace::PreStateTracer(_) => serde_json::from_value(value).map(GethTrace::Prestate),
        EvmTrace::FourByteTracer(_) => serde_json::from_value(value).map(GethTrace::FourByte),
        _ => Ok(GethTrace::Noop(Default::default())),
    };
    typed.map_err(unwritten)
}

/// What a trace could not be written as: a type of ours that parts from
/// alloy's, which would be a bug.
pub(crate) fn unwritten(e: serde_json::Error) -> SourceError {
    SourceError::Unavailable(format!("a trace could not be written: {e}"))
}

fn count_logs_in_block(frame: &mut CallFrame, logs_before: u64) {
    for log in &mut frame.logs {
        log.index = log.index.map(|index| index + logs_before);
    }
    for call in &mut frame.calls {
        count_logs_in_block(call, logs_before);
    }
}
