//! The JSON-RPC gateway: `POST /{chain}/{apiKey}`.
//!
//! The key and the chain are checked here (401 and 400, each with a
//! JSON-RPC error body); then the request goes to jsonrpsee's own HTTP
//! service for that chain, which handles JSON-RPC 2.0 with batches and the
//! standard errors, and calls [`Gateway`], the server side of the API trait
//! generated from `spec/openrpc.json`. Between the two, each call, alone or
//! in a batch, goes through the cache of unchanging answers (`cache`).

pub(crate) mod budget;
mod cache;
mod cheats;
pub(crate) mod feed;
mod otterscan;
mod param_errors;
mod parity_traces;
mod socket;
mod wallet_listings;

use std::collections::HashMap;
use std::sync::Arc;

use crate::Backend;
use axum::body::Body;
use axum::extract::rejection::PathRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use jsonrpsee::Extensions;
use jsonrpsee::core::{RpcResult, async_trait};
use jsonrpsee::server::middleware::rpc::{MethodResponse, RpcServiceBuilder, RpcServiceT};
use jsonrpsee::server::{BatchRequestConfig, Server, ServerConfig, ServerHandle, TowerService, stop_channel};
use jsonrpsee::types::ErrorObjectOwned;
use tower::ServiceExt;
use tower::layer::util::{Identity, Stack};
use w3api_answers::token_metadata::token_metadata;
use w3api_answers::wallet_erc20::erc20_balances;
use w3api_answers::{AnswerError, Cursors};
use w3api_rpc::cheats::CheatApiServer;
use w3api_rpc::{ErrorCode, EthApiServer, UNANSWERABLE_METHODS, method};
use w3api_source::{
    BlockRef, ChangeFilter, LogQuery, Raw, SimulationRefusal, SourceError, TokenPriceQuery, WalletTokensQuery,
};
use w3api_types::params::operations::get_token_metadata as token_metadata_op;
use w3api_types::params::operations::get_wallet_token_balances as wallet_erc20_op;
use w3api_types::rpc::{
    AccessListResult, AccountProof, Address, AddressFilter, BalancesBlock, Block, BlockCount, BlockId,
    BlockNumberOrTag, BlockTraceResult, Bytes, DecodedTransactionsParams, Erc20Metadata, Erc20TokenBalance,
    EthCapabilities, EthConfig, FeeHistory, FilterChanges, FilterId, GethTrace, Hash32, HistoryTransaction,
    LocalizedTrace, Log, LogFilter, NftBalancesPage, NftCollectionsPage, OTS_API_LEVEL, OtsBlockDetails,
    OtsBlockTransactions, OtsContractCreator, OtsInternalOperation, OtsTraceEntry, OtsTransactions, Receipt,
    StateOverrides, StorageKey, StorageRequests, StorageValues, SubscriptionId, SubscriptionKind, SubscriptionOptions,
    SyncingStatus, TokenBalancesParams, TokenMetadataParams, TokenPrice, TokenPriceInclude, TokenPriceParams,
    TopicFilter, TraceConfig, TraceFilter, TraceResults, TraceTarget, TraceType, Transaction, TransactionIndex,
    TransactionRequest, TypedData, Uint, Uint64, WalletNftParams, WalletTransactionPage, WalletTransactionsParams,
};
use w3api_types::rpc::{
    BuiltPayload, PayloadAttributes, SimulatePayload, SimulatedBlock, TxpoolContent, TxpoolContentFrom, TxpoolInspect,
    TxpoolStatus,
};
use w3api_types::{Chain, U256};

use crate::answer_cache::Answers;
use crate::faults::FaultRules;
use crate::{App, BODY_LIMIT};

/// Most calls in one batch.
const MAX_BATCH: u32 = 1_000;
/// Largest response, single or batch: jsonrpsee's default, named because
/// the cache builds batch responses itself and must keep the same limit.
const MAX_RESPONSE: u32 = 10 * 1024 * 1024;
/// Most blocks one `eth_getLogs` range spans (the spec's documented limit).
const MAX_LOG_RANGE: u64 = 10_000;
/// Most logs one `eth_getLogs` answer holds (the spec's documented limit).
const MAX_LOGS: usize = 10_000;
/// Most blocks one `eth_feeHistory` call covers, as go-ethereum allows.
const MAX_FEE_HISTORY: u64 = 1_024;
/// Most slots one `eth_getStorageValues` reads, as geth allows.
const MAX_STORAGE_VALUES: usize = 1_024;

/// The API trait, answered from a data source for one chain.
pub struct Gateway<S> {
    chain: Chain,
    chain_id: u64,
    source: Arc<S>,
    /// The REST listings' cursors: the extended methods page as their twins.
    cursors: Cursors,
}

/// What our JSON-RPC middleware wraps: jsonrpsee's service beneath, which
/// answers calls, batches and notifications alike with a `MethodResponse`.
trait InnerService:
    RpcServiceT<MethodResponse = MethodResponse, NotificationResponse = MethodResponse, BatchResponse = MethodResponse>
    + Clone
    + Send
    + Sync
    + 'static
{
}

impl<S> InnerService for S where
    S: RpcServiceT<
            MethodResponse = MethodResponse,
            NotificationResponse = MethodResponse,
            BatchResponse = MethodResponse,
        > + Clone
        + Send
        + Sync
        + 'static
{
}

fn rpc_error(code: ErrorCode, message: impl Into<String>) -> ErrorObjectOwned {
    rpc_error_code(code.code(), message)
}

fn rpc_error_code(code: i32, message: impl Into<String>) -> ErrorObjectOwned {
    ErrorObjectOwned::owned(code, message.into(), None::<()>)
}

fn invalid_params(message: impl Into<String>) -> ErrorObjectOwned {
    rpc_error(ErrorCode::InvalidParams, message)
}

/// An answer's failure as a JSON-RPC error: a parameter the caller must
/// change is invalid params, naming it; a source's failure is mapped as
/// [`source_error`] maps it.
fn answer_error(error: AnswerError) -> ErrorObjectOwned {
    match error {
        AnswerError::Invalid(messages) => invalid_params(messages.join("; ")),
        AnswerError::Source(error) => source_error(error),
    }
}

