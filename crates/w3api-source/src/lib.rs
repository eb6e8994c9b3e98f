//! What the server needs to know, asked of a [`DataSource`].
//!
//! The server's HTTP and JSON-RPC layers call this trait and never see where
//! the answers come from: the embedded devnet (`w3api-devnet`) implements it,
//! and so could an indexer of a real node. Answers are whole (filtered,
//! ordered) lists; paging them is the server's job.

use std::future::Future;

use uuid::Uuid;
use w3api_types::rpc::{
    Block, BlockId, BlockNumberOrTag, FeeHistory, Hash32, Log, LogFilter, Receipt, SyncingStatus, TokenPrice,
    Transaction,
};
use w3api_types::{Address, Chain, EvmStream, Nft, NftCollection, NftPrices, TokenBalance, TokenIdFormat, U256};

/// A source of chain data for the API.
pub trait DataSource: Send + Sync + 'static {
    /// The newest block of a chain.
    fn latest_block(&self, chain: Chain) -> impl Future<Output = Result<u64, SourceError>> + Send;

    /// Token balances of a wallet, native currency included, at a block.
    fn wallet_tokens(&self, query: WalletTokensQuery)
    -> impl Future<Output = Result<WalletTokens, SourceError>> + Send;

    /// The NFTs a wallet owns, in a stable order.
    fn wallet_nfts(&self, query: WalletNftsQuery) -> impl Future<Output = Result<Vec<Nft>, SourceError>> + Send;

    /// The NFT collections a wallet holds tokens of, in a stable order.
    fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
    ) -> impl Future<Output = Result<Vec<NftCollection>, SourceError>> + Send;

    /// The price of a token from its DEX pairs.
    fn token_price(&self, query: TokenPriceQuery) -> impl Future<Output = Result<TokenPrice, SourceError>> + Send;

    /// A block, with its transactions as hashes or in full; `None` when it
    /// does not exist.
    fn block(
        &self,
        chain: Chain,
        block: BlockRef,
        full_transactions: bool,
    ) -> impl Future<Output = Result<Option<Block>, SourceError>> + Send;

    /// The transaction at `index` in a block; `None` when the block or the
    /// index does not exist.
    fn transaction(
        &self,
        chain: Chain,
        block: BlockRef,
        index: u64,
    ) -> impl Future<Output = Result<Option<Transaction>, SourceError>> + Send;

    /// What the source is, for `web3_clientVersion` (`devnet`, a node's name).
    fn kind(&self) -> &'static str;

    /// Whether the source is still catching up with its chain.
    fn syncing(&self, chain: Chain) -> impl Future<Output = Result<SyncingStatus, SourceError>> + Send;

    /// The number of the block a reference names; `None` when it does not exist.
    fn block_number(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<u64>, SourceError>> + Send;

    /// The number of transactions of a block; `None` when it does not exist.
    fn block_transaction_count(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<u64>, SourceError>> + Send;

    /// An included transaction by hash.
    fn transaction_by_hash(
        &self,
        chain: Chain,
        hash: Hash32,
    ) -> impl Future<Output = Result<Option<Transaction>, SourceError>> + Send;

    /// The receipt of an included transaction.
    fn receipt(&self, chain: Chain, hash: Hash32) -> impl Future<Output = Result<Option<Receipt>, SourceError>> + Send;

    /// Every receipt of a block, in order; `None` when the block does not exist.
    fn block_receipts(
        &self,
        chain: Chain,
        block: BlockRef,
    ) -> impl Future<Output = Result<Option<Vec<Receipt>>, SourceError>> + Send;

    /// The logs of a range of existing blocks that pass a filter's address
    /// and topic conditions, in chain order; [`SourceError::TooManyLogs`]
    /// past `query.max_logs`.
    fn logs(&self, query: LogQuery) -> impl Future<Output = Result<Vec<Log>, SourceError>> + Send;

    /// The native balance of an account after a block; a block that does not
    /// exist is [`SourceError::BlockOutOfRange`] or [`SourceError::UnknownBlockHash`].
    fn balance(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<U256, SourceError>> + Send;

    /// How many transactions an account has sent up to and including a
    /// block; a missing block is an error, as for [`DataSource::balance`].
    fn transaction_count(
        &self,
        chain: Chain,
        address: Address,
        block: BlockRef,
    ) -> impl Future<Output = Result<u64, SourceError>> + Send;

    /// Fees of `count` blocks ending at `newest` (fewer where the chain is
    /// shorter), with the tip at each of `percentiles` (increasing, 0 to 100);
    /// a missing `newest` is an error, as for [`DataSource::balance`].
    fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: &[f64],
    ) -> impl Future<Output = Result<FeeHistory, SourceError>> + Send;

    /// The fees a new transaction should offer.
    fn fee_suggestion(&self, chain: Chain) -> impl Future<Output = Result<FeeSuggestion, SourceError>> + Send;
    /// Marketplace prices at a block: the floor of an NFT's collection and
    /// the last sale of the NFT (of any token of the collection when
    /// [`NftRef::token_id`] is `None`). `None` where there was no sale.
    ///
    /// Optional: a source without marketplace data keeps this default, and
    /// `include_prices=true` then gets `null` prices for every item.
    fn nft_prices(
        &self,
        chain: Chain,
        at_block: u64,
        nft: NftRef,
    ) -> impl Future<Output = Result<Option<NftPrices>, SourceError>> + Send {
        let _ = (chain, at_block, nft);
        async { Ok(None) }
    }

    /// One EVM stream.
    fn stream(&self, id: Uuid) -> impl Future<Output = Result<Option<EvmStream>, SourceError>> + Send;

    /// Every EVM stream.
    fn streams(&self) -> impl Future<Output = Result<Vec<EvmStream>, SourceError>> + Send;
}

/// A block by number, tag or hash.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockRef {
    /// The block with this number.
    Number(u64),
    /// The newest block.
    Latest,
    /// The genesis block.
    Earliest,
    /// The block being built (the newest one when nothing is pending).
    Pending,
    /// The newest block unlikely to be reorganised away.
    Safe,
    /// The newest block that can no longer be reorganised away.
    Finalized,
    /// The block with this hash.
    Hash(Hash32),
}

