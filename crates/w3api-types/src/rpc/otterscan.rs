//! Otterscan's answers (`ots_*`, API level 8), in the shapes Erigon, which
//! defined them, gives: a transaction's internal operations and its tree of
//! calls as one list, a block's details and its transactions a page at a
//! time, an address's transactions, and who created a contract.

use alloy_primitives::{Address, B256, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::{Block, CallFrame, Receipt, Transaction};
use crate::wire::Hex;

/// The API level the `ots_` methods answer at, the one Otterscan asks for.
pub const OTS_API_LEVEL: u64 = 8;

/// What an internal operation did: Erigon's numbers.
pub mod operation {
    /// Ether sent by a call inside the transaction.
    pub const TRANSFER: u8 = 0;
    /// A contract destroyed, its balance sent on.
    pub const SELF_DESTRUCT: u8 = 1;
    /// A contract created by `CREATE` inside the transaction.
    pub const CREATE: u8 = 2;
    /// A contract created by `CREATE2` inside the transaction.
    pub const CREATE2: u8 = 3;
}

/// One ether movement, creation or self-destruct inside a transaction, as
/// `ots_getInternalOperations` lists them.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OtsInternalOperation {
    /// What it was: one of [`operation`]'s numbers.
    #[serde(rename = "type")]
    pub kind: u8,
    /// The sender, the creator, or the contract destroyed.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// The receiver, the contract created, or where the balance went.
    #[serde_as(as = "Hex")]
    pub to: Address,
    /// Wei moved.
    #[serde_as(as = "Hex")]
    pub value: U256,
}

/// One call, creation or self-destruct of a transaction, as
/// `ots_traceTransaction` lists them: in the order they began, each with
/// its depth in the tree.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OtsTraceEntry {
    /// The opcode: `CALL`, `CALLCODE`, `DELEGATECALL`, `STATICCALL`,
    /// `CREATE`, `CREATE2` or `SELFDESTRUCT`.
    #[serde(rename = "type")]
    pub kind: String,
    /// 0 for the transaction's own call, one more for each call down.
    pub depth: u32,
    /// The caller.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// The callee, the contract created, or where a destroyed contract's
    /// balance went.
    #[serde_as(as = "Hex")]
    pub to: Address,
    /// Wei sent; `null` for `DELEGATECALL` and `STATICCALL`, which send none.
    #[serde_as(as = "Option<Hex>")]
    pub value: Option<U256>,
    /// The input, or a creation's init code.
    #[serde_as(as = "Hex")]
    pub input: Bytes,
    /// What it returned (its revert data when it failed).
    #[serde_as(as = "Hex")]
    pub output: Bytes,
}

impl OtsTraceEntry {
    /// The frames of a call tree, depth first in the order they began.
    pub fn list(top: &CallFrame) -> Vec<OtsTraceEntry> {
        let entry = |(frame, depth): (&CallFrame, u32)| {
            let sends_value = !matches!(frame.kind.as_str(), "DELEGATECALL" | "STATICCALL");
            OtsTraceEntry {
                kind: frame.kind.clone(),
                depth,
                from: frame.from,
                to: frame.to.unwrap_or_default(),
                value: sends_value.then(|| frame.value.unwrap_or_default()),
                input: frame.input.clone(),
                output: frame.output.clone().unwrap_or_default(),
            }
        };
        top.frames().map(entry).collect()
    }
}

impl OtsInternalOperation {
    /// The operations inside a call tree, in the order they began: the
    /// transaction's own call is not one of them.
    pub fn list(top: &CallFrame) -> Vec<OtsInternalOperation> {
        let operation = |(frame, _): (&CallFrame, u32)| {
            let value = frame.value.unwrap_or_default();
            let kind = match frame.kind.as_str() {
                "CALL" if !value.is_zero() => operation::TRANSFER,
                "SELFDESTRUCT" => operation::SELF_DESTRUCT,
                "CREATE" => operation::CREATE,
                "CREATE2" => operation::CREATE2,
                _ => return None,
            };
            Some(OtsInternalOperation { kind, from: frame.from, to: frame.to.unwrap_or_default(), value })
        };
        top.frames().skip(1).filter_map(operation).collect()
    }
}

/// A block with its number of transactions, as `ots_getBlockDetails` and
/// `ots_getBlockTransactions` give it.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct OtsBlock {
    /// The block; its `transactions` are those of the page asked for (none
    /// in a block's details), each transaction's `input` cut to its 4-byte
    /// selector.
    #[serde(flatten)]
    pub block: Block,
    /// How many transactions the whole block holds, as a JSON number.
    pub transaction_count: u64,
}

/// The ether a block issued.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OtsIssuance {
    /// The miner's reward.
    #[serde_as(as = "Hex")]
    pub block_reward: U256,
    /// The uncles' rewards.
    #[serde_as(as = "Hex")]
    pub uncle_reward: U256,
    /// Both.
    #[serde_as(as = "Hex")]
    pub issuance: U256,
}

/// `ots_getBlockDetails`: a block without its transactions, what it issued
/// and the fees its transactions paid.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OtsBlockDetails {
    /// The block.
    pub block: OtsBlock,
    /// What it issued.
    pub issuance: OtsIssuance,
    /// What its senders paid in fees, base fee included: each
    /// transaction's gas used at its effective gas price.
    #[serde_as(as = "Hex")]
    pub total_fees: U256,
}

