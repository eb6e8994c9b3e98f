//! Tracing a transaction with revm-inspectors' tracers, as geth's
//! `debug_trace*` methods ask: nothing is recorded while a block is made,
//! so a trace runs the transaction again at its place in its block.
//!
//! A [`Replay`] starts from the state before a block and runs the block's
//! transactions in order: those before the one asked for without a tracer
//! ([`Replay::skip`]), then each traced one ([`Replay::trace`]), keeping
//! what each changed for the next.

use alloy_primitives::map::HashSet;
/// The tracers' options and answers, as alloy types them.
pub use alloy_rpc_types_trace::geth::{CallConfig, GethDefaultTracingOptions, GethTrace, PreStateConfig};
/// What parity's tracer records, and answers.
pub use alloy_rpc_types_trace::parity::{TraceResults, TraceType};

use alloy_rpc_types_trace::geth::{FourByteFrame, NoopFrame};
use revm::context::result::EVMError;
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database::CacheDB;
use revm::inspector::NoOpInspector;
use revm::{DatabaseCommit, DatabaseRef, InspectEvm, Inspector, MainBuilder, MainContext};
use revm_inspectors::tracing::{
    FourByteInspector, TraceLimitBehavior, TraceLimits, TracingInspector, TracingInspectorConfig,
};

use crate::evm::{BlockSpec, Checks, Outcome, Refused, config};
use crate::overrides::{Overridden, Overrides};
use crate::watch::Watch;

/// One of geth's built-in tracers, with its options.
#[derive(Clone, Debug)]
pub enum Tracer {
    /// The struct logger: every step.
    StructLogs(GethDefaultTracingOptions),
    /// `callTracer`: the tree of calls.
    Calls(CallConfig),
    /// `prestateTracer`: the accounts touched, before (and after).
    Prestate(PreStateConfig),
    /// `4byteTracer`: selectors called, by input size.
    FourByte,
    /// `noopTracer`: runs, records nothing.
    Noop,
    /// Parity's (the `trace_*` methods): the calls as a flat list, the
    /// VM's steps, the state's changes, as many of them as are asked.
    Parity(HashSet<TraceType>),
}

/// A transaction's trace, in geth's shape or in parity's.
#[derive(Clone, Debug)]
pub enum Traced {
    /// One of geth's tracers'.
    Geth(Box<GethTrace>),
    /// Parity's.
    Parity(TraceResults),
}

/// What bounds one transaction's trace besides its caller's `stop`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TraceBounds {
    /// Most steps a tracer that records each step may record.
    pub most_steps: u64,
    /// Most bytes of memory, call data and return data it may copy.
    pub most_recorded_bytes: usize,
}

/// Why a transaction has no trace.
#[derive(Debug)]
pub enum Untraced<E> {
    /// The EVM refused the transaction, or reading the state failed.
    Refused(Refused<E>),
    /// Its caller's `stop` said so before it ended.
    Stopped,
    /// It recorded more than [`TraceBounds`] allow: which bound.
    TooLarge(String),
}

/// Traces `tx` run in `block` over `state` with `overrides` assumed, as
/// `debug_traceCall` runs a call: nothing is kept.
pub fn trace_call<D: DatabaseRef>(
    state: D,
    (chain_id, block): (u64, BlockSpec),
    tx: TxEnv,
    checks: Checks,
    overrides: &Overrides,
    (tracer, bounds): (&Tracer, TraceBounds),
    stop: &dyn Fn() -> bool,
) -> Result<Traced, Untraced<D::Error>> {
    Replay::new(Overridden::new(state, overrides), chain_id, block).trace(tx, checks, tracer, bounds, stop)
}

/// A block's transactions run again in order over the state before it.
pub struct Replay<D: DatabaseRef> {
    state: CacheDB<D>,
    chain_id: u64,
    block: BlockSpec,
}

impl<D: DatabaseRef> Replay<D> {
    /// A replay of `block` over `state`, the state after the block before it.
    pub fn new(state: D, chain_id: u64, block: BlockSpec) -> Replay<D> {
        Replay { state: CacheDB::new(state), chain_id, block }
    }

    /// Runs a transaction the block included, untraced, and keeps what it
    /// changed. Its sender may have code: the block held it already.
    pub fn skip(&mut self, tx: TxEnv, stop: &dyn Fn() -> bool) -> Result<(), Untraced<D::Error>> {
        let outcome = self.run(tx, Checks::Impersonated, None, &mut NoOpInspector, stop)?;
        self.state.commit(outcome.state);
        Ok(())
    }

