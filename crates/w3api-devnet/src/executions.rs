//! Where the devnet's calls run (`eth_call`, `eth_estimateGas`,
//! `eth_createAccessList`, and the estimate behind an `eth_sendTransaction`
//! without gas): a fixed number of slots, each a thread beside the async
//! runtime, so that however long calls run, the runtime's threads stay free
//! for every other request. A call waits for a slot in a bounded queue;
//! past it, the call is refused as busy at once, never left to hang.
//!
//! A call reads the chain one value at a time (`query::shared_state`), so a
//! slot holds no lock that a new block waits for. Its caller dropping the
//! call's future (a client that hung up, a time budget run out) stops the
//! EVM within a few thousand steps and frees the slot.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use tokio::sync::Semaphore;
use w3api_source::SourceError;

/// What bounds the devnet's calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ExecutionLimits {
    /// Most gas a call runs with, as geth's `--rpc.gascap`: a call asking
    /// for more runs with this much.
    pub gas_cap: u64,
    /// Calls running at once, each on a thread of its own.
    pub slots: usize,
    /// Calls waiting for a slot; one more is refused as busy.
    pub queue: usize,
}

/// geth's default `--rpc.gascap`.
pub const DEFAULT_GAS_CAP: u64 = 50_000_000;

/// Calls that may wait for a slot, per slot.
const QUEUED_PER_SLOT: usize = 64;

impl Default for ExecutionLimits {
    /// geth's gas cap, a slot per core, and 64 waiting calls per slot.
    fn default() -> Self {
        let slots = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
        ExecutionLimits { gas_cap: DEFAULT_GAS_CAP, slots, queue: slots * QUEUED_PER_SLOT }
    }
}

/// The slots and their queue.
#[derive(Debug)]
pub(crate) struct Executions {
    limits: ExecutionLimits,
    slots: Arc<Semaphore>,
    waiting: AtomicUsize,
}

impl Executions {
    pub(crate) fn new(limits: ExecutionLimits) -> Executions {
        // A slot count of zero would refuse or queue every call for ever.
        let limits = ExecutionLimits { slots: limits.slots.max(1), ..limits };
        Executions { limits, slots: Arc::new(Semaphore::new(limits.slots)), waiting: AtomicUsize::new(0) }
    }

    pub(crate) fn limits(&self) -> ExecutionLimits {
        self.limits
    }

    /// Runs `work` in a slot once one is free. `work` is handed the
    /// question its EVM runs ask: whether to stop, which turns true once
    /// the returned future is dropped.
    pub(crate) async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce(&dyn Fn() -> bool) -> T + Send + 'static,
    ) -> Result<T, SourceError> {
        let slot = match self.slots.clone().try_acquire_owned() {
            Ok(slot) => slot,
            Err(_) => {
                let _waiting = self.wait()?;
                self.slots.clone().acquire_owned().await.expect("the slots are never closed")
            }
        };
        let cancelled = Arc::new(AtomicBool::new(false));
        let _cancel = CancelOnDrop(cancelled.clone());
        let running = tokio::task::spawn_blocking(move || {
            // The slot is free again only once the work has really ended.
            let _slot = slot;
            work(&|| cancelled.load(Ordering::Relaxed))
        });
        running.await.map_err(|failed| {
            tracing::error!(%failed, "a call on the devnet panicked");
            SourceError::Unavailable(format!("a call failed: {failed}"))
        })
    }

    /// A place in the queue, or the refusal when it is full.
    fn wait(&self) -> Result<Waiting<'_>, SourceError> {
        let waiting = self.waiting.fetch_add(1, Ordering::AcqRel);
        let place = Waiting(&self.waiting);
        if waiting >= self.limits.queue {
            let running = self.limits.slots - self.slots.available_permits();
            return Err(SourceError::Busy { running, waiting });
        }
        Ok(place)
    }
}

/// A call's place in the queue, given up when it gets a slot or is dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// Tells a call's EVM to stop when its caller stops waiting for it.
struct CancelOnDrop(Arc<AtomicBool>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    fn one_slot(queue: usize) -> Arc<Executions> {
        Arc::new(Executions::new(ExecutionLimits { gas_cap: DEFAULT_GAS_CAP, slots: 1, queue }))
    }

    /// Work that runs until told to stop (or for at most `most`), and says how it ended.
    fn until_stopped(most: Duration) -> impl FnOnce(&dyn Fn() -> bool) -> bool + Send + 'static {
        move |stop| {
            let started = Instant::now();
            while started.elapsed() < most {
                if stop() {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
            false
        }
    }

    #[tokio::test]
    async fn past_the_queue_a_call_is_refused_at_once_and_names_the_load() {
        let executions = one_slot(1);
        let (first, second) = (executions.clone(), executions.clone());
        let running = tokio::spawn(async move { first.run(until_stopped(Duration::from_secs(5))).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let queued = tokio::spawn(async move { second.run(|_| ()).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let refused = executions.run(|_| ()).await.unwrap_err();
        assert!(matches!(refused, SourceError::Busy { running: 1, waiting: 1 }), "{refused:?}");
        running.abort();
        // The aborted call's work stops, and the queued one gets the slot.
        tokio::time::timeout(Duration::from_secs(2), queued).await.expect("the slot is freed").unwrap().unwrap();
    }

    #[tokio::test]
    async fn dropping_a_call_stops_its_work_and_frees_its_slot() {
        let executions = one_slot(4);
        let (stopped_tx, stopped_rx) = tokio::sync::oneshot::channel();
        let work = until_stopped(Duration::from_secs(30));
        let call = executions.run(move |stop| stopped_tx.send(work(stop)));
        // Dropped while the work runs, as a client hanging up drops it.
        assert!(tokio::time::timeout(Duration::from_millis(100), call).await.is_err());
        let stopped = tokio::time::timeout(Duration::from_secs(2), stopped_rx).await.expect("the work ends");
        assert_eq!(stopped, Ok(true), "the work was told to stop");
        let started = Instant::now();
        executions.run(|_| ()).await.unwrap();
        assert!(started.elapsed() < Duration::from_secs(1), "the next call ran at once: {:?}", started.elapsed());
    }
}
