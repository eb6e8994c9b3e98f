//! One type for every backend: [`DynBackend`] holds the devnet, node mode
//! or a test's wrapper behind a trait object, so that the server and the
//! streams, generic over their backend, are compiled once, for this type,
//! rather than once per backend in every crate that starts a server.
//!
//! The price is a boxed future per call to the backend, small beside what
//! any call does. Each method is listed once below: the object's method,
//! its implementation for any [`Backend`], and the concern's trait
//! implemented for the handle all come from that line. A method missing
//! from the list would still compile where its trait provides it, and the
//! server would answer with that default: a test reads the traits' files
//! and fails on a method the list leaves out.

use std::any::Any;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use tokio::sync::broadcast::Receiver;
use w3api_query::{AnyQuestion, Asks, Question};
use w3api_source::{
    BlockRef, Blocks, Calls, ChainControl, ChangeFilter, Contract, CreatedWallet, DataApi, FeeSuggestion, Filters,
    Head, LogQuery, Moved, NewCollection, NewNftMetadata, NewToken, NftHolding, PageRequest, PendingTransaction, Raw,
    Sending, Signing, SourceError, State, TokenPriceQuery, Tracing, WalletCollectionsPage, WalletCollectionsQuery,
    WalletNftsPage, WalletNftsQuery, WalletTokensPage, WalletTokensQuery,
};
use w3api_types::rpc::{
    AccessListResult, AccountProof, Block, BlockTraceResult, BuiltPayload, Bytes, CallFrame, EthCapabilities,
    EthConfig, FeeHistory, FilterChanges, FilterId, GethTrace, Hash32, LocalizedTrace, Log, LogFilter,
    PayloadAttributes, Receipt, SimulatePayload, SimulatedBlock, StateOverrides, StorageKey, SyncingStatus, TokenPrice,
    TraceConfig, TraceFilter, TraceResults, TraceType, Transaction, TransactionRequest, TxpoolContent, TypedData,
};
use w3api_types::{Address, Chain, SyncStatus, U256};

use crate::Backend;

type Boxed<'a, T> = Pin<Box<dyn Future<Output = Result<T, SourceError>> + Send + 'a>>;

/// Any backend, behind one type: what a server is given to serve.
#[derive(Clone)]
pub struct DynBackend(Arc<dyn Erased>);

impl DynBackend {
    /// `backend`, behind the handle; a handle given is kept as it is,
    /// rather than boxed again.
    pub fn new<B: Backend>(backend: B) -> DynBackend {
        let mut given = Some(backend);
        if let Some(handle) = (&mut given as &mut dyn Any).downcast_mut::<Option<DynBackend>>() {
            return handle.take().expect("the handle was given");
        }
        DynBackend(Arc::new(given.expect("the backend was given")))
    }
}

impl std::fmt::Debug for DynBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("DynBackend").field(&self.0.type_name()).finish()
    }
}

/// The query core's questions pass as [`AnyQuestion`], and their answers
/// come back as `Any`, each the answer of the question that went in.
impl Asks for DynBackend {
    async fn ask<Q: Question>(&self, chain: Chain, question: Q) -> Result<Q::Answer, SourceError> {
        let answer = self.0.ask(chain, question.into()).await?;
        Ok(*answer.downcast::<Q::Answer>().expect("a question's answer is of its own type"))
    }
}

/// Lists every method of the backend's traits once, as
/// `Trait { async name(args) -> T; fn name(args) -> T; }`: an `async`
/// method answers `Result<T, SourceError>` through a boxed future.
macro_rules! erased {
    ($($concern:ident {
        $(async $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty;)*
        $(fn $sync:ident($($sarg:ident: $sty:ty),*) -> $sret:ty;)*
    })*) => {
        /// The backend's methods with their futures boxed: what a trait
        /// object can hold.
        trait Erased: Send + Sync + 'static {
            fn ask(&self, chain: Chain, question: AnyQuestion) -> Boxed<'_, Box<dyn Any + Send>>;
            /// The backend's type, for `Debug`.
            fn type_name(&self) -> &'static str;
            $($(fn $name(&self, $($arg: $ty),*) -> Boxed<'_, $ret>;)*
            $(fn $sync(&self, $($sarg: $sty),*) -> $sret;)*)*
        }

        impl<B: Backend> Erased for B {
            fn ask(&self, chain: Chain, question: AnyQuestion) -> Boxed<'_, Box<dyn Any + Send>> {
                Box::pin(question.ask_of(self, chain))
            }
            fn type_name(&self) -> &'static str {
                std::any::type_name::<B>()
            }
            $($(fn $name(&self, $($arg: $ty),*) -> Boxed<'_, $ret> {
                Box::pin(<B as $concern>::$name(self, $($arg),*))
            })*
            $(fn $sync(&self, $($sarg: $sty),*) -> $sret {
                <B as $concern>::$sync(self, $($sarg),*)
            })*)*
        }

        $(impl $concern for DynBackend {
            $(fn $name(&self, $($arg: $ty),*) -> impl Future<Output = Result<$ret, SourceError>> + Send {
                self.0.$name($($arg),*)
            })*
            $(fn $sync(&self, $($sarg: $sty),*) -> $sret {
                self.0.$sync($($sarg),*)
            })*
        })*
    };
}

