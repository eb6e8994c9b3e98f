//! `w3api serve`: the interface on the devnet, or for real nodes (`--upstream`).

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::{Args, ValueEnum};
use w3api_devnet::{Devnet, ExecutionLimits, Scale};
use w3api_indexer::Journal;
use w3api_server::{CorsOrigins, ServerConfig, new_api_key, serve, service, shutdown_signal};
use w3api_source::scenario::{Applied, Scenario};
use w3api_store::Location;
use w3api_types::Chain;

use crate::error::CliError;
use crate::output::outln;

/// Options of `w3api serve`.
#[derive(Args)]
pub(crate) struct ServeArgs {
    /// Address to listen on; port 0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// API keys to accept, comma-separated; added to every global --api-key (which may be
    /// repeated). Without any key, one is generated and printed.
    #[arg(long = "api-keys", env = "W3API_API_KEYS", value_delimiter = ',', hide_env_values = true)]
    key_list: Vec<String>,
    /// Seed of the devnet: the same seed serves the same data.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Size of the devnet.
    #[arg(long, value_enum, default_value_t = ScaleArg::Default)]
    scale: ScaleArg,
    /// How long a newly requested NFT collection reports SYNCING (e.g. 3s, 500ms).
    #[arg(long, default_value = "3s", value_parser = humantime::parse_duration)]
    index_delay: Duration,
    /// Web origin (scheme://host[:port]) allowed to call the server from a browser; repeat for
    /// several. Without one, any origin may.
    #[arg(long = "cors-origin", env = "W3API_CORS_ORIGINS", value_delimiter = ',', value_parser = cors_origin)]
    cors_origins: Vec<String>,
    /// Most memory for answers kept encoded and sent again (a wallet at a fixed block, a block
    /// by number): bytes, or a number with B, KiB, MiB, GiB, kB, MB or GB (e.g. 64MiB); 0 keeps none.
    #[arg(long, default_value = "256MiB", value_parser = byte_size)]
    answer_cache_size: u64,
    /// Keep the server's state (what users did to the devnet's chains, sign-in challenges, NFT
    /// indexing, streams) in DIR (one SQLite file, created if missing; one server at a time), so
    /// that a restart, kill -9 included, serves the same chains. Without it or --database, the
    /// state lives in memory.
    #[arg(long, value_name = "DIR", conflicts_with = "database")]
    data_dir: Option<PathBuf>,
    /// Keep the server's state in PostgreSQL, which several servers may share:
    /// postgres://user:password@host:port/database. Its schema is migrated at start.
    #[arg(long, value_name = "URL", env = "W3API_DATABASE_URL", hide_env_values = true)]
    database: Option<String>,
    /// The secret cursors are signed with, at least 16 characters. Servers behind one load
    /// balancer need the same one; without it, one is generated, valid until this server stops.
    #[arg(long, env = "W3API_SECRET", hide_env_values = true, value_parser = secret)]
    secret: Option<String>,
    /// Add a block of ordinary activity (transfers, swaps, mints, sales) to every chain in use
    /// this often (e.g. 2s, 500ms), so that `latest` moves and prices change; sent transactions
    /// then wait for the next block, as on a node mining at an interval (evm_setAutomine changes
    /// that). Without it, blocks come only from the chain-control methods (evm_mine,
    /// anvil_setBalance…) and from sent transactions, each mined at once (automine).
    #[arg(long, value_name = "DURATION", value_parser = block_time)]
    block_time: Option<Duration>,
    /// Carry the devnet's chains in FILE, as Anvil's --state does: what users did to them is
    /// loaded from it at start when it exists, and written to it when the server stops (SIGTERM
    /// or Ctrl-C; not after kill -9, for which --data-dir keeps every change as it is made).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["data_dir", "database"])]
    state: Option<PathBuf>,
    /// Start the chain of a geth-style genesis (genesis.json: its config.chainId, alloc,
    /// timestamp, gasLimit, baseFeePerGas…) from that genesis instead of the seed's world, as
    /// geth init and anvil --init do; the other chains are the seed's.
    #[arg(long, value_name = "FILE")]
    init: Option<PathBuf>,
    /// Continue the chain of --init with another node's blocks (chain.rlp: RLP blocks one after
    /// another, as geth export writes them), each executed by the rules of its fork in the
    /// genesis's config and checked against its header; the server refuses to start at the first
    /// block that disagrees, naming it and the field.
    #[arg(long, value_name = "FILE", requires = "init")]
    import: Option<PathBuf>,
    /// Shape the devnet at start with the steps of a scenario file (YAML: wallets, tokens,
    /// collections, mints, transfers, prices, blocks), before the first request is served.
    #[arg(long, value_name = "FILE")]
    scenario: Option<PathBuf>,
    /// Refuse the chain-control methods (evm_mine, evm_snapshot, evm_revert, anvil_setBalance…),
    /// which are served on every chain's JSON-RPC URL otherwise.
    #[arg(long)]
    no_cheats: bool,
    /// When a stream delivery that failed is tried again: one wait per retry, comma-separated
    /// (e.g. 1s,2s,4s). Production's schedule is the default: 1m,10m,1h,2h,6h,12h,24h. After the
    /// last retry the delivery has failed and its stream goes to status error.
    #[arg(long, value_name = "DURATIONS", value_delimiter = ',', value_parser = retry_wait)]
    stream_retries: Option<Vec<Duration>>,
    /// Blocks until a stream delivery is sent again as confirmed, on every chain. Without it,
    /// each chain's production depth (12 on Ethereum, 18 on BNB, 100 on Polygon…).
    #[arg(long, value_name = "BLOCKS")]
    confirmations: Option<u64>,
    /// The only host stream webhooks may be on; repeat for several (e.g. --webhook-host
    /// 127.0.0.1 --webhook-host localhost). Without it, any host.
    #[arg(long = "webhook-host", value_name = "HOST")]
    webhook_hosts: Vec<String>,
    /// How long a webhook receiver has to answer a delivery or the test webhook.
    #[arg(long, value_name = "DURATION", default_value = "10s", value_parser = block_time)]
    delivery_timeout: Duration,
    /// Most gas a call on the gateway runs with (eth_call, eth_estimateGas, eth_createAccessList,
    /// and the estimate of an eth_sendTransaction without gas), as geth's --rpc.gascap: a call
    /// asking for more runs with this much. 0 removes the cap.
    #[arg(long, value_name = "GAS", default_value_t = w3api_devnet::DEFAULT_GAS_CAP)]
    rpc_gas_cap: u64,
    /// How long the calls of one JSON-RPC request that run the EVM may take, all of a batch's
    /// together, as geth's --rpc.evmtimeout (e.g. 5s, 500ms); one still running then is stopped
    /// with geth's error. In node mode, how long the node has to answer them. 0 removes the limit.
    #[arg(long, value_name = "DURATION", default_value = "5s", value_parser = humantime::parse_duration)]
    rpc_evm_timeout: Duration,
    #[command(flatten)]
    upstream: crate::upstream::UpstreamArgs,
}

