//! The chains of the interface, in every form the API accepts them.

use std::fmt;
use std::str::FromStr;

use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One row of the chain table: how the chain is spelled in each part of the API.
struct ChainInfo {
    chain: Chain,
    id: u64,
    /// Value of the wallet-data `chain` query parameter; `None` where the data
    /// API does not serve the chain.
    data_api_name: Option<&'static str>,
    /// Path segment of the RPC gateway; `None` where the gateway does not serve it.
    rpc_slug: Option<&'static str>,
}

macro_rules! chains {
    ($($variant:ident = $id:literal, $name:expr, $slug:expr;)*) => {
        /// An EVM chain served by the wallet-data API, the RPC gateway, or both.
        ///
        /// Each chain has a numeric id ([`Chain::id`], written in hex by
        /// [`Chain::hex_id`]), a data-API name ([`Chain::data_api_name`], the
        /// `chain` query value) and an RPC slug ([`Chain::rpc_slug`], the gateway
        /// path segment). [`FromStr`] and deserialization accept any of the three;
        /// serialization writes the data-API name, or the RPC slug for chains the
        /// data API does not serve.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum Chain {
            $(
                #[doc = concat!("Chain id ", stringify!($id), ".")]
                $variant,
            )*
        }

        const TABLE: &[ChainInfo] = &[
            $(ChainInfo { chain: Chain::$variant, id: $id, data_api_name: $name, rpc_slug: $slug },)*
        ];
    };
}

chains! {
    Eth = 0x1, Some("eth"), Some("eth");
    Sepolia = 0xaa36a7, Some("sepolia"), Some("sepolia");
    Holesky = 0x4268, Some("holesky"), Some("holesky");
    Polygon = 0x89, Some("polygon"), Some("polygon");
    PolygonAmoy = 0x13882, Some("polygon amoy"), Some("amoy");
    Bsc = 0x38, Some("bsc"), Some("bsc");
    BscTestnet = 0x61, Some("bsc testnet"), Some("bsc-testnet");
    Avalanche = 0xa86a, Some("avalanche"), Some("avalanche");
    Fantom = 0xfa, Some("fantom"), Some("fantom");
    Palm = 0x2a15c308d, Some("palm"), None;
    Cronos = 0x19, Some("cronos"), None;
    Arbitrum = 0xa4b1, Some("arbitrum"), Some("arbitrum");
    ArbitrumSepolia = 0x66eee, None, Some("arbitrum-sepolia");
    Gnosis = 0x64, Some("gnosis"), Some("gnosis");
    GnosisTestnet = 0x27d8, Some("gnosis testnet"), Some("gnosis-testnet");
    Chiliz = 0x15b38, Some("chiliz"), None;
    ChilizTestnet = 0x15b32, Some("chiliz testnet"), None;
    Base = 0x2105, Some("base"), Some("base");
    BaseSepolia = 0x14a34, Some("base sepolia"), Some("base-sepolia");
    Optimism = 0xa, Some("optimism"), Some("optimism");
    OptimismSepolia = 0xaa37dc, Some("optimism sepolia"), Some("optimism-sepolia");
    Linea = 0xe708, Some("linea"), Some("linea");
    LineaSepolia = 0xe705, Some("linea sepolia"), Some("linea-sepolia");
    Moonbeam = 0x504, Some("moonbeam"), Some("moonbeam");
    Moonriver = 0x505, Some("moonriver"), Some("moonriver");
    Moonbase = 0x507, Some("moonbase"), Some("moonbase");
    Blast = 0x13e31, None, Some("blast");
    BlastSepolia = 0xa0c71fd, None, Some("blast-sepolia");
    Mantle = 0x1388, None, Some("mantle");
    MantleSepolia = 0x138b, None, Some("mantle-sepolia");
    PolygonZkEvm = 0x44d, None, Some("polygon-zkevm");
    PolygonZkEvmCardona = 0x98a, None, Some("polygon-zkevm-cardona");
    ZkSync = 0x144, None, Some("zksync");
    ZkSyncSepolia = 0x12c, None, Some("zksync-sepolia");
    Zetachain = 0x1b58, None, Some("zetachain");
    ZetachainTestnet = 0x1b59, None, Some("zetachain-testnet");
    OpBnb = 0xcc, None, Some("opbnb");
}

/// `interface.md` lists Optimism Sepolia as `0xaa37d`, one digit short of its
/// real id 11155420 (`0xaa37dc`). Both spellings are accepted so that callers
/// copying either one are understood; the real id is what is written.
const OPTIMISM_SEPOLIA_INTERFACE_HEX: &str = "0xaa37d";

impl Chain {
    /// Every chain, in table order.
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

