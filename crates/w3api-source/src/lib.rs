//! What the server needs to know, asked of a [`DataSource`].
//!
//! The server's HTTP and JSON-RPC layers call this trait and never see where
//! the answers come from: the embedded devnet (`w3api-devnet`) implements it,
//! and so could an indexer of a real node. Listings are read a page at a
//! time ([`page`]), and wallet answers are domain data ([`wallet`]): the
//! server decides how they are written.

mod control;
mod execution;
mod page;
pub mod scenario;
mod traces;
mod wallet;

use std::future::Future;

use w3api_types::rpc::{
    Block, BlockId, BlockNumberOrTag, FeeHistory, Hash32, Log, LogFilter, Receipt, SyncingStatus, TokenPrice,
    Transaction,
};
use w3api_types::{Address, Bytes, Chain, U256};

pub use control::{ChainControl, CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken};
pub use execution::Execution;
pub use page::{Page, PagePosition, PageRequest};
pub use traces::{Tracing, geth_call_tree, geth_call_trees, geth_trees, parity_tree, parity_trees, value_transfers};
pub use wallet::{
    CollectionHolding, CollectionInfo, NftHolding, NftRarity, TokenHolding, TokenInfo, WalletCollectionsPage,
    WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery, WalletTokensPage, WalletTokensQuery,
};

/// A source of chain data for the API.
pub trait DataSource: ChainControl + Execution + Tracing {
    /// The newest block of a chain.
    fn latest_block(&self, chain: Chain) -> impl Future<Output = Result<u64, SourceError>> + Send;

    /// Moves on whenever blocks of `chain` already answered for may have
    /// been replaced (a revert, a reset). Answers kept for reuse are kept
    /// under it, so that none outlives the block it was read from. Read it
    /// before the answer it keys.
    fn revision(&self, chain: Chain) -> u64 {
        let _ = chain;
        0
    }

    /// One page of a wallet's token balances, native currency included, at a block.
    fn wallet_tokens(
        &self,
        query: WalletTokensQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletTokensPage, SourceError>> + Send;

    /// One page of the NFTs a wallet owns, with the indexing status of the
    /// collections the answer concerns.
    fn wallet_nfts(
        &self,
        query: WalletNftsQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletNftsPage, SourceError>> + Send;

    /// One page of the NFT collections a wallet holds tokens of.
    fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
        page: PageRequest,
    ) -> impl Future<Output = Result<WalletCollectionsPage, SourceError>> + Send;

    /// NFTs the query core listed at `block` with the ledger's facts alone,
    /// each described as the source knows it: its URI, metadata document,
    /// media, rarity and sync times.
    fn describe_nfts(
        &self,
        chain: Chain,
        block: u64,
        nfts: Vec<NftHolding>,
    ) -> impl Future<Output = Result<Vec<NftHolding>, SourceError>> + Send;

    /// Whether `collections`, which an NFT answer concerns, are indexed;
    /// asking about a collection starts its indexing where it never
    /// started, as production does.
    fn nft_status(
        &self,
        chain: Chain,
        collections: Vec<Address>,
    ) -> impl Future<Output = Result<w3api_types::SyncStatus, SourceError>> + Send;

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

    /// The id a chain's blocks and transactions carry, where it is not the
    /// one the interface's chain table gives it (a node serving `eth` for
    /// a development chain): `eth_chainId` and `net_version` answer it.
    fn chain_id(&self, chain: Chain) -> Option<u64> {
        let _ = chain;
        None
    }

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

    /// Included transactions with their receipts, in the order of
    /// `hashes`; `None` for one the source has no receipt of (unknown, or
    /// not yet in a block). One after the other by default; a source that
    /// can ask for them all at once (node mode, in a JSON-RPC batch) does.
    fn transactions_with_receipts(
        &self,
        chain: Chain,
        hashes: &[Hash32],
    ) -> impl Future<Output = Result<Vec<Option<(Transaction, Receipt)>>, SourceError>> + Send {
        async move {
            let mut read = Vec::with_capacity(hashes.len());
            for hash in hashes {
                let transaction = self.transaction_by_hash(chain, *hash).await?;
                let receipt = match transaction {
                    Some(_) => self.receipt(chain, *hash).await?,
                    None => None,
                };
                read.push(transaction.zip(receipt));
            }
            Ok(read)
        }
    }

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

    /// The tokens and collections among `addresses`, as they are now; an
    /// address that is neither is left out.
    fn contracts(
        &self,
        chain: Chain,
        addresses: &[Address],
    ) -> impl Future<Output = Result<Vec<Contract>, SourceError>> + Send;

    /// News of every change of a chain's newest block: a block added, or
    /// the chain put back (a revert, a reset). `None` for a source whose
    /// chains never change.
    fn heads(&self) -> Option<tokio::sync::broadcast::Receiver<Head>> {
        None
    }

    /// News of each transaction a chain of this server accepted, whether
    /// it was mined at once or waits for a block. `None` for a source that
    /// hears of none.
    fn pending_transactions(&self) -> Option<tokio::sync::broadcast::Receiver<PendingTransaction>> {
        None
    }
}

/// A transaction a chain accepted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PendingTransaction {
    /// The chain.
    pub chain: Chain,
    /// The transaction's hash.
    pub hash: Hash32,
}

