//! A deterministic devnet: EVM chains with ERC20 tokens, NFT collections and
//! two DEXes, built from real signed transactions, and served through the
//! backend traits of [`w3api_source`].
//!
//! Everything follows from a seed and a [`Scale`]: the same seed gives the
//! same blocks, byte for byte. Each chain of the interface has its own data,
//! generated the first time it is asked for. Transactions are alloy
//! consensus transactions signed with deterministic secp256k1 keys; block
//! hashes, transactions roots and receipts roots are computed by alloy, so
//! any Ethereum tool can check them. Balances, ownership and prices come
//! from a ledger of the movements those transactions make, indexed by block
//! so that questions about any block are answered without replay.
//!
//! ```no_run
//! use w3api_devnet::{Devnet, Scale};
//! use w3api_types::Chain;
//!
//! let devnet = Devnet::new(0, Scale::DEFAULT);
//! let eth = devnet.chain(Chain::Eth);
//! println!("{} blocks, {} transactions", eth.blocks.len(), eth.transactions.len());
//! ```

// Dev-dependencies of the package's other targets (its suites and doc
// examples), named so that `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use {alloy_rpc_types_eth as _, alloy_trie as _, criterion as _, proptest as _, tempfile as _};

mod accounts;
mod console;
mod control;
mod dev_accounts;
mod executions;
mod filters;
mod generate;
mod indexing;
mod interval;
mod journal;
mod live;
mod metadata;
mod mining;
mod pool;
mod query;
mod scale;
mod seed;
mod shape;
mod world;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use parking_lot::RwLockReadGuard;
use std::time::Duration;

use w3api_source::{
    BlockRef, Contract, FeeSuggestion, Head, LogQuery, NftHolding, PageRequest, PendingTransaction, SourceError,
    TokenPriceQuery, WalletCollectionsPage, WalletCollectionsQuery, WalletNftsPage, WalletNftsQuery, WalletTokensPage,
    WalletTokensQuery,
};
use w3api_store::Store;
use w3api_types::rpc::{Block, Bytes, FeeHistory, Hash32, Log, Receipt, SyncingStatus, TokenPrice, Transaction};
use w3api_types::{Address, Chain, SyncStatus};

pub use accounts::{Accounts, Role};
pub use alloy_genesis::Genesis;
pub use control::MAX_MINED_BLOCKS;
pub use dev_accounts::{DEV_ACCOUNTS, DEV_BALANCE, DEV_MNEMONIC, dev_addresses, dev_signers};
pub use executions::{DEFAULT_GAS_CAP, ExecutionLimits};
pub use filters::FILTERS_PER_KEY;
pub use generate::{
    BLOCK_TIME, BlockPlan, BlockRecord, ChainData, GAS_LIMIT, GENESIS_TIMESTAMP, LAST_TIMESTAMP, ReceiptRecord,
    SaleRecord, StateEdit, TxRecord, swap_output,
};
pub use indexing::Indexing;
pub use journal::Restored;
pub use live::ChainRead;
use live::LiveChain;
pub use metadata::{NftMetadata, Rarity, Trait};
pub use query::BLOCKS_PER_DAY;
pub use query::nfts::NftPage;
pub use scale::Scale;
pub use w3api_ledger::pricing::{Price, PriceFilter};
pub use w3api_ledger::{Asset, Checkpoints, History, Holder, Ledger, Movement};
pub use w3api_source::{CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken};
pub(crate) use world::MEDIA_HOST;
pub use world::{Collection, Exchange, NativeCurrency, Pair, Token, TokenKind, World};

/// The chain id the devnet signs with and derives a chain's data from.
/// [`Devnet::chain`] documents why a chain without one never gets here.
pub(crate) fn chain_id(chain: Chain) -> u64 {
    chain.id().expect("the devnet generates only chains with a chain id")
}

/// The devnet: chains generated on first use, shared by every caller, and
/// grown afterwards by [`Devnet::mine`] and the other chain controls.
/// Cloning is cheap.
#[derive(Clone)]
pub struct Devnet {
    inner: Arc<Inner>,
}

