//! The index of one chain: blocks applied in order to the shared ledger and
//! pair reserves, rolled back when the chain reorganises.

use alloy_primitives::{Address, B256, U256};
use foldhash::HashMap;
use w3api_ledger::discovery;
pub use w3api_ledger::discovery::{CollectionMeta, Discovery, TokenMeta};
use w3api_ledger::events::{self, Event};
use w3api_ledger::pricing::{self, PairBook, PairSides, Price, PriceFilter};
use w3api_ledger::{Asset, Contracts, Ledger, LedgerError, PairReserves, Place};

use crate::block::{IndexedBlock, IndexedTransaction, LogPosition};

/// The chain's wrapped native token and USD stablecoin: the two tokens
/// every USD price is computed from ([`Asset::WRAPPED`], [`Asset::STABLE`]).
/// Without them the index still keeps balances, but prices nothing.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Anchors {
    /// The wrapped native token (WETH on Ethereum).
    pub wrapped: Option<Address>,
    /// A USD stablecoin.
    pub stable: Option<Address>,
}

/// How a block relates to the indexed chain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Continuity {
    /// It is the next block: its parent is the indexed head.
    Next,
    /// Its number follows the head but its parent is another block: the
    /// chain reorganised, and the index must be rolled back to the common
    /// ancestor first.
    Fork,
    /// Its number is not the next one.
    Gap {
        /// The number expected.
        expected: u64,
    },
}

/// Why the index did not take a block.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum IndexError {
    /// A block out of order, or on another branch.
    #[error("block {number} does not extend the indexed chain ({continuity:?})")]
    NotNext {
        /// The block.
        number: u64,
        /// How it relates to the index.
        continuity: Continuity,
    },
    /// A contract of the block that was not registered first.
    #[error("block {number} names {discovery:?}, which was not registered")]
    Unregistered {
        /// The block.
        number: u64,
        /// The contract.
        discovery: Discovery,
    },
    /// More tokens or collections than the ledger's indexes hold.
    #[error("more than {limit} {what} on one chain")]
    TooMany {
        /// Tokens or collections.
        what: &'static str,
        /// The most there may be.
        limit: usize,
    },
    /// A rollback past the blocks kept.
    #[error("a reorganisation {depth} blocks deep passes the limit of {limit}")]
    TooDeep {
        /// Blocks to undo.
        depth: u64,
        /// The most that may be undone.
        limit: u64,
    },
}

/// A log the ledger refused (a contract breaking its standard, or moving
/// what was held before the first indexed block): left out of the index.
#[derive(Debug, PartialEq, thiserror::Error)]
#[error("log {log_index}: {source}")]
pub struct Refusal {
    /// The log's index in its block.
    pub log_index: usize,
    /// Why.
    pub source: LedgerError,
}

/// A block header's links, as indexed.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Header {
    hash: B256,
    parent_hash: B256,
    timestamp: u64,
    transactions: Vec<IndexedTransaction>,
}

/// The contracts the index knows, by their ledger indexes.
#[derive(Clone, Debug)]
struct Registry {
    anchors: Anchors,
    /// By asset index less one; the anchors' slots stay empty until registered.
    tokens: Vec<Option<(Address, TokenMeta)>>,
    token_index: HashMap<Address, Asset>,
    collections: Vec<(Address, CollectionMeta)>,
    collection_index: HashMap<Address, u16>,
}

impl Contracts for Registry {
    fn asset(&self, contract: Address) -> Option<Asset> {
        self.token_index.get(&contract).copied()
    }

    fn collection(&self, contract: Address) -> Option<u16> {
        self.collection_index.get(&contract).copied()
    }
}

/// The index of one chain, from its first indexed block on.
#[derive(Clone, Debug)]
pub struct ChainIndex {
    first: u64,
    headers: Vec<Header>,
    ledger: Ledger<U256>,
    registry: Registry,
    /// Exchanges by index: the factories that created pairs.
    factories: Vec<Address>,
    pairs: PairReserves,
    /// Most blocks a rollback may undo.
    reorg_depth: u64,
}

/// Tokens the ledger's asset indexes hold, the native currency aside.
const MAX_TOKENS: usize = u16::MAX as usize;

