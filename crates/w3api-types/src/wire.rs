//! How fields travel as JSON.
//!
//! Each adapter here is a `serde_with` "as" type: it decodes every form the
//! production service is known to send, encodes one canonical form, and
//! describes that form as JSON Schema so the types and `spec/` can be compared.
//! Fields pick an adapter with `#[serde_as(as = "wire::Name")]`.
//!
//! | adapter      | encodes as                 | also decodes                       |
//! |--------------|----------------------------|------------------------------------|
//! | [`Hex`]      | Ethereum JSON-RPC hex      | (alloy's own parsing)              |
//! | [`Num`]      | JSON number                | numeric string                     |
//! | [`NumOrStr`] | JSON number                | numeric string (and says so)       |
//! | [`DecStr`]   | decimal string             | JSON integer                       |
//! | [`FloatStr`] | decimal string             | JSON number, e-notation            |
//! | [`Flag`]     | JSON boolean               | `"true"` / `"false"`               |
//! | [`FlagOrStr`]| JSON boolean               | `"true"` / `"false"` (and says so) |
//! | [`ObjectOrJsonText`] | JSON object        | a string holding a JSON object     |
//! | [`Date`]     | RFC 3339, as chrono writes | (chrono's parsing)                 |
//!
//! `Num`/`NumOrStr` and `Flag`/`FlagOrStr` decode alike; they differ in the
//! schema, because the interface types some fields as "number or string" and
//! the spec must say exactly that for those fields and no others.

use std::fmt;
use std::marker::PhantomData;
use std::str::FromStr;

use alloy_primitives::{Address, B64, B256, Bloom, Bytes, FixedBytes, U256};
use chrono::{DateTime, Utc};
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
#[cfg(feature = "schema")]
use serde_with::schemars_1::JsonSchemaAs;
use serde_with::{DeserializeAs, SerializeAs};

/// Regular expressions shared by the schemas here and by `spec/`.
/// Decodes an optional field that may be left out but not sent as `null`
/// (the spec does not make it nullable, so `null` is refused like any other
/// wrong type). Use with `#[serde(default, deserialize_with = "wire::present")]`.
pub fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

/// The regular expressions of the spec's string formats, for the schemas.
pub mod pattern {
    /// A 20-byte account or contract address, any letter case.
    pub const ADDRESS: &str = "^0x[0-9a-fA-F]{40}$";
    /// A 32-byte hash.
    pub const HASH32: &str = "^0x[0-9a-fA-F]{64}$";
    /// An 8-byte value (the proof-of-work nonce of a block).
    pub const BYTES8: &str = "^0x[0-9a-fA-F]{16}$";
    /// Four bytes: 0x and 8 hex digits (an EIP-2124 fork id).
    pub const BYTES4: &str = "^0x[0-9a-fA-F]{8}$";
    /// A 256-byte logs bloom.
    pub const BLOOM: &str = "^0x[0-9a-fA-F]{512}$";
    /// Arbitrary bytes, two hex digits each.
    pub const BYTES: &str = "^0x([0-9a-fA-F]{2})*$";
    /// An unsigned integer in hex without leading zeros.
    pub const QUANTITY: &str = "^0x(0|[1-9a-f][0-9a-f]*)$";
    /// A non-negative integer in decimal digits.
    pub const DECIMAL: &str = "^[0-9]+$";
    /// A decimal number as text, as Rust's `f64` display writes it.
    pub const DECIMAL_FRACTION: &str = "^-?[0-9]+(\\.[0-9]+)?$";
}

#[cfg(feature = "schema")]
fn string_pattern(pattern: &str) -> Schema {
    json_schema!({ "type": "string", "pattern": pattern })
}

// ---------------------------------------------------------------- Hex

/// Ethereum JSON-RPC hex: fixed-size data and addresses as `0x` + hex digits,
/// quantities (`u8`, `u64`, `u128`, `U256`) as `0x` + hex without leading zeros.
pub struct Hex;