struct Inner {
    seed: u64,
    scale: Scale,
    accounts: OnceLock<Accounts>,
    /// The chains of the spec's table, by table position: found without a
    /// lock or a reference count, as every query starts by finding its chain.
    table: Box<[OnceLock<Arc<LiveChain>>]>,
    /// Other chains, named by chain id.
    others: Mutex<HashMap<Chain, Arc<OnceLock<Arc<LiveChain>>>>>,
    indexing: Indexing,
    /// Every change of a chain's newest block, for whoever follows them.
    heads: tokio::sync::broadcast::Sender<Head>,
    /// News of each transaction a chain accepted.
    pending: tokio::sync::broadcast::Sender<PendingTransaction>,
    /// The log and block filters dApps installed.
    filters: filters::Filters,
    /// Whether sent transactions are mined at once on chains that did not
    /// say otherwise (`evm_setAutomine`).
    automine: bool,
    /// Where calls run, and the gas they may use.
    executions: executions::Executions,
    /// Where what users did to the chains is kept, with a store.
    journal: Option<journal::Journal>,
    /// The chain that starts from a genesis instead of the seed's world.
    genesis: Option<Origin>,
    /// Set once the task making interval blocks runs.
    interval_miner: OnceLock<()>,
}

/// What a devnet's builders carry from one build to the next.
#[derive(Clone)]
struct Settings {
    automine: bool,
    limits: ExecutionLimits,
    /// The chain `--init` starts from a genesis, and that genesis.
    genesis: Option<Origin>,
}

/// The chain that starts from a genesis instead of the seed's world.
#[derive(Clone)]
struct Origin {
    chain: Chain,
    genesis: Arc<Genesis>,
    /// The blocks another node made after it (`--import`), imported.
    imported: Option<Arc<ChainData>>,
}

impl Origin {
    /// The chain `genesis` starts, by its chain id; refused without one.
    fn of(genesis: Genesis) -> Result<Origin, String> {
        let id = genesis.config.chain_id;
        if id == 0 {
            return Err("config.chainId: a genesis names its chain id (0 is none)".into());
        }
        let chain = Chain::from_id(id).map_or_else(|| format!("{id:#x}").parse().map_err(|e| format!("{e}")), Ok)?;
        Ok(Origin { chain, genesis: Arc::new(genesis), imported: None })
    }
}

/// Head changes a slow follower may fall behind by before it is told it
/// missed some (and reads the heads again).
const HEADS_KEPT: usize = 1024;

/// How long a collection reports `SYNCING` after it is first asked for,
/// unless [`Devnet::with_index_delay`] says otherwise.
pub const DEFAULT_INDEX_DELAY: Duration = Duration::from_secs(3);

impl Devnet {
    /// A devnet for `seed` at `scale`; nothing is generated yet.
    pub fn new(seed: u64, scale: Scale) -> Devnet {
        let settings = Settings { automine: true, limits: ExecutionLimits::default(), genesis: None };
        Devnet::build(seed, scale, Indexing::new(DEFAULT_INDEX_DELAY, None), settings, None)
    }

    /// The same devnet (same seed and scale, nothing generated yet), whose
    /// NFT collections report `SYNCING` for `delay` after they are first
    /// named in a query's `token_addresses`, as production does while it
    /// indexes a collection it has not seen.
    pub fn with_index_delay(self, delay: Duration) -> Devnet {
        let indexing = Indexing::new(delay, self.inner.indexing.store());
        let journal = self.inner.journal.as_ref().map(journal::Journal::store);
        Devnet::build(self.inner.seed, self.inner.scale, indexing, self.settings(), journal)
    }

    /// The same devnet (nothing generated yet), which keeps in `store`
    /// what users do to its chains (sent transactions, cheats, scenario
    /// steps, live blocks) and when NFT collections started indexing, so
    /// that servers sharing it serve one chain, and a restart on the same
    /// data serves the same. Without one, the chains are the seed's at each
    /// start, and indexing starts are kept in a store of its own in memory.
    pub fn with_store(self, store: Arc<dyn Store>) -> Devnet {
        let settings = self.settings();
        self.rebuilt_with(Some(store), settings)
    }

    /// The same devnet (nothing generated yet), whose chains mine each
    /// sent transaction at once (`true`, the default, as Anvil and Hardhat
    /// do) or keep it for the next block made (`false`, as a node mining
    /// at an interval does), until `evm_setAutomine` says otherwise.
    pub fn with_automine(self, automine: bool) -> Devnet {
        let settings = Settings { automine, ..self.settings() };
        self.rebuilt(settings)
    }

    /// The same devnet (nothing generated yet), whose calls run within
    /// `limits`: at most their gas cap each, and as many at once as they
    /// have slots (see [`ExecutionLimits`]).
    pub fn with_execution_limits(self, limits: ExecutionLimits) -> Devnet {
        let settings = Settings { limits, ..self.settings() };
        self.rebuilt(settings)
    }

