//! What a generated chain is made of: blocks, transactions, receipts and
//! sales as stored, and the chain that holds them, beside the lookups the
//! query side keeps over it and the producer of its next block.

use alloy_consensus::{Header, TxEnvelope};
use alloy_primitives::{Address, B256, Log};
use w3api_types::Chain;

use crate::query::indexes::ChainIndexes;
use crate::world::World;
use w3api_chain::ChainState;
use w3api_ledger::Asset;
use w3api_ledger::Ledger;

/// Timestamp of every genesis block: 2026-01-01T00:00:00Z.
pub const GENESIS_TIMESTAMP: u64 = 1_767_225_600;
/// Seconds between blocks.
pub const BLOCK_TIME: u64 = 12;
/// Gas limit of every block.
pub const GAS_LIMIT: u64 = 30_000_000;

/// A block as stored: its header, its hash, and where its transactions are.
#[derive(Clone, Debug)]
pub struct BlockRecord {
    /// The sealed header.
    pub header: Header,
    /// keccak256 of the header's RLP.
    pub hash: B256,
    /// Index of its first transaction in [`ChainData::transactions`].
    pub first_tx: u32,
    /// Number of transactions.
    pub tx_count: u32,
    /// Length in bytes of the block's RLP encoding.
    pub size: u64,
}

/// A signed transaction and its sender.
#[derive(Clone, Debug)]
pub struct TxRecord {
    /// The signed transaction.
    pub envelope: TxEnvelope,
    /// The account that signed it.
    pub sender: Address,
    /// Its hash (keccak256 of the signed encoding).
    pub hash: B256,
}

/// Where a transaction's receipt stands: its gas and its logs in
/// [`ChainData::logs`].
#[derive(Clone, Copy, Debug)]
pub struct ReceiptRecord {
    /// Whether it succeeded (a reverted transaction is included, without logs).
    pub success: bool,
    /// Gas used by the block's transactions up to and including this one.
    pub cumulative_gas_used: u64,
    /// Gas used by this transaction.
    pub gas_used: u64,
    /// Index of its first log in [`ChainData::logs`].
    pub first_log: u32,
    /// Number of logs.
    pub log_count: u32,
}

/// A marketplace sale of an ERC721 token.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SaleRecord {
    /// Block of the sale.
    pub block: u32,
    /// Index of the sale's transaction in [`ChainData::transactions`].
    pub tx: u32,
    /// Collection index.
    pub collection: u16,
    /// Token id.
    pub id: u32,
    /// Who paid.
    pub buyer: Address,
    /// Who was paid.
    pub seller: Address,
    /// What was paid: the native currency or an ERC20.
    pub payment: Asset,
    /// Raw amount paid.
    pub price: u128,
}

/// A chain: generated, then grown by live blocks and cheat methods.
/// Cloning copies it whole (a snapshot).
///
/// Three parts: the chain as stored (its world, blocks, transactions,
/// receipts, logs, sales, ledger and state), the query side's
/// [`ChainIndexes`] derived from it, and the [`Producer`](super::Producer)
/// of what the next block holds (the pool, the clock, impersonation).
#[derive(Clone, Debug)]
pub struct ChainData {
    /// The chain.
    pub chain: Chain,
    /// What exists on it.
    pub world: World,
    /// Blocks by number, genesis first.
    pub blocks: Vec<BlockRecord>,
    /// Every transaction, in block order.
    pub transactions: Vec<TxRecord>,
    /// The receipt of each transaction, in the same order.
    pub receipts: Vec<ReceiptRecord>,
    /// Every log, in chain order.
    pub logs: Vec<Log>,
    /// Every marketplace sale, in chain order.
    pub sales: Vec<SaleRecord>,
    /// Balances and NFT ownership over time.
    pub ledger: Ledger,
    /// The EVM's state after every block.
    pub state: ChainState,
    /// Blocks and transactions by hash, sales by collection, prices by block.
    pub(crate) indexes: ChainIndexes,
    /// What the next block starts from.
    pub(crate) producer: super::extend::Producer,
    /// For a chain another node made (`--import`), what its blocks need
    /// beyond the devnet's own.
    pub(crate) imported: Option<std::sync::Arc<super::import::Imported>>,
}

/// Where a transaction is: its index in [`ChainData::transactions`] and its
/// block's number, kept together so that reading it by hash needs no
/// search through the blocks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TxPosition {
    pub index: u32,
    pub block: u32,
}

impl ChainData {
    /// The newest block number.
    pub fn latest(&self) -> u64 {
        self.blocks.len() as u64 - 1
    }

    /// The address of the next contract `deployer` creates, by its nonce now.
    pub(crate) fn next_contract_of(&self, deployer: Address) -> Address {
        deployer.create(self.state.archive().account(deployer, self.latest()).nonce)
    }

    /// The number of the block with this hash.
    pub fn block_number(&self, hash: &B256) -> Option<u64> {
        self.indexes.block_number(hash)
    }

    /// The transactions of a block.
    pub fn transactions_of(&self, block: &BlockRecord) -> &[TxRecord] {
        let start = block.first_tx as usize;
        &self.transactions[start..start + block.tx_count as usize]
    }

    /// Where the transaction with this hash is in [`ChainData::transactions`].
    pub fn transaction_index(&self, hash: &B256) -> Option<u32> {
        self.transaction_position(hash).map(|at| at.index)
    }

    /// Where the transaction with this hash is, and its block.
    pub(crate) fn transaction_position(&self, hash: &B256) -> Option<TxPosition> {
        self.indexes.transaction_position(hash)
    }

    /// The logs of one transaction.
    pub fn logs_of(&self, receipt: &ReceiptRecord) -> &[Log] {
        let start = receipt.first_log as usize;
        &self.logs[start..start + receipt.log_count as usize]
    }

    /// Timestamp of block `number`, which exists.
    pub fn timestamp(&self, number: u64) -> u64 {
        self.blocks[number as usize].header.timestamp
    }

    /// The newest block at least `seconds` older than block `number`, or
    /// `None` when the chain is not that old.
    pub fn block_before(&self, number: u64, seconds: u64) -> Option<u64> {
        w3api_query::blocks::block_before(self, number, seconds)
    }
}