/// A contract a source knows.
#[derive(Clone, Debug, PartialEq)]
pub enum Contract {
    /// An ERC20 token.
    Token(TokenInfo),
    /// An NFT collection.
    Collection(CollectionInfo),
}

/// A chain's newest block, after a change.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The chain.
    pub chain: Chain,
    /// Its newest block's number.
    pub number: u64,
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
    /// Add the 24-hour percent change as text (production's older field).
    pub include_percent_change: bool,
    /// No price for a token with no transfer in this many days before the block.
    pub max_token_inactivity_days: Option<u64>,
    /// Price only from pairs whose every side holds at least this much USD.
    pub min_pair_side_liquidity_usd: Option<f64>,
}

/// Why a data source could not answer.
#[derive(Debug, thiserror::Error)]
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
    /// No such NFT: the contract is not a collection the source knows, the
    /// id was never minted, or the token is burnt.
    #[error("No NFT found with token id {token_id} in contract {address:#x}")]
    NoNft {
        /// The contract.
        address: Address,
        /// The token id.
        token_id: U256,
    },
    /// No mined transaction has this hash.
    #[error("No transaction found with hash {0:#x}")]
    NoTransaction(Hash32),
    /// The chain has no such block (yet): by number or hash, as asked.
    #[error("No block found with {0}")]
    NoBlock(String),
    /// No block at or before a date: the chain (or the part of it the
    /// source has) starts later.
    #[error("no block at or before {date} (Unix seconds): the first block here, {first}, is at {first_time}")]
    NoBlockAt {
        /// The date asked for, in Unix seconds.
        date: u64,
        /// The first block the source has.
        first: u64,
        /// Its timestamp.
        first_time: u64,
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
    /// A page position the source did not write (or wrote for another listing).
    #[error("the page position is not one this source wrote")]
    BadPosition,
    /// A change to a chain (a cheat method) that cannot be made as asked.
    #[error("{0}")]
    InvalidChange(String),
    /// A change to a chain that this source does not make: its chains are
    /// not its own (a real node's), or changes are turned off.
    #[error("{0}")]
    NoChanges(String),
    /// The node a source passes a method to does not answer it (it lacks
    /// the namespace); says which method.
    #[error("the node does not answer {0}; serve a node that has it (Anvil, reth, Erigon or Nethermind answer trace_)")]
    NodeLacks(&'static str),
    /// The source does not take this execution method.
    #[error("this source does not answer it; serve a node's chain with `w3api serve --upstream CHAIN=URL` (node mode)")]
    NotExecuted,
    /// A call the chain ran stopped at a REVERT: geth's error 3.
    #[error("execution reverted{}", reason.as_ref().map(|r| format!(": {r}")).unwrap_or_default())]
    Reverted {
        /// The revert data.
        data: Bytes,
        /// The reason, when the data is an `Error(string)`.
        reason: Option<String>,
    },
    /// A call the chain ran stopped without reverting: out of gas, an
    /// invalid opcode, a stack error.
    #[error("{0}")]
    Halted(String),
    /// A request the chain cannot run as given (it names what was wrong).
    #[error("{0}")]
    InvalidRequest(String),
    /// A transaction the chain will not take or run: its nonce, funds,
    /// intrinsic gas, fee, chain id or encoding, in geth's words (geth's
    /// error -32000, whose messages viem and ethers match on).
    #[error("{0}")]
    TransactionRefused(String),
    /// The node behind the source refused a call passed on to it. Its
    /// JSON-RPC error reaches the caller as the node gave it: a revert's
    /// code, message and revert data, for one.
    #[error("the node refused the call: error {code}: {message}")]
    NodeRefused {
        /// The node's error code.
        code: i64,
        /// The node's message.
        message: String,
        /// The node's error data, exactly as it sent it.
        data: Option<Box<serde_json::value::RawValue>>,
    },
    /// Every slot that runs calls is busy and the queue for them is full:
    /// asking again shortly may work.
    #[error(
        "every execution slot is busy: {running} calls are running and {waiting} are waiting for a slot; \
         try again shortly"
    )]
    Busy {
        /// Calls running.
        running: usize,
        /// Calls waiting for a slot.
        waiting: usize,
    },
    /// An execution stopped before it ended, though nothing was wrong with
    /// it: the chain it read was reverted or reset while it ran, or its
    /// caller stopped waiting. Sending it again answers it.
    #[error("{0}")]
    Interrupted(String),
    /// A trace could not be made, in geth's words (its error -32000): the
    /// transaction or block is unknown, the block is the genesis, or the
    /// trace ran past its timeout or recorded more than the source keeps.
    #[error("{0}")]
    Untraced(String),
    /// The source failed.
    #[error("data source failure: {0}")]
    Unavailable(String),
    /// The store the source keeps its own state in (which collections it
    /// indexes) failed. `retry` when the store is out of reach for now and
    /// asking again may work; a store that is broken is not.
    #[error("{cause}")]
    Store {
        /// Whether asking again may work.
        retry: bool,
        /// What failed.
        #[source]
        cause: Box<dyn std::error::Error + Send + Sync>,
    },
}
