//! Filters a dApp installs and polls (`eth_newFilter`,
//! `eth_newBlockFilter`, `eth_getFilterChanges`, `eth_getFilterLogs`,
//! `eth_uninstallFilter`), kept as geth keeps them: a filter reports what
//! the blocks after its last poll hold, and one not polled for five
//! minutes is dropped. Snapshots and reverts leave filters alone; a filter
//! polled after a revert starts again from the chain's newest block.
//!
//! Each API key keeps at most [`FILTERS_PER_KEY`] filters. Filters are
//! found by id and expire in the order they were last polled, so that
//! installing or polling one costs the same however many are kept.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use parking_lot::Mutex;
use w3api_source::{BlockRef, LogQuery, SourceError};
use w3api_types::rpc::{BlockNumberOrTag, FilterChanges, FilterId, Log, LogFilter};
use w3api_types::{B256, Chain};

use crate::generate::ChainData;

/// How long a filter lives without a poll, as in geth.
const UNPOLLED_LIFETIME: Duration = Duration::from_secs(300);

/// Most logs one poll returns, as `eth_getLogs` on the gateway.
const MAX_LOGS: usize = 10_000;

/// Most filters one API key keeps installed, over every chain.
pub const FILTERS_PER_KEY: usize = 10_000;

/// Most transaction hashes a pending-transaction filter keeps between polls.
const PENDING_KEPT: usize = 10_000;

#[derive(Clone, Debug)]
enum Watching {
    Blocks,
    Logs(LogFilter),
    /// The transactions accepted since the last poll, oldest first.
    Pending(VecDeque<B256>),
}

#[derive(Clone, Debug)]
struct Installed {
    chain: Chain,
    /// The API key that installed it.
    owner: Arc<str>,
    watching: Watching,
    /// The newest block already reported.
    reported: u64,
    polled: Instant,
}

/// The devnet's installed filters, on every chain.
#[derive(Debug, Default)]
pub(crate) struct Filters {
    kept: Mutex<Kept>,
}

#[derive(Debug, Default)]
struct Kept {
    last_id: u64,
    installed: HashMap<u64, Installed>,
    /// Each filter by when it was last polled: the first expire first.
    by_poll: BTreeSet<(Instant, u64)>,
    per_owner: HashMap<Arc<str>, usize>,
}

impl Kept {
    /// Drops the filters not polled for [`UNPOLLED_LIFETIME`].
    fn expire(&mut self, now: Instant) {
        while let Some(&(polled, id)) = self.by_poll.first()
            && now.duration_since(polled) >= UNPOLLED_LIFETIME
        {
            self.remove(id);
        }
    }

    fn remove(&mut self, id: u64) -> Option<Installed> {
        let filter = self.installed.remove(&id)?;
        self.by_poll.remove(&(filter.polled, id));
        if let Some(count) = self.per_owner.get_mut(&filter.owner) {
            *count -= 1;
            if *count == 0 {
                self.per_owner.remove(&filter.owner);
            }
        }
        Some(filter)
    }

    /// Filter `id` of `chain`, marked polled now.
    fn poll(&mut self, chain: Chain, id: &FilterId) -> Result<&mut Installed, SourceError> {
        let now = Instant::now();
        self.expire(now);
        let Kept { installed, by_poll, .. } = self;
        let number = parse(id).ok_or_else(|| not_found(id))?;
        let filter = installed.get_mut(&number).filter(|f| f.chain == chain).ok_or_else(|| not_found(id))?;
        by_poll.remove(&(filter.polled, number));
        by_poll.insert((now, number));
        filter.polled = now;
        Ok(filter)
    }
}

fn not_found(id: &FilterId) -> SourceError {
    SourceError::InvalidRequest(format!("filter {} not found", id.0))
}

fn parse(id: &FilterId) -> Option<u64> {
    u64::from_str_radix(id.0.strip_prefix("0x")?, 16).ok()
}

