//! The sign-in message: EIP-4361 in form, with `Network:` for Solana.
//!
//! ```text
//! {domain} wants you to sign in with your Solana account:
//! {address}
//!
//! {statement}
//!
//! URI: {uri}
//! Version: 1
//! Network: {network}
//! Nonce: {nonce}
//! Issued At: {ISO 8601}
//! Expiration Time: {ISO 8601}
//! Not Before: {ISO 8601}
//! Resources:
//! - {resource}
//! ```
//!
//! The statement (with the blank line after it), `Expiration Time`, `Not
//! Before` and `Resources` appear only when present.

use chrono::{DateTime, SecondsFormat, Utc};
use w3api_types::SolanaNetwork;

const HEADER_SUFFIX: &str = " wants you to sign in with your Solana account:";

/// The fields of a sign-in message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct SignInMessage {
    /// Host asking for the sign-in.
    pub domain: String,
    /// Base58 public key of the account.
    pub address: String,
    /// Statement shown to the end user.
    pub statement: Option<String>,
    /// Resource the sign-in is for.
    pub uri: String,
    /// Message format version.
    pub version: String,
    /// Solana cluster.
    pub network: SolanaNetwork,
    /// One-time random value.
    pub nonce: String,
    /// When the challenge was issued.
    pub issued_at: DateTime<Utc>,
    /// When the signed message stops being valid.
    pub expiration_time: Option<DateTime<Utc>>,
    /// When it becomes valid.
    pub not_before: Option<DateTime<Utc>>,
    /// Resources granted.
    pub resources: Vec<String>,
}

/// Timestamps are written with milliseconds and `Z`, as production writes them.
pub(crate) fn timestamp(at: &DateTime<Utc>) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

impl SignInMessage {
    /// The text the end user signs.
    pub(crate) fn render(&self) -> String {
        let mut text = format!("{}{HEADER_SUFFIX}\n{}\n\n", self.domain, self.address);
        if let Some(statement) = &self.statement {
            text.push_str(statement);
            text.push_str("\n\n");
        }
        text.push_str(&format!(
            "URI: {}\nVersion: {}\nNetwork: {}\nNonce: {}\nIssued At: {}",
            self.uri,
            self.version,
            self.network.as_str(),
            self.nonce,
            timestamp(&self.issued_at)
        ));
        if let Some(at) = &self.expiration_time {
            text.push_str(&format!("\nExpiration Time: {}", timestamp(at)));
        }
        if let Some(at) = &self.not_before {
            text.push_str(&format!("\nNot Before: {}", timestamp(at)));
        }
        if !self.resources.is_empty() {
            text.push_str("\nResources:");
            for resource in &self.resources {
                text.push_str(&format!("\n- {resource}"));
            }
        }
        text
    }

    /// Reads a message back; the error says which line is wrong.
    pub(crate) fn parse(text: &str) -> Result<SignInMessage, String> {
        let mut lines = text.split('\n').peekable();
        let mut next = |what: &str| lines.next().ok_or_else(|| format!("ends before the {what} line"));
        let domain = next("header")?
            .strip_suffix(HEADER_SUFFIX)
            .filter(|d| !d.is_empty())
            .ok_or("the first line is not \"<domain> wants you to sign in with your Solana account:\"")?
            .to_string();
        let address = next("address")?.to_string();
        expect_blank(next("blank")?, "after the address")?;
        let mut line = next("URI")?;
        let mut statement = None;
        if !line.starts_with("URI: ") {
            statement = Some(line.to_string());
            expect_blank(next("blank")?, "after the statement")?;
            line = next("URI")?;
        }
        let uri = field(line, "URI")?.to_string();
        let version = field(next("Version")?, "Version")?.to_string();
        let network = network(field(next("Network")?, "Network")?)?;
        let nonce = field(next("Nonce")?, "Nonce")?.to_string();
        let issued_at = date(field(next("Issued At")?, "Issued At")?, "Issued At")?;
        let mut message = SignInMessage {
            domain,
            address,
            statement,
            uri,
            version,
            network,
            nonce,
            issued_at,
            expiration_time: None,
            not_before: None,
            resources: Vec::new(),
        };
        let mut rest: Vec<&str> = lines.collect();
        rest.reverse();
        if let Some(value) = rest.last().and_then(|l| l.strip_prefix("Expiration Time: ")) {
            message.expiration_time = Some(date(value, "Expiration Time")?);
            rest.pop();
        }
        if let Some(value) = rest.last().and_then(|l| l.strip_prefix("Not Before: ")) {
            message.not_before = Some(date(value, "Not Before")?);
            rest.pop();
        }
        if rest.last() == Some(&"Resources:") {
            rest.pop();
            while let Some(resource) = rest.last().and_then(|l| l.strip_prefix("- ")) {
                message.resources.push(resource.to_string());
                rest.pop();
            }
        }
        match rest.last() {
            None => Ok(message),
            Some(line) => Err(format!("unexpected line {line:?}")),
        }
    }
}