/// The one place a source's failure becomes a JSON-RPC error; an internal
/// failure's cause goes to the log, not to the caller. A node's refusal of
/// a call passed on to it goes to the caller unchanged.
fn source_error(error: SourceError) -> ErrorObjectOwned {
    if let SourceError::NodeRefused { code, message, data } = error {
        return match i32::try_from(code) {
            Ok(code) => ErrorObjectOwned::owned(code, message, data),
            Err(_) => {
                tracing::error!(code, message, "the node answered an error code outside JSON-RPC's range");
                rpc_error(ErrorCode::InternalError, "Internal error")
            }
        };
    }
    if let SourceError::SimulationRefused { kind, message } = error {
        return rpc_error(simulation_code(kind), message);
    }
    if let SourceError::Reverted { data, .. } = &error {
        // As geth: the revert data, hex, beside the message.
        return ErrorObjectOwned::owned(ErrorCode::ExecutionReverted.code(), error.to_string(), Some(data.to_string()));
    }
    let code = match &error {
        SourceError::NoPrice { .. } => ErrorCode::PriceNotFound,
        SourceError::Busy { .. } => ErrorCode::RateLimited,
        SourceError::Reverted { .. } => ErrorCode::ExecutionReverted,
        SourceError::Halted(_) => ErrorCode::ExecutionHalted,
        SourceError::SimulationRefused { kind, .. } => simulation_code(*kind),
        SourceError::UnknownExchange { .. }
        | SourceError::NoBlockAt { .. }
        | SourceError::NoNft { .. }
        | SourceError::NoTransaction(_)
        | SourceError::NoBlock(_)
        | SourceError::BlockOutOfRange { .. }
        | SourceError::UnknownBlockHash(_)
        | SourceError::TooManyLogs { .. }
        | SourceError::InvalidRequest(_)
        | SourceError::InvalidChange(_) => ErrorCode::InvalidParams,
        SourceError::NoChanges(_) | SourceError::NotExecuted | SourceError::NodeLacks(_) => {
            ErrorCode::MethodNotSupported
        }
        SourceError::ChainNotServed(_)
        | SourceError::TransactionRefused(_)
        | SourceError::Interrupted(_)
        | SourceError::Untraced(_) => ErrorCode::ServerError,
        // Out of reach for now: said so, as REST says it; the cause goes to the log.
        SourceError::Store { retry: true, .. } => {
            tracing::warn!(cause = %error, "the store is out of reach during a JSON-RPC call");
            return rpc_error(ErrorCode::ServerError, "the database is unavailable; retry later");
        }
        SourceError::NodeRefused { .. }
        | SourceError::Unavailable(_)
        | SourceError::BadPosition
        | SourceError::Store { .. } => {
            tracing::error!(cause = %error, "data source failed during a JSON-RPC call");
            return rpc_error(ErrorCode::InternalError, "Internal error");
        }
    };
    rpc_error(code, error.to_string())
}

/// The code geth answers when it simulates nothing.
fn simulation_code(refusal: SimulationRefusal) -> ErrorCode {
    match refusal {
        SimulationRefusal::NonceTooLow => ErrorCode::NonceTooLow,
        SimulationRefusal::NonceTooHigh => ErrorCode::NonceTooHigh,
        SimulationRefusal::BaseFeeTooLow => ErrorCode::BaseFeeTooLow,
        SimulationRefusal::IntrinsicGas => ErrorCode::IntrinsicGasTooLow,
        SimulationRefusal::InsufficientFunds => ErrorCode::InsufficientFunds,
        SimulationRefusal::BlockGasLimitReached => ErrorCode::BlockGasLimitReached,
        SimulationRefusal::BlockNumberOrder => ErrorCode::BlockNumberInvalid,
        SimulationRefusal::BlockTimestampOrder => ErrorCode::BlockTimestampInvalid,
        SimulationRefusal::SenderNotEoa => ErrorCode::SenderNotEoa,
        SimulationRefusal::InitCodeTooLarge => ErrorCode::InitCodeTooLarge,
        SimulationRefusal::ClientLimitExceeded => ErrorCode::ClientLimitExceeded,
        SimulationRefusal::InvalidParams => ErrorCode::InvalidParams,
        SimulationRefusal::Refused => ErrorCode::ServerError,
        SimulationRefusal::Internal => ErrorCode::InternalError,
    }
}

/// A log filter's addresses and topics within the spec's limits, geth's
/// (a filter's cost grows with each: every block's bloom is tested for them).
fn check_filter_size(filter: &LogFilter) -> RpcResult<()> {
    use w3api_rpc::limits::{ADDRESS_FILTER_MAX_ITEMS, LOG_FILTER_TOPICS_MAX_ITEMS, TOPIC_FILTER_MAX_ITEMS};
    if let Some(AddressFilter::AnyOf(addresses)) = &filter.address
        && addresses.len() > ADDRESS_FILTER_MAX_ITEMS
    {
        let given = addresses.len();
        return Err(invalid_params(format!("filter.address: {given} addresses; at most {ADDRESS_FILTER_MAX_ITEMS}")));
    }
    let topics = filter.topics.as_deref().unwrap_or_default();
    if topics.len() > LOG_FILTER_TOPICS_MAX_ITEMS {
        let given = topics.len();
        return Err(invalid_params(format!(
            "filter.topics: {given} positions; a log has at most {LOG_FILTER_TOPICS_MAX_ITEMS}"
        )));
    }
    for (position, topic) in topics.iter().enumerate() {
        if let TopicFilter::AnyOf(any) = topic
            && any.len() > TOPIC_FILTER_MAX_ITEMS
        {
            let given = any.len();
            return Err(invalid_params(format!(
                "filter.topics[{position}]: {given} topics; at most {TOPIC_FILTER_MAX_ITEMS}"
            )));
        }
    }
    Ok(())
}

impl<S: Backend> Gateway<S> {
    /// The pending pool, for the `txpool_` method `name`: each of them is
    /// a view of `txpool_content`, so that the four never disagree.
    async fn pool(&self, name: &str) -> RpcResult<TxpoolContent> {
        self.source.pool_content(self.chain).await.map_err(|e| execution_error(name, e))
    }

    /// A filter of blocks or pending transactions for the caller's key, for the method `name`.
    async fn new_change_filter(&self, ext: &Extensions, kind: ChangeFilter, name: &str) -> RpcResult<FilterId> {
        let answer = self.source.new_change_filter(self.chain, caller_key(ext)?.to_owned(), kind).await;
        answer.map_err(|e| execution_error(name, e))
    }

    /// The fees of the newest block, whose last entries are the next
    /// block's base fee and blob base fee.
    async fn next_block_fees(&self) -> RpcResult<FeeHistory> {
        self.source.fee_history(self.chain, 1, BlockRef::Latest, Vec::new()).await.map_err(source_error)
    }