erased! {
    Blocks {
        async latest_block(chain: Chain) -> u64;
        async block(chain: Chain, block: BlockRef, full_transactions: bool) -> Option<Block>;
        async transaction(chain: Chain, block: BlockRef, index: u64) -> Option<Transaction>;
        async syncing(chain: Chain) -> SyncingStatus;
        async block_number(chain: Chain, block: BlockRef) -> Option<u64>;
        async block_transaction_count(chain: Chain, block: BlockRef) -> Option<u64>;
        async transaction_by_hash(chain: Chain, hash: Hash32) -> Option<Transaction>;
        async receipt(chain: Chain, hash: Hash32) -> Option<Receipt>;
        async raw(chain: Chain, raw: Raw) -> Option<Bytes>;
        async raw_receipts(chain: Chain, block: BlockRef) -> Option<Vec<Bytes>>;
        async chain_config(chain: Chain) -> EthConfig;
        async capabilities(chain: Chain) -> EthCapabilities;
        async transactions_with_receipts(chain: Chain, hashes: Vec<Hash32>) -> Vec<Option<(Transaction, Receipt)>>;
        async block_receipts(chain: Chain, block: BlockRef) -> Option<Vec<Receipt>>;
        async logs(query: LogQuery) -> Vec<Log>;
        async fee_history(chain: Chain, count: u64, newest: BlockRef, percentiles: Vec<f64>) -> FeeHistory;
        async fee_suggestion(chain: Chain) -> FeeSuggestion;
        fn revision(chain: Chain) -> u64;
        fn chain_id(chain: Chain) -> Option<u64>;
        fn kind() -> &'static str;
        fn own_chains() -> Vec<Chain>;
        fn heads() -> Option<Receiver<Head>>;
    }
    State {
        async balance(chain: Chain, address: Address, block: BlockRef) -> U256;
        async transaction_count(chain: Chain, address: Address, block: BlockRef) -> u64;
        async code(chain: Chain, address: Address, block: BlockRef) -> Bytes;
        async storage_at(chain: Chain, address: Address, slot: U256, block: BlockRef) -> Hash32;
        async proof(chain: Chain, address: Address, keys: Vec<StorageKey>, block: BlockRef) -> AccountProof;
    }
    Calls {
        async call(chain: Chain, request: TransactionRequest, block: BlockRef, overrides: Option<StateOverrides>) -> Bytes;
        async estimate_gas(
            chain: Chain, request: TransactionRequest, block: BlockRef, overrides: Option<StateOverrides>
        ) -> U256;
        async create_access_list(chain: Chain, request: TransactionRequest, block: BlockRef) -> AccessListResult;
        async simulate(chain: Chain, payload: SimulatePayload, block: BlockRef) -> Vec<SimulatedBlock>;
        async build_block(
            chain: Chain, parent: Hash32, attributes: PayloadAttributes, transactions: Option<Vec<Bytes>>,
            extra_data: Option<Bytes>
        ) -> BuiltPayload;
    }
    Sending {
        async send_raw_transaction(chain: Chain, transaction: Bytes) -> Hash32;
        async pool_content(chain: Chain) -> TxpoolContent;
        fn pending_transactions() -> Option<Receiver<PendingTransaction>>;
    }
    Filters {
        async new_filter(chain: Chain, owner: String, filter: LogFilter) -> FilterId;
        async new_change_filter(chain: Chain, owner: String, kind: ChangeFilter) -> FilterId;
        async filter_changes(chain: Chain, id: FilterId) -> FilterChanges;
        async filter_logs(chain: Chain, id: FilterId) -> Vec<Log>;
        async uninstall_filter(chain: Chain, id: FilterId) -> bool;
    }
    Signing {
        async signing_accounts(chain: Chain) -> Vec<Address>;
        async send_transaction(chain: Chain, request: TransactionRequest) -> Hash32;
        async sign(chain: Chain, address: Address, message: Bytes) -> Bytes;
        async sign_typed_data(chain: Chain, address: Address, typed: TypedData) -> Bytes;
    }
    DataApi {
        async wallet_tokens(query: WalletTokensQuery, page: PageRequest) -> WalletTokensPage;
        async wallet_nfts(query: WalletNftsQuery, page: PageRequest) -> WalletNftsPage;
        async wallet_collections(query: WalletCollectionsQuery, page: PageRequest) -> WalletCollectionsPage;
        async describe_nfts(chain: Chain, block: u64, nfts: Vec<NftHolding>) -> Vec<NftHolding>;
        async nft_status(chain: Chain, collections: Vec<Address>) -> SyncStatus;
        async token_price(query: TokenPriceQuery) -> TokenPrice;
        async contracts(chain: Chain, addresses: Vec<Address>) -> Vec<Contract>;
    }
    ChainControl {
        async mine(chain: Chain, blocks: u64, interval: Option<u64>) -> u64;
        async snapshot(chain: Chain) -> u64;
        async revert(chain: Chain, id: u64) -> bool;
        async reset(chain: Chain) -> ();
        async dump_state(chain: Chain) -> Vec<u8>;
        async load_state(chain: Chain, state: Vec<u8>) -> ();
        async increase_time(chain: Chain, seconds: u64) -> u64;
        async set_next_block_timestamp(chain: Chain, timestamp: u64) -> ();
        async set_balance(chain: Chain, address: Address, balance: U256) -> ();
        async create_wallet(chain: Chain, native: U256) -> CreatedWallet;
        async create_token(chain: Chain, token: NewToken) -> Address;
        async create_collection(chain: Chain, collection: NewCollection) -> Address;
        async mint_token(chain: Chain, token: Address, to: Address, amount: U256) -> ();
        async mint_nft(
            chain: Chain, collection: Address, to: Address, amount: u64, metadata: Option<NewNftMetadata>
        ) -> U256;
        async transfer(chain: Chain, from: Address, to: Address, moved: Moved) -> ();
        async set_price(chain: Chain, token: Address, usd: f64) -> f64;
        async set_code(chain: Chain, address: Address, code: Bytes) -> ();
        async set_storage_at(chain: Chain, address: Address, slot: U256, value: Hash32) -> ();
        async set_nonce(chain: Chain, address: Address, nonce: u64) -> ();
        async impersonate(chain: Chain, address: Address, on: bool) -> ();
        async automine(chain: Chain) -> bool;
        async set_automine(chain: Chain, on: bool) -> ();
        async set_interval_mining(chain: Chain, seconds: u64) -> ();
        async drop_transaction(chain: Chain, hash: Hash32) -> bool;
        async drop_all_transactions(chain: Chain) -> ();
    }
    Tracing {
        async trace_transaction(chain: Chain, hash: Hash32, config: TraceConfig) -> GethTrace;
        async trace_call(chain: Chain, request: TransactionRequest, block: BlockRef, config: TraceConfig) -> GethTrace;
        async trace_block(chain: Chain, block: BlockRef, config: TraceConfig) -> Vec<BlockTraceResult>;
        async parity_transaction(chain: Chain, hash: Hash32) -> Option<Vec<LocalizedTrace>>;
        async parity_block(chain: Chain, block: BlockRef) -> Option<Vec<LocalizedTrace>>;
        async parity_filter(chain: Chain, filter: TraceFilter) -> Vec<LocalizedTrace>;
        async parity_call(chain: Chain, request: TransactionRequest, block: BlockRef, types: Vec<TraceType>) -> TraceResults;
        async parity_replay(chain: Chain, hash: Hash32, types: Vec<TraceType>) -> TraceResults;
        async call_tree(chain: Chain, hash: Hash32) -> Option<CallFrame>;
        async call_trees(chain: Chain, block: Hash32) -> Option<Vec<(Hash32, CallFrame)>>;
    }
}

