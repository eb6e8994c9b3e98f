//! `eth_subscribe` over the gateway's WebSocket: what a subscription
//! follows, its second parameter, and its id.

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::LogFilter;

/// What a subscription follows, as geth names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub enum SubscriptionKind {
    /// Each new block's header, in chain order.
    NewHeads,
    /// Each new log a filter's addresses and topics pass; a log of a
    /// dropped block again, with `removed: true`.
    Logs,
    /// Each transaction entering the pending pool: its hash, or the whole
    /// transaction when the second parameter is `true`.
    NewPendingTransactions,
    /// Each change of `eth_syncing`'s answer.
    Syncing,
}

/// The second parameter of `eth_subscribe`: a `logs` subscription's filter,
/// or whether `newPendingTransactions` delivers whole transactions.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum SubscriptionOptions {
    /// `newPendingTransactions`: whole transactions rather than hashes.
    FullTransactions(bool),
    /// `logs`: the addresses and topics a log must pass (no block range:
    /// a subscription follows new blocks).
    Filter(LogFilter),
}

/// A subscription's id, as `eth_subscribe` answered it: hex, random, unique
/// on its connection.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct SubscriptionId(
    #[cfg_attr(feature = "schema", schemars(regex(pattern = r"^0x[0-9a-fA-F]{1,64}$")))] pub String,
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rpc::AddressFilter;

    #[test]
    fn every_form_of_the_second_parameter_reads() {
        let full: SubscriptionOptions = serde_json::from_str("true").unwrap();
        assert_eq!(full, SubscriptionOptions::FullTransactions(true));
        let filter: SubscriptionOptions =
            serde_json::from_str(r#"{"address":"0x00000000000000000000000000000000000000aa"}"#).unwrap();
        let SubscriptionOptions::Filter(filter) = filter else { panic!("a filter") };
        assert!(matches!(filter.address, Some(AddressFilter::One(_))));
        let kind: SubscriptionKind = serde_json::from_str(r#""newPendingTransactions""#).unwrap();
        assert_eq!(kind, SubscriptionKind::NewPendingTransactions);
        assert!(serde_json::from_str::<SubscriptionKind>(r#""newBlocks""#).is_err());
    }
}