    /// The number of a block the caller named; an error when it does not exist.
    async fn existing_block(&self, block: BlockRef, what: &str) -> RpcResult<u64> {
        match self.source.block_number(self.chain, block).await.map_err(source_error)? {
            Some(number) => Ok(number),
            None => Err(match block {
                BlockRef::Hash(hash) => invalid_params(format!("{what}: no block has hash {hash:#x}")),
                BlockRef::Number(number) => {
                    let latest = self.source.latest_block(self.chain).await.map_err(source_error)?;
                    invalid_params(format!("{what}: block {number:#x} is after the latest block, {latest:#x}"))
                }
                tag => {
                    tracing::error!(?tag, "the data source names no block for a tag");
                    rpc_error(ErrorCode::InternalError, "Internal error")
                }
            }),
        }
    }

    /// The block range of a log filter, checked against the spec's limits.
    async fn log_range(&self, filter: &LogFilter) -> RpcResult<(u64, u64)> {
        if let Some(hash) = filter.block_hash {
            if filter.from_block.is_some() || filter.to_block.is_some() {
                return Err(invalid_params("filter: blockHash cannot be combined with fromBlock or toBlock"));
            }
            let number = self.existing_block(BlockRef::Hash(hash), "filter.blockHash").await?;
            return Ok((number, number));
        }
        let bound = |block: Option<BlockNumberOrTag>| async move {
            match block.map_or(BlockRef::Latest, BlockRef::from) {
                BlockRef::Number(number) => Ok(number),
                other => self.existing_block(other, "filter").await,
            }
        };
        let (from, to) = (bound(filter.from_block).await?, bound(filter.to_block).await?);
        if from > to {
            return Err(invalid_params(format!("filter: fromBlock {from:#x} is after toBlock {to:#x}")));
        }
        // The range asked for counts, not the part of it that exists yet, as
        // hosted nodes count it: the answer to the same filter must not start
        // failing as the chain grows.
        let span = (to - from).saturating_add(1);
        if span > MAX_LOG_RANGE {
            return Err(invalid_params(format!(
                "filter: the range {from:#x}..{to:#x} spans {span} blocks; at most {MAX_LOG_RANGE} per call"
            )));
        }
        // As geth, and the execution clients' suite with it: a range past the
        // newest block is refused, not answered with what exists so far.
        let latest = self.source.latest_block(self.chain).await.map_err(source_error)?;
        if to > latest {
            return Err(invalid_params(format!(
                "block range extends beyond current head block: toBlock {to:#x}, head {latest:#x}"
            )));
        }
        Ok((from, to))
    }
}

#[async_trait]
impl<S: Backend> EthApiServer for Gateway<S> {
    async fn get_token_price(&self, request: TokenPriceParams) -> RpcResult<TokenPrice> {
        let query = TokenPriceQuery {
            chain: self.chain,
            address: request.address,
            exchange: request.exchange,
            to_block: request.to_block,
            include_percent_change: request.include == Some(TokenPriceInclude::PercentChange),
            max_token_inactivity_days: None,
            min_pair_side_liquidity_usd: None,
        };
        self.source.token_price(query).await.map_err(source_error)
    }

    async fn get_token_balances(&self, request: TokenBalancesParams) -> RpcResult<Vec<Erc20TokenBalance>> {
        let most = wallet_erc20_op::TOKEN_ADDRESSES.max_items().unwrap_or(u64::MAX);
        if request.token_addresses.len() as u64 > most {
            let given = request.token_addresses.len();
            return Err(rpc_error(ErrorCode::InvalidParams, format!("tokenAddresses: {given} given; at most {most}")));
        }
        let query = WalletTokensQuery {
            to_block: match request.to_block {
                Some(BalancesBlock::Number(number)) => Some(number),
                Some(BalancesBlock::Latest) | None => None,
            },
            token_addresses: request.token_addresses,
            // Production leaves spam out unless told not to, as its REST twin does.
            exclude_spam: request.exclude_spam.unwrap_or(true),
            ..WalletTokensQuery::new(self.chain, request.address)
        };
        erc20_balances(&*self.source, query).await.map_err(source_error)
    }

    async fn get_nft_balances(&self, request: WalletNftParams) -> RpcResult<NftBalancesPage> {
        wallet_listings::nft_balances((&*self.source, &self.cursors), self.chain, request).await
    }

    async fn get_nft_collections(&self, request: WalletNftParams) -> RpcResult<NftCollectionsPage> {
        wallet_listings::nft_collections((&*self.source, &self.cursors), self.chain, request).await
    }

    async fn get_transactions(&self, request: WalletTransactionsParams) -> RpcResult<WalletTransactionPage> {
        wallet_listings::transactions((&*self.source, &self.cursors), self.chain, request).await
    }

    async fn get_decoded_transactions(&self, request: DecodedTransactionsParams) -> RpcResult<Vec<HistoryTransaction>> {
        wallet_listings::decoded_transactions((&*self.source, &self.cursors), self.chain, request).await
    }

    async fn get_token_metadata(&self, request: TokenMetadataParams) -> RpcResult<Vec<Erc20Metadata>> {
        let most = token_metadata_op::ADDRESSES.max_items().unwrap_or(u64::MAX);
        let given = request.addresses.len();
        if given == 0 || given as u64 > most {
            return Err(rpc_error(ErrorCode::InvalidParams, format!("addresses: {given} given; from 1 to {most}")));
        }
        token_metadata(&*self.source, self.chain, request.addresses).await.map_err(source_error)
    }

    async fn get_block_by_number(&self, block: BlockNumberOrTag, hydrated: bool) -> RpcResult<Option<Block>> {
        self.source.block(self.chain, block.into(), hydrated).await.map_err(source_error)
    }

    async fn get_transaction_by_block_hash_and_index(
        &self,
        block_hash: Hash32,
        index: TransactionIndex,
    ) -> RpcResult<Option<Transaction>> {
        self.source.transaction(self.chain, BlockRef::Hash(block_hash), index.0).await.map_err(source_error)
    }

    async fn get_transaction_by_block_number_and_index(
        &self,
        block: BlockNumberOrTag,
        index: TransactionIndex,
    ) -> RpcResult<Option<Transaction>> {
        self.source.transaction(self.chain, block.into(), index.0).await.map_err(source_error)
    }

    async fn chain_id(&self) -> RpcResult<Uint64> {
        Ok(Uint64(self.source.chain_id(self.chain).unwrap_or(self.chain_id)))
    }

    async fn net_version(&self) -> RpcResult<String> {
        Ok(self.source.chain_id(self.chain).unwrap_or(self.chain_id).to_string())
    }