#[cfg(test)]
mod tests {
    /// The files declaring the backend's traits, each holding one.
    const TRAITS: [&str; 9] = [
        include_str!("../../w3api-source/src/blocks.rs"),
        include_str!("../../w3api-source/src/state.rs"),
        include_str!("../../w3api-source/src/calls.rs"),
        include_str!("../../w3api-source/src/sending.rs"),
        include_str!("../../w3api-source/src/filters.rs"),
        include_str!("../../w3api-source/src/signing.rs"),
        include_str!("../../w3api-source/src/data_api.rs"),
        include_str!("../../w3api-source/src/control.rs"),
        include_str!("../../w3api-source/src/traces.rs"),
    ];

    /// The names of the methods a file's `pub trait` declares.
    fn declared(source: &str) -> Vec<&str> {
        let start = source.find("\npub trait ").expect("the file declares a trait");
        let body = &source[start..];
        let body = &body[..body.find("\n}\n").expect("the trait ends")];
        body.lines()
            .filter_map(|line| line.strip_prefix("    fn "))
            .map(|rest| rest.split(['(', '<']).next().expect("a name"))
            .collect()
    }

    /// A method the list leaves out would compile, and the server would
    /// answer with the trait's default whatever the backend does.
    #[test]
    fn every_method_of_the_backend_traits_is_listed() {
        let own = include_str!("dyn_backend.rs");
        let list = &own[own.find("\nerased! {").expect("the list")..];
        let list = &list[..list.find("\n}\n").expect("the list ends")];
        let mut names = 0;
        for source in TRAITS {
            for name in declared(source) {
                let listed = list.contains(&format!("async {name}(")) || list.contains(&format!("fn {name}("));
                assert!(listed, "{name} is declared by a backend trait but not listed in erased!");
                names += 1;
            }
        }
        let entry = |line: &str| line.trim_start().starts_with("async ") || line.trim_start().starts_with("fn ");
        let entries = list.lines().filter(|line| entry(line)).count();
        assert_eq!(names, entries, "the traits declare {names} methods and the list has {entries}");
    }
}
