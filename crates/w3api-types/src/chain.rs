//! The chains of the interface, in every form the API accepts them, and the
//! chains it does not list yet.
//!
//! The table itself ([`Chain`]'s variants, ids, names and slugs) is generated
//! from `spec/openapi.yaml` (`components.schemas.Chain.x-chains`) into
//! `chain/table.rs` by `cargo xtask generate`; this module gives it its API.

// Generated: formatted by the generator, not by rustfmt.
#[rustfmt::skip]
mod table;

use std::fmt;
use std::str::FromStr;

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

pub use table::Chain;
use table::TABLE;

/// One row of the chain table: how the chain is spelled in each part of the API.
struct ChainInfo {
    chain: Chain,
    id: u64,
    /// Value of the wallet-data `chain` query parameter; `None` where the data
    /// API does not serve the chain.
    data_api_name: Option<&'static str>,
    /// Path segment of the RPC gateway; `None` where the gateway does not serve it.
    rpc_slug: Option<&'static str>,
    /// Other spellings accepted on input, never written (`interface.md`
    /// lists Optimism Sepolia as `0xaa37d`, one digit short of its id).
    aliases: &'static [&'static str],
}

/// A chain the table does not list: a hex chain id (`"0x1234"`) or a name
/// (`"newchain"`), kept as a caller or a newer server wrote it.
///
/// Production adds chains over time, and a client must be able to name one
/// this crate does not know yet. [`Chain`] is `Copy` and used as a map key
/// across the workspace, so the text is held inline, in a fixed buffer of
/// [`OtherChain::CAPACITY`] bytes, rather than in a `String`: the enum stays
/// `Copy + Eq + Hash + Ord` at the cost of a length limit that every name and
/// hex id in use is far below. A hex id is stored in its canonical form
/// (lowercase, no leading zeros), so `"0X01234"` and `"0x1234"` are one
/// chain; a name and an id are different values even if a server would take
/// them for the same chain, since nothing here can tell.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OtherChain {
    // Field order makes the derived `Ord` the order of the text (zero padding
    // sorts before any character).
    bytes: [u8; OtherChain::CAPACITY],
    len: u8,
}

impl OtherChain {
    /// Longest name an other chain can have, in bytes.
    pub const CAPACITY: usize = 31;

    fn new(text: &str) -> OtherChain {
        debug_assert!(text.len() <= Self::CAPACITY && text.is_ascii());
        let mut bytes = [0; Self::CAPACITY];
        bytes[..text.len()].copy_from_slice(text.as_bytes());
        OtherChain { bytes, len: text.len() as u8 }
    }

    /// The chain as written: a canonical hex id or a name.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("built from ASCII text")
    }

    /// The chain id, when the chain was named by id.
    pub fn id(&self) -> Option<u64> {
        self.as_str().strip_prefix("0x").and_then(|digits| u64::from_str_radix(digits, 16).ok())
    }
}

impl fmt::Debug for OtherChain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("OtherChain").field(&self.as_str()).finish()
    }
}

impl Chain {
    /// The native currency's name and symbol ("Ether", "ETH").
    pub fn native_currency(self) -> (&'static str, &'static str) {
        match self {
            Chain::Polygon | Chain::PolygonAmoy => ("POL", "POL"),
            Chain::Bsc | Chain::BscTestnet | Chain::OpBnb => ("BNB", "BNB"),
            Chain::Avalanche => ("Avalanche", "AVAX"),
            Chain::Fantom => ("Fantom", "FTM"),
            Chain::Palm => ("Palm", "PALM"),
            Chain::Cronos => ("Cronos", "CRO"),
            Chain::Gnosis | Chain::GnosisTestnet => ("xDAI", "XDAI"),
            Chain::Chiliz | Chain::ChilizTestnet => ("Chiliz", "CHZ"),
            Chain::Moonbeam => ("Glimmer", "GLMR"),
            Chain::Moonriver => ("Moonriver", "MOVR"),
            Chain::Moonbase => ("DEV", "DEV"),
            Chain::Mantle | Chain::MantleSepolia => ("Mantle", "MNT"),
            Chain::Zetachain | Chain::ZetachainTestnet => ("Zeta", "ZETA"),
            Chain::Flow | Chain::FlowTestnet => ("Flow", "FLOW"),
            Chain::Ronin | Chain::RoninTestnet => ("Ronin", "RON"),
            Chain::Pulse => ("Pulse", "PLS"),
            Chain::Sei | Chain::SeiTestnet => ("Sei", "SEI"),
            Chain::Monad => ("Monad", "MON"),
            _ => ("Ether", "ETH"),
        }
    }

    /// Every chain of the table, in table order.
    pub fn all() -> impl ExactSizeIterator<Item = Chain> + Clone {
        TABLE.iter().map(|info| info.chain)
    }

    /// The chains the wallet-data API serves.
    pub fn data_api() -> impl Iterator<Item = Chain> + Clone {
        Self::all().filter(|c| c.data_api_name().is_some())
    }

    /// The chains the RPC gateway serves.
    pub fn rpc() -> impl Iterator<Item = Chain> + Clone {
        Self::all().filter(|c| c.rpc_slug().is_some())
    }

