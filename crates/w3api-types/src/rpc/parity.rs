//! Traces in parity's shape, as the `trace_*` methods give them: each
//! transaction's calls as a flat list, each call placed in its tree by
//! `traceAddress`; and for `trace_call` and `trace_replayTransaction`, on
//! request, the VM's steps (`vmTrace`) and what the state changed
//! (`stateDiff`).
//!
//! Quantities are written as parity writes them: gas, values and balances
//! as hex; block numbers, positions, counts and VM costs as JSON numbers.

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::BlockNumberOrTag;
use crate::wire::Hex;

/// What a `trace_call` or `trace_replayTransaction` records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum TraceType {
    /// The calls, as `trace_transaction` lists them.
    Trace,
    /// Every step of the VM, frame by frame.
    VmTrace,
    /// Each account's changed balance, nonce, code and storage.
    StateDiff,
}

/// The kind of a trace: what its `action` is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum TraceKind {
    /// A call, of any of the call opcodes, or the transaction's own.
    Call,
    /// A contract created.
    Create,
    /// A `SELFDESTRUCT`, parity's name kept.
    Suicide,
    /// A block's or an uncle's reward.
    Reward,
}

/// What a trace did, one shape per [`TraceKind`].
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum TraceAction {
    /// A call's.
    Call(CallAction),
    /// A creation's.
    Create(CreateAction),
    /// A self-destruct's.
    Selfdestruct(SelfdestructAction),
    /// A reward's.
    Reward(RewardAction),
}

/// A call: who called whom, how, with what.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallAction {
    /// The caller.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// `call`, `callcode`, `delegatecall` or `staticcall`.
    pub call_type: String,
    /// Gas given to the call (the transaction's own: its gas less the
    /// intrinsic cost).
    #[serde_as(as = "Hex")]
    pub gas: U256,
    /// Its input.
    #[serde_as(as = "Hex")]
    pub input: Bytes,
    /// The callee.
    #[serde_as(as = "Hex")]
    pub to: Address,
    /// Wei sent.
    #[serde_as(as = "Hex")]
    pub value: U256,
}

/// A contract creation.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateAction {
    /// The creator.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// Gas given to the init code.
    #[serde_as(as = "Hex")]
    pub gas: U256,
    /// The init code.
    #[serde_as(as = "Hex")]
    pub init: Bytes,
    /// Wei the new contract is given.
    #[serde_as(as = "Hex")]
    pub value: U256,
    /// `create` or `create2`; `none` where the node does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_method: Option<String>,
}

/// A self-destruct: the contract and where its balance went.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SelfdestructAction {
    /// The contract that destructed.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Its balance, sent on.
    #[serde_as(as = "Hex")]
    pub balance: U256,
    /// Who received it.
    #[serde_as(as = "Hex")]
    pub refund_address: Address,
}

/// A reward paid with a block (proof-of-work chains).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RewardAction {
    /// Who was paid.
    #[serde_as(as = "Hex")]
    pub author: Address,
    /// `block` or `uncle`.
    pub reward_type: String,
    /// Wei paid.
    #[serde_as(as = "Hex")]
    pub value: U256,
}

/// What a call or a creation gave back, when it did not fail.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum TraceOutput {
    /// A creation's (first: a call's fields are a subset of it).
    Create(CreateOutput),
    /// A call's.
    Call(CallOutput),
}

/// A call's result.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallOutput {
    /// Gas it used (the transaction's own: without its intrinsic cost).
    #[serde_as(as = "Hex")]
    pub gas_used: U256,
    /// What it returned.
    #[serde_as(as = "Hex")]
    pub output: Bytes,
}

/// A creation's result.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CreateOutput {
    /// The contract created.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Its code.
    #[serde_as(as = "Hex")]
    pub code: Bytes,
    /// Gas the init code used.
    #[serde_as(as = "Hex")]
    pub gas_used: U256,
}

/// One call (or creation, or self-destruct) of a transaction, placed in
/// the transaction's tree of calls.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TransactionTrace {
    /// What its `action` is.
    #[serde(rename = "type")]
    pub kind: TraceKind,
    /// What it did.
    pub action: TraceAction,
    /// Why it failed (`Reverted`, `Out of gas`, …), when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// What it gave back; `null` when it failed, and for a self-destruct.
    pub result: Option<TraceOutput>,
    /// How many calls it made itself.
    pub subtraces: u64,
    /// Its place in the tree: the index of each call on the way from the
    /// transaction's own, which is `[]`.
    pub trace_address: Vec<u64>,
}

