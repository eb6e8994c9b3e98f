//! Sign-in with a Solana account: issuing challenges and verifying signed ones.

pub(crate) mod message;
mod sweep;

use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use ed25519_dalek::{Signature, VerifyingKey};
use sha2::{Digest, Sha256};
use w3api_store::{Challenge, Store, StoreCell};
use w3api_types::{SolanaChallengeRequest, SolanaChallengeResponse, SolanaVerifiedChallenge, SolanaVerifyRequest};

use self::message::SignInMessage;
use self::sweep::Sweeps;
use crate::error::ApiError;
use crate::random::alphanumeric;

/// The spec's bounds of the request's fields.
use w3api_types::params::operations::solana_challenge_request as bounds;

/// Where challenges are kept: the store the server was given, or else one
/// in memory, opened when the first challenge is issued.
pub(crate) struct Challenges {
    store: Arc<StoreCell>,
    sweeps: Sweeps,
}

impl Challenges {
    pub(crate) fn new(store: Arc<StoreCell>) -> Challenges {
        Challenges { store, sweeps: Sweeps::new() }
    }

    async fn store(&self) -> Result<&Arc<dyn Store>, ApiError> {
        Ok(self.store.get().await?)
    }
}

/// Issues a challenge for `request` at `now`.
pub(crate) async fn request(
    challenges: &Challenges,
    request: SolanaChallengeRequest,
    now: DateTime<Utc>,
) -> Result<SolanaChallengeResponse, ApiError> {
    let public_key = validate_request(&request, now)?;
    let timeout = Duration::seconds(i64::from(request.timeout));
    let expires_at = request.expiration_time.map_or(now + timeout, |at| at.min(now + timeout));
    let message = SignInMessage {
        domain: request.domain,
        address: request.address,
        statement: request.statement,
        uri: request.uri,
        version: "1".into(),
        network: request.network,
        nonce: alphanumeric(17),
        // Whole milliseconds: the message writes them, and verifying compares the text.
        issued_at: truncate_to_millis(now),
        expiration_time: Some(truncate_to_millis(expires_at)),
        not_before: request.not_before.map(truncate_to_millis),
        resources: request.resources.unwrap_or_default(),
    };
    let challenge = Challenge {
        id: alphanumeric(16),
        message: message.render(),
        profile_id: profile_id(&public_key),
        public_key,
        expires_at: truncate_to_millis(expires_at),
        verified_at: None,
        nonce: message.nonce,
    };
    let store = challenges.store().await?;
    store.insert_challenge(&challenge).await?;
    challenges.sweeps.maybe_sweep(store, now);
    Ok(SolanaChallengeResponse { id: challenge.id, message: challenge.message, profile_id: challenge.profile_id })
}

/// Verifies a signed challenge at `now`; on success the challenge is used
/// up, here and on every server sharing the store.
pub(crate) async fn verify(
    challenges: &Challenges,
    request: SolanaVerifyRequest,
    now: DateTime<Utc>,
) -> Result<SolanaVerifiedChallenge, ApiError> {
    let parsed =
        SignInMessage::parse(&request.message).map_err(|e| bad("message", format!("not a sign-in message ({e})")))?;
    let signature = decode_signature(&request.signature)?;
    let store = challenges.store().await?;
    let challenge = store.challenge(&parsed.nonce).await?.ok_or_else(|| {
        bad("message", "no challenge was issued with this nonce (or it expired and was removed)".into())
    })?;
    check(&challenge, &parsed, &request, &signature, now)?;
    // One statement decides, so that of concurrent verifies on any replica
    // exactly one wins; the others read as replays.
    if !store.mark_verified(&challenge.nonce, now).await? {
        return Err(replay());
    }
    Ok(verified(&challenge, parsed))
}