impl ChainIndex {
    /// An empty index whose first block will be `first`, keeping
    /// `reorg_depth` blocks that a reorganisation may undo.
    pub fn new(first: u64, anchors: Anchors, reorg_depth: u64) -> ChainIndex {
        ChainIndex {
            first,
            headers: Vec::new(),
            ledger: Ledger::new(),
            registry: Registry {
                anchors,
                tokens: vec![None, None],
                token_index: HashMap::default(),
                collections: Vec::new(),
                collection_index: HashMap::default(),
            },
            factories: Vec::new(),
            pairs: PairReserves::default(),
            reorg_depth,
        }
    }

    /// The number of the next block to apply.
    pub fn next_block(&self) -> u64 {
        self.first + self.headers.len() as u64
    }

    /// The newest indexed block's number; `None` before the first.
    pub fn head(&self) -> Option<u64> {
        self.next_block().checked_sub(1).filter(|_| !self.headers.is_empty())
    }

    /// The hash of an indexed block.
    pub fn hash_at(&self, number: u64) -> Option<B256> {
        let offset = usize::try_from(number.checked_sub(self.first)?).ok()?;
        self.headers.get(offset).map(|header| header.hash)
    }

    /// Transaction `index` of an indexed block.
    pub fn transaction_at(&self, number: u64, index: u32) -> Option<&IndexedTransaction> {
        let offset = usize::try_from(number.checked_sub(self.first)?).ok()?;
        self.headers.get(offset)?.transactions.get(usize::try_from(index).ok()?)
    }

    /// The timestamp of an indexed block.
    pub fn timestamp_at(&self, number: u64) -> Option<u64> {
        let offset = usize::try_from(number.checked_sub(self.first)?).ok()?;
        self.headers.get(offset).map(|header| header.timestamp)
    }

    /// How `block` relates to the indexed chain.
    pub fn continuity(&self, block: &IndexedBlock) -> Continuity {
        let expected = self.next_block();
        if block.number != expected {
            return Continuity::Gap { expected };
        }
        // A zero parent hash links by number: Hardhat reports one for the
        // blocks inside a run that `hardhat_mine` made at once. A fork
        // there still shows when the follower compares the head's hash.
        match self.headers.last() {
            Some(head) if head.hash != block.parent_hash && !block.parent_hash.is_zero() => Continuity::Fork,
            _ => Continuity::Next,
        }
    }

