//! Filters a dApp installs and polls (`eth_newFilter`,
//! `eth_newBlockFilter`, `eth_getFilterChanges`, `eth_getFilterLogs`,
//! `eth_uninstallFilter`), kept as geth keeps them: a filter reports what
//! the blocks after its last poll hold, and one not polled for five
//! minutes is dropped. Snapshots and reverts leave filters alone; a filter
//! polled after a revert starts again from the chain's newest block.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use w3api_source::{BlockRef, LogQuery, SourceError};
use w3api_types::Chain;
use w3api_types::rpc::{BlockNumberOrTag, FilterChanges, FilterId, Log, LogFilter};

use crate::generate::ChainData;

/// How long a filter lives without a poll, as in geth.
const UNPOLLED_LIFETIME: Duration = Duration::from_secs(300);

/// Most logs one poll returns, as `eth_getLogs` on the gateway.
const MAX_LOGS: usize = 10_000;

#[derive(Clone, Debug)]
enum Watching {
    Blocks,
    Logs(LogFilter),
}

#[derive(Clone, Debug)]
struct Installed {
    chain: Chain,
    watching: Watching,
    /// The newest block already reported.
    reported: u64,
    polled: Instant,
}

/// The devnet's installed filters, on every chain.
#[derive(Debug, Default)]
pub(crate) struct Filters {
    installed: Mutex<(u64, HashMap<u64, Installed>)>,
}

fn not_found(id: &FilterId) -> SourceError {
    SourceError::InvalidRequest(format!("filter {} not found", id.0))
}

fn parse(id: &FilterId) -> Option<u64> {
    u64::from_str_radix(id.0.strip_prefix("0x")?, 16).ok()
}

impl Filters {
    /// Installs a filter of new logs, or of new blocks when `filter` is `None`.
    pub(crate) fn install(&self, data: &ChainData, filter: Option<LogFilter>) -> Result<FilterId, SourceError> {
        if filter.as_ref().is_some_and(|f| f.block_hash.is_some()) {
            return Err(SourceError::InvalidRequest(
                "blockHash: a filter follows new blocks; eth_getLogs reads the logs of one block".into(),
            ));
        }
        let watching = filter.map_or(Watching::Blocks, Watching::Logs);
        let now = Instant::now();
        let mut guard = self.installed.lock();
        let (last_id, installed) = &mut *guard;
        installed.retain(|_, f| now.duration_since(f.polled) < UNPOLLED_LIFETIME);
        *last_id += 1;
        let filter = Installed { chain: data.chain, watching, reported: data.latest(), polled: now };
        installed.insert(*last_id, filter);
        Ok(FilterId(format!("{last_id:#x}")))
    }

    /// What the blocks since the last poll hold for filter `id`.
    pub(crate) fn changes(&self, data: &ChainData, id: &FilterId) -> Result<FilterChanges, SourceError> {
        let mut guard = self.installed.lock();
        let filter = parse(id).and_then(|id| guard.1.get_mut(&id)).filter(|f| f.chain == data.chain);
        let filter = filter.ok_or_else(|| not_found(id))?;
        let head = data.latest();
        let from = filter.reported.min(head) + 1;
        filter.polled = Instant::now();
        let changes = match &filter.watching {
            Watching::Blocks => {
                FilterChanges::Hashes((from..=head).map(|number| data.blocks[number as usize].hash).collect())
            }
            Watching::Logs(logs) => {
                // Without a fromBlock, every new block counts.
                let (start, end) = range(data, logs, 0)?;
                let (start, end) = (start.max(from), end.min(head));
                FilterChanges::Logs(if start > end { Vec::new() } else { read(data, logs, start, end)? })
            }
        };
        filter.reported = head;
        Ok(changes)
    }

    /// Every log filter `id` matches, over its whole range.
    pub(crate) fn logs(&self, data: &ChainData, id: &FilterId) -> Result<Vec<Log>, SourceError> {
        let filter = {
            let mut guard = self.installed.lock();
            let filter = parse(id).and_then(|id| guard.1.get_mut(&id)).filter(|f| f.chain == data.chain);
            let filter = filter.ok_or_else(|| not_found(id))?;
            filter.polled = Instant::now();
            filter.watching.clone()
        };
        let Watching::Logs(logs) = filter else {
            return Err(SourceError::InvalidRequest(format!("filter {} is a block filter, which has no logs", id.0)));
        };
        // Without a fromBlock, the newest block, as geth reads it.
        let (start, end) = range(data, &logs, data.latest())?;
        let end = end.min(data.latest());
        if start > end { Ok(Vec::new()) } else { read(data, &logs, start, end) }
    }

    /// Removes filter `id`; whether there was one.
    pub(crate) fn uninstall(&self, chain: Chain, id: &FilterId) -> bool {
        let mut guard = self.installed.lock();
        let Some(number) = parse(id) else { return false };
        if guard.1.get(&number).is_some_and(|f| f.chain == chain) {
            guard.1.remove(&number);
            return true;
        }
        false
    }
}

/// The blocks a log filter names now: numbers as given (a range may reach
/// past the newest block), tags resolved on the chain as it is, and
/// `from` where it names no first block.
fn range(data: &ChainData, filter: &LogFilter, from: u64) -> Result<(u64, u64), SourceError> {
    let bound = |block: Option<BlockNumberOrTag>, default: u64| match block.map(BlockRef::from) {
        None => Ok(default),
        Some(BlockRef::Number(number)) => Ok(number),
        Some(other) => data.existing_block(other),
    };
    Ok((bound(filter.from_block, from)?, bound(filter.to_block, u64::MAX)?))
}

fn read(data: &ChainData, filter: &LogFilter, from_block: u64, to_block: u64) -> Result<Vec<Log>, SourceError> {
    let query = LogQuery { chain: data.chain, from_block, to_block, filter: filter.clone(), max_logs: MAX_LOGS };
    data.rpc_logs(&query)
}