/// One wait of `--stream-retries`.
fn retry_wait(text: &str) -> Result<Duration, String> {
    humantime::parse_duration(text.trim()).map_err(|error| format!("{error}; write durations such as 1s,2s,4s"))
}

/// The genesis of `--init`, as geth writes it.
fn read_genesis(path: &Path) -> Result<w3api_devnet::Genesis, CliError> {
    let failed = |why: String| CliError::Input(format!("--init {}: {why}", path.display()));
    let text = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
    serde_json::from_slice(&text).map_err(|e| failed(format!("not a genesis.json (geth's format): {e}")))
}

/// What became of `--scenario` at start.
enum StartScenario {
    /// Applied to a chain that kept nothing yet.
    Applied { path: PathBuf, steps: usize, applied: Applied },
    /// Not applied: its chain keeps changes from before this start (the
    /// scenario's own, when a former start applied it).
    Kept { path: PathBuf, chain: Chain },
}

/// Reads a scenario file and applies it, unless its chain keeps changes
/// from before; an error names the file, the step, the line and what was
/// wrong.
async fn apply_scenario(path: &Path, devnet: &Devnet) -> Result<Option<StartScenario>, CliError> {
    let failed = |error: &dyn std::fmt::Display| CliError::Input(format!("scenario {}: {error}", path.display()));
    let text = std::fs::read_to_string(path).map_err(|e| failed(&e))?;
    let scenario = Scenario::from_yaml(&text).map_err(|e| failed(&e))?;
    if devnet.keeps_changes(scenario.chain).await.map_err(|e| failed(&e))? {
        return Ok(Some(StartScenario::Kept { path: path.to_path_buf(), chain: scenario.chain }));
    }
    let applied = scenario.apply(devnet).await.map_err(|e| failed(&e))?;
    Ok(Some(StartScenario::Applied { path: path.to_path_buf(), steps: scenario.steps.len(), applied }))
}

