//! The body of a stream delivery (a webhook), as production posts it:
//! numbers are decimal strings, addresses lowercase hex.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::stream::AbiItem;

/// What a stream posts to its webhook for one block, or, with every list
/// empty and an empty block, as the test webhook sent on create and update.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamWebhook {
    /// Whether the block is as deep as the chain's confirmation depth.
    pub confirmed: bool,
    /// Hex id of the chain, such as `0x1`.
    pub chain_id: String,
    /// The stream's ABI, for decoding `logs`.
    pub abi: Vec<AbiItem>,
    /// The stream delivered for.
    pub stream_id: String,
    /// The stream's tag.
    pub tag: String,
    /// Attempts made before this one.
    pub retries: u64,
    /// The block delivered.
    pub block: StreamBlock,
    /// Logs that matched.
    pub logs: Vec<StreamLog>,
    /// Transactions that matched.
    pub txs: Vec<StreamTransaction>,
    /// Value moves inside contract calls that matched.
    pub txs_internal: Vec<StreamInternalTransaction>,
    /// ERC20 `Transfer` events among the logs, decoded. This list and the
    /// five after it are in every delivery; a payload kept by production's
    /// history may lack them, and reads as empty lists.
    #[serde(default)]
    pub erc20_transfers: Vec<StreamErc20Transfer>,
    /// ERC20 `Approval` events among the logs, decoded.
    #[serde(default)]
    pub erc20_approvals: Vec<StreamErc20Approval>,
    /// NFT transfers among the logs, decoded.
    #[serde(default)]
    pub nft_transfers: Vec<StreamNftTransfer>,
    /// NFT approvals by standard.
    #[serde(default)]
    pub nft_approvals: StreamNftApprovals,
    /// NFT approvals of either standard.
    #[serde(default)]
    pub nft_token_approvals: Vec<StreamNftTokenApproval>,
    /// Native balances after the block, of the addresses the stream's
    /// `getNativeBalances` selectors name.
    #[serde(default)]
    pub native_balances: Vec<StreamNativeBalance>,
}

/// The block a delivery is for.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamBlock {
    /// Its number, in decimal; empty in the test webhook.
    pub number: String,
    /// Its hash; empty in the test webhook.
    pub hash: String,
    /// Its time in Unix seconds, in decimal; empty in the test webhook.
    pub timestamp: String,
}

/// The result of one trigger's read call.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamTriggerOutput {
    /// The trigger's name.
    pub name: String,
    /// The call's result; numbers as decimal strings.
    pub value: serde_json::Value,
}

/// A log as delivered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamLog {
    /// Position in the block, in decimal.
    pub log_index: String,
    /// The transaction that emitted it.
    pub transaction_hash: String,
    /// The emitting contract.
    pub address: String,
    /// Non-indexed data, hex.
    pub data: String,
    /// First topic (the event's signature hash).
    pub topic0: Option<String>,
    /// Second topic.
    pub topic1: Option<String>,
    /// Third topic.
    pub topic2: Option<String>,
    /// Fourth topic.
    pub topic3: Option<String>,
    /// Results of the stream's triggers for this log.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTriggerOutput>>,
}

/// A transaction with its receipt, as delivered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamTransaction {
    /// Its hash.
    pub hash: String,
    /// Gas limit.
    pub gas: Option<String>,
    /// Effective gas price, in wei.
    pub gas_price: Option<String>,
    /// The sender's nonce.
    pub nonce: Option<String>,
    /// Call data, hex.
    pub input: Option<String>,
    /// Position in the block.
    pub transaction_index: String,
    /// The sender.
    pub from_address: String,
    /// The recipient; null for a contract creation.
    pub to_address: Option<String>,
    /// Wei sent.
    pub value: Option<String>,
    /// Transaction type (0, 1, 2, …).
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// Signature `v` (or y-parity).
    pub v: Option<String>,
    /// Signature `r`, in decimal.
    pub r: Option<String>,
    /// Signature `s`, in decimal.
    pub s: Option<String>,
    /// Gas used by the block up to and including this transaction.
    pub receipt_cumulative_gas_used: Option<String>,
    /// Gas used by this transaction.
    pub receipt_gas_used: Option<String>,
    /// The contract created, if any.
    pub receipt_contract_address: Option<String>,
    /// Pre-Byzantium state root; null since.
    pub receipt_root: Option<String>,
    /// `1` for success, `0` for a revert.
    pub receipt_status: Option<String>,
    /// Results of the stream's triggers for this transaction.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTriggerOutput>>,
}

/// A value move inside a contract call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamInternalTransaction {
    /// The sending contract.
    pub from: Option<String>,
    /// The recipient.
    pub to: Option<String>,
    /// Wei moved.
    pub value: Option<String>,
    /// The transaction it happened in.
    pub transaction_hash: String,
    /// Gas given to the call.
    pub gas: Option<String>,
}

/// An ERC20 `Transfer`, decoded, with the token's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamErc20Transfer {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The token.
    pub contract: String,
    /// Sender.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// Raw amount.
    pub value: String,
    /// The token's name.
    pub token_name: String,
    /// The token's symbol.
    pub token_symbol: String,
    /// The token's decimals.
    pub token_decimals: String,
    /// `value` divided by 10^decimals, in decimal.
    pub value_with_decimals: String,
    /// Whether the token is flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub possible_spam: Option<bool>,
    /// Results of the stream's triggers for this transfer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTriggerOutput>>,
}

