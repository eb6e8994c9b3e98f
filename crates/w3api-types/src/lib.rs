//! Types of the w3api interface, shared by the REST client, the RPC client and
//! the server.
//!
//! Each type is named like its schema in `spec/openapi.yaml` or
//! `spec/openrpc.json`; the workspace's tests check that the two agree field by
//! field. Decoding is lenient where production is (numbers as numeric strings,
//! booleans as `"true"`/`"false"`, `null` for unknown prices and metadata,
//! unknown fields ignored); encoding writes one canonical form, described in
//! [`wire`]. Raw token amounts are exact [`U256`] integers, written as decimal
//! strings.

mod auth;
mod balances;
mod block_date;
mod chain;
mod erc20;
mod error;
mod history;
mod lenient;
mod nft;
mod open_enum;
pub mod openapi;
mod page;
pub mod params;
pub mod rpc;
mod stream;
mod stream_api;
mod stream_webhook;
mod transactions;
mod transfers;
mod units;
mod wallet_activity;
mod wallet_tokens;
pub mod wire;

pub use alloy_primitives::{Address, B64, B256, Bloom, Bytes, U256};

/// A block's number (the spec's `BlockNumber`).
pub type BlockNumber = u64;

/// A transaction's hash (the spec's `TransactionHash`).
pub type TransactionHash = B256;
pub use auth::{
    SolanaChallengeRequest, SolanaChallengeResponse, SolanaNetwork, SolanaVerifiedChallenge, SolanaVerifyRequest,
};
pub use balances::{
    ChainNativeBalances, ChainNetWorth, Erc20TokenBalance, NativeBalance, NetWorth, UnavailableChain,
    WalletNativeBalance, usd_text,
};
pub use block_date::{BlockDate, DateInput, InvalidDate};
pub use chain::{Chain, InvalidChain, OtherChain};
pub use erc20::{Erc20Metadata, MultipleTokenPricesRequest, TokenImplementation, TokenLinks, TokenPriceItem};
pub use error::{Error, ErrorMessage};
pub use history::{
    ContractInteractions, DecodedTransactionsParams, Direction, HistoryCategory, HistoryErc20Transfer,
    HistoryNftTransfer, HistoryOrder, HistoryTransaction, NativeTransfer, Permission, PermissionSpender,
    PermissionToken, WalletHistoryPage,
};
pub use lenient::{Lenient, MalformedHex};
pub use nft::{
    ContractType, InvalidTokenId, InvalidTokenIdFormat, MultipleNftsRequest, Nft, NftAttribute, NftCollection,
    NftCollectionPage, NftLastSale, NftMedia, NftMediaCollection, NftMediaItem, NftPage, NftPaymentToken, NftPrices,
    NftTokenId, NftTokenItem, NormalizedMetadata, SyncStatus, TokenIdFormat, TraitValue, media_category,
    nft_token_hash,
};
pub use page::{CountedPage, NumberedPage};
pub use rpc::{NativePrice, TokenPrice, TokenPriceInclude};
pub use stream::{
    AbiItem, AbiParameter, EvmStream, StreamAdvancedOption, StreamNativeBalanceType, StreamNativeBalances,
    StreamStatus, StreamTrigger, StreamTriggerType, TriggerInput,
};
pub use stream_api::{
    AddressList, DeliveryStatus, EvmStreamCreate, EvmStreamUpdate, EvmStreamsPage, SettingsRegion, StreamAddress,
    StreamAddressChange, StreamAddressResponse, StreamAddressesPage, StreamBlockRequest, StreamDeliveryLog,
    StreamDeliveryLogsPage, StreamHistoryItem, StreamHistoryPage, StreamSettings, StreamStatusUpdate,
    StreamTinyPayload, StreamUsage, StreamUsageStats,
};
pub use stream_webhook::{
    StreamBlock, StreamErc20Approval, StreamErc20Transfer, StreamInternalTransaction, StreamLog, StreamNativeBalance,
    StreamNftApproval, StreamNftApprovalForAll, StreamNftApprovals, StreamNftTokenApproval, StreamNftTransfer,
    StreamTransaction, StreamTriggerOutput, StreamWebhook,
};
pub use transactions::{
    BlockNumberOrHash, BlockTransaction, BlockTransactionVerbose, ChainBlock, DecodedCall, DecodedEvent, DecodedItem,
    DecodedParam, InternalTransaction, InvalidBlockNumberOrHash, LogVerbose, MinedTransaction, TransactionInclude,
    TransactionLog, WalletTransaction, WalletTransactionPage,
};
pub use transfers::{
    Erc20Transfer, Erc20TransferPage, InvalidListingOrder, ListingOrder, NftTransactionType, NftTransfer,
    NftTransferPage, TransferParties,
};
pub use units::format_units;
pub use wallet_activity::{ActiveChain, ActiveChains, ChainActivity, StatTotal, WalletStats};
pub use wallet_tokens::{NATIVE_TOKEN_ADDRESS, TokenBalance, TokenBalancePage};