    /// Runs `tx` with `tracer`, keeps what it changed, and answers its trace.
    pub fn trace(
        &mut self,
        tx: TxEnv,
        checks: Checks,
        tracer: &Tracer,
        bounds: TraceBounds,
        stop: &dyn Fn() -> bool,
    ) -> Result<Traced, Untraced<D::Error>> {
        let gas_limit = tx.gas_limit;
        let (outcome, trace) = match tracer {
            Tracer::Parity(types) => {
                let mut inspector = recording(TracingInspectorConfig::from_parity_config(types), bounds);
                let most = types.contains(&TraceType::VmTrace).then_some(bounds.most_steps);
                let outcome = self.run(tx, checks, most, &mut inspector, stop)?;
                check_recorded(&inspector, bounds)?;
                // The state before the transaction: what it changed is not kept yet.
                let results =
                    inspector.into_parity_builder().into_trace_results_with_state(&outcome, types, &self.state);
                self.state.commit(outcome.state);
                return results.map(Traced::Parity).map_err(|e| Untraced::Refused(EVMError::Database(e)));
            }
            Tracer::Noop => {
                let outcome = self.run(tx, checks, None, &mut NoOpInspector, stop)?;
                (outcome, GethTrace::NoopTracer(NoopFrame::default()))
            }
            Tracer::FourByte => {
                let mut inspector = FourByteInspector::default();
                let outcome = self.run(tx, checks, None, &mut inspector, stop)?;
                (outcome, GethTrace::FourByteTracer(FourByteFrame::from(&inspector)))
            }
            Tracer::StructLogs(options) => {
                let config = TracingInspectorConfig::from_geth_config(options);
                let mut inspector = recording(config, bounds);
                let most = Some(bounds.most_steps);
                let outcome = self.run(tx, checks, most, &mut inspector, stop)?;
                check_recorded(&inspector, bounds)?;
                let inspector = inspector.with_transaction_gas_limit(gas_limit);
                let output = outcome.result.output().cloned().unwrap_or_default();
                let frame = inspector.geth_builder().geth_traces(outcome.result.tx_gas_used(), output, *options);
                (outcome, GethTrace::Default(frame))
            }
            Tracer::Calls(options) => {
                let mut inspector = recording(TracingInspectorConfig::from_geth_call_config(options), bounds);
                let outcome = self.run(tx, checks, None, &mut inspector, stop)?;
                check_recorded(&inspector, bounds)?;
                let inspector = inspector.with_transaction_gas_limit(gas_limit);
                let frame = inspector.geth_builder().geth_call_traces(*options, outcome.result.tx_gas_used());
                (outcome, GethTrace::CallTracer(frame))
            }
            Tracer::Prestate(options) => {
                let config = TracingInspectorConfig::from_geth_prestate_config(options);
                let mut inspector = recording(config, bounds);
                let outcome = self.run(tx, checks, None, &mut inspector, stop)?;
                check_recorded(&inspector, bounds)?;
                // The state before the transaction: what it changed is not kept yet.
                let frame = inspector.geth_builder().geth_prestate_traces(&outcome, options, &self.state);
                (outcome, GethTrace::PreStateTracer(frame.map_err(|e| Untraced::Refused(EVMError::Database(e)))?))
            }
        };
        self.state.commit(outcome.state);
        Ok(Traced::Geth(Box::new(trace)))
    }

    /// One run of `tx` with `inspector` beside the watch that stops it.
    fn run<'db, I>(
        &'db mut self,
        tx: TxEnv,
        checks: Checks,
        most_steps: Option<u64>,
        inspector: &mut I,
        stop: &dyn Fn() -> bool,
    ) -> Result<Outcome, Untraced<D::Error>>
    where
        I: Inspector<Replaying<'db, D>>,
    {
        let watch = match most_steps {
            Some(most) => Watch::at_most(stop, most),
            None => Watch::new(stop),
        };
        let context = Context::mainnet()
            .with_db(&mut self.state)
            .with_cfg(config(self.chain_id, checks))
            .with_block(crate::evm::block_env(&self.block, checks));
        let mut pair = (watch, inspector);
        let run = context.build_mainnet_with_inspector(&mut pair).inspect_tx(tx);
        let watch = &pair.0;
        match run {
            _ if watch.too_long() => Err(Untraced::TooLarge(format!("more than {} steps", most_steps.unwrap_or(0)))),
            _ if watch.stopped() => Err(Untraced::Stopped),
            Ok(outcome) => Ok(outcome),
            Err(refused) => Err(Untraced::Refused(refused)),
        }
    }
}

