//! Which Rust type answers to each component schema of the spec.
//!
//! The tests walk the spec's components and look each one up here, so a
//! component without a Rust type fails rather than going unchecked.

use schemars::generate::SchemaSettings;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_with::Schema;
use w3api_types::rpc::{self, Bytes8, Hash32, Uint};
use w3api_types::wire::Hex;
use w3api_types::*;

use crate::spec::Document;

/// A Rust type as the tests see it.
pub struct RustType {
    /// Name of the component schema, which is also the Rust type's name.
    pub name: &'static str,
    /// The type's schemars schema (a root schema with `$defs`).
    pub schema: fn() -> Value,
    /// Decodes JSON into the type and encodes the value back.
    pub reencode: fn(&Value) -> Result<Value, String>,
}

fn schema_of<T: schemars::JsonSchema>() -> Value {
    SchemaSettings::draft2020_12().into_generator().into_root_schema_for::<T>().to_value()
}

fn reencode<T: Serialize + DeserializeOwned>(json: &Value) -> Result<Value, String> {
    let value: T = serde_json::from_value(json.clone()).map_err(|e| e.to_string())?;
    serde_json::to_value(&value).map_err(|e| e.to_string())
}

macro_rules! rust_types {
    ($($name:literal => $ty:ty $(as $schema:ty)?),* $(,)?) => {
        &[$(RustType {
            name: $name,
            schema: schema_of::<rust_types!(@schema $ty $(, $schema)?)>,
            reencode: reencode::<$ty>,
        }),*]
    };
    (@schema $ty:ty) => { $ty };
    (@schema $ty:ty, $schema:ty) => { $schema };
}

