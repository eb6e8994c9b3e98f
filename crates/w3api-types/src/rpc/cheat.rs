//! Parameters of the chain-control ("cheat") methods (`spec/openrpc-cheats.json`).

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::serde_as;

use crate::wire::Hex;

use super::node::quantity_or_integer;
#[cfg(feature = "schema")]
use super::node::quantity_or_integer_schema;

/// A count, a number of seconds or a timestamp: a hex quantity, or a plain
/// integer, as test tools send either (viem sends hex, many scripts
/// numbers). Written back as a hex quantity.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Quantity(pub u64);

impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        quantity_or_integer(deserializer, "the value").map(Quantity)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        super::Uint64(self.0).serialize(serializer)
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for Quantity {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Quantity".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_or_integer_schema()
    }
}

impl From<u64> for Quantity {
    fn from(value: u64) -> Self {
        Quantity(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quantity_is_hex_or_an_integer_and_is_written_as_hex() {
        assert_eq!(serde_json::from_str::<Quantity>("\"0x3c\"").unwrap(), Quantity(60));
        assert_eq!(serde_json::from_str::<Quantity>("60").unwrap(), Quantity(60));
        assert_eq!(serde_json::to_string(&Quantity(60)).unwrap(), "\"0x3c\"");
        let error = serde_json::from_str::<Quantity>("\"sixty\"").unwrap_err().to_string();
        assert!(error.contains("hex quantity or a non-negative integer"), "{error}");
        assert!(serde_json::from_str::<Quantity>("-1").is_err());
    }
}

/// `w3api_createWallet`: a wallet whose key the devnet holds.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct CreatedWallet {
    /// The address.
    #[serde_as(as = "Hex")]
    pub address: super::Address,
    /// The secp256k1 private key, which the devnet signs the wallet's transfers with.
    #[serde_as(as = "Hex")]
    pub private_key: super::Hash32,
}

/// `anvil_reset`, `hardhat_reset`: how to start the chain over. Tools send
/// a `forking` object with empty fields for a plain reset (viem's `reset()`
/// sends `{"forking": {"blockNumber": null}}`); one naming a node or a
/// block asks for a fork, which the devnet refuses.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ResetOptions {
    /// A node and block to fork from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub forking: Option<ForkingOptions>,
}

/// A node and block to fork from (`ResetOptions::forking`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForkingOptions {
    /// The node's URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json_rpc_url: Option<String>,
    /// The block to fork at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_number: Option<Quantity>,
}

/// `w3api_createToken`: an ERC20 to deploy.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewToken {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimals, at most 30.
    pub decimals: u8,
    /// Logo URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
    /// Airdropped spam: wallet answers mark it `possible_spam`.
    #[serde(default)]
    pub spam: bool,
    /// Whether its source is verified (default true, false for spam).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// USD price: the token gets a pair with the wrapped native token, priced so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usd_price: Option<f64>,
    /// USD value of that pair's liquidity, both sides (default 1,000,000).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub liquidity_usd: Option<f64>,
    /// Raw units minted to the deployer (default a billion whole tokens).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub supply: Option<super::Uint>,
}

/// `w3api_mintNft`: the metadata document of the NFT minted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NftMetadataParams {
    /// Name (default: the collection's name and the token id).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Image URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
    /// Traits.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<NftTraitParam>,
}

/// One trait of a minted NFT.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NftTraitParam {
    /// Trait type.
    pub trait_type: String,
    /// Value.
    pub value: String,
}

/// `w3api_createCollection`: an NFT collection to deploy.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewCollection {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Token standard.
    pub standard: NftStandard,
    /// Airdropped spam: wallet answers mark it `possible_spam`.
    #[serde(default)]
    pub spam: bool,
    /// Whether the collection is verified (default true, false for spam).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<bool>,
    /// Logo URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logo: Option<String>,
}

/// The token standard of a collection a test deploys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub enum NftStandard {
    /// One owner per token id.
    #[serde(rename = "ERC721")]
    Erc721,
    /// Amounts per token id.
    #[serde(rename = "ERC1155")]
    Erc1155,
}