/// The EVM's context while a replay runs.
type Replaying<'db, D> = Context<BlockEnv, TxEnv, CfgEnv, &'db mut CacheDB<D>>;

/// A tracing inspector that halts the run past the bytes it may copy.
fn recording(config: TracingInspectorConfig, bounds: TraceBounds) -> TracingInspector {
    let limits = TraceLimits::default()
        .set_max_recorded_bytes(Some(bounds.most_recorded_bytes))
        .set_behavior(TraceLimitBehavior::Halt);
    TracingInspector::new(config).with_limits(limits)
}

fn check_recorded<E>(inspector: &TracingInspector, bounds: TraceBounds) -> Result<(), Untraced<E>> {
    match inspector.limit_exceeded() {
        true => Err(Untraced::TooLarge(format!("more than {} bytes recorded", bounds.most_recorded_bytes))),
        false => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, B256, Bytes, TxKind, U256, address};
    use revm::bytecode::Bytecode;

    use super::*;
    use crate::{Account, Archive};

    const SENDER: Address = address!("0x00000000000000000000000000000000000000aa");
    const FORWARDER: Address = address!("0x00000000000000000000000000000000000000f0");
    const LOOP: Address = address!("0x00000000000000000000000000000000000000f1");
    const PAYEE: Address = address!("0x00000000000000000000000000000000000000b0");

    fn geth(traced: Traced) -> GethTrace {
        match traced {
            Traced::Geth(trace) => *trace,
            Traced::Parity(results) => panic!("parity's shape where geth's was asked: {results:?}"),
        }
    }

    /// A sender, a contract that sends 1 wei on to PAYEE, and one that loops for ever.
    fn archive() -> Archive {
        let mut archive = Archive::default();
        let funded = |wei: u64| Account { balance: U256::from(wei), ..Account::default() };
        archive.set_account(0, SENDER, funded(1_000_000_000));
        archive.set_account(0, FORWARDER, funded(10));
        let mut forward = vec![0x60, 0, 0x60, 0, 0x60, 0, 0x60, 0, 0x60, 1, 0x73];
        forward.extend_from_slice(PAYEE.as_slice());
        forward.extend_from_slice(&[0x5a, 0xf1, 0x00]);
        archive.set_code(0, FORWARDER, Bytecode::new_raw(Bytes::from(forward)));
        archive.set_code(0, LOOP, Bytecode::new_raw(Bytes::from_static(&[0x5b, 0x60, 0, 0x56])));
        archive
    }

    fn block() -> BlockSpec {
        BlockSpec {
            number: 1,
            timestamp: 12,
            beneficiary: Address::ZERO,
            base_fee: 0,
            gas_limit: 30_000_000,
            prevrandao: B256::ZERO,
            excess_blob_gas: 0,
            blob_base_fee: 1,
        }
    }

    fn to(contract: Address, nonce: u64) -> TxEnv {
        TxEnv {
            caller: SENDER,
            kind: TxKind::Call(contract),
            gas_limit: 100_000,
            nonce,
            chain_id: Some(1),
            ..TxEnv::default()
        }
    }

    const BOUNDS: TraceBounds = TraceBounds { most_steps: 10_000, most_recorded_bytes: 1 << 20 };

    #[test]
    fn the_call_tracer_sees_the_value_forwarded_inside_the_transaction() {
        let archive = archive();
        let mut replay = Replay::new(archive.at(0), 1, block());
        let tracer = Tracer::Calls(CallConfig::default());
        let trace = replay.trace(to(FORWARDER, 0), Checks::Block, &tracer, BOUNDS, &|| false).unwrap();
        let GethTrace::CallTracer(top) = geth(trace) else { panic!("not a call frame") };
        assert_eq!((top.from, top.to, top.typ.as_str()), (SENDER, Some(FORWARDER), "CALL"));
        assert_eq!(top.gas, U256::from(100_000));
        let [inner] = top.calls.as_slice() else { panic!("one inner call: {top:?}") };
        assert_eq!((inner.from, inner.to, inner.value), (FORWARDER, Some(PAYEE), Some(U256::from(1))));
        assert!(inner.gas_used < top.gas_used);
    }

    #[test]
    fn parity_lists_the_calls_in_their_tree_and_the_state_they_changed() {
        let archive = archive();
        let mut replay = Replay::new(archive.at(0), 1, block());
        let types = HashSet::from_iter([TraceType::Trace, TraceType::StateDiff]);
        let Traced::Parity(results) =
            replay.trace(to(FORWARDER, 0), Checks::Block, &Tracer::Parity(types), BOUNDS, &|| false).unwrap()
        else {
            panic!("not parity's")
        };
        let addresses: Vec<&[usize]> = results.trace.iter().map(|trace| trace.trace_address.as_slice()).collect();
        assert_eq!(addresses, [&[][..], &[0][..]]);
        assert_eq!(results.trace[0].subtraces, 1);
        let diff = results.state_diff.expect("a state diff was asked");
        use alloy_rpc_types_trace::parity::Delta;
        assert_eq!(diff.0[&PAYEE].balance, Delta::Added(U256::from(1)));
        assert!(matches!(&diff.0[&FORWARDER].balance, Delta::Changed(change) if change.to == U256::from(9)));
        assert!(results.vm_trace.is_none());
    }

    #[test]
    fn a_later_transaction_is_traced_over_what_the_earlier_ones_changed() {
        let archive = archive();
        let mut replay = Replay::new(archive.at(0), 1, block());
        replay.skip(to(FORWARDER, 0), &|| false).unwrap();
        let tracer = Tracer::Prestate(PreStateConfig::default());
        let GethTrace::PreStateTracer(prestate) =
            geth(replay.trace(to(FORWARDER, 1), Checks::Block, &tracer, BOUNDS, &|| false).unwrap())
        else {
            panic!("not a prestate")
        };
        let accounts = match prestate {
            alloy_rpc_types_trace::geth::PreStateFrame::Default(mode) => mode.0,
            other @ alloy_rpc_types_trace::geth::PreStateFrame::Diff(_) => panic!("not the default mode: {other:?}"),
        };
        // The first run sent PAYEE 1 wei and the forwarder has 9 left.
        assert_eq!(accounts[&PAYEE].balance, Some(U256::from(1)));
        assert_eq!(accounts[&FORWARDER].balance, Some(U256::from(9)));
        assert_eq!(accounts[&SENDER].nonce, Some(1));
    }

    #[test]
    fn the_struct_logger_records_each_opcode_in_order() {
        let archive = archive();
        let mut replay = Replay::new(archive.at(0), 1, block());
        let tracer = Tracer::StructLogs(GethDefaultTracingOptions::default());
        let GethTrace::Default(frame) =
            geth(replay.trace(to(FORWARDER, 0), Checks::Block, &tracer, BOUNDS, &|| false).unwrap())
        else {
            panic!("not struct logs")
        };
        let ops: Vec<&str> = frame.struct_logs.iter().map(|log| log.op.as_ref()).collect();
        let mut expected = vec!["PUSH1"; 5];
        expected.extend(["PUSH20", "GAS", "CALL", "STOP"]);
        assert_eq!(ops, expected);
        assert!(!frame.failed);
    }

    #[test]
    fn a_trace_past_its_steps_or_its_stop_ends_with_why() {
        let archive = archive();
        let tracer = Tracer::StructLogs(GethDefaultTracingOptions::default());
        let endless = TxEnv { gas_limit: 10_000_000, ..to(LOOP, 0) };
        let mut replay = Replay::new(archive.at(0), 1, block());
        let too_long = replay.trace(endless.clone(), Checks::Block, &tracer, BOUNDS, &|| false).unwrap_err();
        assert!(matches!(&too_long, Untraced::TooLarge(why) if why.contains("10000 steps")), "{too_long:?}");
        let untimed = TraceBounds { most_steps: u64::MAX, ..BOUNDS };
        let calls = Tracer::Calls(CallConfig::default());
        let stopped = replay.trace(endless, Checks::Block, &calls, untimed, &|| true).unwrap_err();
        assert!(matches!(stopped, Untraced::Stopped), "{stopped:?}");
    }
}