    async fn web3_client_version(&self) -> RpcResult<String> {
        Ok(format!("w3api/v{}/{}", env!("CARGO_PKG_VERSION"), self.source.kind()))
    }

    async fn syncing(&self) -> RpcResult<SyncingStatus> {
        self.source.syncing(self.chain).await.map_err(source_error)
    }

    async fn block_number(&self) -> RpcResult<Uint64> {
        self.source.latest_block(self.chain).await.map(Uint64).map_err(source_error)
    }

    async fn get_block_by_hash(&self, block_hash: Hash32, hydrated: bool) -> RpcResult<Option<Block>> {
        self.source.block(self.chain, BlockRef::Hash(block_hash), hydrated).await.map_err(source_error)
    }

    async fn get_block_transaction_count_by_hash(&self, block_hash: Hash32) -> RpcResult<Option<Uint64>> {
        let count = self.source.block_transaction_count(self.chain, BlockRef::Hash(block_hash)).await;
        count.map(|count| count.map(Uint64)).map_err(source_error)
    }

    async fn get_block_transaction_count_by_number(&self, block: BlockNumberOrTag) -> RpcResult<Option<Uint64>> {
        let count = self.source.block_transaction_count(self.chain, block.into()).await;
        count.map(|count| count.map(Uint64)).map_err(source_error)
    }

    async fn get_transaction_by_hash(&self, transaction_hash: Hash32) -> RpcResult<Option<Transaction>> {
        self.source.transaction_by_hash(self.chain, transaction_hash).await.map_err(source_error)
    }

    async fn get_transaction_receipt(&self, transaction_hash: Hash32) -> RpcResult<Option<Receipt>> {
        self.source.receipt(self.chain, transaction_hash).await.map_err(source_error)
    }

    async fn get_block_receipts(&self, block: BlockId) -> RpcResult<Option<Vec<Receipt>>> {
        self.source.block_receipts(self.chain, block.into()).await.map_err(source_error)
    }

    async fn get_logs(&self, filter: LogFilter) -> RpcResult<Vec<Log>> {
        check_filter_size(&filter)?;
        let (from_block, to_block) = self.log_range(&filter).await?;
        let query = LogQuery { chain: self.chain, from_block, to_block, filter, max_logs: MAX_LOGS };
        self.source.logs(query).await.map_err(source_error)
    }

    async fn get_balance(&self, address: Address, block: Option<BlockId>) -> RpcResult<Uint> {
        self.source.balance(self.chain, address, state_block(block)).await.map_err(source_error)
    }

    async fn get_transaction_count(&self, address: Address, block: Option<BlockId>) -> RpcResult<Uint64> {
        self.source.transaction_count(self.chain, address, state_block(block)).await.map(Uint64).map_err(source_error)
    }

    async fn gas_price(&self) -> RpcResult<Uint> {
        let fees = self.source.fee_suggestion(self.chain).await.map_err(source_error)?;
        Ok(U256::from(fees.next_base_fee + fees.tip))
    }

    async fn capabilities(&self) -> RpcResult<EthCapabilities> {
        self.source.capabilities(self.chain).await.map_err(|e| execution_error(method::ETH_CAPABILITIES, e))
    }

    async fn config(&self) -> RpcResult<EthConfig> {
        self.source.chain_config(self.chain).await.map_err(|e| execution_error(method::ETH_CONFIG, e))
    }

    async fn base_fee(&self) -> RpcResult<Uint> {
        let next = self.next_block_fees().await?;
        Ok(U256::from(next.base_fee_per_gas.last().copied().unwrap_or_default()))
    }

    async fn blob_base_fee(&self) -> RpcResult<Uint> {
        let next = self.next_block_fees().await?;
        let blob_fees = next.base_fee_per_blob_gas.unwrap_or_default();
        Ok(U256::from(blob_fees.last().copied().unwrap_or_default()))
    }

    async fn max_priority_fee_per_gas(&self) -> RpcResult<Uint> {
        let fees = self.source.fee_suggestion(self.chain).await.map_err(source_error)?;
        Ok(U256::from(fees.tip))
    }

    async fn fee_history(
        &self,
        block_count: BlockCount,
        newest_block: BlockNumberOrTag,
        reward_percentiles: Option<Vec<f64>>,
    ) -> RpcResult<FeeHistory> {
        let count = block_count.0.0;
        if !(1..=MAX_FEE_HISTORY).contains(&count) {
            return Err(invalid_params(format!("blockCount: {count} is not between 1 and {MAX_FEE_HISTORY}")));
        }
        let percentiles = reward_percentiles.unwrap_or_default();
        if let Some(bad) = percentiles.iter().find(|p| !(0.0..=100.0).contains(*p)) {
            return Err(invalid_params(format!("rewardPercentiles: {bad} is not between 0 and 100")));
        }
        if percentiles.windows(2).any(|pair| pair[0] > pair[1]) {
            return Err(invalid_params("rewardPercentiles: the percentiles must increase"));
        }
        self.source.fee_history(self.chain, count, newest_block.into(), percentiles).await.map_err(source_error)
    }

    async fn call(
        &self,
        transaction: TransactionRequest,
        block: Option<BlockId>,
        state_overrides: Option<StateOverrides>,
    ) -> RpcResult<Bytes> {
        let answer = self.source.call(self.chain, transaction, state_block(block), state_overrides).await;
        answer.map_err(|e| execution_error(method::ETH_CALL, e))
    }

    async fn estimate_gas(
        &self,
        transaction: TransactionRequest,
        block: Option<BlockId>,
        state_overrides: Option<StateOverrides>,
    ) -> RpcResult<Uint> {
        let answer = self.source.estimate_gas(self.chain, transaction, state_block(block), state_overrides).await;
        answer.map_err(|e| execution_error(method::ETH_ESTIMATE_GAS, e))
    }

    async fn create_access_list(
        &self,
        transaction: TransactionRequest,
        block: Option<BlockId>,
    ) -> RpcResult<AccessListResult> {
        let answer = self.source.create_access_list(self.chain, transaction, state_block(block)).await;
        answer.map_err(|e| execution_error(method::ETH_CREATE_ACCESS_LIST, e))
    }

    async fn simulate_v1(&self, payload: SimulatePayload, block: Option<BlockId>) -> RpcResult<Vec<SimulatedBlock>> {
        let answer = self.source.simulate(self.chain, payload, state_block(block)).await;
        answer.map_err(|e| execution_error(method::ETH_SIMULATE_V1, e))
    }