/// A `--block-time`: a duration above zero.
pub(crate) fn block_time(text: &str) -> Result<Duration, String> {
    match humantime::parse_duration(text) {
        Ok(every) if every.is_zero() => Err("a block time is above zero (e.g. 2s or 500ms)".to_string()),
        Ok(every) => Ok(every),
        Err(error) => Err(format!("{error}; write a duration such as 2s or 500ms")),
    }
}

/// A `--rpc-gas-cap`: zero is none, as geth reads it.
fn gas_cap(cap: u64) -> u64 {
    if cap == 0 { u64::MAX } else { cap }
}

/// How stream deliveries are made, from the command line.
fn streams_config(args: &ServeArgs) -> w3api_streams::StreamsConfig {
    let defaults = w3api_streams::StreamsConfig::default();
    w3api_streams::StreamsConfig {
        retries: args.stream_retries.clone().unwrap_or(defaults.retries),
        attempt_timeout: args.delivery_timeout,
        // A claim outlives the attempt that made it, and the recording after it.
        lease: args.delivery_timeout * 3,
        confirmations: args.confirmations,
        webhook_hosts: args.webhook_hosts.clone(),
        ..defaults
    }
}

/// How long a replica writes a chain's index after it last renewed its
/// lease; another takes over when it stops for longer.
const INDEX_LEASE: Duration = Duration::from_secs(15);

/// Most sign-in challenges an embedded store holds at once.
const CHALLENGE_CAPACITY: usize = 100_000;

/// A `--secret`: long enough not to be guessed.
fn secret(text: &str) -> Result<String, String> {
    if text.chars().count() >= 16 {
        Ok(text.to_string())
    } else {
        Err(format!("{} characters; a secret has at least 16", text.chars().count()))
    }
}

