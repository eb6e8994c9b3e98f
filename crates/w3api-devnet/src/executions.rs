//! Where the devnet's calls run (`eth_call`, `eth_estimateGas`,
//! `eth_createAccessList`, and the estimate behind an `eth_sendTransaction`
//! without gas): a fixed number of slots, each a thread beside the async
//! runtime, so that however long calls run, the runtime's threads stay free
//! for every other request. A call waits for a slot in a bounded queue;
//! past it, the call is refused as busy at once, never left to hang. A
//! call that can answer within [`AT_ONCE`] does so on the thread that asked
//! ([`Executions::run_quick`]), one such call at a time, which holds that
//! thread about as long as the hop to a slot would have cost.
//!
//! A call reads the chain one value at a time (`query::shared_state`), so a
//! slot holds no lock that a new block waits for. Its caller dropping the
//! call's future (a client that hung up, a time budget run out) stops the
//! EVM within a few thousand steps and frees the slot.

use std::cell::Cell;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

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

/// How long a call may run on the async runtime's thread that asked for it
/// before it is run again in a slot: most calls (a balance, a quote) end
/// well within it, and the hop to a slot's thread and back costs more than
/// their EVM run; a call that does not end within it has lost this much.
pub(crate) const AT_ONCE: Duration = Duration::from_millis(1);

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
    /// Whether a call is running at once on a runtime thread. One at a
    /// time: the watch asks to stop only every few thousand steps, and a
    /// few thousand costly steps (a large `modexp`) can outlast [`AT_ONCE`]
    /// many times over, so the other runtime threads must stay free.
    at_once: AtomicBool,
}

impl Executions {
    pub(crate) fn new(limits: ExecutionLimits) -> Executions {
        // A slot count of zero would refuse or queue every call for ever.
        let limits = ExecutionLimits { slots: limits.slots.max(1), ..limits };
        let slots = Arc::new(Semaphore::new(limits.slots));
        Executions { limits, slots, waiting: AtomicUsize::new(0), at_once: AtomicBool::new(false) }
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

    /// Runs `work` right here, told to stop after [`AT_ONCE`]; when it was
    /// stopped for that (it answers [`SourceError::Interrupted`]), or when
    /// another call is running at once already, runs it from its start in
    /// a slot, as [`Executions::run`] does.
    pub(crate) async fn run_quick<T: Send + 'static>(
        &self,
        work: impl Fn(&dyn Fn() -> bool) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        let Some(turn) = AtOnce::take(&self.at_once) else {
            return self.run(move |stop| work(stop)).await?;
        };
        let (quick, expired) = {
            let deadline = Instant::now() + AT_ONCE;
            let expired = Cell::new(false);
            let stop = || {
                expired.set(Instant::now() >= deadline);
                expired.get()
            };
            // A panic is this call's failure, as in a slot, not the request's.
            let quick = std::panic::catch_unwind(AssertUnwindSafe(|| work(&stop))).unwrap_or_else(|_| {
                tracing::error!("a call on the devnet panicked");
                Err(SourceError::Unavailable("a call failed: it panicked".into()))
            });
            (quick, expired.get())
        };
        drop(turn);
        match quick {
            Err(SourceError::Interrupted(_)) if expired => self.run(move |stop| work(stop)).await?,
            answered => answered,
        }
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

/// The turn to run a call at once, given back when dropped.
struct AtOnce<'a>(&'a AtomicBool);

impl<'a> AtOnce<'a> {
    fn take(flag: &'a AtomicBool) -> Option<AtOnce<'a>> {
        flag.compare_exchange(false, true, Ordering::Acquire, Ordering::Relaxed).is_ok().then_some(AtOnce(flag))
    }
}

impl Drop for AtOnce<'_> {
    fn drop(&mut self) {
        self.0.store(false, Ordering::Release);
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

    /// Work that runs until told to stop or for `most`, answering as a call
    /// does; counts its runs in `runs`.
    fn call_for(most: Duration, runs: Arc<AtomicUsize>) -> impl Fn(&dyn Fn() -> bool) -> Result<(), SourceError> {
        move |stop| {
            runs.fetch_add(1, Ordering::Relaxed);
            match until_stopped(most)(stop) {
                true => Err(SourceError::Interrupted("stopped".into())),
                false => Ok(()),
            }
        }
    }

    #[tokio::test]
    async fn a_quick_call_answers_at_once_while_every_slot_is_taken() {
        let executions = one_slot(0);
        let holder = executions.clone();
        let holding = tokio::spawn(async move { holder.run(until_stopped(Duration::from_secs(5))).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        // No slot and no place in the queue: only a call run at once answers.
        assert!(matches!(executions.run(|_| ()).await, Err(SourceError::Busy { .. })));
        let runs = Arc::new(AtomicUsize::new(0));
        executions.run_quick(call_for(Duration::ZERO, runs.clone())).await.unwrap();
        assert_eq!(runs.load(Ordering::Relaxed), 1);
        holding.abort();
    }

    #[tokio::test]
    async fn while_one_call_runs_at_once_the_next_runs_in_a_slot() {
        let executions = one_slot(4);
        let here = std::thread::current().id();
        let ran_on = || executions.run_quick(move |_| Ok(std::thread::current().id()));
        assert_eq!(ran_on().await.unwrap(), here, "alone, a quick call runs at once");
        let turn = AtOnce::take(&executions.at_once).expect("the turn is free after the call");
        assert_ne!(ran_on().await.unwrap(), here, "with the turn taken, the call runs in a slot");
        drop(turn);
        assert_eq!(ran_on().await.unwrap(), here, "and at once again once the turn is back");
    }

    #[tokio::test]
    async fn a_call_longer_than_its_time_at_once_runs_again_in_a_slot() {
        let executions = one_slot(4);
        let runs = Arc::new(AtomicUsize::new(0));
        executions.run_quick(call_for(AT_ONCE * 20, runs.clone())).await.unwrap();
        assert_eq!(runs.load(Ordering::Relaxed), 2, "stopped at once, then run to its end in a slot");
        // A call that was stopped for another reason is not run again.
        let refused = executions.run_quick(|_| Err::<(), _>(SourceError::Interrupted("no".into()))).await;
        assert!(matches!(refused, Err(SourceError::Interrupted(_))), "{refused:?}");
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
