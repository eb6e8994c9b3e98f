//! The two page shapes the listings share, one generic type each, so that a
//! listing's page is named by what it lists: numbered pages of the Data API,
//! and counted pages of the streams API. Each instance's schema is named
//! `{item}Page` (the drift check compares shapes, not names).

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use crate::wire;

/// One page of a Data API listing: its number and size, the cursor of the
/// next page, and its items.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(rename = "{T}Page"))]
pub struct NumberedPage<T> {
    /// Number of this page, from 0.
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page: u64,
    /// Number of items a full page holds.
    #[serde_as(as = "wire::NumOrStr")]
    #[serde(default)]
    pub page_size: u64,
    /// Cursor of the next page; `None` on the last page.
    #[serde(default)]
    pub cursor: Option<String>,
    /// The items of this page.
    pub result: Vec<T>,
}

/// One page of a streams API listing: its items, the cursor of the next
/// page, and how many items the listing has in all.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema), schemars(rename = "{T}Page"))]
pub struct CountedPage<T> {
    /// The items of this page.
    pub result: Vec<T>,
    /// The next page's cursor; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
    /// How many items the listing has, across pages.
    pub total: u64,
}
