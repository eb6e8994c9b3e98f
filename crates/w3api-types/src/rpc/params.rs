//! Parameters of the RPC methods.

use std::fmt;
use std::str::FromStr;

use alloy_primitives::Address;
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::serde_as;

use crate::wire::{self, Hex};

/// A block by number, or one of the tags `latest`, `earliest`, `pending`,
/// `safe`, `finalized`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockNumberOrTag {
    /// The newest block.
    Latest,
    /// The genesis block.
    Earliest,
    /// The block being built; the gateway answers with the newest block when
    /// nothing is pending.
    Pending,
    /// The newest block unlikely to be reorganised away.
    Safe,
    /// The newest block that can no longer be reorganised away.
    Finalized,
    /// The block with this number.
    Number(u64),
}

/// A block parameter that is neither a tag nor a canonical hex number.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid block {value:?}: expected \"latest\", \"earliest\", \"pending\", \"safe\", \"finalized\" or a 0x-prefixed hex number without leading zeros"
)]
pub struct InvalidBlockNumberOrTag {
    /// The value that was given.
    pub value: String,
}

impl FromStr for BlockNumberOrTag {
    type Err = InvalidBlockNumberOrTag;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidBlockNumberOrTag { value: text.to_string() };
        match text {
            "latest" => Ok(Self::Latest),
            "earliest" => Ok(Self::Earliest),
            "pending" => Ok(Self::Pending),
            "safe" => Ok(Self::Safe),
            "finalized" => Ok(Self::Finalized),
            _ => parse_quantity(text).map(Self::Number).ok_or_else(invalid),
        }
    }
}

/// Parses a canonical quantity: `0x`, then hex digits without leading zeros.
fn parse_quantity(text: &str) -> Option<u64> {
    let digits = text.strip_prefix("0x")?;
    let canonical = digits == "0" || (!digits.is_empty() && !digits.starts_with('0'));
    if !canonical || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    u64::from_str_radix(digits, 16).ok()
}

impl fmt::Display for BlockNumberOrTag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Latest => f.write_str("latest"),
            Self::Earliest => f.write_str("earliest"),
            Self::Pending => f.write_str("pending"),
            Self::Safe => f.write_str("safe"),
            Self::Finalized => f.write_str("finalized"),
            Self::Number(number) => write!(f, "{number:#x}"),
        }
    }
}

impl From<u64> for BlockNumberOrTag {
    fn from(number: u64) -> Self {
        Self::Number(number)
    }
}

wire::text_form!(BlockNumberOrTag);

#[cfg(feature = "schema")]
impl JsonSchema for BlockNumberOrTag {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BlockNumberOrTag".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "string", "enum": ["latest", "earliest", "pending", "safe", "finalized"] },
                { "type": "string", "pattern": wire::pattern::QUANTITY }
            ]
        })
    }
}

/// Position of a transaction in its block, written as a hex quantity.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct TransactionIndex(#[serde_as(as = "Hex")] pub u64);

impl From<u64> for TransactionIndex {
    fn from(index: u64) -> Self {
        TransactionIndex(index)
    }
}

/// A block by number or tag, or by hash (a bare hash, or an EIP-1898
/// object): the block parameter of state queries such as `eth_getBalance`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockId {
    /// A block number or tag, as a string or as `{"blockNumber": ...}`.
    Number(BlockNumberOrTag),
    /// The block with this hash, as `{"blockHash": ...}`; `require_canonical`
    /// asks for an error when the block is not on the canonical chain.
    Hash {
        /// The block's hash.
        block_hash: alloy_primitives::B256,
        /// Fail unless the block is canonical.
        require_canonical: bool,
    },
}

impl From<BlockNumberOrTag> for BlockId {
    fn from(block: BlockNumberOrTag) -> Self {
        BlockId::Number(block)
    }
}

