//! Traces of a transaction's execution as geth's `debug_trace*` methods
//! give them: the options a caller sends, and what each of geth's
//! built-in tracers answers (the struct logger, `callTracer`,
//! `prestateTracer`, `4byteTracer` and `noopTracer`).
//!
//! Quantities are written as geth writes them: gas in the struct logger
//! as JSON numbers, gas and values in call frames as hex.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::StateOverrides;
use crate::wire::Hex;

/// How to trace: geth's `TraceConfig`, and for `debug_traceCall` the
/// state and block it runs over. Every field is optional; a field geth
/// does not know is refused rather than ignored.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TraceConfig {
    /// The tracer: `callTracer`, `prestateTracer`, `4byteTracer` or
    /// `noopTracer`; absent for the struct logger.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracer: Option<String>,
    /// The tracer's own options.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tracer_config: Option<TracerConfig>,
    /// Longest the trace of one transaction may run, as a Go duration
    /// (`"5s"`, `"300ms"`); 5 seconds when absent, as in geth.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout: Option<String>,
    /// Struct logger: record memory at each step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_memory: Option<bool>,
    /// Struct logger: the older spelling, the inverse of `enableMemory`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_memory: Option<bool>,
    /// Struct logger: leave the stack out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_stack: Option<bool>,
    /// Struct logger: leave storage out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_storage: Option<bool>,
    /// Struct logger: record the return data at each step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enable_return_data: Option<bool>,
    /// Struct logger: the older spelling, the inverse of `enableReturnData`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_return_data: Option<bool>,
    /// Struct logger: at most this many steps (0 is no limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit: Option<u64>,
    /// Blocks geth may re-execute to find the state; every block's state
    /// is kept here, so it changes nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reexec: Option<u64>,
    /// `debug_traceCall` only: accounts assumed changed before the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_overrides: Option<StateOverrides>,
    /// `debug_traceCall` only: fields of the block the call runs in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_overrides: Option<BlockOverrides>,
}

/// The options of geth's built-in tracers: `onlyTopCall` and `withLog`
/// for `callTracer`; `diffMode`, `disableCode` and `disableStorage` for
/// `prestateTracer`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TracerConfig {
    /// `callTracer`: the top call alone, without its sub-calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub only_top_call: Option<bool>,
    /// `callTracer`: the logs each call emitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with_log: Option<bool>,
    /// `prestateTracer`: the accounts before and after, changed fields only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub diff_mode: Option<bool>,
    /// `prestateTracer`: leave code out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_code: Option<bool>,
    /// `prestateTracer`: leave storage out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub disable_storage: Option<bool>,
}

/// Fields of the block a traced or simulated call runs in, replacing the
/// block's own.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BlockOverrides {
    /// The block's number.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<u64>,
    /// Its timestamp, in Unix seconds.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<u64>,
    /// Its gas limit.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas_limit: Option<u64>,
    /// Who is paid its fees (`COINBASE`).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fee_recipient: Option<Address>,
    /// Its `PREVRANDAO`.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev_randao: Option<B256>,
    /// Its base fee per gas.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_fee_per_gas: Option<U256>,
    /// Its blob base fee (`BLOBBASEFEE`).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_base_fee: Option<U256>,
    /// Its difficulty (before the merge).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difficulty: Option<U256>,
    /// Its parent beacon block root (`eth_simulateV1` only).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_root: Option<B256>,
    /// Its withdrawals (`eth_simulateV1` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawals: Option<Vec<super::Withdrawal>>,
}

/// What a tracer answers for one transaction: one of the shapes of
/// geth's built-in tracers.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum GethTrace {
    /// The struct logger's.
    StructLogs(StructLogTrace),
    /// `callTracer`'s (boxed: a frame is far larger than the other answers).
    Call(Box<CallFrame>),
    /// `prestateTracer`'s with `diffMode`.
    PrestateDiff(PrestateDiff),
    /// `noopTracer`'s (an empty object).
    Noop(NoopTrace),
    /// `prestateTracer`'s.
    Prestate(Prestate),
    /// `4byteTracer`'s.
    FourByte(FourByteTrace),
    /// A trace in a shape of a node's own (an older struct log, a
    /// tracer of its own), as node mode passes it on: the spec lists
    /// geth's shapes only.
    #[cfg_attr(feature = "schema", schemars(skip))]
    Node(serde_json::Value),
}