macro_rules! hex_via_alloy_serde {
    ($($ty:ty => $pattern:expr),* $(,)?) => {$(
        impl SerializeAs<$ty> for Hex {
            fn serialize_as<S: Serializer>(value: &$ty, serializer: S) -> Result<S::Ok, S::Error> {
                value.serialize(serializer)
            }
        }
        impl<'de> DeserializeAs<'de, $ty> for Hex {
            fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                <$ty>::deserialize(deserializer)
            }
        }
        #[cfg(feature = "schema")]
        impl JsonSchemaAs<$ty> for Hex {
            fn inline_schema() -> bool { true }
            fn schema_name() -> std::borrow::Cow<'static, str> { stringify!($ty).into() }
            fn json_schema(_: &mut SchemaGenerator) -> Schema { string_pattern($pattern) }
        }
    )*};
}

hex_via_alloy_serde! {
    Address => pattern::ADDRESS,
    B256 => pattern::HASH32,
    B64 => pattern::BYTES8,
    FixedBytes<4> => pattern::BYTES4,
    Bloom => pattern::BLOOM,
    Bytes => pattern::BYTES,
    U256 => pattern::QUANTITY,
}

macro_rules! hex_quantity {
    ($($ty:ty),* $(,)?) => {$(
        impl SerializeAs<$ty> for Hex {
            fn serialize_as<S: Serializer>(value: &$ty, serializer: S) -> Result<S::Ok, S::Error> {
                alloy_serde::quantity::serialize(value, serializer)
            }
        }
        impl<'de> DeserializeAs<'de, $ty> for Hex {
            fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<$ty, D::Error> {
                alloy_serde::quantity::deserialize(deserializer)
            }
        }
        #[cfg(feature = "schema")]
        impl JsonSchemaAs<$ty> for Hex {
            fn inline_schema() -> bool { true }
            fn schema_name() -> std::borrow::Cow<'static, str> { "Quantity".into() }
            fn json_schema(_: &mut SchemaGenerator) -> Schema { string_pattern(pattern::QUANTITY) }
        }
    )*};
}

hex_quantity!(u8, u64, u128);

// ---------------------------------------------------------------- numbers

/// What a JSON number or a numeric string has to become.
pub trait Numeric: Sized + fmt::Display + Copy {
    /// `"integer"` or `"number"`, for the schema.
    const JSON_TYPE: &'static str;
    /// What the decoder says it expected when the input is wrong.
    const EXPECTING: &'static str;
    /// The value of a JSON unsigned integer, if it fits.
    fn from_u64(value: u64) -> Option<Self>;
    /// The value of a JSON negative integer, if it fits.
    fn from_i64(value: i64) -> Option<Self>;
    /// The value of a JSON number that is not an integer literal, if this type takes it.
    fn from_f64(value: f64) -> Option<Self>;
    /// The value of a numeric string.
    fn parse(text: &str) -> Option<Self>;
    /// Writes the value as a JSON number.
    fn serialize_number<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error>;
    /// Writes the value as a JSON string of its decimal text.
    fn serialize_text<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(&self)
    }
}

/// Largest integer an `f64` carries exactly.
const F64_EXACT_INTEGER: f64 = 9_007_199_254_740_992.0;

macro_rules! numeric_unsigned {
    ($($ty:ty),*) => {$(
        impl Numeric for $ty {
            const JSON_TYPE: &'static str = "integer";
            const EXPECTING: &'static str =
                concat!("a non-negative integer (", stringify!($ty), ") as a number or a string of decimal digits");
            fn from_u64(value: u64) -> Option<Self> { value.try_into().ok() }
            fn from_i64(value: i64) -> Option<Self> { value.try_into().ok() }
            fn from_f64(value: f64) -> Option<Self> {
                // A float is accepted only when it is an integer the f64 holds exactly.
                if value.fract() == 0.0 && (0.0..=F64_EXACT_INTEGER).contains(&value) {
                    Self::from_u64(value as u64)
                } else {
                    None
                }
            }
            fn parse(text: &str) -> Option<Self> {
                if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
                    text.parse().ok()
                } else {
                    None
                }
            }
            fn serialize_number<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_u64(self.into())
            }
            // Digits written at once: through `Display`, a serializer
            // escapes every piece the formatter hands it.
            fn serialize_text<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(itoa::Buffer::new().format(self))
            }
        }
    )*};
}

numeric_unsigned!(u8, u32, u64);