impl Serialize for BlockId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            BlockId::Number(block) => block.serialize(serializer),
            BlockId::Hash { block_hash, require_canonical } => {
                use serde::ser::SerializeMap;
                let mut map = serializer.serialize_map(None)?;
                map.serialize_entry("blockHash", &format!("{block_hash:#x}"))?;
                if *require_canonical {
                    map.serialize_entry("requireCanonical", &true)?;
                }
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for BlockId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[serde_as]
        #[derive(Deserialize)]
        #[serde(rename_all = "camelCase", deny_unknown_fields)]
        struct Object {
            #[serde_as(as = "Option<Hex>")]
            #[serde(default)]
            block_hash: Option<alloy_primitives::B256>,
            #[serde(default)]
            block_number: Option<BlockNumberOrTag>,
            #[serde(default)]
            require_canonical: bool,
        }
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Object(Object),
        }
        let form = Form::deserialize(deserializer).map_err(|_| {
            de::Error::custom("a block is a number, a tag, a hash, {\"blockHash\": ...} or {\"blockNumber\": ...}")
        })?;
        match form {
            // A bare 32-byte hash, as go-ethereum and the execution API's
            // `BlockNumberOrTagOrHash` also accept.
            Form::Text(text) if text.len() == 66 && text.starts_with("0x") => text
                .parse()
                .map(|block_hash| BlockId::Hash { block_hash, require_canonical: false })
                .map_err(|_| de::Error::custom(format_args!("invalid block hash {text:?}"))),
            Form::Text(text) => text.parse().map(BlockId::Number).map_err(de::Error::custom),
            Form::Object(Object { block_hash: Some(block_hash), block_number: None, require_canonical }) => {
                Ok(BlockId::Hash { block_hash, require_canonical })
            }
            Form::Object(Object { block_hash: None, block_number: Some(block), require_canonical: false }) => {
                Ok(BlockId::Number(block))
            }
            Form::Object(_) => Err(de::Error::custom(
                "a block object has exactly one of blockHash and blockNumber (requireCanonical goes with blockHash)",
            )),
        }
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for BlockId {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BlockId".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let number = generator.subschema_for::<BlockNumberOrTag>();
        json_schema!({
            "anyOf": [
                number,
                { "type": "string", "pattern": wire::pattern::HASH32 },
                {
                    "type": "object",
                    "required": ["blockHash"],
                    "properties": {
                        "blockHash": { "type": "string", "pattern": wire::pattern::HASH32 },
                        "requireCanonical": { "type": "boolean" }
                    }
                },
                {
                    "type": "object",
                    "required": ["blockNumber"],
                    "properties": { "blockNumber": number }
                }
            ]
        })
    }
}

/// What `eth_getTokenPrice` may add to its result.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "snake_case")]
pub enum TokenPriceInclude {
    /// Add `24hrPercentChange`.
    PercentChange,
}

impl TokenPriceInclude {
    /// The value's name on the wire.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenPriceInclude::PercentChange => "percent_change",
        }
    }
}

impl fmt::Display for TokenPriceInclude {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for TokenPriceInclude {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "percent_change" => Ok(TokenPriceInclude::PercentChange),
            other => Err(format!("{other:?} is not one of: percent_change")),
        }
    }
}

/// The single parameter of `eth_getTokenPrice`.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenPriceParams {
    /// Contract of the token to price.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Restrict pricing to one exchange: its factory address or its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exchange: Option<String>,
    /// Price the token as of this block.
    #[serde_as(as = "Option<wire::Num>")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_block: Option<u64>,
    /// Extra fields to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include: Option<TokenPriceInclude>,
}

impl TokenPriceParams {
    /// Parameters pricing `address` at the latest block on any exchange.
    pub fn new(address: Address) -> Self {
        TokenPriceParams { address, exchange: None, to_block: None, include: None }
    }
}

/// The block `eth_getTokenBalances` reads at: a number (JSON or decimal
/// text), or `latest`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BalancesBlock {
    /// The block with this number.
    Number(u64),
    /// The newest block.
    Latest,
}

impl Serialize for BalancesBlock {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            BalancesBlock::Number(number) => serializer.serialize_u64(*number),
            BalancesBlock::Latest => serializer.serialize_str("latest"),
        }
    }
}

impl<'de> Deserialize<'de> for BalancesBlock {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(u64),
            Text(String),
        }
        match Written::deserialize(deserializer) {
            Ok(Written::Number(number)) => Ok(BalancesBlock::Number(number)),
            Ok(Written::Text(text)) if text == "latest" => Ok(BalancesBlock::Latest),
            Ok(Written::Text(text)) => text
                .parse()
                .map(BalancesBlock::Number)
                .map_err(|_| de::Error::custom(format!("{text:?} is not a block number or \"latest\""))),
            Err(_) => Err(de::Error::custom("expected a block number or \"latest\"")),
        }
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for BalancesBlock {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BalancesBlock".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "anyOf": [
                { "type": "integer", "minimum": 0 },
                { "type": "string", "pattern": "^[0-9]+$" },
                { "type": "string", "enum": ["latest"] }
            ]
        })
    }
}