/// The struct logger's answer: every step the EVM took.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StructLogTrace {
    /// Whether the transaction failed.
    pub failed: bool,
    /// Gas it used.
    pub gas: u64,
    /// What it returned (or its revert data).
    #[serde_as(as = "Hex")]
    pub return_value: Bytes,
    /// Its steps, in order.
    pub struct_logs: Vec<StructLog>,
}

/// One step of the EVM.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StructLog {
    /// Program counter.
    pub pc: u64,
    /// The opcode's name.
    pub op: String,
    /// Gas left before the step.
    pub gas: u64,
    /// What the step cost.
    pub gas_cost: u64,
    /// Call depth, 1 for the transaction's own frame.
    pub depth: u64,
    /// Why the step failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The stack before the step, bottom first.
    #[serde_as(as = "Option<Vec<Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stack: Option<Vec<U256>>,
    /// The last call's return data.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub return_data: Option<Bytes>,
    /// Memory, in 32-byte words of hex without `0x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory: Option<Vec<String>>,
    /// Memory size in bytes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mem_size: Option<u64>,
    /// The slots the frame's contract read or wrote so far, hex without `0x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub storage: Option<BTreeMap<String, String>>,
    /// The refund counter.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refund: Option<u64>,
}

/// `callTracer`'s answer: a call and the calls it made.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallFrame {
    /// `CALL`, `STATICCALL`, `DELEGATECALL`, `CALLCODE`, `CREATE`,
    /// `CREATE2` or `SELFDESTRUCT`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The caller.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// The callee, or the contract created.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Address>,
    /// Wei sent.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<U256>,
    /// Gas given to the call.
    #[serde_as(as = "Hex")]
    pub gas: U256,
    /// Gas it used.
    #[serde_as(as = "Hex")]
    pub gas_used: U256,
    /// Its input (or init code).
    #[serde_as(as = "Hex")]
    pub input: Bytes,
    /// What it returned (or the code created, or its revert data).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<Bytes>,
    /// Why it failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The reason of a revert with `Error(string)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revert_reason: Option<String>,
    /// The calls it made, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<CallFrame>,
    /// With `withLog`: the logs it emitted.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub logs: Vec<CallLog>,
}

impl CallFrame {
    /// This frame and every frame below it, depth first in the order they
    /// began, each with its depth (0 for this one).
    pub fn frames(&self) -> impl Iterator<Item = (&CallFrame, u32)> {
        let mut pending = vec![(self, 0u32)];
        std::iter::from_fn(move || {
            let (frame, depth) = pending.pop()?;
            pending.extend(frame.calls.iter().rev().map(|call| (call, depth + 1)));
            Some((frame, depth))
        })
    }
}

/// A log a call emitted.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CallLog {
    /// The contract that emitted it.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Its topics.
    #[serde_as(as = "Vec<Hex>")]
    pub topics: Vec<B256>,
    /// Its data.
    #[serde_as(as = "Hex")]
    pub data: Bytes,
    /// How many sub-calls the frame had made before it.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<u64>,
    /// Its index among the transaction's logs.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<u64>,
}

/// `prestateTracer`'s answer: each account the transaction touched, as it
/// stood before it.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct Prestate(#[serde_as(as = "BTreeMap<Hex, serde_with::Same>")] pub BTreeMap<Address, PrestateAccount>);

/// `prestateTracer`'s answer with `diffMode`: the fields that changed,
/// before and after.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PrestateDiff {
    /// Before the transaction.
    pub pre: Prestate,
    /// After it.
    pub post: Prestate,
}

/// An account in a prestate trace; fields left out are zero or unchanged.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct PrestateAccount {
    /// Balance in wei.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<U256>,
    /// Nonce.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<u64>,
    /// Code.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Bytes>,
    /// Slots read or written.
    #[serde_as(as = "BTreeMap<Hex, Hex>")]
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub storage: BTreeMap<B256, B256>,
}

/// `noopTracer`'s answer: nothing.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NoopTrace {}

/// `4byteTracer`'s answer: how often each selector was called with each
/// input size, keyed `0x<selector>-<size>`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct FourByteTrace(pub BTreeMap<String, u64>);