/// Everything but the once-only rule: the text is the one issued, it is in
/// its validity window, and the signature is the account's.
fn check(
    challenge: &Challenge,
    parsed: &SignInMessage,
    request: &SolanaVerifyRequest,
    signature: &Signature,
    now: DateTime<Utc>,
) -> Result<(), ApiError> {
    if challenge.message != request.message {
        return Err(bad("message", "differs from the issued challenge (tampered)".into()));
    }
    if challenge.verified_at.is_some() {
        return Err(replay());
    }
    if now >= challenge.expires_at {
        return Err(bad("message", format!("the challenge expired at {}", message::timestamp(&challenge.expires_at))));
    }
    if let Some(not_before) = parsed.not_before.filter(|nb| now < *nb) {
        return Err(bad("message", format!("the challenge is not valid before {}", message::timestamp(&not_before))));
    }
    let key = VerifyingKey::from_bytes(&challenge.public_key)
        .map_err(|_| bad("message", "the address is not an Ed25519 public key (no curve point)".into()))?;
    if key.is_weak() {
        return Err(bad("message", "the address is a small-order Ed25519 key, which proves nothing".into()));
    }
    key.verify_strict(request.message.as_bytes(), signature).map_err(|_| {
        bad("signature", "does not verify for the address of the message (wrong key or altered message)".into())
    })
}

fn bad(what: &str, why: String) -> ApiError {
    ApiError::bad_request(vec![format!("{what}: {why}")])
}

fn replay() -> ApiError {
    bad("message", "this challenge was already verified (replay)".into())
}

/// The answer of a verified challenge; `message` is its text, parsed (the
/// text equals the issued one, so its fields are the issued ones).
fn verified(challenge: &Challenge, message: SignInMessage) -> SolanaVerifiedChallenge {
    SolanaVerifiedChallenge {
        id: challenge.id.clone(),
        domain: message.domain,
        network: Some(message.network),
        address: message.address,
        statement: message.statement,
        uri: message.uri,
        expiration_time: message.expiration_time,
        not_before: message.not_before,
        resources: (!message.resources.is_empty()).then_some(message.resources),
        version: message.version,
        nonce: message.nonce,
        profile_id: challenge.profile_id.clone(),
    }
}

fn decode_signature(text: &str) -> Result<Signature, ApiError> {
    let bad = |why: &str| ApiError::bad_request(vec![format!("signature: {why}")]);
    let bytes = bs58::decode(text).into_vec().map_err(|_| bad("not Base58"))?;
    let bytes: [u8; 64] =
        bytes.try_into().map_err(|b: Vec<u8>| bad(&format!("{} bytes; an Ed25519 signature has 64", b.len())))?;
    Ok(Signature::from_bytes(&bytes))
}

/// Checks every field of a challenge request; returns the account's public key.
fn validate_request(request: &SolanaChallengeRequest, now: DateTime<Utc>) -> Result<[u8; 32], ApiError> {
    let mut problems = Vec::new();
    if !bounds::DOMAIN.admits_length(&request.domain) || !is_host(&request.domain) {
        problems
            .push(format!("domain: {:?} is not a host name (with an optional port, without a scheme)", request.domain));
    }
    if !is_absolute_url(&request.uri) {
        problems.push(format!("uri: {:?} is not an absolute URL", request.uri));
    }
    let public_key = solana_public_key(&request.address);
    if public_key.is_none() {
        problems.push(format!("address: {:?} is not the Base58 form of 32 bytes", request.address));
    }
    if !bounds::TIMEOUT.admits(u64::from(request.timeout)) {
        let (timeout, name) = (request.timeout, bounds::TIMEOUT.name);
        let (min, max) = (bounds::TIMEOUT.minimum.unwrap_or(0), bounds::TIMEOUT.maximum.unwrap_or(u64::MAX));
        problems.push(format!("{name}: {timeout} is not between {min} and {max} seconds"));
    }
    if let Some(statement) = request.statement.as_deref().filter(|s| !s.bytes().all(|b| (0x20..=0x7e).contains(&b))) {
        problems.push(format!("statement: {statement:?} is not printable ASCII on one line"));
    }
    if let Some(at) = request.expiration_time.filter(|at| *at <= now) {
        problems.push(format!("expirationTime: {} is not in the future", message::timestamp(&at)));
    }
    if let (Some(not_before), Some(expiration)) = (request.not_before, request.expiration_time)
        && not_before >= expiration
    {
        problems.push("notBefore: is not before expirationTime".into());
    }
    for resource in request.resources.iter().flatten().filter(|r| !is_absolute_url(r)) {
        problems.push(format!("resources: {resource:?} is not an absolute URL"));
    }
    match public_key {
        Some(key) if problems.is_empty() => Ok(key),
        _ => Err(ApiError::bad_request(problems)),
    }
}