/// An ERC20 `Approval`, decoded, with the token's metadata.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamErc20Approval {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The token.
    pub contract: String,
    /// The holder.
    pub owner: String,
    /// Who may spend.
    pub spender: String,
    /// Raw amount allowed.
    pub value: String,
    /// The token's name.
    pub token_name: String,
    /// The token's symbol.
    pub token_symbol: String,
    /// The token's decimals.
    pub token_decimals: String,
    /// `value` divided by 10^decimals, in decimal.
    pub value_with_decimals: String,
    /// Whether the token is flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub possible_spam: Option<bool>,
    /// Results of the stream's triggers for this approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTriggerOutput>>,
}

/// An ERC721 or ERC1155 transfer, decoded (one per token of a batch).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamNftTransfer {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The collection.
    pub contract: String,
    /// ERC1155's operator; null for ERC721.
    pub operator: Option<String>,
    /// Sender.
    pub from: String,
    /// Recipient.
    pub to: String,
    /// The token.
    pub token_id: String,
    /// How many (`1` for ERC721).
    pub amount: String,
    /// `ERC721` or `ERC1155`.
    pub token_contract_type: String,
    /// The collection's name.
    pub token_name: String,
    /// The collection's symbol.
    pub token_symbol: String,
    /// Whether the collection is flagged as possible spam.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub possible_spam: Option<bool>,
    /// Results of the stream's triggers for this transfer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triggers: Option<Vec<StreamTriggerOutput>>,
}

/// NFT approvals by standard.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamNftApprovals {
    /// ERC721 approvals of one token.
    #[serde(rename = "ERC721")]
    pub erc721: Vec<StreamNftApproval>,
    /// Approvals of every token (ApprovalForAll).
    #[serde(rename = "ERC1155")]
    pub erc1155: Vec<StreamNftApprovalForAll>,
}

/// An ERC721 `Approval` of one token.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamNftApproval {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The collection.
    pub contract: String,
    /// The token's owner.
    pub owner: String,
    /// Who may transfer it.
    pub approved: String,
    /// The token.
    pub token_id: String,
    /// `ERC721`.
    pub token_contract_type: String,
    /// The collection's name.
    pub token_name: String,
    /// The collection's symbol.
    pub token_symbol: String,
}

/// An `ApprovalForAll`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamNftApprovalForAll {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The collection.
    pub contract: String,
    /// The holder.
    pub account: String,
    /// Who may transfer every token of the holder.
    pub operator: String,
    /// Whether the approval is given (or withdrawn).
    pub approved: bool,
    /// `ERC721` or `ERC1155`.
    pub token_contract_type: String,
    /// The collection's name.
    pub token_name: String,
    /// The collection's symbol.
    pub token_symbol: String,
}

/// An NFT approval of either kind.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StreamNftTokenApproval {
    /// The transaction.
    pub transaction_hash: String,
    /// The log's position in the block.
    pub log_index: String,
    /// The collection.
    pub contract: String,
    /// The holder.
    pub account: String,
    /// Who is approved.
    pub operator: String,
    /// Whether the approval covers every token of the holder.
    pub approved_all: bool,
    /// The token, for a one-token approval.
    pub token_id: Option<String>,
    /// `ERC721` or `ERC1155`.
    pub token_contract_type: String,
    /// The collection's name.
    pub token_name: String,
    /// The collection's symbol.
    pub token_symbol: String,
}

/// A native balance after the block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct StreamNativeBalance {
    /// The account.
    pub address: String,
    /// Its balance in wei, in decimal.
    pub balance: String,
}

impl StreamWebhook {
    /// The test webhook posted on create and update: every list empty and
    /// an empty block, as production sends it.
    pub fn test() -> StreamWebhook {
        StreamWebhook {
            confirmed: true,
            chain_id: String::new(),
            abi: Vec::new(),
            stream_id: String::new(),
            tag: String::new(),
            retries: 0,
            block: StreamBlock::default(),
            logs: Vec::new(),
            txs: Vec::new(),
            txs_internal: Vec::new(),
            erc20_transfers: Vec::new(),
            erc20_approvals: Vec::new(),
            nft_transfers: Vec::new(),
            nft_approvals: StreamNftApprovals::default(),
            nft_token_approvals: Vec::new(),
            native_balances: Vec::new(),
        }
    }

    /// Logs, transactions and internal transactions carried: production's
    /// `records`.
    pub fn records(&self) -> u64 {
        (self.logs.len() + self.txs.len() + self.txs_internal.len()) as u64
    }

    /// Whether the payload carries nothing: a block with nothing for the
    /// stream is not delivered.
    pub fn is_empty(&self) -> bool {
        self.logs.is_empty()
            && self.txs.is_empty()
            && self.txs_internal.is_empty()
            && self.erc20_transfers.is_empty()
            && self.erc20_approvals.is_empty()
            && self.nft_transfers.is_empty()
            && self.nft_token_approvals.is_empty()
    }
}