impl Numeric for f64 {
    const JSON_TYPE: &'static str = "number";
    const EXPECTING: &'static str = "a finite number, as a JSON number or a numeric string";
    fn from_u64(value: u64) -> Option<Self> {
        Some(value as f64)
    }
    fn from_i64(value: i64) -> Option<Self> {
        Some(value as f64)
    }
    fn from_f64(value: f64) -> Option<Self> {
        value.is_finite().then_some(value)
    }
    fn parse(text: &str) -> Option<Self> {
        // `f64::from_str` also takes "inf" and "NaN"; neither is a price.
        text.trim().parse::<f64>().ok().filter(|v| v.is_finite())
    }
    fn serialize_number<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_f64(self)
    }
}

impl Numeric for U256 {
    const JSON_TYPE: &'static str = "integer";
    const EXPECTING: &'static str = "a non-negative integer below 2^256 as a string of decimal digits";
    fn from_u64(value: u64) -> Option<Self> {
        Some(U256::from(value))
    }
    fn from_i64(value: i64) -> Option<Self> {
        u64::try_from(value).ok().map(U256::from)
    }
    fn from_f64(_: f64) -> Option<Self> {
        // A raw balance that went through a float has already lost digits.
        None
    }
    fn parse(text: &str) -> Option<Self> {
        if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
            U256::from_str_radix(text, 10).ok()
        } else {
            None
        }
    }
    fn serialize_number<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
        // U256 has no JSON number form that survives every parser; write text.
        self.serialize_text(serializer)
    }
    fn serialize_text<S: Serializer>(self, serializer: S) -> Result<S::Ok, S::Error> {
        crate::units::write_decimal(self, |digits| serializer.serialize_str(digits))
    }
}

/// Decodes a `T` from a JSON number or from a string that holds one.
struct NumericVisitor<T>(PhantomData<T>);

impl<'de, T: Numeric> Visitor<'de> for NumericVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(T::EXPECTING)
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        T::from_u64(v).ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(v), &self))
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        T::from_i64(v).ok_or_else(|| E::invalid_value(de::Unexpected::Signed(v), &self))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        T::from_f64(v).ok_or_else(|| E::invalid_value(de::Unexpected::Float(v), &self))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        T::parse(v).ok_or_else(|| E::invalid_value(de::Unexpected::Str(v), &self))
    }
}

/// A JSON number; numeric strings are accepted on input.
pub struct Num;

/// A JSON number; the spec (and this schema) also allow a numeric string,
/// because the interface types the field as "number or string".
pub struct NumOrStr;

/// An integer written as a string of decimal digits; JSON integers are
/// accepted on input.
pub struct DecStr;

/// A decimal number written as a string (`"8.125"`); JSON numbers and
/// e-notation are accepted on input.
pub struct FloatStr;