    /// The limits its calls run within.
    pub fn execution_limits(&self) -> ExecutionLimits {
        self.inner.executions.limits()
    }

    fn settings(&self) -> Settings {
        Settings {
            automine: self.inner.automine,
            limits: self.inner.executions.limits(),
            genesis: self.inner.genesis.clone(),
        }
    }

    /// The same devnet (nothing generated yet), whose chain of the
    /// genesis's `config.chainId` starts from `genesis` (geth's
    /// `genesis.json`, as `geth init` and `anvil --init` take it) instead
    /// of the seed's world: its `alloc` accounts, code and storage, and its
    /// block 0, hashed as geth hashes it. Blocks after it follow the
    /// devnet's rules. Refused for a genesis without a chain id.
    pub fn with_genesis(self, genesis: Genesis) -> Result<Devnet, String> {
        Ok(self.with_origin(Origin::of(genesis)?))
    }

    /// The same devnet (nothing generated yet), whose chain of `genesis`
    /// (as [`Devnet::with_genesis`] takes it) goes on with the blocks of
    /// `chain_rlp`, another node's chain after its genesis as `geth export`
    /// writes it: each block is executed by the rules of its fork in the
    /// genesis's schedule and checked against its header, and the Data API
    /// follows what they did. Refused, naming the block and the field, at
    /// the first block whose header its body or execution does not give.
    pub fn with_chain(self, genesis: Genesis, chain_rlp: &[u8]) -> Result<Devnet, String> {
        let origin = Origin::of(genesis)?;
        let blocks = w3api_chain::import::decode_chain(chain_rlp).map_err(|refused| refused.to_string())?;
        let parts = (&self.inner.scale, self.accounts());
        let imported = generate::from_chain(origin.chain, self.inner.seed, parts, &origin.genesis, &blocks);
        let imported = imported.map_err(|refused| refused.to_string())?;
        Ok(self.with_origin(Origin { imported: Some(Arc::new(imported)), ..origin }))
    }

    fn with_origin(self, origin: Origin) -> Devnet {
        let settings = Settings { genesis: Some(origin), ..self.settings() };
        self.rebuilt(settings)
    }

    /// The chain that starts from a genesis (`with_genesis`), if one does.
    pub fn genesis_chain(&self) -> Option<Chain> {
        self.inner.genesis.as_ref().map(|origin| origin.chain)
    }

    fn rebuilt(self, settings: Settings) -> Devnet {
        let store = self.inner.journal.as_ref().map(journal::Journal::store);
        self.rebuilt_with(store, settings)
    }

    fn rebuilt_with(&self, journal: Option<Arc<dyn Store>>, settings: Settings) -> Devnet {
        let inner = &self.inner;
        let indexing = Indexing::new(inner.indexing.delay(), journal.clone().or_else(|| inner.indexing.store()));
        Devnet::build(inner.seed, inner.scale, indexing, settings, journal)
    }

    fn build(
        seed: u64,
        scale: Scale,
        indexing: Indexing,
        settings: Settings,
        journal: Option<Arc<dyn Store>>,
    ) -> Devnet {
        let inner = Inner {
            seed,
            scale,
            accounts: OnceLock::new(),
            table: Chain::all().map(|_| OnceLock::new()).collect(),
            others: Mutex::new(HashMap::new()),
            indexing,
            heads: tokio::sync::broadcast::channel(HEADS_KEPT).0,
            pending: tokio::sync::broadcast::channel(HEADS_KEPT).0,
            filters: filters::Filters::default(),
            automine: settings.automine,
            executions: executions::Executions::new(settings.limits),
            journal: journal.map(journal::Journal::new),
            genesis: settings.genesis,
            interval_miner: OnceLock::new(),
        };
        Devnet { inner: Arc::new(inner) }
    }

    /// The seed.
    pub fn seed(&self) -> u64 {
        self.inner.seed
    }

    /// The scale.
    pub fn scale(&self) -> Scale {
        self.inner.scale
    }

    /// The accounts, the same on every chain (derived on first use).
    pub fn accounts(&self) -> &Accounts {
        let Inner { seed, scale, accounts, .. } = &*self.inner;
        accounts.get_or_init(|| Accounts::generate(*seed, scale.traders, scale.wallets))
    }

