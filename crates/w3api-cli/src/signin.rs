//! `w3api signin request|verify`: sign-in with a Solana account.

use std::path::PathBuf;

use chrono::{DateTime, Utc};
use clap::{Args, Subcommand, ValueEnum};
use w3api_rest::Client;
use w3api_types::{
    SolanaChallengeRequest, SolanaChallengeResponse, SolanaNetwork, SolanaVerifiedChallenge, SolanaVerifyRequest,
};

use crate::error::CliError;
use crate::output;

/// `w3api signin ...`
#[derive(Subcommand, Debug)]
pub(crate) enum SigninCommand {
    /// Ask for a challenge: the message the account must sign.
    Request(RequestArgs),
    /// Verify a signed challenge.
    Verify(VerifyArgs),
}

#[derive(Args, Debug)]
pub(crate) struct RequestArgs {
    /// Host (and optional port) of the site asking for the sign-in, without a scheme.
    #[arg(long)]
    domain: String,
    /// Absolute URL of the resource the sign-in is for.
    #[arg(long)]
    uri: String,
    /// Base58 public key of the account.
    #[arg(long)]
    address: String,
    /// Cluster of the account.
    #[arg(long, value_enum)]
    network: Network,
    /// Seconds the challenge stays valid, 15 to 120. Production requires a
    /// value, so one is always sent.
    #[arg(long, default_value_t = 60)]
    timeout: u32,
    /// Statement shown to the user: printable ASCII on one line.
    #[arg(long)]
    statement: Option<String>,
    /// When the signed message stops being valid (RFC 3339).
    #[arg(long)]
    expiration_time: Option<DateTime<Utc>>,
    /// When the signed message becomes valid (RFC 3339).
    #[arg(long)]
    not_before: Option<DateTime<Utc>>,
    /// A URL the user grants access to (repeat for several).
    #[arg(long = "resource", value_name = "URL")]
    resources: Vec<String>,
    /// Also write the message, byte for byte, to this file (to sign it).
    #[arg(long, value_name = "FILE")]
    message_out: Option<PathBuf>,
}

#[derive(Args, Debug)]
pub(crate) struct VerifyArgs {
    /// File holding the message exactly as issued.
    #[arg(long, value_name = "FILE")]
    message_file: PathBuf,
    /// Base58 Ed25519 signature of the message.
    #[arg(long)]
    signature: String,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum Network {
    Mainnet,
    Testnet,
    Devnet,
}

impl From<Network> for SolanaNetwork {
    fn from(network: Network) -> Self {
        match network {
            Network::Mainnet => SolanaNetwork::Mainnet,
            Network::Testnet => SolanaNetwork::Testnet,
            Network::Devnet => SolanaNetwork::Devnet,
        }
    }
}

pub(crate) async fn run(client: &Client, command: SigninCommand, json: bool) -> Result<(), CliError> {
    match command {
        SigninCommand::Request(args) => {
            let message_out = args.message_out.clone();
            let challenge = request(client, args.into_body()).await?;
            if let Some(path) = message_out {
                std::fs::write(&path, &challenge.message).map_err(CliError::file(path))?;
            }
            output::emit(json, &challenge, render_challenge)
        }
        SigninCommand::Verify(args) => {
            let message = std::fs::read_to_string(&args.message_file).map_err(CliError::file(&args.message_file))?;
            let verified = verify(client, SolanaVerifyRequest { message, signature: args.signature }).await?;
            output::emit(json, &verified, render_verified)
        }
    }
}

impl RequestArgs {
    fn into_body(self) -> SolanaChallengeRequest {
        SolanaChallengeRequest {
            domain: self.domain,
            uri: self.uri,
            address: self.address,
            network: self.network.into(),
            timeout: self.timeout,
            statement: self.statement,
            expiration_time: self.expiration_time,
            not_before: self.not_before,
            resources: (!self.resources.is_empty()).then_some(self.resources),
        }
    }
}

pub(crate) async fn request(
    client: &Client,
    body: SolanaChallengeRequest,
) -> Result<SolanaChallengeResponse, CliError> {
    Ok(client.auth().request_solana_challenge().body(body).send().await?.into_inner())
}

pub(crate) async fn verify(client: &Client, body: SolanaVerifyRequest) -> Result<SolanaVerifiedChallenge, CliError> {
    Ok(client.auth().verify_solana_challenge().body(body).send().await?.into_inner())
}

pub(crate) fn render_challenge(challenge: &SolanaChallengeResponse) -> String {
    let fields = output::fields(&[("id", challenge.id.clone()), ("profile", challenge.profile_id.clone())]);
    let message: String = challenge.message.lines().map(|line| format!("  | {}\n", output::printable(line))).collect();
    format!("{fields}message to sign:\n{message}")
}

pub(crate) fn render_verified(verified: &SolanaVerifiedChallenge) -> String {
    output::fields(&[
        ("verified", verified.id.clone()),
        ("address", verified.address.clone()),
        ("profile", verified.profile_id.clone()),
        ("domain", verified.domain.clone()),
        ("uri", verified.uri.clone()),
        ("network", output::or_dash(verified.network.as_ref())),
        ("nonce", verified.nonce.clone()),
        ("expires", output::or_dash(verified.expiration_time.map(|t| t.to_rfc3339()))),
    ])
}