/// A [`TransactionTrace`] with the transaction and block it is of, as
/// `trace_transaction`, `trace_block` and `trace_filter` give it.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LocalizedTrace {
    /// The call.
    #[serde(flatten)]
    pub trace: TransactionTrace,
    /// The block's hash.
    #[serde_as(as = "Hex")]
    pub block_hash: B256,
    /// The block's number.
    pub block_number: u64,
    /// The transaction's hash; `null` for a reward.
    #[serde_as(as = "Option<Hex>")]
    pub transaction_hash: Option<B256>,
    /// The transaction's index in its block; `null` for a reward.
    pub transaction_position: Option<u64>,
}

/// What `trace_call` and `trace_replayTransaction` answer: the output, and
/// what each asked [`TraceType`] recorded (`null` where not asked).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TraceResults {
    /// What the transaction returned (or its revert data).
    #[serde_as(as = "Hex")]
    pub output: Bytes,
    /// With `stateDiff`: what it changed, by account.
    pub state_diff: Option<StateDiff>,
    /// With `trace`: its calls; empty otherwise.
    pub trace: Vec<TransactionTrace>,
    /// With `vmTrace`: its steps.
    pub vm_trace: Option<VmTrace>,
}

/// What a transaction changed, by account: each account it touched and
/// changed, with its balance, nonce, code and storage slots.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct StateDiff(#[serde_as(as = "BTreeMap<Hex, serde_with::Same>")] pub BTreeMap<Address, AccountDiff>);

/// How one account changed.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountDiff {
    /// Its balance (hex quantities).
    pub balance: Delta,
    /// Its code (hex bytes).
    pub code: Delta,
    /// Its nonce (hex quantities).
    pub nonce: Delta,
    /// Its slots that changed (32-byte hex words), by slot.
    #[serde_as(as = "BTreeMap<Hex, serde_with::Same>")]
    pub storage: BTreeMap<B256, Delta>,
}

/// How one value changed, in parity's notation: `"="` unchanged, `{"+":
/// new}` where there was none, `{"-": old}` where none is left, and
/// `{"*": {"from", "to"}}` changed. Values are hex, as the field writes
/// them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum Delta {
    /// The same before and after.
    #[serde(rename = "=")]
    Unchanged,
    /// Created with this value.
    #[serde(rename = "+")]
    Added(String),
    /// Removed, with the value it had.
    #[serde(rename = "-")]
    Removed(String),
    /// Changed.
    #[serde(rename = "*")]
    Changed(Change),
}

/// A value before and after.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Change {
    /// Before, in hex.
    pub from: String,
    /// After, in hex.
    pub to: String,
}

/// The steps of one frame of the VM: its code, and each instruction it ran.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VmTrace {
    /// The frame's code.
    #[serde_as(as = "Hex")]
    pub code: Bytes,
    /// Its instructions, in the order they ran.
    pub ops: Vec<VmInstruction>,
}

/// One instruction the VM ran.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VmInstruction {
    /// Its gas cost.
    pub cost: u64,
    /// What it did, when it ran to its end.
    pub ex: Option<VmExecuted>,
    /// Program counter.
    pub pc: u64,
    /// The frame a call or creation opened.
    pub sub: Option<VmTrace>,
    /// The opcode's name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub op: Option<String>,
    /// The instruction's index, as some nodes give it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idx: Option<String>,
}

/// What an instruction did.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct VmExecuted {
    /// Gas left after it.
    pub used: u64,
    /// What it pushed on the stack.
    #[serde_as(as = "Vec<Hex>")]
    pub push: Vec<U256>,
    /// Memory it wrote.
    pub mem: Option<MemoryDelta>,
    /// A slot it stored.
    pub store: Option<StorageDelta>,
}

/// Memory an instruction wrote.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct MemoryDelta {
    /// Where, in bytes.
    pub off: u64,
    /// What.
    #[serde_as(as = "Hex")]
    pub data: Bytes,
}

/// A slot an instruction stored.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StorageDelta {
    /// The slot.
    #[serde_as(as = "Hex")]
    pub key: U256,
    /// Its new value.
    #[serde_as(as = "Hex")]
    pub val: U256,
}

/// Which traces `trace_filter` answers: those of a range of blocks whose
/// caller or callee is one of the addresses given, a page of them.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TraceFilter {
    /// The first block; block 0 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_block: Option<BlockNumberOrTag>,
    /// The last block; the latest when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<BlockNumberOrTag>,
    /// Callers (for a self-destruct, the contract) to match; any when empty.
    #[serde_as(as = "Vec<Hex>")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub from_address: Vec<Address>,
    /// Callees (the contract created, who received a self-destruct's
    /// balance, who was rewarded) to match; any when empty.
    #[serde_as(as = "Vec<Hex>")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub to_address: Vec<Address>,
    /// `intersection` (the default): a trace matches both lists;
    /// `union`: either.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<TraceFilterMode>,
    /// Matching traces to skip first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<u64>,
    /// Most matching traces to answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<u64>,
}