/// The single parameter of `eth_getTokenBalances`.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TokenBalancesParams {
    /// The wallet.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Only these token contracts.
    #[serde_as(as = "Vec<Hex>")]
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub token_addresses: Vec<Address>,
    /// Leave out tokens flagged as possible spam (production leaves them out
    /// unless told not to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exclude_spam: Option<bool>,
    /// The block to read at; the newest when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<BalancesBlock>,
}

/// The single parameter of `eth_getTokenMetadata`.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct TokenMetadataParams {
    /// The token contracts.
    #[serde_as(as = "Vec<Hex>")]
    pub addresses: Vec<Address>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_canonical_numbers_parse() {
        assert_eq!("latest".parse(), Ok(BlockNumberOrTag::Latest));
        assert_eq!("earliest".parse(), Ok(BlockNumberOrTag::Earliest));
        assert_eq!("pending".parse(), Ok(BlockNumberOrTag::Pending));
        assert_eq!("safe".parse(), Ok(BlockNumberOrTag::Safe));
        assert_eq!("finalized".parse(), Ok(BlockNumberOrTag::Finalized));
        assert_eq!("0x0".parse(), Ok(BlockNumberOrTag::Number(0)));
        assert_eq!("0x1b".parse(), Ok(BlockNumberOrTag::Number(27)));
        assert_eq!("0xffffffffffffffff".parse(), Ok(BlockNumberOrTag::Number(u64::MAX)));
    }

    #[test]
    fn anything_else_is_rejected_naming_the_value() {
        for bad in ["0x01", "0x", "27", "Safe", "final", "0X1b", "0x1g", "0x10000000000000000", "Latest"] {
            let error = bad.parse::<BlockNumberOrTag>().unwrap_err();
            assert!(error.to_string().contains(&format!("{bad:?}")), "{error}");
        }
    }

    #[test]
    fn block_ids_take_every_eip_1898_form() {
        let hash = alloy_primitives::B256::with_last_byte(7);
        let by_hash = serde_json::json!({ "blockHash": format!("{hash:#x}"), "requireCanonical": true });
        assert_eq!(
            serde_json::from_value::<BlockId>(by_hash.clone()).unwrap(),
            BlockId::Hash { block_hash: hash, require_canonical: true }
        );
        assert_eq!(serde_json::to_value(BlockId::Hash { block_hash: hash, require_canonical: true }).unwrap(), by_hash);
        let number = serde_json::json!({ "blockNumber": "0x1b" });
        assert_eq!(serde_json::from_value::<BlockId>(number).unwrap(), BlockId::Number(BlockNumberOrTag::Number(27)));
        assert_eq!(serde_json::from_str::<BlockId>("\"safe\"").unwrap(), BlockId::Number(BlockNumberOrTag::Safe));
        assert_eq!(
            serde_json::from_value::<BlockId>(serde_json::json!(format!("{hash:#x}"))).unwrap(),
            BlockId::Hash { block_hash: hash, require_canonical: false }
        );
        let both = serde_json::json!({ "blockHash": format!("{hash:#x}"), "blockNumber": "0x1" });
        assert!(serde_json::from_value::<BlockId>(both).unwrap_err().to_string().contains("exactly one"));
        assert!(serde_json::from_str::<BlockId>("\"0x01\"").unwrap_err().to_string().contains("\"0x01\""));
    }

    #[test]
    fn wire_forms() {
        assert_eq!(serde_json::to_value(BlockNumberOrTag::Number(27)).unwrap(), "0x1b");
        assert_eq!(serde_json::to_value(TransactionIndex(0)).unwrap(), "0x0");
        assert_eq!(serde_json::from_str::<TransactionIndex>("\"0xa\"").unwrap(), TransactionIndex(10));
        let params: TokenPriceParams =
            serde_json::from_str(r#"{"address":"0x2260FAC5E5542a773Aa44fBCfeDf7C193bc2C599","toBlock":"16314545"}"#)
                .unwrap();
        assert_eq!(params.to_block, Some(16314545));
        assert_eq!(
            serde_json::to_string(&params).unwrap(),
            r#"{"address":"0x2260fac5e5542a773aa44fbcfedf7c193bc2c599","toBlock":16314545}"#
        );
    }
}
