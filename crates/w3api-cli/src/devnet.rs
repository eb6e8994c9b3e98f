//! `w3api devnet`: what the devnet holds, for trying the interface by hand.

use std::path::PathBuf;
use std::time::Instant;

use clap::{Args, Subcommand};
use ed25519_dalek::Signer;
use w3api_devnet::Devnet;
use w3api_types::{Chain, SolanaChallengeResponse, SolanaVerifyRequest};

use crate::error::CliError;
use crate::output::outln;
use crate::serve::ScaleArg;

/// `w3api devnet ...`
#[derive(Args)]
pub(crate) struct DevnetArgs {
    /// Seed of the devnet (as given to `w3api serve`).
    #[arg(long, global = true, default_value_t = 0)]
    seed: u64,
    /// Size of the devnet (as given to `w3api serve`); it decides which accounts are wallets.
    #[arg(long, global = true, value_enum, default_value_t = ScaleArg::Default)]
    scale: ScaleArg,
    #[command(subcommand)]
    command: DevnetCommand,
}

#[derive(Subcommand)]
enum DevnetCommand {
    /// Print wallet addresses that have tokens, NFTs and history on every chain
    /// (the first holds every ordinary token).
    Wallets {
        /// How many.
        #[arg(long, default_value_t = 5)]
        count: usize,
    },
    /// Print the numbers (hex) and transaction counts of the blocks with the most transactions.
    Blocks {
        /// Chain: a data-API name, hex chain id or RPC slug.
        #[arg(long, default_value = "eth", value_parser = devnet_chain)]
        chain: Chain,
        /// Only blocks with at least this many transactions.
        #[arg(long, default_value_t = 0)]
        min_transactions: u32,
        /// How many.
        #[arg(long, default_value_t = 5)]
        count: usize,
    },
    /// Generate one chain and print its size, the time it took and the
    /// process's peak resident memory: the devnet README's figures.
    Stats {
        /// Chain: a data-API name, hex chain id or RPC slug.
        #[arg(long, default_value = "eth", value_parser = devnet_chain)]
        chain: Chain,
    },
    /// Print the Base58 address of a devnet Solana account.
    SolanaKey {
        /// Which account.
        #[arg(long, default_value_t = 0)]
        index: u32,
    },
    /// Sign with a devnet Solana account. With --message-file, prints the
    /// Base58 signature of the file's exact bytes; with --challenge, signs the
    /// message of a saved `POST /challenge/request/solana` response and prints
    /// the body of `POST /challenge/verify/solana`.
    SolanaSign {
        /// The message to sign, byte for byte.
        #[arg(long, required_unless_present = "challenge", conflicts_with = "challenge")]
        message_file: Option<PathBuf>,
        /// A challenge response (JSON) whose message to sign.
        #[arg(long)]
        challenge: Option<PathBuf>,
        /// Which account.
        #[arg(long, default_value_t = 0)]
        index: u32,
    },
}

pub(crate) fn run(args: DevnetArgs) -> Result<(), CliError> {
    let devnet = Devnet::new(args.seed, args.scale.scale());
    match args.command {
        DevnetCommand::Wallets { count } => {
            for wallet in devnet.sample_wallets(count) {
                outln!("{wallet:#x}");
            }
        }
        DevnetCommand::Blocks { chain, min_transactions, count } => {
            let data = devnet.chain(chain);
            let mut busiest: Vec<_> = data.blocks.iter().filter(|b| b.tx_count >= min_transactions).collect();
            // Most transactions first; the lowest number among equals, so the answer is stable.
            busiest.sort_by_key(|b| (std::cmp::Reverse(b.tx_count), b.header.number));
            for block in busiest.into_iter().take(count) {
                outln!("{:#x} {}", block.header.number, block.tx_count);
            }
        }
        DevnetCommand::Stats { chain } => print_stats(&devnet, chain),
        DevnetCommand::SolanaKey { index } => outln!("{}", devnet.solana_address(index)),
        DevnetCommand::SolanaSign { message_file, challenge, index } => {
            let key = devnet.solana_key(index);
            let sign = |message: &[u8]| bs58::encode(key.sign(message).to_bytes()).into_string();
            if let Some(path) = message_file {
                outln!("{}", sign(&read(&path)?));
            } else if let Some(path) = challenge {
                let challenge: SolanaChallengeResponse = serde_json::from_slice(&read(&path)?)
                    .map_err(|e| CliError::Input(format!("{} is not a challenge response: {e}", path.display())))?;
                let signature = sign(challenge.message.as_bytes());
                let body = SolanaVerifyRequest { message: challenge.message, signature };
                outln!("{}", serde_json::to_string(&body).map_err(|e| CliError::Input(e.to_string()))?);
            }
        }
    }
    Ok(())
}

/// A chain the devnet builds. Any other name parses as a chain known only
/// by name, which the devnet refuses.
fn devnet_chain(text: &str) -> Result<Chain, String> {
    let chain: Chain = text.parse().map_err(|e| format!("{e}"))?;
    if Devnet::builds(chain) {
        Ok(chain)
    } else {
        Err(format!("the devnet has no chain {text:?}: give a data-API name, hex chain id or RPC slug"))
    }
}

fn print_stats(devnet: &Devnet, chain: Chain) {
    let started = Instant::now();
    let accounts = devnet.accounts().len();
    let keys = started.elapsed();
    let data = devnet.chain(chain);
    let total = started.elapsed();
    outln!(
        "{chain}: {} blocks, {} transactions, {} ledger movements, {accounts} accounts",
        data.blocks.len(),
        data.transactions.len(),
        data.ledger.movements().len()
    );
    outln!("keys derived in {keys:.2?}; chain generated in {:.2?}; total {total:.2?}", total - keys);
    match peak_rss_kib() {
        Some(kib) => outln!("peak resident memory: {} MiB", kib / 1024),
        None => outln!("peak resident memory: unknown (no VmHWM in /proc/self/status)"),
    }
}

/// Peak resident set size of this process, where Linux reports it.
fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let value = status.lines().find_map(|line| line.strip_prefix("VmHWM:"))?;
    value.trim().trim_end_matches("kB").trim().parse().ok()
}

fn read(path: &std::path::Path) -> Result<Vec<u8>, CliError> {
    std::fs::read(path).map_err(CliError::file(path))
}
