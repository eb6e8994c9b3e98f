//! Filters a client installs and polls (`eth_newFilter` and the rest),
//! each kept for the API key that made it.

use std::future::Future;

use w3api_types::Chain;
use w3api_types::rpc::{FilterChanges, FilterId, Log, LogFilter};

use crate::SourceError;

/// What a filter of changes reports: `eth_newBlockFilter`'s blocks or
/// `eth_newPendingTransactionFilter`'s transactions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChangeFilter {
    /// The hash of each new block.
    Blocks,
    /// The hash of each transaction the chain accepts.
    PendingTransactions,
}

/// Filters of logs, blocks and pending transactions.
pub trait Filters: Send + Sync {
    /// A new log filter, kept for the API key `owner` (a source may cap
    /// how many each key keeps).
    fn new_filter(
        &self,
        chain: Chain,
        owner: String,
        filter: LogFilter,
    ) -> impl Future<Output = Result<FilterId, SourceError>> + Send {
        let _ = (chain, owner, filter);
        crate::not_executed()
    }

    /// A new filter of blocks or of the transactions the chain accepts, as
    /// `kind` says, kept for the API key `owner`.
    fn new_change_filter(
        &self,
        chain: Chain,
        owner: String,
        kind: ChangeFilter,
    ) -> impl Future<Output = Result<FilterId, SourceError>> + Send {
        let _ = (chain, owner, kind);
        crate::not_executed()
    }

    /// What a filter saw since it was last polled.
    fn filter_changes(
        &self,
        chain: Chain,
        id: FilterId,
    ) -> impl Future<Output = Result<FilterChanges, SourceError>> + Send {
        let _ = (chain, id);
        crate::not_executed()
    }

    /// Every log a log filter matches.
    fn filter_logs(&self, chain: Chain, id: FilterId) -> impl Future<Output = Result<Vec<Log>, SourceError>> + Send {
        let _ = (chain, id);
        crate::not_executed()
    }

    /// Removes a filter; whether it existed.
    fn uninstall_filter(&self, chain: Chain, id: FilterId) -> impl Future<Output = Result<bool, SourceError>> + Send {
        let _ = (chain, id);
        crate::not_executed()
    }
}
