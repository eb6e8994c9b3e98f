//! The filter of `eth_getLogs`.

use alloy_primitives::{Address, B256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::BlockNumberOrTag;
use crate::wire::Hex;

/// Which logs `eth_getLogs` returns: a block range (or one block by hash),
/// the emitting contracts, and the topics by position.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct LogFilter {
    /// First block of the range; `latest` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from_block: Option<BlockNumberOrTag>,
    /// Last block of the range; `latest` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_block: Option<BlockNumberOrTag>,
    /// Only this block; excludes `fromBlock` and `toBlock`.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_hash: Option<B256>,
    /// Only logs of this contract, or of any of these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<AddressFilter>,
    /// Topics by position: each entry matches anything (`null`), one topic,
    /// or any of several. Positions past the list match anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topics: Option<Vec<TopicFilter>>,
}

/// One contract address, or a list of them.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum AddressFilter {
    /// This contract.
    One(#[serde_as(as = "Hex")] Address),
    /// Any of these contracts.
    AnyOf(#[serde_as(as = "Vec<Hex>")] Vec<Address>),
}

/// What one topic position matches.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum TopicFilter {
    /// Anything (`null`).
    Any,
    /// This topic.
    One(#[serde_as(as = "Hex")] B256),
    /// Any of these topics.
    AnyOf(#[serde_as(as = "Vec<Hex>")] Vec<B256>),
}

impl AddressFilter {
    /// Whether a log of `address` passes.
    pub fn matches(&self, address: &Address) -> bool {
        match self {
            AddressFilter::One(one) => one == address,
            // An empty list names no condition, as geth reads it.
            AddressFilter::AnyOf(any) => any.is_empty() || any.contains(address),
        }
    }
}

impl TopicFilter {
    /// Whether a log whose topic at this position is `topic` passes.
    pub fn matches(&self, topic: Option<&B256>) -> bool {
        match self {
            TopicFilter::Any => true,
            TopicFilter::One(one) => topic == Some(one),
            // An empty list is a wildcard, as geth reads it.
            TopicFilter::AnyOf(any) if any.is_empty() => true,
            TopicFilter::AnyOf(any) => topic.is_some_and(|t| any.contains(t)),
        }
    }
}

impl LogFilter {
    /// Whether a log with this address and these topics passes the address
    /// and topic conditions (the block range is the caller's).
    /// As geth, a log has at least as many topics as the filter has
    /// positions, wildcards included.
    pub fn matches(&self, address: &Address, topics: &[B256]) -> bool {
        let positions = self.topics.as_ref().map_or(0, Vec::len);
        self.address.as_ref().is_none_or(|filter| filter.matches(address))
            && topics.len() >= positions
            && self.topics.iter().flatten().enumerate().all(|(position, filter)| filter.matches(topics.get(position)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_form_of_address_and_topics_decodes() {
        let filter: LogFilter = serde_json::from_str(
            r#"{"fromBlock":"0x1","toBlock":"latest","address":"0x00000000000000000000000000000000000000aa",
                "topics":[null,"0x0000000000000000000000000000000000000000000000000000000000000001",
                ["0x0000000000000000000000000000000000000000000000000000000000000002"]]}"#,
        )
        .unwrap();
        assert_eq!(filter.from_block, Some(BlockNumberOrTag::Number(1)));
        assert!(matches!(filter.address, Some(AddressFilter::One(_))));
        let topics = filter.topics.as_ref().unwrap();
        assert_eq!(topics[0], TopicFilter::Any);
        assert!(matches!(topics[1], TopicFilter::One(_)));
        assert!(matches!(topics[2], TopicFilter::AnyOf(ref list) if list.len() == 1));
        let again: LogFilter = serde_json::from_value(serde_json::to_value(&filter).unwrap()).unwrap();
        assert_eq!(again, filter);
    }

    #[test]
    fn topics_match_by_position() {
        let (a, b) = (B256::with_last_byte(1), B256::with_last_byte(2));
        let contract = Address::with_last_byte(0xaa);
        let filter = LogFilter {
            address: Some(AddressFilter::AnyOf(vec![contract])),
            topics: Some(vec![TopicFilter::Any, TopicFilter::AnyOf(vec![a, b])]),
            ..LogFilter::default()
        };
        assert!(filter.matches(&contract, &[B256::ZERO, b]));
        assert!(!filter.matches(&contract, &[B256::ZERO]), "a missing topic does not match a condition");
        assert!(!filter.matches(&Address::ZERO, &[B256::ZERO, a]));
        assert!(LogFilter::default().matches(&Address::ZERO, &[]));
    }
}