    /// The contracts `block` names that must be registered before it is applied.
    pub fn discoveries(&self, block: &IndexedBlock) -> Vec<Discovery> {
        let mut found = Vec::new();
        for log in &block.logs {
            let Some(event) = events::decode(&log.topics, &log.data) else { continue };
            let named = discovery::named_by(log.address, &event, self.registry.anchors.wrapped);
            found.extend(named.into_iter().filter(|d| !self.knows(*d)));
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    fn knows(&self, discovery: Discovery) -> bool {
        match discovery {
            Discovery::Token(address) => self.registry.token_index.contains_key(&address),
            Discovery::Collection { address, .. } => self.registry.collection_index.contains_key(&address),
        }
    }

    /// Registers a token (an anchor takes its reserved asset); a token
    /// already known keeps its asset.
    pub fn register_token(&mut self, address: Address, meta: TokenMeta) -> Result<Asset, IndexError> {
        let registry = &mut self.registry;
        if let Some(asset) = registry.token_index.get(&address) {
            return Ok(*asset);
        }
        let slot = if Some(address) == registry.anchors.wrapped {
            0
        } else if Some(address) == registry.anchors.stable {
            1
        } else if registry.tokens.len() < MAX_TOKENS {
            registry.tokens.push(None);
            registry.tokens.len() - 1
        } else {
            return Err(IndexError::TooMany { what: "tokens", limit: MAX_TOKENS });
        };
        registry.tokens[slot] = Some((address, meta));
        let asset = Asset(slot as u16 + 1);
        registry.token_index.insert(address, asset);
        Ok(asset)
    }

    /// Registers an NFT collection; one already known keeps its index.
    pub fn register_collection(&mut self, address: Address, meta: CollectionMeta) -> Result<u16, IndexError> {
        let registry = &mut self.registry;
        if let Some(index) = registry.collection_index.get(&address) {
            return Ok(*index);
        }
        let index = u16::try_from(registry.collections.len())
            .map_err(|_| IndexError::TooMany { what: "collections", limit: usize::from(u16::MAX) + 1 })?;
        registry.collections.push((address, meta));
        registry.collection_index.insert(address, index);
        Ok(index)
    }

    /// Applies the next block: every token movement of its logs to the
    /// ledger, new pairs and their reserves. A block that is not the next
    /// one or names an unregistered contract changes nothing. A log the
    /// ledger refuses is left out, and returned: one contract breaking its
    /// standard must not stop a chain's index.
    pub fn apply(&mut self, block: &IndexedBlock) -> Result<Vec<Refusal>, IndexError> {
        let continuity = self.continuity(block);
        if continuity != Continuity::Next {
            return Err(IndexError::NotNext { number: block.number, continuity });
        }
        if let Some(discovery) = self.discoveries(block).into_iter().next() {
            return Err(IndexError::Unregistered { number: block.number, discovery });
        }
        let number = u32::try_from(block.number).unwrap_or(u32::MAX);
        for (index, tx) in block.transactions.iter().enumerate() {
            self.ledger.record_transaction(number, index as u32, tx.from, tx.to);
        }
        for moved in &block.inner {
            self.ledger.record_inner_transfer((number, moved.transaction_index), moved.from, moved.to, moved.value);
        }
        let mut refused = Vec::new();
        for log in &block.logs {
            let Some(event) = events::decode(&log.topics, &log.data) else { continue };
            let LogPosition { transaction_index, log_index } = log.position;
            if let Err(source) = self.apply_event(Place::log(number, transaction_index, log_index), log.address, &event)
            {
                refused.push(Refusal { log_index: log_index as usize, source });
            }
        }
        self.headers.push(Header {
            hash: block.hash,
            parent_hash: block.parent_hash,
            timestamp: block.timestamp,
            transactions: block.transactions.clone(),
        });
        Ok(refused)
    }

    fn apply_event(&mut self, at: Place, contract: Address, event: &Event) -> Result<(), LedgerError> {
        let block = at.block;
        match *event {
            Event::PairCreated { token0, token1, pair } => {
                let (Some(token0), Some(token1)) = (self.asset(token0), self.asset(token1)) else {
                    return Ok(());
                };
                let exchange = self.exchange(contract);
                self.pairs.add(block, pair, PairSides { token0, token1, exchange });
                Ok(())
            }
            // `Deposit(address,uint256)` is a common signature: only the
            // wrapped native token's mean wrapping.
            Event::Deposit { .. } | Event::Withdrawal { .. } if Some(contract) != self.registry.anchors.wrapped => {
                Ok(())
            }
            Event::Sync { reserve0, reserve1 } => {
                if let Some(pair) = self.pairs.pair_at(contract) {
                    self.pairs.sync(block, pair, reserve0, reserve1);
                }
                Ok(())
            }
            _ => self.ledger.apply_event(at, contract, event, &self.registry),
        }
    }

    /// The exchange of a factory, numbered in the order factories first
    /// created a pair.
    fn exchange(&mut self, factory: Address) -> usize {
        self.factories.iter().position(|f| *f == factory).unwrap_or_else(|| {
            self.factories.push(factory);
            self.factories.len() - 1
        })
    }

    /// Rolls the index back to the end of block `number` (the common
    /// ancestor of a reorganisation): every later block is forgotten.
    pub fn rollback_to(&mut self, number: u64) -> Result<(), IndexError> {
        let Some(head) = self.head() else { return Ok(()) };
        if number >= head {
            return Ok(());
        }
        let depth = head - number;
        if depth > self.reorg_depth || number + 1 < self.first {
            return Err(IndexError::TooDeep { depth, limit: self.reorg_depth.min(head + 1 - self.first) });
        }
        self.headers.truncate((number + 1 - self.first) as usize);
        self.undo_from(u32::try_from(number + 1).unwrap_or(u32::MAX));
        Ok(())
    }

    /// Undoes everything of blocks from `block` on.
    fn undo_from(&mut self, block: u32) {
        if let Some(before) = block.checked_sub(1) {
            self.ledger.rollback_to(before);
            self.pairs.rollback_to(before);
        } else {
            self.ledger = Ledger::new();
            self.pairs = PairReserves::default();
        }
    }

    /// The ledger of the indexed blocks.
    pub fn ledger(&self) -> &Ledger<U256> {
        &self.ledger
    }

    /// Starts holding one window of blocks from `first` on, for an index
    /// kept elsewhere (in tables): the contracts, exchanges and pairs stay,
    /// and the ledger, the headers and the reserves start empty, to be given
    /// the values the window reads ([`ChainIndex::window_ledger`]).
    pub fn start_window(&mut self, first: u64) {
        self.first = first;
        self.headers.clear();
        self.ledger = Ledger::new();
        self.pairs.forget_reserves();
    }

    /// Forgets the pairs created after `block`, in a window index whose
    /// blocks after it a reorganisation dropped.
    pub fn drop_pairs_after(&mut self, block: u64) {
        self.pairs.rollback_to(u32::try_from(block).unwrap_or(u32::MAX));
    }

    /// Numbers an exchange read back from where the index is kept, in its
    /// order; its number.
    pub fn restore_exchange(&mut self, factory: Address) -> usize {
        self.exchange(factory)
    }

    /// Adds a pair read back from where the index is kept, in its order;
    /// its number.
    pub fn restore_pair(&mut self, pair: w3api_ledger::PairInfo) -> usize {
        self.pairs.add(pair.created, pair.address, pair.sides)
    }

    /// The window's ledger, to carry in the values its blocks read.
    pub fn window_ledger(&mut self) -> &mut Ledger<U256> {
        &mut self.ledger
    }

    /// Every pair, with its reserves.
    pub fn pairs(&self) -> &PairReserves {
        &self.pairs
    }

    /// A registered token's asset.
    pub fn asset(&self, token: Address) -> Option<Asset> {
        self.registry.asset(token)
    }

    /// A registered collection's index.
    pub fn collection_index(&self, address: Address) -> Option<u16> {
        self.registry.collection(address)
    }

    /// A registered collection's address and metadata.
    pub fn collection(&self, index: u16) -> Option<&(Address, CollectionMeta)> {
        self.registry.collections.get(usize::from(index))
    }

    /// A DEX pair, by index.
    pub fn pair(&self, index: usize) -> Option<&w3api_ledger::PairInfo> {
        self.pairs.pair(index)
    }

    /// The exchanges (factories that created pairs), by index.
    pub fn factories(&self) -> &[Address] {
        &self.factories
    }

    /// The wrapped native token and stablecoin the index prices from.
    pub fn anchors(&self) -> Anchors {
        self.registry.anchors
    }

    /// The first block the index holds, or will hold.
    pub fn first_block(&self) -> u64 {
        self.first
    }

    /// A registered token's address and metadata.
    pub fn token(&self, asset: Asset) -> Option<&(Address, TokenMeta)> {
        self.registry.tokens.get(usize::from(asset.0).checked_sub(1)?)?.as_ref()
    }

    /// The raw balance of `holder` in `token` at the end of `block`.
    pub fn balance_at(&self, holder: Address, token: Address, block: u64) -> U256 {
        let (Some(holder), Some(asset)) = (self.ledger.find(holder), self.asset(token)) else { return U256::ZERO };
        U256::from(self.ledger.balance_at(holder, asset, u32::try_from(block).unwrap_or(u32::MAX)))
    }

    /// The price of `token` at `block` from the indexed reserves.
    pub fn price(&self, token: Address, block: u64, filter: PriceFilter) -> Option<Price> {
        pricing::price(self, self.asset(token)?, block, filter)
    }
}

/// The contracts as the index numbers them, for what applying a log reads.
impl Contracts for ChainIndex {
    fn asset(&self, contract: Address) -> Option<Asset> {
        self.registry.asset(contract)
    }

    fn collection(&self, contract: Address) -> Option<u16> {
        self.registry.collection(contract)
    }
}

impl PairBook for ChainIndex {
    fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, PairSides)> {
        self.pairs.pairs_of(asset)
    }

    fn reserves_at(&self, pair: usize, block: u64) -> (u128, u128) {
        self.pairs.reserves_at(pair, block)
    }

    fn decimals(&self, asset: Asset) -> u8 {
        self.token(asset).map_or(18, |(_, meta)| meta.decimals)
    }
}

#[cfg(test)]
mod tests;