    /// The data of `chain` as it is now, generated on first use. Callers
    /// asking for a chain being generated wait for it. New blocks wait
    /// until the view is dropped: drop it before changing the chain.
    ///
    /// # Panics
    ///
    /// For a chain without a chain id (a [`Chain::Other`] known only by
    /// name): its transactions could not be signed. The backend
    /// methods refuse such a chain with [`SourceError::ChainNotServed`].
    pub fn chain(&self, chain: Chain) -> ChainRead {
        self.live(chain).read_arc()
    }

    /// Generates `chain` now, unless it is already (see [`Devnet::chain`]).
    pub fn prepare(&self, chain: Chain) {
        self.live(chain);
    }

    fn live(&self, chain: Chain) -> Arc<LiveChain> {
        let generate = || Arc::new(LiveChain::new(self.generate(chain)));
        match self.table_cell(chain) {
            Some(cell) => cell.get_or_init(generate).clone(),
            None => self.other_cell(chain).get_or_init(generate).clone(),
        }
    }

    fn generate(&self, chain: Chain) -> ChainData {
        match &self.inner.genesis {
            Some(Origin { chain: from, imported: Some(imported), .. }) if *from == chain => ChainData::clone(imported),
            Some(Origin { chain: from, genesis, .. }) if *from == chain => {
                generate::from_genesis(chain, self.inner.seed, genesis)
            }
            _ => generate::generate(chain, self.inner.seed, &self.inner.scale, self.accounts()),
        }
    }

    fn table_cell(&self, chain: Chain) -> Option<&OnceLock<Arc<LiveChain>>> {
        // The busiest chains come first in the table.
        Chain::all().position(|known| known == chain).map(|index| &self.inner.table[index])
    }

    fn other_cell(&self, chain: Chain) -> Arc<OnceLock<Arc<LiveChain>>> {
        self.others().entry(chain).or_default().clone()
    }

    fn others(&self) -> std::sync::MutexGuard<'_, HashMap<Chain, Arc<OnceLock<Arc<LiveChain>>>>> {
        self.inner.others.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The chains generated so far.
    fn generated_chains(&self) -> Vec<Chain> {
        let table = Chain::all().zip(self.inner.table.iter()).filter(|(_, cell)| cell.get().is_some());
        let mut chains: Vec<Chain> = table.map(|(chain, _)| chain).collect();
        chains.extend(self.others().iter().filter(|(_, cell)| cell.get().is_some()).map(|(chain, _)| *chain));
        chains
    }

    /// Whether the devnet can build `chain`: it needs a chain id to sign
    /// with, so a [`Chain::Other`] known only by name is not one.
    pub fn builds(chain: Chain) -> bool {
        chain.id().is_some()
    }

    /// Whether `chain` has been generated already.
    pub fn is_generated(&self, chain: Chain) -> bool {
        self.generated_live(chain).is_some()
    }

    /// The first `count` ordinary wallets: addresses with balances, NFTs and
    /// history on every chain. The first one holds every ordinary token, the
    /// wrapped native token and the stablecoin.
    pub fn sample_wallets(&self, count: usize) -> Vec<Address> {
        let accounts = self.accounts();
        accounts.wallets().take(count).map(|i| accounts.address(i)).collect()
    }

    /// The Ed25519 key of Solana account `index`, for signing in: derived
    /// from the seed, so the same on every run.
    pub fn solana_key(&self, index: u32) -> ed25519_dalek::SigningKey {
        ed25519_dalek::SigningKey::from_bytes(&seed::derive(self.inner.seed, &[b"solana", &index.to_be_bytes()]).0)
    }

    /// The Base58 address of Solana account `index`.
    pub fn solana_address(&self, index: u32) -> String {
        bs58::encode(self.solana_key(index).verifying_key().as_bytes()).into_string()
    }

    /// Tells followers of the chain's heads that its newest block is now `number`.
    pub(crate) fn announce(&self, chain: Chain, number: u64) {
        // No follower is not an error: nobody needs to know.
        let _ = self.inner.heads.send(Head { chain, number });
    }

    /// Tells followers of the chain's transactions that it accepted `hash`.
    pub(crate) fn announce_pending(&self, chain: Chain, hash: Hash32) {
        self.inner.filters.accepted(chain, hash);
        let _ = self.inner.pending.send(PendingTransaction { chain, hash });
    }

    /// The chain if it is generated already.
    fn generated_live(&self, chain: Chain) -> Option<Arc<LiveChain>> {
        match self.table_cell(chain) {
            Some(cell) => cell.get().cloned(),
            None => self.others().get(&chain).and_then(|cell| cell.get().cloned()),
        }
    }