/// The 32 bytes of a Solana address. Whether they are a usable Ed25519 key
/// is checked when a signature is verified: issuing a challenge only needs
/// an address (program addresses, off the curve, are addresses too).
fn solana_public_key(address: &str) -> Option<[u8; 32]> {
    bs58::decode(address).into_vec().ok()?.try_into().ok()
}

/// A host name or IPv4 address, with an optional port.
fn is_host(domain: &str) -> bool {
    let (host, port) = match domain.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (domain, None),
    };
    let port_ok = port.is_none_or(|p| {
        !p.starts_with('0')
            && p.len() <= 5
            && p.bytes().all(|b| b.is_ascii_digit())
            && p.parse::<u16>().is_ok_and(|p| p > 0)
    });
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    port_ok && !host.is_empty() && host.len() <= 253 && host.split('.').all(label_ok)
}

/// An absolute URL: an RFC 3986 URI (the `uri` format of JSON Schema, so
/// anything else must be percent-encoded and the text signed is the text
/// sent) with an authority (`scheme://…`).
fn is_absolute_url(text: &str) -> bool {
    let shaped = text.split_once("://").is_some_and(|(_, rest)| !rest.is_empty());
    shaped && fluent_uri::Uri::parse(text).is_ok_and(|uri| uri.authority().is_some())
}

/// The stable identifier of an account: `0x` and the SHA-256 of its key, in hex.
fn profile_id(public_key: &[u8; 32]) -> String {
    let digest = Sha256::new().chain_update(b"w3api solana profile").chain_update(public_key).finalize();
    format!("0x{}", digest.iter().map(|b| format!("{b:02x}")).collect::<String>())
}

fn truncate_to_millis(at: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(at.timestamp_millis()).expect("a millisecond timestamp in range")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_and_urls() {
        for good in ["defi.finance", "localhost", "a-b.example:8080", "127.0.0.1:3000"] {
            assert!(is_host(good), "{good}");
        }
        for bad in [
            "https://defi.finance",
            "",
            "-a.com",
            "a..b",
            "a.com:",
            "a.com:99999",
            "a.com:080",
            "a b.com",
            "a.com/path",
        ] {
            assert!(!is_host(bad), "{bad}");
        }
        assert!(is_absolute_url("https://defi.finance/"));
        assert!(is_absolute_url("ipfs://bafy"));
        assert!(is_absolute_url("https://d.example/a%20b?q=1#top"));
        for bad in [
            "finance",
            "defi.finance",
            "https://",
            "https://a b",
            "1http://x",
            "w://\u{1f3fb}",
            "https://a/%zz",
            "https://a/%",
        ] {
            assert!(!is_absolute_url(bad), "{bad}");
        }
    }

    #[test]
    fn addresses_are_32_bytes_in_base58() {
        assert!(solana_public_key("26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3Uo").is_some());
        assert_eq!(solana_public_key("11111111111111111111111111111111"), Some([0; 32]), "the system program");
        assert_eq!(solana_public_key("0OIl"), None, "not Base58");
        assert_eq!(solana_public_key("2222222222222222222222222222222"), None, "23 bytes");
        assert_eq!(solana_public_key("zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz"), None, "33 bytes");
    }
}
