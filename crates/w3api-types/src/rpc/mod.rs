//! Parameters and results of the JSON-RPC gateway (`spec/openrpc.json`).
//!
//! Blocks and transactions follow the Ethereum execution API. They are plain
//! structs of alloy primitives rather than alloy's RPC types because decoding
//! must survive the malformed samples production publishes (see
//! [`crate::Lenient`]) and the spec needs their JSON Schema; `to_alloy`
//! converts them to alloy's types for hashing and signature recovery.

mod block;
mod chain_config;
mod cheat;
mod execution;
mod filter;
mod node;
mod otterscan;
mod params;
mod parity;
mod payload;
mod receipt;
mod simulate;
mod subscription;
mod token_price;
mod trace;
mod transaction;
mod txpool;
mod wallet_nfts;

pub use block::{Block, BlockTransactions, Withdrawal};
pub use chain_config::{
    BlobSchedule, CapabilitiesHead, DeleteStrategy, DeleteStrategyKind, EthCapabilities, EthConfig, ForkConfig,
    ResourceCapability,
};
pub use cheat::{
    CreatedWallet, ForkingOptions, NewCollection, NewToken, NftMetadataParams, NftStandard, NftTraitParam, Quantity,
    ResetOptions,
};
pub use execution::{
    AccessListResult, AccountOverride, AccountProof, FilterChanges, FilterId, StateOverrides, StorageKey, StorageProof,
    StorageRequests, StorageValues, TransactionRequest, TypedData,
};
pub use filter::{AddressFilter, LogFilter, TopicFilter};
pub use node::{BlockCount, FeeHistory, SyncProgress, SyncingStatus, Uint64};
pub use otterscan::{
    OTS_API_LEVEL, OtsBlock, OtsBlockDetails, OtsBlockTransactions, OtsContractCreator, OtsInternalOperation,
    OtsIssuance, OtsReceipt, OtsTraceEntry, OtsTransactions, operation,
};
pub use params::{
    BalancesBlock, BlockId, BlockNumberOrTag, InvalidBlockNumberOrTag, TokenBalancesParams, TokenMetadataParams,
    TokenPriceInclude, TokenPriceParams, TransactionIndex,
};
pub use parity::{
    AccountDiff, CallAction, CallOutput, Change, CreateAction, CreateOutput, Delta, LocalizedTrace, MemoryDelta,
    RewardAction, SelfdestructAction, StateDiff, StorageDelta, TraceAction, TraceFilter, TraceFilterMode, TraceKind,
    TraceOutput, TraceResults, TraceType, TransactionTrace, VmExecuted, VmInstruction, VmTrace,
};
pub use payload::{BlobsBundle, BuiltPayload, ExecutionPayload, PayloadAttributes};
pub use receipt::{Log, Receipt};
pub use simulate::{BlockStateCalls, SimulatePayload, SimulatedBlock, SimulatedCall, SimulatedCallError};
pub use subscription::{SubscriptionId, SubscriptionKind, SubscriptionOptions};
pub use token_price::{NativePrice, TokenPrice};
pub use trace::{
    BlockOverrides, BlockTraceResult, CallFrame, CallLog, DEFAULT_TRACE_TIMEOUT, FourByteTrace, GethTrace, NoopTrace,
    Prestate, PrestateAccount, PrestateDiff, StructLog, StructLogTrace, TraceConfig, TraceTarget, TracerConfig,
    TracerKind, parse_go_duration,
};
// The extended methods answer with the Data API's own shapes.
pub use crate::{ContractType, DecodedTransactionsParams, HistoryOrder, HistoryTransaction, SyncStatus};
pub use crate::{
    Erc20Metadata, Erc20TokenBalance, TokenImplementation, TokenLinks, WalletTransaction, WalletTransactionPage,
};
pub use transaction::{AccessListItem, Authorization, Transaction};
pub use txpool::{ByNonce, TxpoolBySender, TxpoolContent, TxpoolContentFrom, TxpoolInspect, TxpoolStatus};
pub use wallet_nfts::{
    HeldCollection, NftBalance, NftBalanceMetadata, NftBalancesPage, NftCollectionsPage, WalletNftParams,
    WalletTransactionsParams,
};

/// A 20-byte account or contract address (`Address` in the spec).
pub use alloy_primitives::Address;

/// A 32-byte hash (`Hash32` in the spec).
pub type Hash32 = alloy_primitives::B256;
/// Bytes of any length in hex, such as call data or code (`Bytes` in the spec).
pub use alloy_primitives::Bytes;

/// Eight bytes, such as a block's proof-of-work nonce (`Bytes8` in the spec).
pub type Bytes8 = alloy_primitives::B64;
/// An unsigned integer written as a hex quantity (`Uint` in the spec).
pub type Uint = alloy_primitives::U256;

/// `value` as a type with the same JSON: how the types here and alloy's RPC
/// types convert, carrying each one's own encoding over so the two cannot
/// disagree.
fn via_json<T: serde::Serialize, U: serde::de::DeserializeOwned>(value: &T) -> Result<U, serde_json::Error> {
    serde_json::to_value(value).and_then(serde_json::from_value)
}