impl ServeArgs {
    fn store_location(&self) -> Location {
        match (&self.database, &self.data_dir) {
            (Some(url), _) => Location::Postgres(url.clone()),
            (None, Some(dir)) => Location::Directory(dir.clone()),
            (None, None) => Location::Memory,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ScaleArg {
    /// A few hundred blocks and two dozen wallets per chain: a small world for a test to shape.
    Tiny,
    /// A day and a bit of blocks per chain, generated in well under a second.
    Default,
    /// Over a million transactions per chain (about 40 s to generate each).
    Large,
}

impl ScaleArg {
    /// The devnet scale this names.
    pub(crate) fn scale(self) -> Scale {
        match self {
            ScaleArg::Tiny => Scale::TINY,
            ScaleArg::Default => Scale::DEFAULT,
            ScaleArg::Large => Scale::LARGE,
        }
    }
}

/// One `--cors-origin`, checked when the command line is read.
fn cors_origin(text: &str) -> Result<String, w3api_server::InvalidOrigin> {
    CorsOrigins::only([text]).map(|_| text.to_string())
}

/// A size in bytes: digits, then optionally a unit (any case, a space allowed before it).
fn byte_size(text: &str) -> Result<u64, String> {
    let invalid = || {
        format!(
            "{text:?} is not a size: write bytes, or a whole number with B, KiB, MiB, GiB, kB, MB or GB (0 keeps none)"
        )
    };
    let text = text.trim();
    let (digits, unit) = text.split_at(text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len()));
    let number: u64 = digits.parse().map_err(|_| invalid())?;
    let unit = unit.trim_start().to_ascii_lowercase();
    let scale: u64 = match unit.as_str() {
        "" | "b" => 1,
        "kib" => 1 << 10,
        "mib" => 1 << 20,
        "gib" => 1 << 30,
        "kb" => 1_000,
        "mb" => 1_000_000,
        "gb" => 1_000_000_000,
        _ => return Err(invalid()),
    };
    number.checked_mul(scale).ok_or_else(|| format!("{text:?} is more bytes than this machine can count"))
}

/// Serves until Ctrl-C or SIGTERM.
/// `api_keys` are the global `--api-key` values; the server lets in those and `--api-keys`.
pub(crate) async fn run(args: ServeArgs, api_keys: Vec<String>) -> Result<(), CliError> {
    let cors = if args.cors_origins.is_empty() {
        CorsOrigins::Any
    } else {
        CorsOrigins::only(&args.cors_origins).map_err(|e| CliError::Input(e.to_string()))?
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()))
        .with_writer(std::io::stderr)
        .init();
    if args.upstream.enabled() && (args.scenario.is_some() || args.block_time.is_some() || args.init.is_some()) {
        return Err(CliError::Input(
            "--scenario, --block-time, --init and --import shape the devnet; with --upstream the chains are the \
             nodes'"
                .into(),
        ));
    }
    let location = args.store_location();
    let streams = streams_config(&args);
    let mut keys: Vec<String> = api_keys
        .into_iter()
        .chain(args.key_list.iter().cloned())
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    keys.sort();
    keys.dedup();
    let generated = keys.is_empty().then(new_api_key);
    keys.extend(generated.clone());
    let store =
        w3api_store::open(&location, CHALLENGE_CAPACITY).await.map_err(|e| CliError::Server(format!("store: {e}")))?;
    let config = ServerConfig {
        cors,
        answer_cache_bytes: args.answer_cache_size,
        store: Some(store.clone()),
        cursor_secret: args.secret.clone(),
        challenge_capacity: CHALLENGE_CAPACITY,
        cheats: !args.no_cheats,
        streams,
        evm_timeout: args.rpc_evm_timeout,
        ..ServerConfig::new(keys)
    };
    let listener = tokio::net::TcpListener::bind(args.listen)
        .await
        .map_err(|e| CliError::Server(format!("listening on {}: {e}", args.listen)))?;
    let address = listener.local_addr().map_err(|e| CliError::Server(e.to_string()))?;
    if args.upstream.enabled() {
        // The index is kept in the store when the state outlives the process.
        let journal = (!matches!(location, Location::Memory)).then(|| Journal::new(store.clone(), INDEX_LEASE));
        let source = args.upstream.start(journal).await?;
        announce(&args, address, generated.as_deref(), store.as_ref());
        for (chain, url) in &args.upstream.upstreams {
            outln!("chain {chain}: indexing the node at {url}");
        }
        let served = serve(listener, service(source, config), shutdown_signal()).await;
        return served.map_err(|e| CliError::Server(format!("serving: {e}")));
    }
    let devnet = Devnet::new(args.seed, args.scale.scale())
        .with_index_delay(args.index_delay)
        .with_store(store.clone())
        .with_automine(args.block_time.is_none())
        .with_execution_limits(ExecutionLimits { gas_cap: gas_cap(args.rpc_gas_cap), ..ExecutionLimits::default() });
    let mut import_took = None;
    let devnet = match (&args.init, &args.import) {
        (Some(path), None) => devnet
            .with_genesis(read_genesis(path)?)
            .map_err(|e| CliError::Input(format!("--init {}: {e}", path.display())))?,
        (Some(genesis), Some(path)) => {
            let failed = |why: String| CliError::Input(format!("--import {}: {why}", path.display()));
            let blocks = std::fs::read(path).map_err(|e| failed(e.to_string()))?;
            let started = std::time::Instant::now();
            let devnet = devnet.with_chain(read_genesis(genesis)?, &blocks).map_err(failed)?;
            import_took = Some(started.elapsed());
            devnet
        }
        (None, _) => devnet,
    };
    let restored = devnet.restore().await.map_err(|e| CliError::Server(e.to_string()))?;
    let carried = match &args.state {
        Some(path) => Some((path, crate::state_file::load(path, &devnet).await?)),
        None => None,
    };
    let scenario = match &args.scenario {
        Some(path) => apply_scenario(path, &devnet).await?,
        None => None,
    };
    // A genesis chain beyond the table's is served on the gateway by its hex id.
    let extra_chains = devnet.genesis_chain().filter(|chain| !chain.is_known()).into_iter().collect();
    let app = service(devnet.clone(), ServerConfig { extra_chains, ..config });
    announce(&args, address, generated.as_deref(), store.as_ref());
    if let (Some(path), Some(chain)) = (&args.init, devnet.genesis_chain()) {
        outln!("chain {chain}: starts from the genesis in {}", path.display());
        if let (Some(blocks), Some(took)) = (&args.import, import_took) {
            outln!("chain {chain}: the blocks of {} imported in {:.2} s", blocks.display(), took.as_secs_f64());
        }
    }
    for chain in &restored {
        let took = chain.took.as_secs_f64();
        outln!(
            "chain {}: {} kept changes made again in {took:.2} s; newest block {}",
            chain.chain,
            chain.changes,
            chain.latest
        );
    }
    match &carried {
        Some((path, loaded)) if loaded.is_empty() => {
            outln!("state {}: none yet; written when the server stops", path.display());
        }
        Some((path, loaded)) => {
            let names: Vec<&str> = loaded.iter().map(Chain::as_str).collect();
            outln!("state {}: loaded chains {}; written again when the server stops", path.display(), names.join(", "));
        }
        None => {}
    }
    match &scenario {
        Some(StartScenario::Applied { path, steps, applied }) => {
            outln!("scenario {}: {steps} steps applied", path.display());
            for (name, address) in applied.names() {
                outln!("  {name} {address:#x}");
            }
        }
        Some(StartScenario::Kept { path, chain }) => outln!(
            "scenario {}: not applied again: chain {chain} keeps the changes made before this start (anvil_reset, \
             or a new data directory, starts it over)",
            path.display()
        ),
        None => {}
    }
    match args.block_time {
        Some(every) => {
            let every = humantime::format_duration(every);
            outln!(
                "blocks: one of ordinary activity every {every} on each chain in use, with the transactions sent since"
            );
        }
        None => {
            outln!(
                "blocks: only from chain-control methods (evm_mine, anvil_setBalance…); --block-time adds live ones"
            );
        }
    }
    if args.no_cheats {
        outln!("chain-control methods refused (--no-cheats)");
    }
    // The default chain is generated in the background, ready for the first request.
    let prepared = devnet.clone();
    tokio::task::spawn_blocking(move || prepared.prepare(Chain::Eth));
    // On a database replicas share, the chains follow what the others keep.
    let follower = tokio::spawn(devnet.clone().follow_replicas());
    let producer = args.block_time.map(|every| tokio::spawn(devnet.clone().produce_blocks(every)));
    let served = serve(listener, app, shutdown_signal()).await;
    follower.abort();
    if let Some(producer) = producer {
        producer.abort();
    }
    if let Some(path) = &args.state {
        let chains = crate::state_file::save(path, &devnet, store.as_ref()).await?;
        outln!("state {}: {chains} chains written", path.display());
    }
    served.map_err(|e| CliError::Server(format!("serving: {e}")))
}

/// What every server prints at start: where it listens, its generated
/// key and secret, where its state is kept.
fn announce(args: &ServeArgs, address: SocketAddr, generated: Option<&str>, store: &dyn w3api_store::Store) {
    outln!("listening on http://{address}");
    outln!("stream deliveries at http://{address}/dashboard");
    if let Some(key) = generated {
        outln!("api key {key} (generated; choose one with --api-key or W3API_API_KEYS)");
    }
    outln!("state (chain changes, sign-in challenges, NFT indexing) kept in {}", store.describe());
    if args.secret.is_none() {
        outln!(
            "cursor secret generated: cursors are valid on this server until it stops (share one with --secret or W3API_SECRET)"
        );
    }
}

#[cfg(test)]
mod tests {
    use super::byte_size;

    #[test]
    fn sizes_read_with_their_units() {
        assert_eq!(byte_size("0"), Ok(0));
        assert_eq!(byte_size("1500"), Ok(1500));
        assert_eq!(byte_size("64MiB"), Ok(64 << 20));
        assert_eq!(byte_size("64 mib"), Ok(64 << 20));
        assert_eq!(byte_size("2GiB"), Ok(2 << 30));
        assert_eq!(byte_size("10kB"), Ok(10_000));
        assert_eq!(byte_size("3 GB"), Ok(3_000_000_000));
    }

    #[test]
    fn a_size_that_does_not_read_says_how_to_write_one() {
        for text in ["", "MiB", "64 megs", "1.5GiB", "-1", "64M"] {
            let error = byte_size(text).unwrap_err();
            assert!(error.contains("is not a size") && error.contains("MiB"), "{text:?}: {error}");
        }
        assert!(byte_size("99999999999GiB").unwrap_err().contains("more bytes"));
    }
}