/// Types of `spec/openapi.yaml`'s components.
pub static REST: &[RustType] = rust_types! {
    "Error" => Error,
    "Address" => Address as Schema<Address, Hex>,
    "Chain" => Chain,
    "BlockNumber" => u64,
    "TransactionHash" => B256 as Schema<B256, Hex>,
    "TokenIdFormat" => TokenIdFormat,
    "SolanaNetwork" => SolanaNetwork,
    "SolanaChallengeRequest" => SolanaChallengeRequest,
    "SolanaChallengeResponse" => SolanaChallengeResponse,
    "SolanaVerifyRequest" => SolanaVerifyRequest,
    "SolanaVerifiedChallenge" => SolanaVerifiedChallenge,
    "TokenBalancePage" => TokenBalancePage,
    "TokenBalance" => TokenBalance,
    "SyncStatus" => SyncStatus,
    "ContractType" => ContractType,
    "MultipleNftsRequest" => MultipleNftsRequest,
    "NftTokenItem" => NftTokenItem,
    "NftTokenId" => NftTokenId,
    "BlockNumberOrHash" => BlockNumberOrHash,
    "ChainBlock" => ChainBlock,
    "BlockTransaction" => BlockTransaction,
    "TransactionLog" => TransactionLog,
    "BlockTransactionVerbose" => BlockTransactionVerbose,
    "InternalTransaction" => InternalTransaction,
    "TransactionInclude" => TransactionInclude,
    "LogVerbose" => LogVerbose,
    "DecodedEvent" => DecodedEvent,
    "DecodedCall" => DecodedCall,
    "DecodedParam" => DecodedParam,
    "ListingOrder" => ListingOrder,
    "WalletStats" => WalletStats,
    "StatTotal" => StatTotal,
    "ActiveChains" => ActiveChains,
    "ActiveChain" => ActiveChain,
    "ChainActivity" => ChainActivity,
    "WalletTransactionPage" => WalletTransactionPage,
    "WalletTransaction" => WalletTransaction,
    "WalletHistoryPage" => WalletHistoryPage,
    "HistoryTransaction" => HistoryTransaction,
    "HistoryCategory" => HistoryCategory,
    "TransferDirection" => Direction,
    "HistoryErc20Transfer" => HistoryErc20Transfer,
    "HistoryNftTransfer" => HistoryNftTransfer,
    "NativeTransfer" => NativeTransfer,
    "ContractInteractions" => ContractInteractions,
    "Permission" => Permission,
    "Erc20TransferPage" => Erc20TransferPage,
    "Erc20Transfer" => Erc20Transfer,
    "NftTransferPage" => NftTransferPage,
    "NftTransfer" => NftTransfer,
    "NftPage" => NftPage,
    "Nft" => Nft,
    "NormalizedMetadata" => NormalizedMetadata,
    "NftAttribute" => NftAttribute,
    "TraitValue" => TraitValue,
    "NftLastSale" => NftLastSale,
    "NftPaymentToken" => NftPaymentToken,
    "NftMedia" => NftMedia,
    "NftMediaCollection" => NftMediaCollection,
    "NftMediaItem" => NftMediaItem,
    "NftCollectionPage" => NftCollectionPage,
    "NftCollection" => NftCollection,
    "NativeBalance" => NativeBalance,
    "ChainNativeBalances" => ChainNativeBalances,
    "WalletNativeBalance" => WalletNativeBalance,
    "Erc20TokenBalance" => Erc20TokenBalance,
    "TokenPrice" => TokenPrice,
    "TokenPriceInclude" => TokenPriceInclude,
    "NativePrice" => NativePrice,
    "MultipleTokenPricesRequest" => MultipleTokenPricesRequest,
    "TokenPriceItem" => TokenPriceItem,
    "Erc20Metadata" => Erc20Metadata,
    "TokenLinks" => TokenLinks,
    "TokenImplementation" => TokenImplementation,
    "BlockDate" => BlockDate,
    "DateInput" => DateInput,
    "NetWorth" => NetWorth,
    "ChainNetWorth" => ChainNetWorth,
    "UnavailableChain" => UnavailableChain,
    "StreamStatus" => StreamStatus,
    "StreamTriggerType" => StreamTriggerType,
    "StreamNativeBalanceType" => StreamNativeBalanceType,
    "EvmStream" => EvmStream,
    "StreamNativeBalances" => StreamNativeBalances,
    "StreamAdvancedOption" => StreamAdvancedOption,
    "StreamTrigger" => StreamTrigger,
    "AbiItem" => AbiItem,
    "AbiParameter" => AbiParameter,
    "EvmStreamCreate" => EvmStreamCreate,
    "EvmStreamUpdate" => EvmStreamUpdate,
    "EvmStreamsPage" => EvmStreamsPage,
    "StreamStatusUpdate" => StreamStatusUpdate,
    "StreamAddressChange" => StreamAddressChange,
    "StreamAddressResponse" => StreamAddressResponse,
    "StreamAddress" => StreamAddress,
    "StreamAddressesPage" => StreamAddressesPage,
    "SettingsRegion" => SettingsRegion,
    "StreamSettings" => StreamSettings,
    "StreamBlockRequest" => StreamBlockRequest,
    "StreamWebhook" => StreamWebhook,
    "StreamBlock" => StreamBlock,
    "StreamTriggerOutput" => StreamTriggerOutput,
    "StreamLog" => StreamLog,
    "StreamTransaction" => StreamTransaction,
    "StreamInternalTransaction" => StreamInternalTransaction,
    "StreamErc20Transfer" => StreamErc20Transfer,
    "StreamErc20Approval" => StreamErc20Approval,
    "StreamNftTransfer" => StreamNftTransfer,
    "StreamNftApprovals" => StreamNftApprovals,
    "StreamNftApproval" => StreamNftApproval,
    "StreamNftApprovalForAll" => StreamNftApprovalForAll,
    "StreamNftTokenApproval" => StreamNftTokenApproval,
    "StreamNativeBalance" => StreamNativeBalance,
    "StreamTinyPayload" => StreamTinyPayload,
    "StreamHistoryItem" => StreamHistoryItem,
    "StreamHistoryPage" => StreamHistoryPage,
    "DeliveryStatus" => DeliveryStatus,
    "StreamDeliveryLog" => StreamDeliveryLog,
    "StreamDeliveryLogsPage" => StreamDeliveryLogsPage,
    "StreamUsage" => StreamUsage,
    "StreamUsageStats" => StreamUsageStats,
};