macro_rules! numeric_adapter {
    ($adapter:ident, encode = $encode:ident, schema = $schema:expr) => {
        impl<T: Numeric> SerializeAs<T> for $adapter {
            fn serialize_as<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
                $encode(*value, serializer)
            }
        }
        impl<'de, T: Numeric> DeserializeAs<'de, T> for $adapter {
            fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
                deserializer.deserialize_any(NumericVisitor(PhantomData))
            }
        }
        #[cfg(feature = "schema")]
        impl<T: Numeric> JsonSchemaAs<T> for $adapter {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                format!("{}<{}>", stringify!($adapter), T::JSON_TYPE).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

numeric_adapter!(Num, encode = as_number, schema = number_schema::<T>());
numeric_adapter!(NumOrStr, encode = as_number, schema = number_or_string_schema::<T>());
numeric_adapter!(DecStr, encode = as_text, schema = string_pattern(pattern::DECIMAL));
numeric_adapter!(FloatStr, encode = as_text, schema = string_pattern(pattern::DECIMAL_FRACTION));

fn as_number<T: Numeric, S: Serializer>(value: T, serializer: S) -> Result<S::Ok, S::Error> {
    value.serialize_number(serializer)
}

fn as_text<T: Numeric, S: Serializer>(value: T, serializer: S) -> Result<S::Ok, S::Error> {
    value.serialize_text(serializer)
}

#[cfg(feature = "schema")]
fn number_schema<T: Numeric>() -> Schema {
    if T::JSON_TYPE == "integer" {
        json_schema!({ "type": "integer", "minimum": 0 })
    } else {
        json_schema!({ "type": "number" })
    }
}

#[cfg(feature = "schema")]
fn number_or_string_schema<T: Numeric>() -> Schema {
    let text = if T::JSON_TYPE == "integer" { pattern::DECIMAL } else { "^-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?$" };
    json_schema!({ "anyOf": [number_schema::<T>(), string_pattern(text)] })
}

// ------------------------------------------------------------------ dates

/// A date as chrono writes it (`2026-01-01T00:00:00Z`, fractions only when
/// there are any), written at once for whole seconds in years 0 to 9999:
/// every block time, and a page of history holds hundreds. Through
/// `Display`, a serializer escapes each of the formatter's pieces.
pub struct Date;

impl SerializeAs<DateTime<Utc>> for Date {
    fn serialize_as<S: Serializer>(value: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
        match whole_second_text(value) {
            Some(text) => serializer.serialize_str(std::str::from_utf8(&text).map_err(serde::ser::Error::custom)?),
            None => value.serialize(serializer),
        }
    }
}

/// `YYYY-MM-DDTHH:MM:SSZ`, when the date is a whole second of a four-digit year.
fn whole_second_text(value: &DateTime<Utc>) -> Option<[u8; 20]> {
    use chrono::{Datelike, Timelike};
    if value.nanosecond() != 0 || !(0..=9999).contains(&value.year()) {
        return None;
    }
    let mut text = *b"0000-00-00T00:00:00Z";
    let mut put = |at: usize, number: u32, digits: usize| {
        for i in 0..digits {
            text[at + digits - 1 - i] = b'0' + (number / 10u32.pow(i as u32) % 10) as u8;
        }
    };
    put(0, value.year() as u32, 4);
    put(5, value.month(), 2);
    put(8, value.day(), 2);
    put(11, value.hour(), 2);
    put(14, value.minute(), 2);
    put(17, value.second(), 2);
    Some(text)
}

impl<'de> DeserializeAs<'de, DateTime<Utc>> for Date {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
        DateTime::<Utc>::deserialize(deserializer)
    }
}

#[cfg(feature = "schema")]
impl JsonSchemaAs<DateTime<Utc>> for Date {
    fn inline_schema() -> bool {
        <DateTime<Utc> as JsonSchema>::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <DateTime<Utc> as JsonSchema>::schema_name()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        <DateTime<Utc> as JsonSchema>::json_schema(generator)
    }
}

// ---------------------------------------------------------------- booleans

/// A JSON boolean; `"true"` and `"false"` are accepted on input.
pub struct Flag;

/// A JSON boolean; the spec (and this schema) also allow `"true"`/`"false"`,
/// because the interface types the field as "boolean or string".
pub struct FlagOrStr;

struct FlagVisitor;

impl Visitor<'_> for FlagVisitor {
    type Value = bool;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(r#"a boolean, or the string "true" or "false""#)
    }
    fn visit_bool<E: de::Error>(self, v: bool) -> Result<bool, E> {
        Ok(v)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<bool, E> {
        match v {
            "true" => Ok(true),
            "false" => Ok(false),
            other => Err(E::invalid_value(de::Unexpected::Str(other), &self)),
        }
    }
}

macro_rules! flag_adapter {
    ($adapter:ty, $schema:expr) => {
        impl SerializeAs<bool> for $adapter {
            fn serialize_as<S: Serializer>(value: &bool, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_bool(*value)
            }
        }
        impl<'de> DeserializeAs<'de, bool> for $adapter {
            fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
                deserializer.deserialize_any(FlagVisitor)
            }
        }
        #[cfg(feature = "schema")]
        impl JsonSchemaAs<bool> for $adapter {
            fn inline_schema() -> bool {
                true
            }
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($adapter).into()
            }
            fn json_schema(_: &mut SchemaGenerator) -> Schema {
                $schema
            }
        }
    };
}

flag_adapter!(Flag, json_schema!({ "type": "boolean" }));
flag_adapter!(
    FlagOrStr,
    json_schema!({ "anyOf": [{ "type": "boolean" }, { "type": "string", "enum": ["true", "false"] }] })
);

// ---------------------------------------------------------------- JSON text