impl Filters {
    /// Installs a filter of new logs, or of new blocks when `filter` is
    /// `None`, kept for the API key `owner`.
    pub(crate) fn install(
        &self,
        data: &ChainData,
        owner: &str,
        filter: Option<LogFilter>,
    ) -> Result<FilterId, SourceError> {
        if filter.as_ref().is_some_and(|f| f.block_hash.is_some()) {
            return Err(SourceError::InvalidRequest(
                "blockHash: a filter follows new blocks; eth_getLogs reads the logs of one block".into(),
            ));
        }
        self.install_watching(data, owner, filter.map_or(Watching::Blocks, Watching::Logs))
    }

    /// Installs a filter of the transactions the chain accepts from now on.
    pub(crate) fn install_pending(&self, data: &ChainData, owner: &str) -> Result<FilterId, SourceError> {
        self.install_watching(data, owner, Watching::Pending(VecDeque::new()))
    }

    /// Tells the pending-transaction filters of `chain` that it accepted `hash`.
    pub(crate) fn accepted(&self, chain: Chain, hash: B256) {
        let mut kept = self.kept.lock();
        for filter in kept.installed.values_mut().filter(|filter| filter.chain == chain) {
            if let Watching::Pending(hashes) = &mut filter.watching {
                if hashes.len() >= PENDING_KEPT {
                    hashes.pop_front();
                }
                hashes.push_back(hash);
            }
        }
    }

    fn install_watching(&self, data: &ChainData, owner: &str, watching: Watching) -> Result<FilterId, SourceError> {
        let now = Instant::now();
        let mut kept = self.kept.lock();
        kept.expire(now);
        let owned = kept.per_owner.get(owner).copied().unwrap_or_default();
        if owned >= FILTERS_PER_KEY {
            return Err(SourceError::InvalidRequest(format!(
                "this API key keeps {owned} filters, the most one key may: uninstall some (eth_uninstallFilter), \
                 or leave them unpolled for {} s, after which they are dropped",
                UNPOLLED_LIFETIME.as_secs()
            )));
        }
        kept.last_id += 1;
        let id = kept.last_id;
        let owner: Arc<str> = kept.per_owner.get_key_value(owner).map_or_else(|| owner.into(), |(key, _)| key.clone());
        *kept.per_owner.entry(owner.clone()).or_default() += 1;
        let filter = Installed { chain: data.chain, owner, watching, reported: data.latest(), polled: now };
        kept.installed.insert(id, filter);
        kept.by_poll.insert((now, id));
        Ok(FilterId(format!("{id:#x}")))
    }

    /// What the blocks since the last poll hold for filter `id`.
    pub(crate) fn changes(&self, data: &ChainData, id: &FilterId) -> Result<FilterChanges, SourceError> {
        let mut kept = self.kept.lock();
        let filter = kept.poll(data.chain, id)?;
        let head = data.latest();
        let from = filter.reported.min(head) + 1;
        let changes = match &mut filter.watching {
            Watching::Pending(hashes) => FilterChanges::Hashes(std::mem::take(hashes).into()),
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
        let filter = self.kept.lock().poll(data.chain, id)?.watching.clone();
        let logs = match filter {
            Watching::Logs(logs) => logs,
            Watching::Blocks => {
                return Err(SourceError::InvalidRequest(format!(
                    "filter {} is a block filter, which has no logs",
                    id.0
                )));
            }
            Watching::Pending(_) => {
                let message = format!("filter {} is a pending-transaction filter, which has no logs", id.0);
                return Err(SourceError::InvalidRequest(message));
            }
        };
        // Without a fromBlock, the newest block, as geth reads it.
        let (start, end) = range(data, &logs, data.latest())?;
        let end = end.min(data.latest());
        if start > end { Ok(Vec::new()) } else { read(data, &logs, start, end) }
    }

    /// Removes filter `id`; whether there was one.
    pub(crate) fn uninstall(&self, chain: Chain, id: &FilterId) -> bool {
        let mut kept = self.kept.lock();
        kept.expire(Instant::now());
        let Some(number) = parse(id) else { return false };
        kept.installed.get(&number).is_some_and(|f| f.chain == chain) && kept.remove(number).is_some()
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
