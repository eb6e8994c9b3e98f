//! What a node says about itself and its fees.

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_with::serde_as;

use crate::wire::Hex;

/// An unsigned integer that fits 64 bits, written as a hex quantity: a chain
/// id, a block number, a count.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct Uint64(#[serde_as(as = "Hex")] pub u64);

impl From<u64> for Uint64 {
    fn from(value: u64) -> Self {
        Uint64(value)
    }
}

impl From<Uint64> for u64 {
    fn from(value: Uint64) -> Self {
        value.0
    }
}

/// `eth_syncing`: `false`, or how far a catching-up node has come.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SyncingStatus {
    /// The node has every block it knows of (`false` on the wire).
    NotSyncing,
    /// The node is importing blocks.
    Syncing(SyncProgress),
}

/// Blocks a syncing node started at, has reached, and aims for.
#[serde_as]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SyncProgress {
    /// Block the import started at.
    #[serde_as(as = "Hex")]
    pub starting_block: u64,
    /// Newest block imported.
    #[serde_as(as = "Hex")]
    pub current_block: u64,
    /// Newest block known to exist.
    #[serde_as(as = "Hex")]
    pub highest_block: u64,
}

impl Serialize for SyncingStatus {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            SyncingStatus::NotSyncing => serializer.serialize_bool(false),
            SyncingStatus::Syncing(progress) => progress.serialize(serializer),
        }
    }
}

impl<'de> Deserialize<'de> for SyncingStatus {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Flag(bool),
            Progress(SyncProgress),
        }
        match Form::deserialize(deserializer)? {
            Form::Flag(false) => Ok(SyncingStatus::NotSyncing),
            Form::Flag(true) => {
                Err(serde::de::Error::custom("eth_syncing is `false` or a progress object, not `true`"))
            }
            Form::Progress(progress) => Ok(SyncingStatus::Syncing(progress)),
        }
    }
}

#[cfg(feature = "schema")]
impl JsonSchema for SyncingStatus {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SyncingStatus".into()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        let progress = generator.subschema_for::<SyncProgress>();
        json_schema!({ "anyOf": [{ "type": "boolean", "enum": [false] }, progress] })
    }
}

/// Base fees, gas use and tips of a run of blocks (`eth_feeHistory`).
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct FeeHistory {
    /// The first block of the run.
    #[serde_as(as = "Hex")]
    pub oldest_block: u64,
    /// Base fee per gas of each block, and of the block after the newest.
    #[serde_as(as = "Vec<Hex>")]
    pub base_fee_per_gas: Vec<u128>,
    /// Gas used over gas limit, for each block.
    pub gas_used_ratio: Vec<f64>,
    /// Base fee per blob gas of each block, and of the block after the newest (Cancun and later).
    #[serde_as(as = "Option<Vec<Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_fee_per_blob_gas: Option<Vec<u128>>,
    /// Blob gas used over the blob gas limit, for each block (Cancun and later).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_gas_used_ratio: Option<Vec<f64>>,
    /// For each block, the tip at each requested percentile of gas used;
    /// absent when no percentiles were requested.
    #[serde_as(as = "Option<Vec<Vec<Hex>>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reward: Option<Vec<Vec<u128>>>,
}

/// How many blocks `eth_feeHistory` covers: a hex quantity, or a plain
/// integer as some clients send it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct BlockCount(pub Uint64);

impl<'de> Deserialize<'de> for BlockCount {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        quantity_or_integer(deserializer, "a block count").map(|count| BlockCount(Uint64(count)))
    }
}

/// A `u64` sent as a hex quantity or as a plain JSON integer, as clients
/// differ; `what` names it in the error.
pub(super) fn quantity_or_integer<'de, D: Deserializer<'de>>(deserializer: D, what: &str) -> Result<u64, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Form {
        Integer(u64),
        Quantity(Uint64),
    }
    match Form::deserialize(deserializer) {
        Ok(Form::Integer(value)) => Ok(value),
        Ok(Form::Quantity(value)) => Ok(value.0),
        Err(_) => Err(serde::de::Error::custom(format!("{what} is a hex quantity or a non-negative integer"))),
    }
}

#[cfg(feature = "schema")]
/// The JSON Schema of [`quantity_or_integer`].
pub(super) fn quantity_or_integer_schema() -> Schema {
    json_schema!({
        "anyOf": [
            { "type": "string", "pattern": crate::wire::pattern::QUANTITY },
            { "type": "integer", "minimum": 0 }
        ]
    })
}

#[cfg(feature = "schema")]
impl JsonSchema for BlockCount {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "BlockCount".into()
    }
    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        quantity_or_integer_schema()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syncing_is_false_or_progress() {
        assert_eq!(serde_json::to_value(SyncingStatus::NotSyncing).unwrap(), false);
        assert_eq!(serde_json::from_str::<SyncingStatus>("false").unwrap(), SyncingStatus::NotSyncing);
        let progress: SyncingStatus =
            serde_json::from_str(r#"{"startingBlock":"0x0","currentBlock":"0x10","highestBlock":"0x20"}"#).unwrap();
        assert_eq!(
            progress,
            SyncingStatus::Syncing(SyncProgress { starting_block: 0, current_block: 16, highest_block: 32 })
        );
        assert!(serde_json::from_str::<SyncingStatus>("true").unwrap_err().to_string().contains("not `true`"));
    }

    #[test]
    fn block_count_takes_a_quantity_or_an_integer() {
        assert_eq!(serde_json::from_str::<BlockCount>("\"0x4\"").unwrap(), BlockCount(Uint64(4)));
        assert_eq!(serde_json::from_str::<BlockCount>("4").unwrap(), BlockCount(Uint64(4)));
        assert_eq!(serde_json::to_value(BlockCount(Uint64(4))).unwrap(), "0x4");
        assert!(serde_json::from_str::<BlockCount>("-1").is_err());
        assert!(serde_json::from_str::<BlockCount>("\"four\"").is_err());
    }
}