/// A JSON object; a string that holds a serialized JSON object is accepted on
/// input (the interface types some fields as "object or string").
pub struct ObjectOrJsonText;

impl<T: Serialize> SerializeAs<T> for ObjectOrJsonText {
    fn serialize_as<S: Serializer>(value: &T, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }
}

impl<'de, T: DeserializeOwned> DeserializeAs<'de, T> for ObjectOrJsonText {
    fn deserialize_as<D: Deserializer<'de>>(deserializer: D) -> Result<T, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Text(String),
            Object(serde_json::Map<String, serde_json::Value>),
        }
        let object = match Form::deserialize(deserializer)? {
            Form::Object(object) => object,
            Form::Text(text) => serde_json::from_str(&text)
                .map_err(|e| de::Error::custom(format_args!("a string holding a JSON object: {e}")))?,
        };
        T::deserialize(serde_json::Value::Object(object)).map_err(de::Error::custom)
    }
}

#[cfg(feature = "schema")]
impl<T: JsonSchema> JsonSchemaAs<T> for ObjectOrJsonText {
    fn inline_schema() -> bool {
        T::inline_schema()
    }
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }
    fn schema_id() -> std::borrow::Cow<'static, str> {
        T::schema_id()
    }
    fn json_schema(generator: &mut SchemaGenerator) -> Schema {
        T::json_schema(generator)
    }
}

// ---------------------------------------------------------------- helpers for FromStr types

/// Deserializes a type through its `FromStr`, so that the error names the
/// accepted values (used by enums such as [`crate::Chain`]).
pub(crate) fn deserialize_from_str<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: FromStr,
    T::Err: fmt::Display,
{
    let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
    text.parse().map_err(de::Error::custom)
}

/// Implements, for types written as their `Display` text and read through
/// their `FromStr`, `TryFrom<&str>` and `TryFrom<String>` (which request
/// builders take values through) and serde, decoding with
/// [`deserialize_from_str`] so that errors name the accepted forms.
macro_rules! text_form {
    ($($ty:ty),* $(,)?) => {$(
        impl TryFrom<&str> for $ty {
            type Error = <$ty as std::str::FromStr>::Err;

            fn try_from(text: &str) -> Result<Self, Self::Error> {
                text.parse()
            }
        }

        impl TryFrom<String> for $ty {
            type Error = <$ty as std::str::FromStr>::Err;

            fn try_from(text: String) -> Result<Self, Self::Error> {
                text.parse()
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.collect_str(self)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                $crate::wire::deserialize_from_str(deserializer)
            }
        }
    )*};
}

pub(crate) use text_form;

#[cfg(test)]
mod tests {
    use chrono::TimeZone;
    use serde::{Deserialize, Serialize};
    use serde_json::json;
    use serde_with::serde_as;

    use super::*;

