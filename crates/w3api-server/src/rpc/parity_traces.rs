//! What the gateway checks of the `trace_*` methods before a source runs
//! them: the blocks a `trace_filter` spans and its lists of addresses, and
//! the trace types a replay records.

use jsonrpsee::core::RpcResult;
use w3api_rpc::limits::{TRACE_FILTER_FROM_ADDRESS_MAX_ITEMS, TRACE_FILTER_TO_ADDRESS_MAX_ITEMS};
use w3api_source::BlockRef;
use w3api_types::rpc::{BlockNumberOrTag, TraceFilter, TraceType};

use super::{Gateway, invalid_params};
use crate::Backend;

/// Most blocks one `trace_filter` may span, reth's default: each block is
/// run again to trace it.
pub(crate) const MAX_TRACE_FILTER_RANGE: u64 = 100;

impl<S: Backend> Gateway<S> {
    /// `filter` with its range resolved to block numbers (block 0 to the
    /// latest when absent), once the range and its lists are within bounds.
    pub(super) async fn resolved_trace_filter(&self, mut filter: TraceFilter) -> RpcResult<TraceFilter> {
        for (name, list, most) in [
            ("fromAddress", &filter.from_address, TRACE_FILTER_FROM_ADDRESS_MAX_ITEMS),
            ("toAddress", &filter.to_address, TRACE_FILTER_TO_ADDRESS_MAX_ITEMS),
        ] {
            if list.len() > most {
                return Err(invalid_params(format!(
                    "filter.{name}: {} addresses; at most {most} per call",
                    list.len()
                )));
            }
        }
        let from = match filter.from_block {
            None => 0,
            Some(block) => self.trace_filter_bound(block, "filter.fromBlock").await?,
        };
        let to = match filter.to_block {
            None => self.existing_block(BlockRef::Latest, "filter.toBlock").await?,
            Some(block) => self.trace_filter_bound(block, "filter.toBlock").await?,
        };
        if from > to {
            return Err(invalid_params(format!("filter: fromBlock {from:#x} is after toBlock {to:#x}")));
        }
        let span = (to - from).saturating_add(1);
        if span > MAX_TRACE_FILTER_RANGE {
            return Err(invalid_params(format!(
                "filter: the range {from:#x}..{to:#x} spans {span} blocks; at most {MAX_TRACE_FILTER_RANGE} per call"
            )));
        }
        filter.from_block = Some(BlockNumberOrTag::Number(from));
        filter.to_block = Some(BlockNumberOrTag::Number(to));
        Ok(filter)
    }

    /// A block of a `trace_filter`'s range: a number as given (a range may
    /// reach past the newest block, where there is nothing yet), a tag as
    /// the gateway sees it.
    async fn trace_filter_bound(&self, block: BlockNumberOrTag, what: &str) -> RpcResult<u64> {
        match BlockRef::from(block) {
            BlockRef::Number(number) => Ok(number),
            tag => self.existing_block(tag, what).await,
        }
    }
}

/// The trace types asked for, each once, in a fixed order.
pub(super) fn trace_types(mut types: Vec<TraceType>) -> Vec<TraceType> {
    types.sort_unstable();
    types.dedup();
    types
}