    async fn testing_build_block_v1(
        &self,
        parent_hash: Hash32,
        payload_attributes: PayloadAttributes,
        transactions: Option<Vec<Bytes>>,
        extra_data: Option<Bytes>,
    ) -> RpcResult<BuiltPayload> {
        let answer =
            self.source.build_block(self.chain, parent_hash, payload_attributes, transactions, extra_data).await;
        answer.map_err(|e| execution_error(method::TESTING_BUILD_BLOCK_V1, e))
    }

    async fn get_code(&self, address: Address, block: Option<BlockId>) -> RpcResult<Bytes> {
        let answer = self.source.code(self.chain, address, state_block(block)).await;
        answer.map_err(|e| execution_error(method::ETH_GET_CODE, e))
    }

    async fn get_storage_at(&self, address: Address, slot: StorageKey, block: Option<BlockId>) -> RpcResult<Hash32> {
        let slot = Uint::from_be_bytes(slot.slot.0);
        let answer = self.source.storage_at(self.chain, address, slot, state_block(block)).await;
        answer.map_err(|e| execution_error(method::ETH_GET_STORAGE_AT, e))
    }

    async fn get_storage_values(&self, requests: StorageRequests, block: Option<BlockId>) -> RpcResult<StorageValues> {
        let slots: usize = requests.0.values().map(Vec::len).sum();
        if slots == 0 {
            return Err(invalid_params("empty request: name at least one account and one slot"));
        }
        if slots > MAX_STORAGE_VALUES {
            return Err(invalid_params(format!("{slots} slots asked for; at most {MAX_STORAGE_VALUES} per call")));
        }
        // One block for every slot: a tag read once, not once per slot.
        let block = self.existing_block(state_block(block), "block").await?;
        let mut values = std::collections::BTreeMap::new();
        for (address, keys) in requests.0 {
            let mut read = Vec::with_capacity(keys.len());
            for key in keys {
                let slot = Uint::from_be_bytes(key.slot.0);
                let value = self.source.storage_at(self.chain, address, slot, BlockRef::Number(block)).await;
                read.push(value.map_err(|e| execution_error(method::ETH_GET_STORAGE_VALUES, e))?);
            }
            values.insert(address, read);
        }
        Ok(StorageValues(values))
    }

    async fn get_proof(
        &self,
        address: Address,
        storage_keys: Vec<StorageKey>,
        block: Option<BlockId>,
    ) -> RpcResult<AccountProof> {
        let answer = self.source.proof(self.chain, address, storage_keys, state_block(block)).await;
        answer.map_err(|e| execution_error(method::ETH_GET_PROOF, e))
    }

    async fn send_raw_transaction(&self, transaction: Bytes) -> RpcResult<Hash32> {
        let answer = self.source.send_raw_transaction(self.chain, transaction).await;
        answer.map_err(|e| execution_error(method::ETH_SEND_RAW_TRANSACTION, e))
    }

    async fn new_filter(&self, ext: &Extensions, filter: LogFilter) -> RpcResult<FilterId> {
        check_filter_size(&filter)?;
        let answer = self.source.new_filter(self.chain, caller_key(ext)?.to_owned(), filter).await;
        answer.map_err(|e| execution_error(method::ETH_NEW_FILTER, e))
    }

    async fn new_block_filter(&self, ext: &Extensions) -> RpcResult<FilterId> {
        self.new_change_filter(ext, ChangeFilter::Blocks, method::ETH_NEW_BLOCK_FILTER).await
    }

    async fn new_pending_transaction_filter(&self, ext: &Extensions) -> RpcResult<FilterId> {
        let kind = ChangeFilter::PendingTransactions;
        self.new_change_filter(ext, kind, method::ETH_NEW_PENDING_TRANSACTION_FILTER).await
    }

    async fn get_filter_changes(&self, filter_id: FilterId) -> RpcResult<FilterChanges> {
        let answer = self.source.filter_changes(self.chain, filter_id).await;
        answer.map_err(|e| execution_error(method::ETH_GET_FILTER_CHANGES, e))
    }

    async fn get_filter_logs(&self, filter_id: FilterId) -> RpcResult<Vec<Log>> {
        let answer = self.source.filter_logs(self.chain, filter_id).await;
        answer.map_err(|e| execution_error(method::ETH_GET_FILTER_LOGS, e))
    }

    async fn uninstall_filter(&self, filter_id: FilterId) -> RpcResult<bool> {
        let answer = self.source.uninstall_filter(self.chain, filter_id).await;
        answer.map_err(|e| execution_error(method::ETH_UNINSTALL_FILTER, e))
    }

    // A WebSocket answers these itself (`socket`); over HTTP, as geth answers them.
    async fn subscribe(&self, _: SubscriptionKind, _: Option<SubscriptionOptions>) -> RpcResult<SubscriptionId> {
        Err(rpc_error(ErrorCode::MethodNotFound, "notifications not supported"))
    }

    async fn unsubscribe(&self, _: SubscriptionId) -> RpcResult<bool> {
        Err(rpc_error(ErrorCode::ServerError, "subscription not found"))
    }

    async fn txpool_content(&self) -> RpcResult<TxpoolContent> {
        self.pool(method::TXPOOL_CONTENT).await
    }

    async fn txpool_content_from(&self, address: Address) -> RpcResult<TxpoolContentFrom> {
        Ok(self.pool(method::TXPOOL_CONTENT_FROM).await?.from_sender(&address))
    }

    async fn txpool_status(&self) -> RpcResult<TxpoolStatus> {
        Ok(self.pool(method::TXPOOL_STATUS).await?.status())
    }

    async fn txpool_inspect(&self) -> RpcResult<TxpoolInspect> {
        Ok(self.pool(method::TXPOOL_INSPECT).await?.inspect())
    }

    async fn accounts(&self) -> RpcResult<Vec<Address>> {
        let answer = self.source.signing_accounts(self.chain).await;
        answer.map_err(|e| execution_error(method::ETH_ACCOUNTS, e))
    }

    async fn send_transaction(&self, transaction: TransactionRequest) -> RpcResult<Hash32> {
        let answer = self.source.send_transaction(self.chain, transaction).await;
        answer.map_err(|e| execution_error(method::ETH_SEND_TRANSACTION, e))
    }

    async fn sign(&self, address: Address, message: Bytes) -> RpcResult<Bytes> {
        let answer = self.source.sign(self.chain, address, message).await;
        answer.map_err(|e| execution_error(method::ETH_SIGN, e))
    }