/// A receipt without its logs, as the `ots_` lists give them, with the
/// time of its block where a search gives it.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OtsReceipt {
    /// The transaction's hash.
    #[serde_as(as = "Hex")]
    pub transaction_hash: B256,
    /// Its index in the block.
    #[serde_as(as = "Hex")]
    pub transaction_index: u64,
    /// The block's hash.
    #[serde_as(as = "Hex")]
    pub block_hash: B256,
    /// The block's number.
    #[serde_as(as = "Hex")]
    pub block_number: u64,
    /// The sender.
    #[serde_as(as = "Hex")]
    pub from: Address,
    /// The recipient; `null` for a creation.
    #[serde_as(as = "Option<Hex>")]
    pub to: Option<Address>,
    /// Gas used by the block up to and including this transaction.
    #[serde_as(as = "Hex")]
    pub cumulative_gas_used: u64,
    /// Gas this transaction used.
    #[serde_as(as = "Hex")]
    pub gas_used: u64,
    /// The contract it created, if it did.
    #[serde_as(as = "Option<Hex>")]
    pub contract_address: Option<Address>,
    /// Always `null`: the logs are left out.
    pub logs: Option<()>,
    /// Always `null`: the bloom is left out.
    pub logs_bloom: Option<()>,
    /// The transaction's type.
    #[serde(rename = "type")]
    #[serde_as(as = "Hex")]
    pub tx_type: u8,
    /// 1 for success, 0 for failure.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u8>,
    /// What a unit of gas cost.
    #[serde_as(as = "Hex")]
    pub effective_gas_price: u128,
    /// The block's time (Unix seconds), in search results.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<u64>,
}

impl OtsReceipt {
    /// `receipt` without its logs, with its block's `timestamp` if given.
    pub fn slim(receipt: &Receipt, timestamp: Option<u64>) -> OtsReceipt {
        OtsReceipt {
            transaction_hash: receipt.transaction_hash,
            transaction_index: receipt.transaction_index,
            block_hash: receipt.block_hash,
            block_number: receipt.block_number,
            from: receipt.from,
            to: receipt.to,
            cumulative_gas_used: receipt.cumulative_gas_used,
            gas_used: receipt.gas_used,
            contract_address: receipt.contract_address,
            logs: None,
            logs_bloom: None,
            tx_type: receipt.tx_type,
            status: receipt.status,
            effective_gas_price: receipt.effective_gas_price,
            timestamp,
        }
    }
}

/// `ots_getBlockTransactions`: a page of a block's transactions with
/// their receipts, in block order.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OtsBlockTransactions {
    /// The block with the page's transactions.
    pub fullblock: OtsBlock,
    /// Their receipts, in the same order.
    pub receipts: Vec<OtsReceipt>,
}

/// `ots_searchTransactionsBefore` and `ots_searchTransactionsAfter`: an
/// address's transactions, newest first, with their receipts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OtsTransactions {
    /// The transactions, newest first.
    pub txs: Vec<Transaction>,
    /// Their receipts, in the same order, each with its block's time.
    pub receipts: Vec<OtsReceipt>,
    /// Whether nothing newer is left: the page holds the newest match.
    pub first_page: bool,
    /// Whether nothing older is left: the page holds the oldest match.
    pub last_page: bool,
}

/// `ots_getContractCreator`: the transaction that created a contract, and
/// the account or contract that created it.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct OtsContractCreator {
    /// The transaction.
    #[serde_as(as = "Hex")]
    pub hash: B256,
    /// Who ran the creation: the sender of a deployment, or the factory.
    #[serde_as(as = "Hex")]
    pub creator: Address,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(kind: &str, from: u8, to: u8, value: u64, calls: Vec<CallFrame>) -> CallFrame {
        serde_json::from_value(serde_json::json!({
            "type": kind,
            "from": Address::with_last_byte(from),
            "to": Address::with_last_byte(to),
            "value": format!("{value:#x}"),
            "gas": "0x0",
            "gasUsed": "0x0",
            "input": "0x",
            "calls": calls,
        }))
        .unwrap()
    }

    #[test]
    fn operations_are_the_inner_transfers_creations_and_self_destructs_in_order() {
        let top = frame(
            "CALL",
            1,
            2,
            5,
            vec![
                frame("CALL", 2, 3, 0, vec![frame("CALL", 3, 4, 7, vec![])]),
                frame("DELEGATECALL", 2, 5, 5, vec![]),
                frame("CREATE2", 2, 6, 1, vec![frame("SELFDESTRUCT", 6, 7, 1, vec![])]),
            ],
        );
        let kinds: Vec<(u8, u8, u64)> =
            OtsInternalOperation::list(&top).iter().map(|op| (op.kind, op.to.0[19], op.value.to::<u64>())).collect();
        assert_eq!(kinds, [(operation::TRANSFER, 4, 7), (operation::CREATE2, 6, 1), (operation::SELF_DESTRUCT, 7, 1)]);
    }

    #[test]
    fn trace_entries_are_depth_first_and_calls_that_send_nothing_have_no_value() {
        let top = frame(
            "CALL",
            1,
            2,
            5,
            vec![frame("STATICCALL", 2, 3, 0, vec![frame("CALL", 3, 4, 0, vec![])]), frame("CALL", 2, 5, 1, vec![])],
        );
        let entries: Vec<(String, u32, u8, Option<u64>)> = OtsTraceEntry::list(&top)
            .into_iter()
            .map(|e| (e.kind, e.depth, e.to.0[19], e.value.map(|v| v.to::<u64>())))
            .collect();
        assert_eq!(
            entries,
            [
                ("CALL".into(), 0, 2, Some(5)),
                ("STATICCALL".into(), 1, 3, None),
                ("CALL".into(), 2, 4, Some(0)),
                ("CALL".into(), 1, 5, Some(1)),
            ]
        );
    }
}