/// Types of `spec/openrpc.json`'s components.
pub static RPC: &[RustType] = rust_types! {
    "Address" => Address as Schema<Address, Hex>,
    "Hash32" => Hash32 as Schema<Hash32, Hex>,
    "Bytes" => Bytes as Schema<Bytes, Hex>,
    "Bytes8" => Bytes8 as Schema<Bytes8, Hex>,
    "Bloom" => Bloom as Schema<Bloom, Hex>,
    "Uint" => Uint as Schema<Uint, Hex>,
    "BlockNumberOrTag" => rpc::BlockNumberOrTag,
    "TransactionIndex" => rpc::TransactionIndex,
    "TokenPriceInclude" => TokenPriceInclude,
    "TokenPriceParams" => rpc::TokenPriceParams,
    "BalancesBlock" => rpc::BalancesBlock,
    "TokenBalancesParams" => rpc::TokenBalancesParams,
    "TokenMetadataParams" => rpc::TokenMetadataParams,
    "WalletNftParams" => rpc::WalletNftParams,
    "WalletTransactionsParams" => rpc::WalletTransactionsParams,
    "WalletTransactionPage" => WalletTransactionPage,
    "InternalTransaction" => InternalTransaction,
    "TransactionInclude" => TransactionInclude,
    "WalletTransaction" => WalletTransaction,
    "DecodedTransactionsParams" => DecodedTransactionsParams,
    "HistoryTransaction" => HistoryTransaction,
    "HistoryCategory" => HistoryCategory,
    "TransferDirection" => Direction,
    "HistoryErc20Transfer" => HistoryErc20Transfer,
    "HistoryNftTransfer" => HistoryNftTransfer,
    "NativeTransfer" => NativeTransfer,
    "ContractInteractions" => ContractInteractions,
    "Permission" => Permission,
    "LogVerbose" => LogVerbose,
    "DecodedEvent" => DecodedEvent,
    "DecodedParam" => DecodedParam,
    "NormalizedMetadata" => NormalizedMetadata,
    "NftAttribute" => NftAttribute,
    "TraitValue" => TraitValue,
    "NftBalancesPage" => rpc::NftBalancesPage,
    "NftBalance" => rpc::NftBalance,
    "NftBalanceMetadata" => rpc::NftBalanceMetadata,
    "NftCollectionsPage" => rpc::NftCollectionsPage,
    "HeldCollection" => rpc::HeldCollection,
    "SyncStatus" => SyncStatus,
    "ContractType" => ContractType,
    "Erc20TokenBalance" => Erc20TokenBalance,
    "Erc20Metadata" => Erc20Metadata,
    "TokenLinks" => TokenLinks,
    "TokenImplementation" => TokenImplementation,
    "NativePrice" => NativePrice,
    "TokenPrice" => TokenPrice,
    "Block" => rpc::Block,
    "BlockTransactions" => rpc::BlockTransactions,
    "Withdrawal" => rpc::Withdrawal,
    "AccessListItem" => rpc::AccessListItem,
    "Authorization" => rpc::Authorization,
    "Transaction" => rpc::Transaction,
    "Uint64" => rpc::Uint64,
    "BlockId" => rpc::BlockId,
    "BlockCount" => rpc::BlockCount,
    "SyncProgress" => rpc::SyncProgress,
    "SyncingStatus" => rpc::SyncingStatus,
    "Log" => rpc::Log,
    "Receipt" => rpc::Receipt,
    "AddressFilter" => rpc::AddressFilter,
    "TopicFilter" => rpc::TopicFilter,
    "LogFilter" => rpc::LogFilter,
    "FeeHistory" => rpc::FeeHistory,
    "TransactionRequest" => rpc::TransactionRequest,
    "AccountOverride" => rpc::AccountOverride,
    "StateOverrides" => rpc::StateOverrides,
    "StorageRequests" => rpc::StorageRequests,
    "EthConfig" => rpc::EthConfig,
    "EthCapabilities" => rpc::EthCapabilities,
    "CapabilitiesHead" => rpc::CapabilitiesHead,
    "ResourceCapability" => rpc::ResourceCapability,
    "DeleteStrategy" => rpc::DeleteStrategy,
    "DeleteStrategyKind" => rpc::DeleteStrategyKind,
    "ForkConfig" => rpc::ForkConfig,
    "BlobSchedule" => rpc::BlobSchedule,
    "StorageValues" => rpc::StorageValues,
    "AccessListResult" => rpc::AccessListResult,
    "StorageKey" => rpc::StorageKey,
    "StorageProof" => rpc::StorageProof,
    "AccountProof" => rpc::AccountProof,
    "FilterId" => rpc::FilterId,
    "FilterChanges" => rpc::FilterChanges,
    "SubscriptionKind" => rpc::SubscriptionKind,
    "SubscriptionOptions" => rpc::SubscriptionOptions,
    "SubscriptionId" => rpc::SubscriptionId,
    "TxpoolContent" => rpc::TxpoolContent,
    "TxpoolContentFrom" => rpc::TxpoolContentFrom,
    "TxpoolStatus" => rpc::TxpoolStatus,
    "TxpoolInspect" => rpc::TxpoolInspect,
    "TypedData" => rpc::TypedData,
    "TraceConfig" => rpc::TraceConfig,
    "TracerConfig" => rpc::TracerConfig,
    "BlockOverrides" => rpc::BlockOverrides,
    "GethTrace" => rpc::GethTrace,
    "StructLogTrace" => rpc::StructLogTrace,
    "StructLog" => rpc::StructLog,
    "CallFrame" => rpc::CallFrame,
    "CallLog" => rpc::CallLog,
    "Prestate" => rpc::Prestate,
    "PrestateDiff" => rpc::PrestateDiff,
    "PrestateAccount" => rpc::PrestateAccount,
    "NoopTrace" => rpc::NoopTrace,
    "FourByteTrace" => rpc::FourByteTrace,
    "BlockTraceResult" => rpc::BlockTraceResult,
    "TraceType" => rpc::TraceType,
    "CallAction" => rpc::CallAction,
    "CreateAction" => rpc::CreateAction,
    "SelfdestructAction" => rpc::SelfdestructAction,
    "RewardAction" => rpc::RewardAction,
    "TraceAction" => rpc::TraceAction,
    "CallOutput" => rpc::CallOutput,
    "CreateOutput" => rpc::CreateOutput,
    "TraceOutput" => rpc::TraceOutput,
    "TransactionTrace" => rpc::TransactionTrace,
    "LocalizedTrace" => rpc::LocalizedTrace,
    "TraceFilter" => rpc::TraceFilter,
    "TraceResults" => rpc::TraceResults,
    "StateDiff" => rpc::StateDiff,
    "AccountDiff" => rpc::AccountDiff,
    "Delta" => rpc::Delta,
    "Change" => rpc::Change,
    "VmTrace" => rpc::VmTrace,
    "VmInstruction" => rpc::VmInstruction,
    "VmExecuted" => rpc::VmExecuted,
    "MemoryDelta" => rpc::MemoryDelta,
    "StorageDelta" => rpc::StorageDelta,
    "OtsInternalOperation" => rpc::OtsInternalOperation,
    "OtsTraceEntry" => rpc::OtsTraceEntry,
    "OtsBlock" => rpc::OtsBlock,
    "OtsIssuance" => rpc::OtsIssuance,
    "OtsBlockDetails" => rpc::OtsBlockDetails,
    "OtsReceipt" => rpc::OtsReceipt,
    "OtsBlockTransactions" => rpc::OtsBlockTransactions,
    "OtsTransactions" => rpc::OtsTransactions,
    "OtsContractCreator" => rpc::OtsContractCreator,
};