    async fn personal_sign(&self, message: Bytes, address: Address) -> RpcResult<Bytes> {
        let answer = self.source.sign(self.chain, address, message).await;
        answer.map_err(|e| execution_error(method::PERSONAL_SIGN, e))
    }

    async fn sign_typed_data_v4(&self, address: Address, typed_data: TypedData) -> RpcResult<Bytes> {
        let answer = self.source.sign_typed_data(self.chain, address, typed_data).await;
        answer.map_err(|e| execution_error(method::ETH_SIGN_TYPED_DATA_V4, e))
    }

    async fn debug_get_raw_header(&self, block: BlockNumberOrTag) -> RpcResult<Option<Bytes>> {
        self.source.raw(self.chain, Raw::Header(block.into())).await.map_err(source_error)
    }

    async fn debug_get_raw_block(&self, block: BlockNumberOrTag) -> RpcResult<Option<Bytes>> {
        self.source.raw(self.chain, Raw::Block(block.into())).await.map_err(source_error)
    }

    async fn debug_get_raw_receipts(&self, block: BlockNumberOrTag) -> RpcResult<Option<Vec<Bytes>>> {
        self.source.raw_receipts(self.chain, block.into()).await.map_err(source_error)
    }

    async fn debug_get_raw_transaction(&self, transaction: Hash32) -> RpcResult<Option<Bytes>> {
        self.source.raw(self.chain, Raw::Transaction(transaction)).await.map_err(source_error)
    }

    async fn debug_trace_transaction(&self, transaction: Hash32, config: Option<TraceConfig>) -> RpcResult<GethTrace> {
        let config = checked_trace_config(config, TraceTarget::Mined)?;
        let answer = self.source.trace_transaction(self.chain, transaction, config).await;
        answer.map_err(|e| execution_error(method::DEBUG_TRACE_TRANSACTION, e))
    }

    async fn debug_trace_call(
        &self,
        transaction: TransactionRequest,
        block: Option<BlockId>,
        config: Option<TraceConfig>,
    ) -> RpcResult<GethTrace> {
        let config = checked_trace_config(config, TraceTarget::Call)?;
        let answer = self.source.trace_call(self.chain, transaction, state_block(block), config).await;
        answer.map_err(|e| execution_error(method::DEBUG_TRACE_CALL, e))
    }

    async fn debug_trace_block_by_number(
        &self,
        block: BlockNumberOrTag,
        config: Option<TraceConfig>,
    ) -> RpcResult<Vec<BlockTraceResult>> {
        let config = checked_trace_config(config, TraceTarget::Mined)?;
        let answer = self.source.trace_block(self.chain, block.into(), config).await;
        answer.map_err(|e| execution_error(method::DEBUG_TRACE_BLOCK_BY_NUMBER, e))
    }

    async fn debug_trace_block_by_hash(
        &self,
        block: Hash32,
        config: Option<TraceConfig>,
    ) -> RpcResult<Vec<BlockTraceResult>> {
        let config = checked_trace_config(config, TraceTarget::Mined)?;
        let answer = self.source.trace_block(self.chain, BlockRef::Hash(block), config).await;
        answer.map_err(|e| execution_error(method::DEBUG_TRACE_BLOCK_BY_HASH, e))
    }

    async fn trace_transaction(&self, transaction: Hash32) -> RpcResult<Option<Vec<LocalizedTrace>>> {
        let answer = self.source.parity_transaction(self.chain, transaction).await;
        answer.map_err(|e| execution_error(method::TRACE_TRANSACTION, e))
    }

    async fn trace_block(&self, block: BlockNumberOrTag) -> RpcResult<Option<Vec<LocalizedTrace>>> {
        // A block after the latest is null here, not an error as debug_traceBlock's.
        let known = self.source.block_number(self.chain, block.into()).await.map_err(source_error)?;
        let Some(number) = known else { return Ok(None) };
        let answer = self.source.parity_block(self.chain, BlockRef::Number(number)).await;
        answer.map_err(|e| execution_error(method::TRACE_BLOCK, e))
    }

    async fn trace_filter(&self, filter: TraceFilter) -> RpcResult<Vec<LocalizedTrace>> {
        let filter = self.resolved_trace_filter(filter).await?;
        let answer = self.source.parity_filter(self.chain, filter).await;
        answer.map_err(|e| execution_error(method::TRACE_FILTER, e))
    }

    async fn trace_call(
        &self,
        transaction: TransactionRequest,
        trace_types: Vec<TraceType>,
        block: Option<BlockNumberOrTag>,
    ) -> RpcResult<TraceResults> {
        let block = block.map_or(BlockRef::Latest, BlockRef::from);
        let types = parity_traces::trace_types(trace_types);
        let answer = self.source.parity_call(self.chain, transaction, block, types).await;
        answer.map_err(|e| execution_error(method::TRACE_CALL, e))
    }

    async fn trace_replay_transaction(
        &self,
        transaction: Hash32,
        trace_types: Vec<TraceType>,
    ) -> RpcResult<TraceResults> {
        let types = parity_traces::trace_types(trace_types);
        let answer = self.source.parity_replay(self.chain, transaction, types).await;
        answer.map_err(|e| execution_error(method::TRACE_REPLAY_TRANSACTION, e))
    }

    async fn ots_get_api_level(&self) -> RpcResult<u64> {
        Ok(OTS_API_LEVEL)
    }

    async fn ots_has_code(&self, address: Address, block: BlockId) -> RpcResult<bool> {
        let answer = self.source.code(self.chain, address, block.into()).await;
        answer.map(|code| !code.is_empty()).map_err(|e| execution_error(method::OTS_HAS_CODE, e))
    }

    async fn ots_get_internal_operations(&self, transaction: Hash32) -> RpcResult<Option<Vec<OtsInternalOperation>>> {
        let tree = self.ots_call_tree(method::OTS_GET_INTERNAL_OPERATIONS, transaction).await?;
        Ok(tree.as_ref().map(OtsInternalOperation::list))
    }

    async fn ots_get_transaction_error(&self, transaction: Hash32) -> RpcResult<Option<Bytes>> {
        self.ots_transaction_error(method::OTS_GET_TRANSACTION_ERROR, transaction).await
    }

    async fn ots_trace_transaction(&self, transaction: Hash32) -> RpcResult<Option<Vec<OtsTraceEntry>>> {
        let tree = self.ots_call_tree(method::OTS_TRACE_TRANSACTION, transaction).await?;
        Ok(tree.as_ref().map(OtsTraceEntry::list))
    }