impl From<BlockNumberOrTag> for BlockRef {
    fn from(block: BlockNumberOrTag) -> Self {
        match block {
            BlockNumberOrTag::Number(number) => BlockRef::Number(number),
            BlockNumberOrTag::Latest => BlockRef::Latest,
            BlockNumberOrTag::Earliest => BlockRef::Earliest,
            BlockNumberOrTag::Pending => BlockRef::Pending,
            BlockNumberOrTag::Safe => BlockRef::Safe,
            BlockNumberOrTag::Finalized => BlockRef::Finalized,
        }
    }
}

/// `requireCanonical` asks nothing more of a source whose blocks are all canonical.
impl From<BlockId> for BlockRef {
    fn from(block: BlockId) -> Self {
        match block {
            BlockId::Number(block) => block.into(),
            BlockId::Hash { block_hash, .. } => BlockRef::Hash(block_hash),
        }
    }
}

/// How far below the newest block the `safe` tag stands: one epoch of 32 slots.
pub const SAFE_DEPTH: u64 = 32;
/// How far below the newest block the `finalized` tag stands: two epochs.
pub const FINALIZED_DEPTH: u64 = 64;

/// Logs of a range of blocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LogQuery {
    /// Chain to read.
    pub chain: Chain,
    /// First block, which exists.
    pub from_block: u64,
    /// Last block, which exists and is not before `from_block`.
    pub to_block: u64,
    /// Address and topic conditions (its block fields are already resolved).
    pub filter: LogFilter,
    /// Most logs to return.
    pub max_logs: usize,
}

/// What a new transaction should offer per gas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FeeSuggestion {
    /// Base fee of the next block.
    pub next_base_fee: u128,
    /// Tip per gas.
    pub tip: u128,
}

/// An NFT, or a collection, whose marketplace prices are asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct NftRef {
    /// The collection.
    pub token_address: Address,
    /// The token; `None` for the collection as a whole.
    pub token_id: Option<U256>,
}