    fn info(self) -> &'static ChainInfo {
        // The table is built from the enum by the same macro, in the same order.
        &TABLE[self as usize]
    }

    /// The EIP-155 chain id.
    pub fn id(self) -> u64 {
        self.info().id
    }

    /// The chain id as the API writes it: `0x` and lowercase hex.
    pub fn hex_id(self) -> String {
        format!("{:#x}", self.id())
    }

    /// The value of the wallet-data `chain` parameter, if the data API serves this chain.
    pub fn data_api_name(self) -> Option<&'static str> {
        self.info().data_api_name
    }

    /// The RPC gateway path segment, if the gateway serves this chain.
    pub fn rpc_slug(self) -> Option<&'static str> {
        self.info().rpc_slug
    }

    /// Every spelling accepted for this chain by [`FromStr`].
    pub fn accepted_forms(self) -> Vec<String> {
        let info = self.info();
        let mut forms: Vec<String> = info.data_api_name.iter().map(|s| s.to_string()).collect();
        forms.push(self.hex_id());
        if self == Chain::OptimismSepolia {
            forms.push(OPTIMISM_SEPOLIA_INTERFACE_HEX.to_string());
        }
        forms.extend(info.rpc_slug.filter(|s| Some(*s) != info.data_api_name).map(String::from));
        forms
    }

    /// The form this chain is written in: its data-API name, or its RPC slug
    /// for chains the data API does not serve.
    pub fn as_str(self) -> &'static str {
        let info = self.info();
        info.data_api_name.or(info.rpc_slug).expect("every chain has a name or a slug")
    }

    /// The chain with this EIP-155 id.
    pub fn from_id(id: u64) -> Option<Chain> {
        TABLE.iter().find(|info| info.id == id).map(|info| info.chain)
    }

    /// The chain at this RPC gateway path segment.
    pub fn from_rpc_slug(slug: &str) -> Option<Chain> {
        TABLE.iter().find(|info| info.rpc_slug == Some(slug)).map(|info| info.chain)
    }

    fn from_hex_id(text: &str) -> Option<Chain> {
        let digits = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X"))?;
        if text.eq_ignore_ascii_case(OPTIMISM_SEPOLIA_INTERFACE_HEX) {
            return Some(Chain::OptimismSepolia);
        }
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        u64::from_str_radix(digits, 16).ok().and_then(Chain::from_id)
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A chain value that is none of the accepted forms.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown chain {value:?}; accepted values: {}", accepted_list())]
pub struct UnknownChain {
    /// The value that was given.
    pub value: String,
}

fn accepted_list() -> String {
    Chain::all().flat_map(Chain::accepted_forms).collect::<Vec<_>>().join(", ")
}

impl FromStr for Chain {
    type Err = UnknownChain;

    /// Accepts a data-API name (`"polygon amoy"`), a hex chain id (`"0x13882"`,
    /// any letter case) or an RPC slug (`"amoy"`).
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        TABLE
            .iter()
            .find(|info| info.data_api_name == Some(text) || info.rpc_slug == Some(text))
            .map(|info| info.chain)
            .or_else(|| Chain::from_hex_id(text))
            .ok_or_else(|| UnknownChain { value: text.to_string() })
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

impl JsonSchema for Chain {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Chain".into()
    }

    /// Every value [`FromStr`] accepts.
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
        assert_eq!(Chain::data_api().count(), 25);
        assert_eq!(Chain::rpc().count(), 33);
        assert_eq!(Chain::all().len(), 37);
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
    }

    #[test]
    fn forms_are_written_as_the_api_expects() {
        assert_eq!(Chain::BscTestnet.to_string(), "bsc testnet");
        assert_eq!(Chain::BscTestnet.rpc_slug(), Some("bsc-testnet"));
        assert_eq!(Chain::BscTestnet.hex_id(), "0x61");
        assert_eq!(Chain::Palm.rpc_slug(), None);
        assert_eq!(Chain::OpBnb.to_string(), "opbnb");
        assert_eq!(Chain::OpBnb.data_api_name(), None);
        assert_eq!(serde_json::to_value(Chain::Base).unwrap(), "base");
    }

    #[test]
    fn ids_are_unique() {
        let mut ids: Vec<u64> = Chain::all().map(Chain::id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), Chain::all().len());
    }

    #[test]
    fn unknown_values_are_rejected_with_the_accepted_ones() {
        for bad in ["ethereum", "0x2", "0x", "ETH", "", "1"] {
            let error = bad.parse::<Chain>().unwrap_err();
            let message = error.to_string();
            assert!(message.contains(&format!("{bad:?}")), "{message}");
            assert!(message.contains("eth, 0x1") && message.contains("opbnb"), "{message}");
        }
        let from_json = serde_json::from_str::<Chain>("\"solana\"").unwrap_err();
        assert!(from_json.to_string().contains("unknown chain \"solana\""), "{from_json}");
    }
}