    async fn ots_get_block_details(&self, block_number: u64) -> RpcResult<Option<OtsBlockDetails>> {
        self.ots_block_details(BlockRef::Number(block_number)).await
    }

    async fn ots_get_block_details_by_hash(&self, block_hash: Hash32) -> RpcResult<Option<OtsBlockDetails>> {
        self.ots_block_details(BlockRef::Hash(block_hash)).await
    }

    async fn ots_get_block_transactions(
        &self,
        block_number: u64,
        page_number: u64,
        page_size: u64,
    ) -> RpcResult<Option<OtsBlockTransactions>> {
        self.ots_block_transactions(block_number, page_number, page_size).await
    }

    async fn ots_search_transactions_before(
        &self,
        address: Address,
        block_number: u64,
        page_size: u64,
    ) -> RpcResult<OtsTransactions> {
        self.ots_search(address, block_number, page_size, true).await
    }

    async fn ots_search_transactions_after(
        &self,
        address: Address,
        block_number: u64,
        page_size: u64,
    ) -> RpcResult<OtsTransactions> {
        self.ots_search(address, block_number, page_size, false).await
    }

    async fn ots_get_transaction_by_sender_and_nonce(&self, sender: Address, nonce: u64) -> RpcResult<Option<Hash32>> {
        self.ots_by_sender_and_nonce(sender, nonce).await
    }

    async fn ots_get_contract_creator(&self, address: Address) -> RpcResult<Option<OtsContractCreator>> {
        self.ots_contract_creator(method::OTS_GET_CONTRACT_CREATOR, address).await
    }
}

/// A failure of an execution method `name`: a source that does not take
/// the method says which and where to go for it.
fn execution_error(name: &str, error: SourceError) -> ErrorObjectOwned {
    match error {
        SourceError::NotExecuted => {
            rpc_error(ErrorCode::MethodNotSupported, format!("{name} is not supported: {error}"))
        }
        other => source_error(other),
    }
}

/// The API key a request came with, which `entry` checked and noted.
#[derive(Clone, Debug)]
pub(crate) struct CallerKey(Arc<str>);

/// The key of the request a call is part of.
fn caller_key(ext: &Extensions) -> RpcResult<&str> {
    match ext.get::<CallerKey>() {
        Some(CallerKey(key)) => Ok(key),
        None => {
            tracing::error!("a JSON-RPC call reached the gateway without its request's API key");
            Err(rpc_error(ErrorCode::InternalError, "Internal error"))
        }
    }
}

/// A trace's config (the struct logger's defaults when absent), once its
/// tracer, options and timeout are ones the trace of `target` takes.
fn checked_trace_config(config: Option<TraceConfig>, target: TraceTarget) -> RpcResult<TraceConfig> {
    let config = config.unwrap_or_default();
    config.tracer_kind(target).map_err(|why| invalid_params(format!("config: {why}")))?;
    config.timeout().map_err(|why| invalid_params(format!("config.{why}")))?;
    Ok(config)
}

/// A block a state read names; latest when absent.
fn state_block(block: Option<BlockId>) -> BlockRef {
    block.map_or(BlockRef::Latest, BlockRef::from)
}

/// The gateway's methods for one chain: the API trait, and an error naming
/// the reason for each standard method a source without EVM state cannot
/// answer truthfully.
fn methods<S: Backend>(gateway: Gateway<S>, cheats: cheats::Cheats<S>) -> jsonrpsee::RpcModule<Gateway<S>> {
    let mut module = gateway.into_rpc();
    module.merge(cheats.into_rpc()).expect("the chain-control methods are apart from the gateway's");
    for (name, reason) in UNANSWERABLE_METHODS {
        module
            .register_method(name, move |_, _, _| {
                rpc_error(ErrorCode::MethodNotSupported, format!("{name} is not supported: {reason}"))
            })
            .expect("the spec lists each unanswerable method once, apart from the API's methods");
    }
    module
}

/// jsonrpsee's HTTP service, with the cache around each call, the time
/// budget within it, and parameter errors told in their message innermost.
type Service = TowerService<
    Stack<param_errors::ParamErrorsLayer, Stack<budget::BudgetLayer, Stack<cache::CacheLayer, Identity>>>,
    Identity,
>;

/// jsonrpsee's HTTP service for each chain of the gateway.
pub(crate) struct RpcServices {
    services: HashMap<Chain, Service>,
    /// Each request's time budget for the calls that run the EVM.
    evm_timeout: std::time::Duration,
    // Dropping the handle would stop the services.
    _stop: ServerHandle,
}

impl RpcServices {
    /// One service per RPC chain, answering from `answers` or else from `source`.
    /// `cheats`: whether the chain-control methods change chains (or
    /// refuse); `faults`: the rules they set; `evm_timeout`: each
    /// request's budget for the calls that run the EVM.
    pub(crate) fn new<S: Backend>(
        source: Arc<S>,
        answers: Arc<Answers>,
        body_limit: usize,
        (cheats, evm_timeout): (bool, std::time::Duration),
        extra_chains: &[Chain],
        faults: &FaultRules,
        cursors: &Cursors,
    ) -> RpcServices {
        let (stop, handle) = stop_channel();
        let config = ServerConfig::builder()
            .max_request_body_size(body_limit as u32)
            .max_response_body_size(MAX_RESPONSE)
            .set_batch_request_config(BatchRequestConfig::Limit(MAX_BATCH))
            .build();
        // Every chain of the table has an id; one without could not answer eth_chainId.
        let services = Chain::rpc()
            .chain(extra_chains.iter().copied())
            .filter_map(|chain| Some((chain, chain.id()?)))
            .map(|(chain, chain_id)| {
                let gateway = Gateway { chain, chain_id, source: source.clone(), cursors: cursors.clone() };
                let control = cheats::Cheats::new(chain, source.clone(), cheats, faults.clone());
                let revision_of = source.clone();
                let revision: cache::Revision = Arc::new(move || revision_of.revision(chain));
                let cache = cache::CacheLayer::new(chain, revision, answers.clone(), MAX_RESPONSE as usize);
                let service = Server::builder()
                    .set_config(config.clone())
                    .set_rpc_middleware(
                        RpcServiceBuilder::new()
                            .layer(cache)
                            .layer(budget::BudgetLayer::new(evm_timeout))
                            .layer(param_errors::ParamErrorsLayer),
                    )
                    .to_service_builder()
                    .max_connections(u32::MAX)
                    .build(methods(gateway, control), stop.clone());
                (chain, service)
            })
            .collect();
        RpcServices { services, evm_timeout, _stop: handle }
    }
}

