//! Hex fields that keep malformed text instead of failing the whole response.

use std::fmt;

#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator};
use serde::de::{self, Deserializer, IntoDeserializer};
use serde::{Deserialize, Serialize, Serializer};
#[cfg(feature = "schema")]
use serde_with::schemars_1::JsonSchemaAs;

#[cfg(feature = "schema")]
use crate::wire::Hex;

/// A hex value as it arrived: decoded when well-formed, kept as text when not.
///
/// Published samples of the production gateway elide data (`"0xa76dfc3b..."`)
/// and truncate blooms. Failing a whole block on such a field would lose every
/// other field, and guessing the missing digits would invent data, so the text
/// is kept and written back unchanged. Values built in Rust are always
/// well-formed; only decoding produces the unparsed form.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Lenient<T>(Repr<T>);

#[derive(Clone, PartialEq, Eq, Hash)]
enum Repr<T> {
    Parsed(T),
    Unparsed(String),
}

impl<T> Lenient<T> {
    /// A well-formed value.
    pub fn new(value: T) -> Self {
        Lenient(Repr::Parsed(value))
    }

    /// The decoded value, or `None` when the text was malformed.
    pub fn get(&self) -> Option<&T> {
        match &self.0 {
            Repr::Parsed(value) => Some(value),
            Repr::Unparsed(_) => None,
        }
    }

    /// The text as received, when it could not be decoded.
    pub fn unparsed(&self) -> Option<&str> {
        match &self.0 {
            Repr::Parsed(_) => None,
            Repr::Unparsed(text) => Some(text),
        }
    }

    /// The decoded value, or an error quoting the malformed text.
    pub fn parsed(&self) -> Result<&T, MalformedHex> {
        match &self.0 {
            Repr::Parsed(value) => Ok(value),
            Repr::Unparsed(text) => Err(MalformedHex { text: text.clone() }),
        }
    }
}

/// A hex field whose text could not be decoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("malformed hex value {text:?}")]
pub struct MalformedHex {
    /// The text as received.
    pub text: String,
}

impl<T> From<T> for Lenient<T> {
    fn from(value: T) -> Self {
        Lenient::new(value)
    }
}

impl<T: fmt::Debug> fmt::Debug for Lenient<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Repr::Parsed(value) => value.fmt(f),
            Repr::Unparsed(text) => f.debug_tuple("Unparsed").field(text).finish(),
        }
    }
}

impl<T: Serialize> Serialize for Lenient<T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match &self.0 {
            Repr::Parsed(value) => value.serialize(serializer),
            Repr::Unparsed(text) => serializer.serialize_str(text),
        }
    }
}

impl<'de, T: for<'a> Deserialize<'a>> Deserialize<'de> for Lenient<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        if !text.starts_with("0x") {
            return Err(de::Error::invalid_value(de::Unexpected::Str(&text), &"0x-prefixed hex"));
        }
        let parsed: Result<T, de::value::Error> = T::deserialize(text.as_str().into_deserializer());
        Ok(Lenient(match parsed {
            Ok(value) => Repr::Parsed(value),
            Err(_) => Repr::Unparsed(text),
        }))
    }
}

#[cfg(feature = "schema")]
impl<T> JsonSchema for Lenient<T>
where
    Hex: JsonSchemaAs<T>,
{
    fn inline_schema() -> bool {
        true
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <Hex as JsonSchemaAs<T>>::schema_name()
    }
    /// The schema of the well-formed value: that is what the spec promises.
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <Hex as JsonSchemaAs<T>>::json_schema(generator)
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Bloom, Bytes};

    use super::*;

    #[test]
    fn well_formed_hex_is_decoded() {
        let input: Lenient<Bytes> = serde_json::from_str("\"0xa9059cbb\"").unwrap();
        assert_eq!(input.get().map(|b| b.to_vec()), Some(vec![0xa9, 0x05, 0x9c, 0xbb]));
        assert_eq!(input, Lenient::new(Bytes::from(vec![0xa9, 0x05, 0x9c, 0xbb])));
    }

    #[test]
    fn malformed_hex_is_kept_and_written_back() {
        let input: Lenient<Bytes> = serde_json::from_str("\"0xa76dfc3b...\"").unwrap();
        assert_eq!(input.unparsed(), Some("0xa76dfc3b..."));
        assert_eq!(input.parsed().unwrap_err().to_string(), "malformed hex value \"0xa76dfc3b...\"");
        assert_eq!(serde_json::to_string(&input).unwrap(), "\"0xa76dfc3b...\"");
        let short_bloom: Lenient<Bloom> = serde_json::from_str("\"0x000\"").unwrap();
        assert_eq!(short_bloom.unparsed(), Some("0x000"));
    }

    #[test]
    fn text_that_is_not_hex_at_all_is_an_error() {
        assert!(serde_json::from_str::<Lenient<Bytes>>("\"hello\"").is_err());
        assert!(serde_json::from_str::<Lenient<Bytes>>("42").is_err());
    }
}
