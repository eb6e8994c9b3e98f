//! Sign-in with a Solana account: the challenge request, the message the end
//! user signs, and the verified challenge.

use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::open_enum::open_enum;
use crate::wire;

open_enum! {
    /// The Solana cluster a challenge is for. A request must name a known
    /// one; in answers, a cluster this version does not know is kept.
    pub enum SolanaNetwork {
        /// `mainnet`
        Mainnet = "mainnet",
        /// `testnet`
        Testnet = "testnet",
        /// `devnet`
        Devnet = "devnet",
    }
}

/// Decodes the network of a request: a value this version does not know is
/// refused, naming the accepted ones, since no challenge can be issued for it.
fn known_network<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<SolanaNetwork, D::Error> {
    let network = SolanaNetwork::deserialize(deserializer)?;
    if network.is_known() {
        return Ok(network);
    }
    let accepted: Vec<String> = SolanaNetwork::KNOWN.iter().map(|n| format!("`{n}`")).collect();
    Err(serde::de::Error::custom(format_args!("unknown variant `{network}`, expected one of {}", accepted.join(", "))))
}

/// Decodes a whole number of seconds written as any JSON number (`60`,
/// `60.0`): production types `timeout` a number, so clients typed after it
/// may send a float; a fraction or a string is refused.
fn whole_seconds<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u32, D::Error> {
    use wire::Numeric;
    let number = serde_json::Number::deserialize(deserializer)?;
    let whole = number.as_u64().and_then(u32::from_u64).or_else(|| number.as_f64().and_then(u32::from_f64));
    whole.ok_or_else(|| {
        serde::de::Error::invalid_value(serde::de::Unexpected::Other(&number.to_string()), &"a whole number of seconds")
    })
}

/// Body of `POST /challenge/request/solana`: what the message to sign will say.
/// It is what a client sends, so it decodes strictly: optional fields may be
/// left out, not sent as `null`, and `timeout` is a whole JSON number.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SolanaChallengeRequest {
    /// Host (and optional port) of the site asking for the sign-in, without a scheme.
    pub domain: String,
    /// Absolute URL of the resource the sign-in is for.
    pub uri: String,
    /// Base58 public key of the end user's account.
    pub address: String,
    /// Cluster of the account.
    #[serde(deserialize_with = "known_network")]
    pub network: SolanaNetwork,
    /// Seconds the challenge stays valid, 15 to 120 (production requires it).
    #[serde(deserialize_with = "whole_seconds")]
    pub timeout: u32,
    /// Human-readable ASCII statement shown to the end user, on one line.
    #[serde(default, deserialize_with = "wire::present", skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// When the signed message stops being valid.
    #[serde(default, deserialize_with = "wire::present", skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<DateTime<Utc>>,
    /// When the signed message becomes valid.
    #[serde(default, deserialize_with = "wire::present", skip_serializing_if = "Option::is_none")]
    pub not_before: Option<DateTime<Utc>>,
    /// URLs the end user grants access to by signing.
    #[serde(default, deserialize_with = "wire::present", skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
}

/// 201 response of `POST /challenge/request/solana`: the message to sign.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SolanaChallengeResponse {
    /// Identifier of the challenge.
    pub id: String,
    /// The exact text the end user signs.
    pub message: String,
    /// Stable identifier of the account (0x-prefixed 32-byte hex).
    pub profile_id: String,
}

/// Body of `POST /challenge/verify/solana`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct SolanaVerifyRequest {
    /// The message exactly as issued by the challenge request.
    pub message: String,
    /// Base58 Ed25519 signature of the message's UTF-8 bytes.
    pub signature: String,
}

/// 201 response of `POST /challenge/verify/solana`: the challenge the
/// signature proved.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SolanaVerifiedChallenge {
    /// Identifier of the challenge.
    pub id: String,
    /// Domain that requested the sign-in.
    pub domain: String,
    /// Cluster of the account. Required by the spec; absent from some
    /// production samples, so decoding does not insist on it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub network: Option<SolanaNetwork>,
    /// Base58 public key that signed.
    pub address: String,
    /// Statement of the challenge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub statement: Option<String>,
    /// URI of the requester.
    pub uri: String,
    /// When the signed message stops being valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expiration_time: Option<DateTime<Utc>>,
    /// When the signed message became valid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<DateTime<Utc>>,
    /// Resource URIs of the challenge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<Vec<String>>,
    /// Version of the message format.
    pub version: String,
    /// Nonce of the challenge.
    pub nonce: String,
    /// Stable identifier of the account (0x-prefixed 32-byte hex).
    pub profile_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_requests_decode_strictly() {
        let base = serde_json::json!({"domain": "a.example", "uri": "https://a.example/", "address": "x", "network": "devnet", "timeout": 15});
        let parse = |extra: serde_json::Value| {
            let mut body = base.clone();
            body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
            serde_json::from_value::<SolanaChallengeRequest>(body)
        };
        assert_eq!(parse(serde_json::json!({})).unwrap().resources, None, "optional fields may be left out");
        assert_eq!(parse(serde_json::json!({"timeout": 60})).unwrap().timeout, 60);
        assert_eq!(parse(serde_json::json!({"timeout": 60.0})).unwrap().timeout, 60, "production types it a number");
        let without_timeout =
            serde_json::json!({"domain": "a.example", "uri": "u", "address": "x", "network": "devnet"});
        let missing = serde_json::from_value::<SolanaChallengeRequest>(without_timeout).unwrap_err();
        assert!(missing.to_string().contains("missing field `timeout`"), "{missing}");
        let unknown = parse(serde_json::json!({"network": "localnet"})).unwrap_err();
        assert!(unknown.to_string().contains("`localnet`") && unknown.to_string().contains("`devnet`"), "{unknown}");
        for refused in [
            serde_json::json!({"resources": null}),
            serde_json::json!({"statement": null}),
            serde_json::json!({"timeout": null}),
            serde_json::json!({"timeout": "60"}),
            serde_json::json!({"timeout": 60.5}),
            serde_json::json!({"timeout": -60}),
            serde_json::json!({"expirationTime": null}),
        ] {
            assert!(parse(refused.clone()).is_err(), "{refused}");
        }
    }
}
