//! The block at a date (`GET /api/v2.2/dateToBlock`).

use std::fmt;
use std::str::FromStr;

use alloy_primitives::B256;
use chrono::{DateTime, FixedOffset, NaiveDate, Utc};
#[cfg(feature = "schema")]
use schemars::{JsonSchema, Schema, SchemaGenerator, json_schema};
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// The last block at or before a date.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct BlockDate {
    /// The date asked, with its offset.
    pub date: DateTime<FixedOffset>,
    /// The block's number.
    #[serde_as(as = "wire::Num")]
    pub block: u64,
    /// The block's time, Unix seconds.
    #[serde_as(as = "wire::Num")]
    pub timestamp: u64,
    /// The block's time.
    #[serde_as(as = "wire::Date")]
    pub block_timestamp: DateTime<Utc>,
    /// The block's hash.
    #[serde_as(as = "wire::Hex")]
    pub hash: B256,
    /// Its parent's hash.
    #[serde_as(as = "wire::Hex")]
    pub parent_hash: B256,
}

/// A date as `getDateToBlock` takes it: Unix seconds, an RFC 3339
/// date-time (its offset kept), or a full date (its midnight UTC).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DateInput(pub DateTime<FixedOffset>);

/// Text that is none of the forms of [`DateInput`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not Unix seconds, an RFC 3339 date-time (2024-10-19T03:39:11Z) or a date (2024-10-19)")]
pub struct InvalidDate(pub String);

impl FromStr for DateInput {
    type Err = InvalidDate;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = || InvalidDate(text.to_string());
        if (1..=12).contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit()) {
            let seconds = text.parse::<i64>().map_err(|_| invalid())?;
            return DateTime::from_timestamp(seconds, 0).map(|d| DateInput(d.fixed_offset())).ok_or_else(invalid);
        }
        DateTime::parse_from_rfc3339(text)
            .ok()
            .or_else(|| {
                let midnight = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?.and_hms_opt(0, 0, 0)?;
                Some(midnight.and_utc().fixed_offset())
            })
            .map(DateInput)
            .ok_or_else(invalid)
    }
}

impl From<DateTime<Utc>> for DateInput {
    fn from(date: DateTime<Utc>) -> Self {
        DateInput(date.fixed_offset())
    }
}

/// RFC 3339, with the offset it was given.
impl fmt::Display for DateInput {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339())
    }
}

wire::text_form!(DateInput);

#[cfg(feature = "schema")]
impl JsonSchema for DateInput {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "DateInput".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({ "anyOf": [
            { "type": "string", "pattern": "^[0-9]{1,12}$" },
            { "type": "string", "format": "date-time" },
            { "type": "string", "format": "date" },
        ] })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_read_in_every_form_the_spec_gives() {
        let at = |text: &str| text.parse::<DateInput>().map(|d| (d.0.timestamp(), d.0.offset().local_minus_utc()));
        assert_eq!(at("1729309151"), Ok((1_729_309_151, 0)));
        assert_eq!(at("0"), Ok((0, 0)));
        assert_eq!(at("2024-10-19T03:39:11Z"), Ok((1_729_309_151, 0)));
        assert_eq!(at("2024-10-19T03:39:11.500Z"), Ok((1_729_309_151, 0)));
        assert_eq!(at("2024-10-19T05:39:11+02:00"), Ok((1_729_309_151, 7200)), "the offset is kept");
        assert_eq!(at("2024-10-19"), Ok((1_729_296_000, 0)));
        assert_eq!("2024-10-19T05:39:11+02:00".parse::<DateInput>().unwrap().to_string(), "2024-10-19T05:39:11+02:00");
    }

    #[test]
    fn anything_else_is_refused_with_the_forms_expected() {
        for bad in
            ["", "yesterday", "2024-13-01", "2024-02-30", "-5", "1729309151.5", "1234567890123", "2024-10-19T03:39:11"]
        {
            let error = bad.parse::<DateInput>().unwrap_err();
            assert!(error.to_string().contains("RFC 3339"), "{bad:?}: {error}");
        }
    }
}
