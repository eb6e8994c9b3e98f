//! What the server needs to know, asked of a backend, one trait per
//! concern after reth's split: [`Blocks`] (blocks, transactions, receipts,
//! logs, fees), [`State`] (balances, nonces, code, storage, proofs),
//! [`Calls`] (calls, estimates, access lists), [`Sending`] (signed
//! transactions and the pending pool), [`Filters`], [`Signing`] with a
//! chain's own accounts, [`ChainControl`] (the cheat methods), [`Tracing`]
//! and [`DataApi`] (the Data API's questions beyond the query core).
//! [`DataSource`] is all of them at once.
//!
//! The server's HTTP and JSON-RPC layers call these traits and never see
//! where the answers come from: the embedded devnet (`w3api-devnet`) and
//! node mode (`w3api-indexer`) implement them. A concern's provided methods
//! refuse, so a backend implements only what it has. Listings are read a
//! page at a time ([`PageRequest`]), and wallet answers are domain data
//! ([`TokenHolding`] and the rest): the server decides how they are
//! written. Code that calls a concrete backend brings the traits into
//! scope with [`prelude`].
//!
//! The server holds its backend as `w3api_answers::DynBackend`, which
//! lists every method of these traits: a method added here must be listed
//! there too, or the server keeps the provided method (a refusal, for most)
//! whatever the backend does; a test of that list says which is missing.

mod blocks;
mod calls;
mod control;
mod data_api;
mod filters;
mod heads;
mod page;
pub mod scenario;
mod sending;
mod signing;
mod state;
mod traces;
mod wallet;

use std::future::Future;

use w3api_types::rpc::{BlockId, BlockNumberOrTag, Hash32, LogFilter};
use w3api_types::{Address, Bytes, Chain, U256};

pub use blocks::{Blocks, Raw};
pub use calls::Calls;
pub use control::{ChainControl, CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken};
pub use data_api::DataApi;
pub use filters::{ChangeFilter, Filters};
pub use heads::{HeadWatch, Wake};
pub use page::{Page, PagePosition, PageRequest};
pub use sending::Sending;
pub use signing::Signing;
pub use state::State;
pub use traces::{Tracing, geth_call_tree, geth_call_trees, geth_trees, parity_tree, parity_trees, value_transfers};
pub use wallet::{
    CollectionHolding, CollectionInfo, NftHolding, NftRarity, TokenHolding, TokenInfo, WalletCollectionsPage,
    WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery, WalletTokensPage, WalletTokensQuery,
};

/// Every concern's trait, for code that calls a concrete backend's methods.
pub mod prelude {
    pub use crate::{Blocks, Calls, ChainControl, DataApi, DataSource, Filters, Sending, Signing, State, Tracing};
}

/// Every concern of a backend at once: what the server and the streams
/// take. A backend implements each concern's trait; this one follows.
pub trait DataSource: Blocks + State + Calls + Sending + Filters + Signing + DataApi + ChainControl + Tracing {}

impl<T> DataSource for T where T: Blocks + State + Calls + Sending + Filters + Signing + DataApi + ChainControl + Tracing
{}

/// The refusal of a concern's provided method, for a backend that does not
/// execute: the gateway's one answer to a method its backend lacks.
pub(crate) fn not_executed<T: Send>() -> impl Future<Output = Result<T, SourceError>> + Send {
    std::future::ready(Err(SourceError::NotExecuted))
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

/// Why `eth_simulateV1` simulates nothing, by the code geth answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SimulationRefusal {
    /// A call's nonce is below its sender's (with validation).
    NonceTooLow,
    /// A call's nonce is above its sender's (with validation).
    NonceTooHigh,
    /// A call's fee cap is below its block's base fee.
    BaseFeeTooLow,
    /// A call's gas does not cover what any transaction costs.
    IntrinsicGas,
    /// A call's sender cannot pay its gas and value.
    InsufficientFunds,
    /// A call asks for more gas than its block has left.
    BlockGasLimitReached,
    /// Block numbers out of order.
    BlockNumberOrder,
    /// Block times out of order.
    BlockTimestampOrder,
    /// A call's sender has code.
    SenderNotEoa,
    /// A creation's init code exceeds EIP-3860's limit.
    InitCodeTooLarge,
    /// Too many blocks or calls.
    ClientLimitExceeded,
    /// The request is not well formed.
    InvalidParams,
    /// Refused otherwise (a state override that cannot apply, a block
    /// that does not exist, a call's chain id).
    Refused,
    /// A call the chain cannot take for a reason geth has no code for.
    Internal,
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
    #[error("the node does not answer {0}; serve a node that has it{hint}", hint = nodes_that_answer(.0))]
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
    /// `eth_simulateV1` refused the whole simulation, for a reason geth
    /// gives its own code.
    #[error("{message}")]
    SimulationRefused {
        /// Which refusal.
        kind: SimulationRefusal,
        /// Why, in geth's words.
        message: String,
    },
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

/// Which nodes answer `method`, where that helps choose one: the `trace_`
/// family, which dev nodes other than Anvil lack.
fn nodes_that_answer(method: &str) -> &'static str {
    if method.contains("trace") { " (Anvil, reth, Erigon or Nethermind answer trace_)" } else { "" }
}