fn expect_blank(line: &str, position: &str) -> Result<(), String> {
    if line.is_empty() { Ok(()) } else { Err(format!("expected a blank line {position}, found {line:?}")) }
}

fn field<'a>(line: &'a str, name: &str) -> Result<&'a str, String> {
    line.strip_prefix(name)
        .and_then(|rest| rest.strip_prefix(": "))
        .ok_or_else(|| format!("expected the \"{name}: \" line, found {line:?}"))
}

/// A network this version issues challenges for.
fn network(value: &str) -> Result<SolanaNetwork, String> {
    let network: SolanaNetwork = value.parse().unwrap_or_else(|never| match never {});
    if network.is_known() {
        return Ok(network);
    }
    let known: Vec<&str> = SolanaNetwork::KNOWN.iter().map(SolanaNetwork::as_str).collect();
    Err(format!("network {value:?} is not one of {}", known.join(", ")))
}

fn date(value: &str, name: &str) -> Result<DateTime<Utc>, String> {
    DateTime::parse_from_rfc3339(value)
        .map(|d| d.with_timezone(&Utc))
        .map_err(|_| format!("{name} {value:?} is not an ISO 8601 timestamp"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SignInMessage {
        SignInMessage {
            domain: "defi.finance".into(),
            address: "26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3Uo".into(),
            statement: Some("I am a third party API".into()),
            uri: "http://defi.finance".into(),
            version: "1".into(),
            network: SolanaNetwork::Mainnet,
            nonce: "PYxxb9msdjVXsMQ9x".into(),
            issued_at: DateTime::parse_from_rfc3339("2022-08-25T11:02:34.097Z").unwrap().into(),
            expiration_time: Some(DateTime::parse_from_rfc3339("2022-08-25T11:12:38.243Z").unwrap().into()),
            not_before: None,
            resources: vec!["https://docs.moralis.io/".into()],
        }
    }

    #[test]
    fn renders_the_production_layout() {
        let expected = "defi.finance wants you to sign in with your Solana account:\n26qv4GCcx98RihuK3c4T6ozB3J7L6VwCuFVc7Ta2A3Uo\n\nI am a third party API\n\nURI: http://defi.finance\nVersion: 1\nNetwork: mainnet\nNonce: PYxxb9msdjVXsMQ9x\nIssued At: 2022-08-25T11:02:34.097Z\nExpiration Time: 2022-08-25T11:12:38.243Z\nResources:\n- https://docs.moralis.io/";
        assert_eq!(sample().render(), expected);
        assert_eq!(SignInMessage::parse(expected).unwrap(), sample());
    }

    #[test]
    fn optional_parts_round_trip() {
        let bare = SignInMessage { statement: None, expiration_time: None, resources: Vec::new(), ..sample() };
        assert_eq!(SignInMessage::parse(&bare.render()).unwrap(), bare);
        let full = SignInMessage {
            not_before: Some(sample().issued_at),
            resources: vec!["a://b".into(), "c://d".into()],
            ..sample()
        };
        assert_eq!(SignInMessage::parse(&full.render()).unwrap(), full);
    }

    #[test]
    fn malformed_messages_say_where() {
        assert!(SignInMessage::parse("hello").unwrap_err().contains("first line"));
        let text = sample().render().replace("Network: mainnet", "Network: moon");
        assert!(SignInMessage::parse(&text).unwrap_err().contains("\"moon\""));
        let text = format!("{}\ntrailing", sample().render());
        assert!(SignInMessage::parse(&text).unwrap_err().contains("unexpected line \"trailing\""));
    }
}