/// One transaction's trace in a block's: its hash, and the trace or why
/// it could not be made.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BlockTraceResult {
    /// The transaction.
    #[serde_as(as = "Hex")]
    pub tx_hash: B256,
    /// Its trace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<GethTrace>,
    /// Why it has none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// geth's built-in tracers, as a [`TraceConfig`] names them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TracerKind {
    /// The struct logger, when no tracer is named.
    StructLogger,
    /// `callTracer`.
    Call,
    /// `prestateTracer`.
    Prestate,
    /// `4byteTracer`.
    FourByte,
    /// `noopTracer`.
    Noop,
}

impl TracerKind {
    /// The names a [`TraceConfig`] may give, each with its tracer.
    pub const NAMED: [(&'static str, TracerKind); 4] = [
        ("callTracer", TracerKind::Call),
        ("prestateTracer", TracerKind::Prestate),
        ("4byteTracer", TracerKind::FourByte),
        ("noopTracer", TracerKind::Noop),
    ];

    fn named(name: &str) -> Option<TracerKind> {
        TracerKind::NAMED.iter().find(|(known, _)| *known == name).map(|(_, kind)| *kind)
    }

    fn name(self) -> &'static str {
        TracerKind::NAMED.iter().find(|(_, kind)| *kind == self).map_or("the struct logger", |(name, _)| name)
    }
}

/// Where a trace runs, which decides the options it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceTarget {
    /// A mined transaction, or each of a block's.
    Mined,
    /// A call (`debug_traceCall`), which alone takes overrides.
    Call,
}

/// The longest a trace runs when its config names no `timeout`, as in geth.
pub const DEFAULT_TRACE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);

impl TraceConfig {
    /// The tracer this config names, once every option it gives is one
    /// that tracer (and `target`) takes; else which option is out of place.
    /// geth ignores such options; here a mistaken one is said, not dropped.
    pub fn tracer_kind(&self, target: TraceTarget) -> Result<TracerKind, String> {
        let kind = match self.tracer.as_deref() {
            None | Some("") => TracerKind::StructLogger,
            Some(name) => TracerKind::named(name).ok_or_else(|| {
                let known: Vec<&str> = TracerKind::NAMED.iter().map(|(name, _)| *name).collect();
                format!(
                    "tracer not found: {name:?}; the tracers are {}, or none for the struct logger",
                    known.join(", ")
                )
            })?,
        };
        let logger_options = [
            ("enableMemory", self.enable_memory.is_some()),
            ("disableMemory", self.disable_memory.is_some()),
            ("disableStack", self.disable_stack.is_some()),
            ("disableStorage", self.disable_storage.is_some()),
            ("enableReturnData", self.enable_return_data.is_some()),
            ("disableReturnData", self.disable_return_data.is_some()),
            ("limit", self.limit.is_some()),
        ];
        if kind != TracerKind::StructLogger
            && let Some((option, _)) = logger_options.iter().find(|(_, given)| *given)
        {
            return Err(format!("{option} is an option of the struct logger, not of {}", kind.name()));
        }
        if let Some(config) = &self.tracer_config {
            config.check_for(kind)?;
        }
        if target == TraceTarget::Mined {
            if self.state_overrides.is_some() {
                return Err("stateOverrides applies to debug_traceCall only".into());
            }
            if self.block_overrides.is_some() {
                return Err("blockOverrides applies to debug_traceCall only".into());
            }
        }
        Ok(kind)
    }

    /// How long one transaction's trace may run: `timeout`, read as a Go
    /// duration, or [`DEFAULT_TRACE_TIMEOUT`].
    pub fn timeout(&self) -> Result<std::time::Duration, String> {
        match &self.timeout {
            None => Ok(DEFAULT_TRACE_TIMEOUT),
            Some(text) => parse_go_duration(text).map_err(|why| format!("timeout {text:?}: {why}")),
        }
    }
}

impl TracerConfig {
    fn check_for(&self, kind: TracerKind) -> Result<(), String> {
        let options = [
            ("onlyTopCall", self.only_top_call.is_some(), TracerKind::Call),
            ("withLog", self.with_log.is_some(), TracerKind::Call),
            ("diffMode", self.diff_mode.is_some(), TracerKind::Prestate),
            ("disableCode", self.disable_code.is_some(), TracerKind::Prestate),
            ("disableStorage", self.disable_storage.is_some(), TracerKind::Prestate),
        ];
        match options.iter().find(|(_, given, of)| *given && *of != kind) {
            Some((option, _, of)) => {
                Err(format!("tracerConfig.{option} is an option of {}, not of {}", of.name(), kind.name()))
            }
            None => Ok(()),
        }
    }
}