    fn info(self) -> Option<&'static ChainInfo> {
        self.table_index().map(|index| &TABLE[index])
    }

    /// Whether the chain is in the table (not [`Chain::Other`]).
    pub fn is_known(self) -> bool {
        self.info().is_some()
    }

    /// The EIP-155 chain id; `None` for an other chain named by name.
    pub fn id(self) -> Option<u64> {
        match self {
            Chain::Other(other) => other.id(),
            known => known.info().map(|info| info.id),
        }
    }

    /// The chain id as the API writes it, `0x` and lowercase hex; `None` for
    /// an other chain named by name.
    pub fn hex_id(self) -> Option<String> {
        self.id().map(|id| format!("{id:#x}"))
    }

    /// The value of the wallet-data `chain` parameter, if the data API is
    /// known to serve this chain.
    pub fn data_api_name(self) -> Option<&'static str> {
        self.info().and_then(|info| info.data_api_name)
    }

    /// The RPC gateway path segment, if the gateway is known to serve this chain.
    pub fn rpc_slug(self) -> Option<&'static str> {
        self.info().and_then(|info| info.rpc_slug)
    }

    /// Other spellings of the chain accepted on input and never written,
    /// such as `0xaa37d`, the interface's spelling of Optimism Sepolia's id.
    pub fn aliases(self) -> &'static [&'static str] {
        self.info().map_or(&[], |info| info.aliases)
    }

    /// Every spelling accepted for this chain by [`FromStr`] (an other
    /// chain's only spelling is its own, in canonical form).
    pub fn accepted_forms(self) -> Vec<String> {
        let Some(info) = self.info() else { return vec![self.as_str().to_string()] };
        let mut forms: Vec<String> = info.data_api_name.iter().map(ToString::to_string).collect();
        forms.push(format!("{:#x}", info.id));
        forms.extend(info.aliases.iter().map(ToString::to_string));
        forms.extend(info.rpc_slug.filter(|s| Some(*s) != info.data_api_name).map(String::from));
        forms
    }

    /// The form this chain is written in: its data-API name, or its RPC slug
    /// for chains the data API does not serve, or an other chain as written.
    pub fn as_str(&self) -> &str {
        match self {
            Chain::Other(other) => other.as_str(),
            known => {
                let info = known.info().expect("a chain of the table has a row");
                info.data_api_name.or(info.rpc_slug).expect("the generator gives every row a name or a slug")
            }
        }
    }

    /// The chain of the table with this EIP-155 id.
    pub fn from_id(id: u64) -> Option<Chain> {
        TABLE.iter().find(|info| info.id == id).map(|info| info.chain)
    }

    /// The chain of the table at this RPC gateway path segment.
    pub fn from_rpc_slug(slug: &str) -> Option<Chain> {
        TABLE.iter().find(|info| info.rpc_slug == Some(slug)).map(|info| info.chain)
    }

    fn from_hex_id(text: &str) -> Result<Chain, InvalidChain> {
        let invalid = |reason| InvalidChain { value: text.to_string(), reason };
        if let Some(info) = TABLE.iter().find(|info| info.aliases.iter().any(|a| a.eq_ignore_ascii_case(text))) {
            return Ok(info.chain);
        }
        let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")).expect("called on 0x text");
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(invalid("a hex chain id is 0x and hex digits"));
        }
        let id = u64::from_str_radix(digits, 16).map_err(|_| invalid("the chain id is larger than 64 bits"))?;
        if id == 0 {
            return Err(invalid("chain id 0 is not a chain"));
        }
        Ok(Chain::from_id(id).unwrap_or_else(|| Chain::Other(OtherChain::new(&format!("{id:#x}")))))
    }

    fn from_other_name(text: &str) -> Result<Chain, InvalidChain> {
        let invalid = |reason| InvalidChain { value: text.to_string(), reason };
        if text.is_empty() {
            return Err(invalid("it is empty"));
        }
        if text.len() > OtherChain::CAPACITY {
            return Err(invalid("a chain name has at most 31 characters"));
        }
        let well_formed = text.as_bytes()[0].is_ascii_lowercase()
            && !text.ends_with(' ')
            && text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b" -_".contains(&b));
        if !well_formed {
            return Err(invalid(
                "a chain name starts with a lowercase letter and holds lowercase letters, digits, spaces, - and _",
            ));
        }
        Ok(Chain::Other(OtherChain::new(text)))
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A chain value that is neither a name nor a hex chain id.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid chain {value:?}: {reason}; a chain is a name such as \"eth\" or \"polygon amoy\", or a hex chain id such as \"0x1\""
)]
pub struct InvalidChain {
    /// The value that was given.
    pub value: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl FromStr for Chain {
    type Err = InvalidChain;

    /// Accepts a data-API name (`"polygon amoy"`), a hex chain id (`"0x13882"`,
    /// any letter case) or an RPC slug (`"amoy"`); any other lowercase name or
    /// hex id is a [`Chain::Other`].
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        if let Some(info) = TABLE.iter().find(|info| info.data_api_name == Some(text) || info.rpc_slug == Some(text)) {
            return Ok(info.chain);
        }
        if text.starts_with("0x") || text.starts_with("0X") {
            return Chain::from_hex_id(text);
        }
        Chain::from_other_name(text)
    }
}