    #[serde_as]
    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        #[serde_as(as = "Num")]
        count: u64,
        #[serde_as(as = "NumOrStr")]
        decimals: u8,
        #[serde_as(as = "Num")]
        price: f64,
        #[serde_as(as = "DecStr")]
        balance: U256,
        #[serde_as(as = "FloatStr")]
        change: f64,
        #[serde_as(as = "Flag")]
        flag: bool,
        #[serde_as(as = "Option<Hex>")]
        gas: Option<u64>,
    }

    fn decode(value: serde_json::Value) -> Result<Sample, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    fn canonical() -> serde_json::Value {
        json!({
            "count": 7, "decimals": 18, "price": 0.000012, "balance": "340282366920938463463374607431768211456",
            "change": "-0.25", "flag": true, "gas": "0x5208"
        })
    }

    #[test]
    fn canonical_form_round_trips() {
        let sample = decode(canonical()).unwrap();
        assert_eq!(sample.balance, U256::from(1u128 << 64).pow(U256::from(2)));
        assert_eq!(sample.gas, Some(21000));
        assert_eq!(serde_json::to_value(&sample).unwrap(), canonical());
    }

    #[test]
    fn production_forms_decode_to_the_same_value() {
        let production = json!({
            "count": "7", "decimals": "18", "price": "1.2e-5", "balance": "340282366920938463463374607431768211456",
            "change": -0.25, "flag": "true", "gas": "0x5208"
        });
        assert_eq!(decode(production).unwrap(), decode(canonical()).unwrap());
    }

    #[test]
    fn floats_in_e_notation_and_integral_floats_decode() {
        let mut value = canonical();
        value["price"] = json!(1.1961341215674e-05);
        value["count"] = json!(7.0);
        let sample = decode(value).unwrap();
        assert_eq!(sample.price, 1.1961341215674e-05);
        assert_eq!(sample.count, 7);
    }

    fn rejection(field: &str, bad: serde_json::Value) -> String {
        let mut value = canonical();
        value[field] = bad;
        decode(value).expect_err("must be rejected")
    }

    #[test]
    fn bad_numbers_are_rejected_with_what_was_expected() {
        assert!(rejection("count", json!(-1)).contains("non-negative integer"));
        assert!(rejection("count", json!("12abc")).contains("\"12abc\""));
        assert!(rejection("count", json!(1.5)).contains("non-negative integer"));
        assert!(rejection("count", json!("")).contains("decimal digits"));
        assert!(rejection("decimals", json!(256)).contains("u8"));
        assert!(rejection("price", json!("NaN")).contains("finite number"));
        assert!(rejection("price", json!("inf")).contains("finite number"));
        assert!(rejection("price", json!(true)).contains("finite number"));
    }

    #[test]
    fn raw_amounts_are_never_taken_from_floats_or_hex() {
        assert!(rejection("balance", json!(1e21)).contains("2^256"));
        assert!(rejection("balance", json!("0x10")).contains("decimal digits"));
        assert!(rejection("balance", json!("-5")).contains("decimal digits"));
        let too_big = "115792089237316195423570985008687907853269984665640564039457584007913129639936";
        assert!(rejection("balance", json!(too_big)).contains("2^256"));
    }

    #[test]
    fn flags_take_only_true_and_false() {
        assert!(rejection("flag", json!("yes")).contains(r#""true" or "false""#));
        assert!(rejection("flag", json!(1)).contains("boolean"));
    }

    #[test]
    fn float_text_is_written_without_exponent() {
        let mut sample = decode(canonical()).unwrap();
        sample.change = 1.5e-12;
        assert_eq!(serde_json::to_value(&sample).unwrap()["change"], "0.0000000000015");
    }

    #[test]
    fn objects_also_arrive_as_json_text() {
        #[serde_as]
        #[derive(Debug, PartialEq, Deserialize)]
        struct Holder {
            #[serde_as(as = "ObjectOrJsonText")]
            inner: crate::NormalizedMetadata,
        }
        let from_text: Holder = serde_json::from_value(json!({"inner": "{\"name\":\"Mug\"}"})).unwrap();
        let from_object: Holder = serde_json::from_value(json!({"inner": {"name": "Mug"}})).unwrap();
        assert_eq!(from_text, from_object);
        assert_eq!(from_text.inner.name.as_deref(), Some("Mug"));
        let bad = serde_json::from_value::<Holder>(json!({"inner": "{not json"})).unwrap_err();
        assert!(bad.to_string().contains("a string holding a JSON object"), "{bad}");
    }

    #[serde_as]
    #[derive(Serialize)]
    struct Dated(#[serde_as(as = "Date")] DateTime<Utc>);

    #[test]
    fn dates_are_written_as_chrono_writes_them() {
        let dates = [
            Utc.with_ymd_and_hms(2026, 11, 27, 23, 5, 9).unwrap(),
            Utc.with_ymd_and_hms(1970, 1, 1, 0, 0, 0).unwrap(),
            Utc.with_ymd_and_hms(9999, 12, 31, 23, 59, 59).unwrap(),
            Utc.with_ymd_and_hms(10_000, 1, 1, 0, 0, 0).unwrap(),
            Utc.timestamp_opt(1_700_000_000, 250_000_000).unwrap(),
            Utc.timestamp_opt(1_700_000_000, 1).unwrap(),
        ];
        for date in dates {
            let ours = serde_json::to_string(&Dated(date)).unwrap();
            assert_eq!(ours, serde_json::to_string(&date).unwrap(), "{date:?}");
            assert_eq!(serde_json::from_str::<DateTime<Utc>>(&ours).unwrap(), date, "read back");
        }
    }
}
