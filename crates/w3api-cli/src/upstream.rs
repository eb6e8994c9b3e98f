//! `w3api serve --upstream CHAIN=URL`: the interface for real nodes, by
//! indexing them (node mode).

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use clap::Args;
use w3api_indexer::{Anchors, FetchLimits, FollowConfig, IndexPlace, Journal, NodeSource, Upstream};
use w3api_types::{Address, Chain};

use crate::error::CliError;

/// Options of node mode.
#[derive(Args, Debug)]
pub(crate) struct UpstreamArgs {
    /// Serve CHAIN from the Ethereum JSON-RPC node at URL instead of the devnet, by indexing its
    /// blocks (e.g. eth=http://127.0.0.1:8545); repeat for several chains. Only these chains are
    /// served.
    #[arg(long = "upstream", value_name = "CHAIN=URL", value_parser = chain_value::<String>)]
    pub(crate) upstreams: Vec<(Chain, String)>,
    /// The wrapped native token of an upstream chain (e.g. eth=0xC02a…), which with --stablecoin
    /// prices every token from DEX pair reserves. Without both, tokens are unpriced.
    #[arg(long = "wrapped", value_name = "CHAIN=ADDRESS", value_parser = chain_value::<Address>)]
    wrapped: Vec<(Chain, Address)>,
    /// The USD stablecoin of an upstream chain (e.g. eth=0xA0b8…), worth exactly 1 USD.
    #[arg(long = "stablecoin", value_name = "CHAIN=ADDRESS", value_parser = chain_value::<Address>)]
    stablecoins: Vec<(Chain, Address)>,
    /// The first block to index on an upstream chain (e.g. eth=19000000); genesis by default.
    /// Balances count the transfers from that block on.
    #[arg(long = "start-block", value_name = "CHAIN=BLOCK", value_parser = chain_value::<u64>)]
    start_blocks: Vec<(Chain, u64)>,
    /// Most blocks a reorganisation may undo; a deeper one indexes the chain again from its first
    /// block.
    #[arg(long, value_name = "BLOCKS", default_value_t = 64)]
    reorg_depth: u64,
    /// Blocks read from a node per JSON-RPC batch.
    #[arg(long, value_name = "BLOCKS", default_value_t = FetchLimits::default().batch, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=1000))]
    fetch_batch: usize,
    /// Batches read from a node at once.
    #[arg(long, value_name = "N", default_value_t = FetchLimits::default().concurrency, value_parser = clap::builder::RangedU64ValueParser::<usize>::new().range(1..=64))]
    fetch_concurrency: usize,
    /// How often a node is asked for its newest block (e.g. 1s, 200ms).
    #[arg(long, value_name = "DURATION", default_value = "1s", value_parser = crate::serve::block_time)]
    poll_interval: Duration,
    /// A host NFT metadata documents may be fetched from over http(s) (e.g. 127.0.0.1:8000 or
    /// metadata.example.com); repeat for several. data: URIs are always read; other hosts never.
    #[arg(long = "metadata-host", value_name = "HOST")]
    metadata_hosts: Vec<String>,
    /// Where each chain's index is kept: in each replica's memory, rebuilt from the store's
    /// journal at start; or in tables of the --database PostgreSQL, which every replica reads
    /// without holding the chain.
    #[arg(long = "index", value_name = "PLACE", value_enum, default_value_t = IndexArg::Memory)]
    index: IndexArg,
    /// With --index postgres: answers read the index's tables from this read replica of the
    /// --database (postgres://…), which may lag; each answer is read at the newest block the
    /// replica has.
    #[arg(long = "database-read", value_name = "URL", env = "W3API_DATABASE_READ_URL")]
    database_read: Option<String>,
}

/// `--index`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum IndexArg {
    /// In memory.
    Memory,
    /// In PostgreSQL tables.
    Postgres,
}

/// A `CHAIN=VALUE` argument.
fn chain_value<T: FromStr<Err: std::fmt::Display>>(text: &str) -> Result<(Chain, T), String> {
    let (chain, value) =
        text.split_once('=').ok_or_else(|| format!("{text:?} is not CHAIN=VALUE (e.g. eth=http://127.0.0.1:8545)"))?;
    let chain: Chain = chain.trim().parse().map_err(|e| format!("{chain:?} is not a chain: {e}"))?;
    let value = value.trim().parse().map_err(|e| format!("{value:?}: {e}"))?;
    Ok((chain, value))
}

impl UpstreamArgs {
    /// Whether node mode is asked for.
    pub(crate) fn enabled(&self) -> bool {
        !self.upstreams.is_empty()
    }

    /// The upstreams, each chain once, with what the other options say of it.
    pub(crate) fn upstreams(&self) -> Result<Vec<Upstream>, CliError> {
        let mut urls: HashMap<Chain, &str> = HashMap::new();
        for (chain, url) in &self.upstreams {
            if urls.insert(*chain, url).is_some() {
                return Err(CliError::Input(format!("--upstream: chain {chain} is given twice")));
            }
        }
        for (option, chains) in [
            ("--wrapped", self.wrapped.iter().map(|(c, _)| *c).collect::<Vec<_>>()),
            ("--stablecoin", self.stablecoins.iter().map(|(c, _)| *c).collect()),
            ("--start-block", self.start_blocks.iter().map(|(c, _)| *c).collect()),
        ] {
            if let Some(chain) = chains.iter().find(|c| !urls.contains_key(c)) {
                return Err(CliError::Input(format!("{option}: chain {chain} has no --upstream")));
            }
        }
        let of = |list: &[(Chain, Address)], chain: Chain| list.iter().find(|(c, _)| *c == chain).map(|(_, a)| *a);
        Ok(self
            .upstreams
            .iter()
            .map(|(chain, url)| Upstream {
                chain: *chain,
                url: url.clone(),
                follow: FollowConfig {
                    start_block: self.start_blocks.iter().find(|(c, _)| c == chain).map_or(0, |(_, b)| *b),
                    anchors: Anchors { wrapped: of(&self.wrapped, *chain), stable: of(&self.stablecoins, *chain) },
                    reorg_depth: self.reorg_depth,
                    limits: FetchLimits { batch: self.fetch_batch, concurrency: self.fetch_concurrency },
                    poll: self.poll_interval,
                    place: match self.index {
                        IndexArg::Memory => IndexPlace::Memory,
                        IndexArg::Postgres => IndexPlace::Tables,
                    },
                },
            })
            .collect())
    }

    /// Starts following every upstream, keeping each index in `journal` if given.
    pub(crate) async fn start(&self, journal: Option<Journal>) -> Result<NodeSource, CliError> {
        let journal = match (&self.database_read, journal) {
            (None, journal) => journal,
            (Some(_), _) if self.index != IndexArg::Postgres => {
                return Err(CliError::Input(
                    "--database-read reads the index's tables: it needs --index postgres".into(),
                ));
            }
            (Some(url), Some(journal)) => {
                let tables = journal.tables_of_store().ok_or_else(|| {
                    CliError::Input(
                        "--database-read is a read replica of --database, and --database is not given".into(),
                    )
                })?;
                let reads =
                    tables.reading_from(url).await.map_err(|e| CliError::Input(format!("--database-read: {e}")))?;
                Some(journal.with_tables(reads))
            }
            (Some(_), None) => {
                return Err(CliError::Input(
                    "--database-read is a read replica of --database, and --database is not given".into(),
                ));
            }
        };
        NodeSource::start(self.upstreams()?, self.metadata_hosts.clone(), journal)
            .map_err(|e| CliError::Input(e.to_string()))
    }
}