    /// The chain's data if it is generated already (and its journal made).
    fn generated(&self, chain: Chain) -> Option<Result<Generated<'_>, SourceError>> {
        // A chain replicas share is caught up with its journal first (`ready_live`).
        let ready = |live: &LiveChain| match &self.inner.journal {
            None => true,
            Some(journal) => live.restored() && !journal.shared(),
        };
        match self.table_cell(chain) {
            Some(cell) => cell
                .get()
                .filter(|live| ready(live))
                .map(|live| live.check(chain).map(|()| Generated::Borrowed(live.read()))),
            None => self.others().get(&chain).and_then(|cell| {
                cell.get()
                    .filter(|live| ready(live))
                    .map(|live| live.check(chain).map(|()| Generated::Shared(live.read_arc())))
            }),
        }
    }

    /// The chain, generated off the async runtime's threads when new, with
    /// every change committed before this call made on it (see `journal`).
    async fn ready_live(&self, chain: Chain) -> Result<Arc<LiveChain>, SourceError> {
        let live = self.restored_live(chain).await?;
        self.follow_journal(chain, &live).await?;
        Ok(live)
    }

    /// The chain, generated when new, with its journal as it was made here:
    /// what a change starts from, which catches up in its own turn.
    async fn restored_live(&self, chain: Chain) -> Result<Arc<LiveChain>, SourceError> {
        if !Devnet::builds(chain) {
            return Err(SourceError::ChainNotServed(chain));
        }
        let live = match self.generated_live(chain) {
            Some(live) => live,
            None => {
                let devnet = self.clone();
                tokio::task::spawn_blocking(move || devnet.live(chain))
                    .await
                    .map_err(|e| SourceError::Unavailable(format!("generating chain {chain}: {e}")))?
            }
        };
        if self.inner.journal.is_some() && !live.restored() {
            self.restore_live(chain, &live).await?;
        }
        Ok(live)
    }

    /// The chain's data as it is now, generated off the async runtime's
    /// threads when new.
    async fn ready(&self, chain: Chain) -> Result<Generated<'_>, SourceError> {
        if !Devnet::builds(chain) {
            return Err(SourceError::ChainNotServed(chain));
        }
        if let Some(data) = self.generated(chain) {
            return data;
        }
        let live = self.ready_live(chain).await?;
        live.check(chain)?;
        Ok(Generated::Shared(live.read_arc()))
    }
}

/// A chain held for reading: borrowed from the table of chains, or shared
/// (an other chain, or one just generated).
enum Generated<'a> {
    Borrowed(RwLockReadGuard<'a, ChainData>),
    Shared(ChainRead),
}

impl std::ops::Deref for Generated<'_> {
    type Target = ChainData;

    fn deref(&self) -> &ChainData {
        match self {
            Generated::Borrowed(data) => data,
            Generated::Shared(data) => data,
        }
    }
}

/// The query core's questions, over the chain's data as generated (and
/// grown live since).
impl w3api_query::Asks for Devnet {
    async fn ask<Q: w3api_query::Question>(&self, chain: Chain, question: Q) -> Result<Q::Answer, SourceError> {
        question.answer(&*self.ready(chain).await?)
    }
}

impl w3api_source::Blocks for Devnet {
    async fn latest_block(&self, chain: Chain) -> Result<u64, SourceError> {
        Ok(self.ready(chain).await?.latest())
    }

    fn revision(&self, chain: Chain) -> u64 {
        self.generated_live(chain).map_or(0, |live| live.revision())
    }

    async fn block(
        &self,
        chain: Chain,
        block: BlockRef,
        full_transactions: bool,
    ) -> Result<Option<Block>, SourceError> {
        Ok(self.ready(chain).await?.rpc_block(block, full_transactions))
    }

    async fn transaction(&self, chain: Chain, block: BlockRef, index: u64) -> Result<Option<Transaction>, SourceError> {
        Ok(self.ready(chain).await?.rpc_transaction(block, index))
    }