/// Token balances of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletTokensQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The wallet.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub to_block: Option<u64>,
    /// Only these tokens, when not empty (the native currency matches its
    /// `0xeeee…` address).
    pub token_addresses: Vec<Address>,
    /// Leave out tokens flagged as spam.
    pub exclude_spam: bool,
    /// Leave out tokens whose contract is not verified.
    pub exclude_unverified_contracts: bool,
    /// Leave out the native currency.
    pub exclude_native: bool,
    /// Leave out tokens with no transfer in this many days before the block.
    pub max_token_inactivity_days: Option<u64>,
    /// Price only from pairs whose every side holds at least this many USD.
    pub min_pair_side_liquidity_usd: Option<f64>,
}

impl WalletTokensQuery {
    /// Every token of `address` on `chain` at the latest block.
    pub fn new(chain: Chain, address: Address) -> Self {
        WalletTokensQuery {
            chain,
            address,
            to_block: None,
            token_addresses: Vec::new(),
            exclude_spam: false,
            exclude_unverified_contracts: false,
            exclude_native: false,
            max_token_inactivity_days: None,
            min_pair_side_liquidity_usd: None,
        }
    }
}

/// The answer to a [`WalletTokensQuery`].
#[derive(Clone, Debug, PartialEq)]
pub struct WalletTokens {
    /// The block the balances are at.
    pub block_number: u64,
    /// Native currency first, then by USD value (unpriced last), then by address.
    pub items: Vec<TokenBalance>,
}

/// NFTs of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletNftsQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The owner.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub at_block: Option<u64>,
    /// Only these collections, when not empty.
    pub token_addresses: Vec<Address>,
    /// Leave out collections flagged as spam.
    pub exclude_spam: bool,
    /// How to write token ids.
    pub format: TokenIdFormat,
    /// Add `normalized_metadata`.
    pub normalize_metadata: bool,
    /// Add `media`.
    pub media_items: bool,
}

impl WalletNftsQuery {
    /// Every NFT of `address` on `chain` at the latest block, with normalized metadata.
    pub fn new(chain: Chain, address: Address) -> Self {
        WalletNftsQuery {
            chain,
            address,
            at_block: None,
            token_addresses: Vec::new(),
            exclude_spam: false,
            format: TokenIdFormat::Decimal,
            normalize_metadata: true,
            media_items: false,
        }
    }
}

/// NFT collections of a wallet.
#[derive(Clone, Debug, PartialEq)]
pub struct WalletCollectionsQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The owner.
    pub address: Address,
    /// Block to read at; the latest when `None`.
    pub at_block: Option<u64>,
    /// Leave out collections flagged as spam.
    pub exclude_spam: bool,
    /// Add `count`.
    pub token_counts: bool,
}

/// Price of a token.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenPriceQuery {
    /// Chain to read.
    pub chain: Chain,
    /// The token.
    pub address: Address,
    /// Price only from this exchange: its factory address or its name.
    pub exchange: Option<String>,
    /// Block to price at; the latest when `None`.
    pub to_block: Option<u64>,
    /// Add the 24-hour percent change.
    pub include_percent_change: bool,
}

/// Why a data source could not answer.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SourceError {
    /// The source has no data for this chain.
    #[error("chain {0} is not served by this data source")]
    ChainNotServed(Chain),
    /// A block number past the newest block.
    #[error("block {requested} is after the latest block, {latest}")]
    BlockOutOfRange {
        /// The block asked for.
        requested: u64,
        /// The newest block.
        latest: u64,
    },
    /// No DEX pair prices the token (on the exchange asked for).
    #[error("no DEX pair prices token {token}{}", exchange.as_ref().map(|e| format!(" on exchange {e}")).unwrap_or_default())]
    NoPrice {
        /// The token.
        token: Address,
        /// The exchange the price was restricted to.
        exchange: Option<String>,
    },
    /// An exchange that is neither the name nor the factory address of a known one.
    #[error("unknown exchange {name:?}; known exchanges: {}", known.join(", "))]
    UnknownExchange {
        /// What was asked for.
        name: String,
        /// The exchanges of the chain, by name and factory address.
        known: Vec<String>,
    },
    /// A block named by hash that the source does not have.
    #[error("no block has hash {0:#x}")]
    UnknownBlockHash(Hash32),
    /// More logs match than one answer may hold.
    #[error("the query matches more than {limit} logs; narrow the block range or the addresses and topics")]
    TooManyLogs {
        /// Most logs an answer holds.
        limit: usize,
    },
    /// The source failed.
    #[error("data source failure: {0}")]
    Unavailable(String),
}