impl Serialize for Chain {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Chain {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        crate::wire::deserialize_from_str(deserializer)
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for Chain {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Chain".into()
    }

    /// Every spelling of the table's chains. Decoding also keeps other
    /// well-formed names and ids ([`Chain::Other`]), which no schema lists.
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        let values: Vec<String> = Chain::all().flat_map(Chain::accepted_forms).collect();
        json_schema!({ "type": "string", "enum": values })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_has_every_chain_of_the_interface() {
        assert_eq!(Chain::data_api().count(), 35);
        assert_eq!(Chain::rpc().count(), 43);
        assert_eq!(Chain::all().len(), 47);
        for (index, chain) in Chain::all().enumerate() {
            assert_eq!(chain.table_index(), Some(index), "{chain}");
        }
    }

    #[test]
    fn every_form_parses() {
        assert_eq!("polygon amoy".parse(), Ok(Chain::PolygonAmoy));
        assert_eq!("amoy".parse(), Ok(Chain::PolygonAmoy));
        assert_eq!("0x13882".parse(), Ok(Chain::PolygonAmoy));
        assert_eq!("0X13882".parse(), Ok(Chain::PolygonAmoy));
        assert_eq!("0xA86A".parse(), Ok(Chain::Avalanche));
        assert_eq!("blast-sepolia".parse(), Ok(Chain::BlastSepolia));
        assert_eq!("0xaa37d".parse(), Ok(Chain::OptimismSepolia));
        assert_eq!("0xaa37dc".parse(), Ok(Chain::OptimismSepolia));
        assert_eq!("flow-testnet".parse(), Ok(Chain::FlowTestnet));
        assert_eq!("0x106a".parse(), Ok(Chain::LiskSepolia));
        assert_eq!("0x8f".parse(), Ok(Chain::Monad));
    }

    #[test]
    fn forms_are_written_as_the_api_expects() {
        assert_eq!(Chain::BscTestnet.to_string(), "bsc testnet");
        assert_eq!(Chain::BscTestnet.rpc_slug(), Some("bsc-testnet"));
        assert_eq!(Chain::BscTestnet.hex_id().as_deref(), Some("0x61"));
        assert_eq!(Chain::Palm.rpc_slug(), None);
        assert_eq!(Chain::OpBnb.to_string(), "opbnb");
        assert_eq!(Chain::OpBnb.data_api_name(), None);
        assert_eq!(Chain::Sei.rpc_slug(), Some("sei"));
        assert_eq!(serde_json::to_value(Chain::Base).unwrap(), "base");
    }

    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<u64> = Chain::all().filter_map(Chain::id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Chain::all().len());
    }

    #[test]
    fn chains_outside_the_table_are_kept_by_id_or_name() {
        let by_id: Chain = "0X01234".parse().unwrap();
        assert!(matches!(by_id, Chain::Other(_)) && !by_id.is_known());
        assert_eq!((by_id.as_str(), by_id.id(), by_id.hex_id().as_deref()), ("0x1234", Some(0x1234), Some("0x1234")));
        assert_eq!(by_id, "0x1234".parse().unwrap(), "one id, one chain, however it is written");
        let by_name: Chain = "newchain".parse().unwrap();
        assert_eq!(
            (by_name.as_str(), by_name.id(), by_name.data_api_name(), by_name.rpc_slug()),
            ("newchain", None, None, None)
        );
        assert_eq!(by_name.accepted_forms(), ["newchain"]);
        for chain in [by_id, by_name] {
            let json = serde_json::to_value(chain).unwrap();
            assert_eq!(serde_json::from_value::<Chain>(json).unwrap(), chain);
        }
        let longest = "a".repeat(OtherChain::CAPACITY);
        assert_eq!(longest.parse::<Chain>().unwrap().as_str(), longest);
        assert_eq!(format!("{by_name:?}"), "Other(OtherChain(\"newchain\"))");
    }

    #[test]
    fn malformed_values_are_refused_with_the_reason() {
        let cases = [
            ("", "empty"),
            ("ETH", "lowercase letter"),
            ("1", "lowercase letter"),
            ("eth ", "lowercase letter"),
            ("new/chain", "lowercase letter"),
            ("0x", "hex digits"),
            ("0xzz", "hex digits"),
            ("0x0", "chain id 0"),
            ("0x10000000000000000", "64 bits"),
            ("a-chain-name-longer-than-thirty-one", "at most 31"),
        ];
        for (bad, reason) in cases {
            let error = bad.parse::<Chain>().unwrap_err();
            let message = error.to_string();
            assert!(message.contains(&format!("{bad:?}")) && message.contains(reason), "{message}");
        }
        let from_json = serde_json::from_str::<Chain>("\"Solana\"").unwrap_err();
        assert!(from_json.to_string().contains("invalid chain \"Solana\""), "{from_json}");
    }
}