    fn kind(&self) -> &'static str {
        "devnet"
    }

    /// The chain of a genesis of its own (`--init`), when it is outside the table.
    fn own_chains(&self) -> Vec<Chain> {
        self.genesis_chain().filter(|chain| matches!(chain, Chain::Other(_))).into_iter().collect()
    }

    async fn syncing(&self, chain: Chain) -> Result<SyncingStatus, SourceError> {
        // A chain is whole once generated: there is nothing to catch up with.
        self.ready(chain).await.map(|_| SyncingStatus::NotSyncing)
    }

    async fn block_number(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        Ok(self.ready(chain).await?.block_number_of(block))
    }

    async fn block_transaction_count(&self, chain: Chain, block: BlockRef) -> Result<Option<u64>, SourceError> {
        Ok(self.ready(chain).await?.transaction_count(block))
    }

    async fn transaction_by_hash(&self, chain: Chain, hash: Hash32) -> Result<Option<Transaction>, SourceError> {
        Ok(self.ready(chain).await?.rpc_transaction_by_hash(&hash))
    }

    async fn receipt(&self, chain: Chain, hash: Hash32) -> Result<Option<Receipt>, SourceError> {
        Ok(self.ready(chain).await?.rpc_receipt(&hash))
    }

    async fn capabilities(&self, chain: Chain) -> Result<w3api_types::rpc::EthCapabilities, SourceError> {
        Ok(self.ready(chain).await?.capabilities())
    }

    async fn chain_config(&self, chain: Chain) -> Result<w3api_types::rpc::EthConfig, SourceError> {
        Ok(self.ready(chain).await?.eth_config())
    }

    async fn raw(&self, chain: Chain, raw: w3api_source::Raw) -> Result<Option<Bytes>, SourceError> {
        Ok(self.ready(chain).await?.raw(raw))
    }

    async fn raw_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Bytes>>, SourceError> {
        Ok(self.ready(chain).await?.raw_receipts(block))
    }

    async fn block_receipts(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<Receipt>>, SourceError> {
        Ok(self.ready(chain).await?.rpc_block_receipts(block))
    }

    async fn logs(&self, query: LogQuery) -> Result<Vec<Log>, SourceError> {
        self.ready(query.chain).await?.rpc_logs(&query)
    }

    async fn fee_history(
        &self,
        chain: Chain,
        count: u64,
        newest: BlockRef,
        percentiles: Vec<f64>,
    ) -> Result<FeeHistory, SourceError> {
        self.ready(chain).await?.fee_history(count, newest, &percentiles)
    }

    async fn fee_suggestion(&self, chain: Chain) -> Result<FeeSuggestion, SourceError> {
        Ok(self.ready(chain).await?.fee_suggestion())
    }

    fn heads(&self) -> Option<tokio::sync::broadcast::Receiver<Head>> {
        Some(self.inner.heads.subscribe())
    }
}

impl w3api_source::DataApi for Devnet {
    async fn wallet_tokens(
        &self,
        query: WalletTokensQuery,
        page: PageRequest,
    ) -> Result<WalletTokensPage, SourceError> {
        self.ready(query.chain).await?.wallet_tokens(&query, &page)
    }

    async fn wallet_nfts(&self, query: WalletNftsQuery, page: PageRequest) -> Result<WalletNftsPage, SourceError> {
        self.ready_live(query.chain).await?;
        let indexing = &self.inner.indexing;
        indexing.request(query.chain, &query.token_addresses).await?;
        let answer = self.ready(query.chain).await?.wallet_nfts(&query, &page)?;
        let status = indexing.status(query.chain, answer.concerns).await?;
        Ok(WalletNftsPage { status, holdings: answer.holdings, total: answer.total })
    }

    async fn wallet_collections(
        &self,
        query: WalletCollectionsQuery,
        page: PageRequest,
    ) -> Result<WalletCollectionsPage, SourceError> {
        let answer = self.ready(query.chain).await?.wallet_collections(&query, &page)?;
        let status = self.inner.indexing.status(query.chain, answer.concerns).await?;
        Ok(WalletCollectionsPage { status, holdings: answer.holdings })
    }

    async fn describe_nfts(
        &self,
        chain: Chain,
        block: u64,
        nfts: Vec<NftHolding>,
    ) -> Result<Vec<NftHolding>, SourceError> {
        let data = self.ready(chain).await?;
        Ok(nfts.into_iter().map(|nft| data.described(nft, block)).collect())
    }

    async fn nft_status(&self, chain: Chain, collections: Vec<Address>) -> Result<SyncStatus, SourceError> {
        self.ready_live(chain).await?;
        self.inner.indexing.request(chain, &collections).await?;
        Ok(self.inner.indexing.status(chain, collections).await?)
    }

    async fn token_price(&self, query: TokenPriceQuery) -> Result<TokenPrice, SourceError> {
        self.ready(query.chain).await?.token_price(&query)
    }

    async fn contracts(&self, chain: Chain, addresses: Vec<Address>) -> Result<Vec<Contract>, SourceError> {
        Ok(self.ready(chain).await?.contracts(&addresses))
    }
}