/// A JSON-RPC error body outside any call (`id` null), with an HTTP status.
fn refusal(status: StatusCode, code: ErrorCode, message: String) -> Response {
    refusal_of_calls(status, code, message, &[serde_json::Value::Null], false)
}

/// An HTTP status with a JSON-RPC error for each call of a request, by
/// id: an array for a batch, else one object.
pub(crate) fn refusal_of_calls(
    status: StatusCode,
    code: ErrorCode,
    message: String,
    ids: &[serde_json::Value],
    batch: bool,
) -> Response {
    #[derive(serde::Serialize)]
    struct Refusal<'a> {
        jsonrpc: &'static str,
        id: &'a serde_json::Value,
        error: RefusalError<'a>,
    }
    #[derive(serde::Serialize)]
    struct RefusalError<'a> {
        code: i32,
        message: &'a str,
    }
    let error = |id| Refusal { jsonrpc: "2.0", id, error: RefusalError { code: code.code(), message: &message } };
    match (batch, ids) {
        (false, [id]) => (status, axum::Json(error(id))).into_response(),
        _ => (status, axum::Json(ids.iter().map(error).collect::<Vec<_>>())).into_response(),
    }
}

/// A response with a call refused because every execution slot was busy:
/// `Retry-After: 1`, and a 429 when that call was the whole request (a
/// batch's other calls were answered, so it stays a 200).
fn busy(mut response: Response, batch: bool) -> Response {
    response.headers_mut().insert(http::header::RETRY_AFTER, http::HeaderValue::from(1));
    if !batch {
        *response.status_mut() = StatusCode::TOO_MANY_REQUESTS;
    }
    response
}

/// The chain a gateway path names and the key it carries, checked: the
/// key first (401), then the chain (400).
fn served<S>(
    app: &App<S>,
    path: Result<Path<(String, String)>, PathRejection>,
) -> Result<(Chain, &Service, String), Box<Response>> {
    let Ok(Path((slug, key))) = path else {
        return Err(Box::new(refusal(
            StatusCode::BAD_REQUEST,
            ErrorCode::InvalidRequest,
            "The path is not valid UTF-8".into(),
        )));
    };
    if !app.keys.accepts(&key) {
        let message = "Unauthorized: unknown API key".into();
        return Err(Box::new(refusal(StatusCode::UNAUTHORIZED, ErrorCode::Unauthorized, message)));
    }
    // A chain beyond the table's (from a genesis) is named by its hex id.
    let extra = || slug.parse::<Chain>().ok().filter(|chain| !chain.is_known());
    let chain = Chain::from_rpc_slug(&slug).or_else(extra);
    let Some((chain, service)) = chain.and_then(|chain| Some((chain, app.rpc.services.get(&chain)?))) else {
        let known: Vec<&str> = Chain::rpc().filter_map(Chain::rpc_slug).collect();
        let message = format!("Unknown chain {slug:?}; the gateway serves {}", known.join(", "));
        return Err(Box::new(refusal(StatusCode::BAD_REQUEST, ErrorCode::ServerError, message)));
    };
    Ok((chain, service, key))
}

/// `POST /{chain}/{apiKey}`: checks the key, then the chain, then hands the
/// request to jsonrpsee.
pub(crate) async fn entry<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Result<Path<(String, String)>, PathRejection>,
    request: Request,
) -> Response {
    let (_, service, key) = match served(&app, path) {
        Ok(served) => served,
        Err(refused) => return *refused,
    };
    let (parts, body) = request.into_parts();
    let Ok(body) = axum::body::to_bytes(body, BODY_LIMIT).await else {
        let message = format!("Request body exceeds {BODY_LIMIT} bytes");
        return refusal(StatusCode::PAYLOAD_TOO_LARGE, ErrorCode::InvalidRequest, message);
    };
    let batch = body.trim_ascii_start().starts_with(b"[");
    let budget = budget::RequestBudget::starting_now(app.rpc.evm_timeout);
    let mut parts = parts;
    parts.extensions.insert(budget.clone());
    parts.extensions.insert(CallerKey(key.into()));
    let request = Request::from_parts(parts, Body::from(body));
    match service.clone().oneshot(request).await {
        Ok(response) if budget.met_busy() => busy(response.map(Body::new), batch),
        Ok(response) => response.map(Body::new),
        Err(error) => {
            tracing::error!(%error, "JSON-RPC service failed");
            refusal(StatusCode::INTERNAL_SERVER_ERROR, ErrorCode::InternalError, "Internal error".into())
        }
    }
}

/// `GET /{chain}/{apiKey}` upgraded to a WebSocket: the key and the chain
/// as on HTTP, and the page's origin as CORS allows it (a browser sends
/// one and applies no CORS to a socket, so the server checks it).
pub(crate) async fn socket_entry<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Result<Path<(String, String)>, PathRejection>,
    headers: http::HeaderMap,
    upgrade: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Response {
    let (chain, service, key) = match served(&app, path) {
        Ok(served) => served,
        Err(refused) => return *refused,
    };
    let origin = headers.get(http::header::ORIGIN).and_then(|origin| origin.to_str().ok());
    if let (Some(origin), crate::CorsOrigins::Only(allowed)) = (origin, &app.cors)
        && !allowed.iter().any(|one| one == origin)
    {
        let message = format!("Origin {origin:?} may not open a WebSocket here; allowed: {}", allowed.join(", "));
        return refusal(StatusCode::FORBIDDEN, ErrorCode::InvalidRequest, message);
    }
    let upgrade = match upgrade {
        Ok(upgrade) => upgrade,
        // A plain GET: JSON-RPC over HTTP is a POST, as before there were sockets.
        Err(rejection) => {
            let message = format!(
                "GET here opens a WebSocket, and this request does not ({}); send JSON-RPC over HTTP with POST",
                rejection.body_text()
            );
            let mut refused = refusal(StatusCode::METHOD_NOT_ALLOWED, ErrorCode::InvalidRequest, message);
            refused.headers_mut().insert(http::header::ALLOW, http::HeaderValue::from_static("POST"));
            return refused;
        }
    };
    let connection = socket::Connection {
        chain,
        key: key.into(),
        service: service.clone(),
        feeds: app.feeds.clone(),
        source: app.source.clone(),
    };
    upgrade
        .max_message_size(BODY_LIMIT)
        .max_frame_size(BODY_LIMIT)
        .max_write_buffer_size(MAX_RESPONSE as usize * 2)
        .on_upgrade(move |socket| connection.run(socket))
}