/// A duration as Go writes one (`time.ParseDuration`): decimal numbers,
/// each with a unit of `ns`, `us` (or `µs`), `ms`, `s`, `m` or `h`, as in
/// `"300ms"`, `"1.5s"` or `"1m30s"`. Negative durations are refused.
pub fn parse_go_duration(text: &str) -> Result<std::time::Duration, String> {
    const UNITS: [(&str, f64); 7] =
        [("ns", 1e-9), ("us", 1e-6), ("µs", 1e-6), ("μs", 1e-6), ("ms", 1e-3), ("s", 1.0), ("m", 60.0)];
    if text == "0" {
        return Ok(std::time::Duration::ZERO);
    }
    if text.is_empty() {
        return Err("empty; write a number and a unit, such as 5s or 300ms".into());
    }
    let mut rest = text.strip_prefix('+').unwrap_or(text);
    if rest.starts_with('-') {
        return Err("a timeout cannot be negative".into());
    }
    let mut seconds = 0.0;
    while !rest.is_empty() {
        let digits = rest.find(|c: char| !(c.is_ascii_digit() || c == '.')).unwrap_or(rest.len());
        let number: f64 = rest[..digits].parse().map_err(|_| format!("expected a number at {rest:?}"))?;
        rest = &rest[digits..];
        let unit_len = rest.find(|c: char| c.is_ascii_digit() || c == '.').unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        let scale = match unit {
            "h" => 3600.0,
            "" => return Err(format!("missing unit after {number}; the units are ns, us, ms, s, m and h")),
            _ => UNITS
                .iter()
                .find(|(name, _)| *name == unit)
                .map(|(_, scale)| *scale)
                .ok_or_else(|| format!("unknown unit {unit:?}; the units are ns, us, ms, s, m and h"))?,
        };
        seconds += number * scale;
        rest = &rest[unit_len..];
    }
    std::time::Duration::try_from_secs_f64(seconds).map_err(|_| "too long".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn go_durations_read_as_go_reads_them() {
        assert_eq!(parse_go_duration("5s"), Ok(Duration::from_secs(5)));
        assert_eq!(parse_go_duration("300ms"), Ok(Duration::from_millis(300)));
        assert_eq!(parse_go_duration("1m30s"), Ok(Duration::from_secs(90)));
        assert_eq!(parse_go_duration("1.5h"), Ok(Duration::from_secs(5400)));
        assert_eq!(parse_go_duration("0"), Ok(Duration::ZERO));
        assert!(parse_go_duration("5").unwrap_err().contains("missing unit"));
        assert!(parse_go_duration("5 s").unwrap_err().contains("unknown unit"));
        assert!(parse_go_duration("-1s").unwrap_err().contains("negative"));
        assert!(parse_go_duration("").is_err());
        assert!(parse_go_duration("s").unwrap_err().contains("expected a number"));
    }

    #[test]
    fn a_config_names_its_tracer_and_only_that_tracers_options() {
        let named = |tracer: &str| TraceConfig { tracer: Some(tracer.into()), ..TraceConfig::default() };
        assert_eq!(TraceConfig::default().tracer_kind(TraceTarget::Mined), Ok(TracerKind::StructLogger));
        assert_eq!(named("callTracer").tracer_kind(TraceTarget::Mined), Ok(TracerKind::Call));
        assert!(named("jsTracer").tracer_kind(TraceTarget::Mined).unwrap_err().contains("tracer not found"));
        let top_call = TracerConfig { only_top_call: Some(true), ..TracerConfig::default() };
        let prestate = TraceConfig { tracer_config: Some(top_call), ..named("prestateTracer") };
        let refused = prestate.tracer_kind(TraceTarget::Mined).unwrap_err();
        assert!(refused.contains("onlyTopCall is an option of callTracer, not of prestateTracer"), "{refused}");
        let memory = TraceConfig { enable_memory: Some(true), ..named("callTracer") };
        assert!(memory.tracer_kind(TraceTarget::Mined).unwrap_err().contains("enableMemory"));
        let overrides = TraceConfig { block_overrides: Some(BlockOverrides::default()), ..TraceConfig::default() };
        assert!(overrides.tracer_kind(TraceTarget::Mined).is_err());
        assert_eq!(overrides.tracer_kind(TraceTarget::Call), Ok(TracerKind::StructLogger));
    }
}