/// How `trace_filter` joins its two lists of addresses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum TraceFilterMode {
    /// A trace's caller is in `fromAddress` and its callee in `toAddress`.
    #[default]
    Intersection,
    /// Either.
    Union,
}

impl TraceFilter {
    /// Whether `trace` is one this filter asks for, as reth and parity
    /// match: an empty list matches every address.
    pub fn matches(&self, trace: &TransactionTrace) -> bool {
        let (from, to) = match (&trace.action, &trace.result) {
            (TraceAction::Call(call), _) => (Some(call.from), Some(call.to)),
            (TraceAction::Create(create), Some(TraceOutput::Create(created))) => {
                (Some(create.from), Some(created.address))
            }
            (TraceAction::Create(create), _) => (Some(create.from), None),
            (TraceAction::Selfdestruct(destructed), _) => (Some(destructed.address), Some(destructed.refund_address)),
            (TraceAction::Reward(reward), _) => (None, Some(reward.author)),
        };
        let listed = |list: &[Address], address: Option<Address>| match address {
            Some(address) => list.is_empty() || list.contains(&address),
            None => list.is_empty(),
        };
        let (from_matches, to_matches) = (listed(&self.from_address, from), listed(&self.to_address, to));
        match self.mode.unwrap_or_default() {
            TraceFilterMode::Intersection => from_matches && to_matches,
            // With one list empty, union matches on the other alone.
            TraceFilterMode::Union if self.from_address.is_empty() => to_matches,
            TraceFilterMode::Union if self.to_address.is_empty() => from_matches,
            TraceFilterMode::Union => from_matches || to_matches,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloy_primitives::address;

    const A: Address = address!("0x00000000000000000000000000000000000000aa");
    const B: Address = address!("0x00000000000000000000000000000000000000bb");
    const C: Address = address!("0x00000000000000000000000000000000000000cc");

    fn call(from: Address, to: Address) -> TransactionTrace {
        let action =
            CallAction { from, call_type: "call".into(), gas: U256::ZERO, input: Bytes::new(), to, value: U256::ZERO };
        TransactionTrace {
            kind: TraceKind::Call,
            action: TraceAction::Call(action),
            error: None,
            result: None,
            subtraces: 0,
            trace_address: vec![],
        }
    }

    #[test]
    fn a_filter_matches_both_lists_or_either() {
        let both = TraceFilter { from_address: vec![A], to_address: vec![B], ..TraceFilter::default() };
        assert!(both.matches(&call(A, B)));
        assert!(!both.matches(&call(A, C)));
        assert!(!both.matches(&call(C, B)));
        let either = TraceFilter { mode: Some(TraceFilterMode::Union), ..both.clone() };
        assert!(either.matches(&call(A, C)) && either.matches(&call(C, B)));
        assert!(!either.matches(&call(C, C)));
        let only_from =
            TraceFilter { from_address: vec![A], mode: Some(TraceFilterMode::Union), ..TraceFilter::default() };
        assert!(only_from.matches(&call(A, C)) && !only_from.matches(&call(C, A)));
        assert!(TraceFilter::default().matches(&call(C, C)));
    }

    #[test]
    fn a_trace_reads_as_parity_writes_it() {
        let written = serde_json::json!({
            "action": {"from": "0x00000000000000000000000000000000000000aa", "callType": "call", "gas": "0x5208",
                       "input": "0x", "to": "0x00000000000000000000000000000000000000bb", "value": "0x1"},
            "blockHash": "0x0000000000000000000000000000000000000000000000000000000000000001",
            "blockNumber": 3, "result": {"gasUsed": "0x0", "output": "0x"}, "subtraces": 0, "traceAddress": [],
            "transactionHash": "0x0000000000000000000000000000000000000000000000000000000000000002",
            "transactionPosition": 0, "type": "call"
        });
        let trace: LocalizedTrace = serde_json::from_value(written.clone()).unwrap();
        assert!(matches!(trace.trace.result, Some(TraceOutput::Call(_))));
        assert_eq!(serde_json::to_value(&trace).unwrap(), written);
        let diff: Delta = serde_json::from_value(serde_json::json!({"*": {"from": "0x1", "to": "0x2"}})).unwrap();
        assert_eq!(diff, Delta::Changed(Change { from: "0x1".into(), to: "0x2".into() }));
        assert_eq!(serde_json::from_value::<Delta>(serde_json::json!("=")).unwrap(), Delta::Unchanged);
    }
}
