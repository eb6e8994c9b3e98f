//! Parameters of the chain-control ("cheat") methods (`spec/openrpc-cheats.json`).

use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::node::{quantity_or_integer, quantity_or_integer_schema};

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