/// Types of `spec/openrpc-cheats.json`'s components.
pub static CHEATS: &[RustType] = rust_types! {
    "Address" => Address as Schema<Address, Hex>,
    "Bytes" => Bytes as Schema<Bytes, Hex>,
    "Hash32" => Hash32 as Schema<Hash32, Hex>,
    "Uint" => Uint as Schema<Uint, Hex>,
    "Quantity" => rpc::Quantity,
    "CreatedWallet" => rpc::CreatedWallet,
    "NewToken" => rpc::NewToken,
    "NftMetadataParams" => rpc::NftMetadataParams,
    "NftTraitParam" => rpc::NftTraitParam,
    "NewCollection" => rpc::NewCollection,
    "NftStandard" => rpc::NftStandard,
    "ResetOptions" => rpc::ResetOptions,
    "ForkingOptions" => rpc::ForkingOptions,
};

impl Document {
    /// The Rust types of this document's components.
    pub fn rust_types(self) -> &'static [RustType] {
        match self {
            Document::OpenApi => REST,
            Document::OpenRpc => RPC,
            Document::OpenRpcCheats => CHEATS,
        }
    }

    /// The Rust type of component `name`.
    pub fn rust_type(self, name: &str) -> Result<&'static RustType, String> {
        self.rust_types().iter().find(|t| t.name == name).ok_or_else(|| {
            format!(
                "{}: component schema {name} has no Rust type in crates/w3api-spec-check/src/registry.rs",
                self.file_name()
            )
        })
    }
}
