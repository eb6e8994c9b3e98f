//! The journal of what users did to each chain, kept in the store so that
//! the chain outlives the process and replicas share it.
//!
//! A chain is its seed's chain (derived, never stored) and then, in order,
//! every change kept in its journal. A change is made and kept in one turn
//! of the chain's journal:
//! 1. take the journal's turn (in the store: one writer at a time per
//!    chain, across replicas);
//! 2. apply the changes others kept since this process last did;
//! 3. make the change;
//! 4. keep it, with its outcome (its answer and the newest block after
//!    it), and commit;
//! 5. only then answer.
//!
//! Replay makes each kept change again and compares its outcome: a chain
//! that comes out otherwise (another seed, scale or build) is refused, never
//! served. A revert forgets the changes it undid, and a reset every change
//! before it, so that the journal holds what the chain is made of, and a
//! test suite that reverts after every test does not grow it.

mod apply;
mod carry;
mod change;
mod follow;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use w3api_source::SourceError;
use w3api_store::{KeptChange, Store, StoreError};
use w3api_types::Chain;

pub(crate) use change::{Answer, Change, Standing};
use change::{Answered, Outcome};

use crate::Devnet;
use crate::live::LiveChain;

/// One chain made again from its journal at start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Restored {
    /// The chain.
    pub chain: Chain,
    /// The changes kept of it, made again.
    pub changes: u64,
    /// Its newest block afterwards.
    pub latest: u64,
    /// How long generating and replaying took.
    pub took: std::time::Duration,
}

/// Changes read from the store at once when a chain is restored.
const PAGE: usize = 1_000;

/// The journals of a devnet's chains, in its store.
pub(crate) struct Journal {
    store: Arc<dyn Store>,
    /// Where this process stands in each chain's journal.
    chains: Mutex<HashMap<Chain, Arc<ChainJournal>>>,
    /// Who this process is, to hold leases by.
    holder: uuid::Uuid,
}

/// One chain's journal, as this process follows it.
struct ChainJournal {
    /// Held for the turn of a change or a catch-up.
    position: tokio::sync::Mutex<Position>,
    /// The newest change made here, readable without the turn.
    applied: AtomicU64,
    /// The journal's head, as read for requests waiting on it.
    head: follow::HeadReads,
}

/// Where this process stands in one chain's journal: held for the turn of
/// a change, so that the chain and the position move together.
#[derive(Debug, Default)]
struct Position {
    /// The newest change made here.
    applied: u64,
    /// The change that took each snapshot the chain holds, by id.
    snapshots: BTreeMap<u64, u64>,
    /// Whether the chain is as its seed makes it, with nothing since.
    pristine: bool,
    /// Changes made here, kept or replayed.
    made: u64,
}

impl Position {
    fn pristine() -> Position {
        Position { pristine: true, ..Position::default() }
    }

    /// Moves past change `seq`, which answered `result`.
    fn note(&mut self, seq: u64, change: &Change, result: &Result<Answer, SourceError>) {
        self.applied = seq;
        self.pristine = false;
        self.made += 1;
        match (change, result) {
            (Change::Snapshot, Ok(Answer::Number(id))) => {
                self.snapshots.insert(*id, seq);
            }
            (Change::Revert { id }, Ok(Answer::Flag(true))) => drop(self.snapshots.split_off(id)),
            (Change::Reset, Ok(_)) => {
                self.snapshots.clear();
                self.pristine = true;
            }
            (Change::Load { .. }, Ok(_)) => self.snapshots.clear(),
            _ => {}
        }
    }

    /// The changes that `change`, having answered `result`, makes obsolete:
    /// those numbered after the number returned.
    fn obsoleted(&self, change: &Change, result: &Result<Answer, SourceError>) -> Option<u64> {
        match (change, result) {
            (Change::Revert { id }, Ok(Answer::Flag(true))) => self.snapshots.get(id).map(|seq| seq - 1),
            (Change::Reset | Change::Load { .. }, Ok(_)) => Some(0),
            _ => None,
        }
    }
}

impl ChainJournal {
    /// Publishes where the turn left the position.
    fn settle(&self, position: &Position) {
        self.applied.store(position.applied, Ordering::Release);
    }
}

impl Journal {
    pub(crate) fn new(store: Arc<dyn Store>) -> Journal {
        Journal { store, chains: Mutex::default(), holder: uuid::Uuid::from_u128(fastrand::u128(..)) }
    }

    /// Whether replicas share it.
    pub(crate) fn shared(&self) -> bool {
        self.store.is_shared()
    }

    /// The store it is kept in.
    pub(crate) fn store(&self) -> Arc<dyn Store> {
        self.store.clone()
    }

    fn chain(&self, chain: Chain) -> Arc<ChainJournal> {
        let mut chains = self.chains.lock().unwrap_or_else(PoisonError::into_inner);
        let new = || {
            Arc::new(ChainJournal {
                position: tokio::sync::Mutex::new(Position::pristine()),
                applied: AtomicU64::new(0),
                head: follow::HeadReads::default(),
            })
        };
        chains.entry(chain).or_insert_with(new).clone()
    }
}

impl Devnet {
    /// Makes `change` on `chain` and, with a journal, keeps it before
    /// answering.
    pub(crate) async fn commit(&self, chain: Chain, change: Change) -> Result<Answer, SourceError> {
        // The turn below catches up with what others kept: no read of the head first.
        let live = self.restored_live(chain).await?;
        let Some(journal) = &self.inner.journal else {
            let before = live.standing();
            let (result, after) = self.make(chain, &live, change).await?;
            if result.is_ok() {
                self.announce_moved(chain, &before, &after);
            }
            return result;
        };
        let followed = journal.chain(chain);
        let mut position = followed.position.lock().await;
        let origin = self.origin(chain, &live);
        let mut write = journal.store.write_chain(chain, &origin).await.map_err(|e| self.refused(chain, e))?;
        let missed = write.changes_after(position.applied).await?;
        self.replay(chain, &live, &mut position, missed).await?;
        let before = live.standing();
        let (result, after) = self.make(chain, &live, change.clone()).await?;
        if result.is_err() && after == before {
            // A change refused before it changed anything: nothing to keep.
            return result;
        }
        let kept = KeptChange {
            seq: position.applied + 1,
            change: to_json(&change)?,
            outcome: to_json(&Outcome { answer: Answered::of(&result), after })?,
        };
        let forget = position.obsoleted(&change, &result);
        let durable = async {
            write.append(&kept, forget).await?;
            write.commit().await
        };
        if let Err(error) = durable.await {
            tracing::error!(%chain, %error, "a change could not be kept; the chain goes back to its journal");
            self.rebuild(chain, &live, &mut position).await;
            return Err(error.into());
        }
        position.note(kept.seq, &change, &result);
        followed.settle(&position);
        self.announce_moved(chain, &before, &after);
        result
    }

    /// Tells the chain's followers of its head when a change moved it: a
    /// transaction that only joined the pool, or a setting, makes no head
    /// to announce (and wakes nobody).
    fn announce_moved(&self, chain: Chain, before: &Standing, after: &Standing) {
        if after.hash != before.hash {
            self.announce(chain, after.number);
        }
    }

    /// Makes `change` off the async runtime's threads: its answer, and
    /// where it left the chain.
    async fn make(
        &self,
        chain: Chain,
        live: &Arc<LiveChain>,
        change: Change,
    ) -> Result<(Result<Answer, SourceError>, Standing), SourceError> {
        let (devnet, made) = (self.clone(), live.clone());
        let done = tokio::task::spawn_blocking(move || {
            let result = devnet.apply(chain, &made, &change);
            (result, made.standing())
        });
        done.await.map_err(|error| failed(chain, live, error))
    }

    /// Makes the changes `kept` again, in order, checking that each comes
    /// out as it did when it was kept.
    async fn replay(
        &self,
        chain: Chain,
        live: &Arc<LiveChain>,
        position: &mut Position,
        kept: Vec<KeptChange>,
    ) -> Result<(), SourceError> {
        if kept.is_empty() {
            return Ok(());
        }
        let (devnet, replayed, mut moved) = (self.clone(), live.clone(), std::mem::take(position));
        let done = tokio::task::spawn_blocking(move || {
            let result = kept.iter().try_for_each(|kept| devnet.replay_one(chain, &replayed, &mut moved, kept));
            (moved, result)
        });
        let (moved, result) = done.await.map_err(|error| failed(chain, live, error))?;
        *position = moved;
        if let Some(journal) = &self.inner.journal {
            journal.chain(chain).settle(position);
        }
        // Whoever follows the chain's blocks learns of those made again.
        self.announce(chain, live.standing().number);
        result
    }

    fn replay_one(
        &self,
        chain: Chain,
        live: &LiveChain,
        position: &mut Position,
        kept: &KeptChange,
    ) -> Result<(), SourceError> {
        let change: Change = from_json(chain, kept.seq, "change", &kept.change)?;
        let outcome: Outcome = from_json(chain, kept.seq, "outcome", &kept.outcome)?;
        self.replay_change(chain, live, position, kept.seq, &change, &outcome)
    }

    /// Makes `change`, numbered `seq`, again, checking that it does what
    /// `outcome` says it did.
    fn replay_change(
        &self,
        chain: Chain,
        live: &LiveChain,
        position: &mut Position,
        seq: u64,
        change: &Change,
        outcome: &Outcome,
    ) -> Result<(), SourceError> {
        let result = match change {
            // The changes this revert undid were forgotten before this
            // process read them: the chain is as the snapshot found it.
            Change::Revert { id } if !position.snapshots.contains_key(id) => Ok(Answer::Flag(true)),
            Change::Reset if position.pristine => Ok(Answer::Done),
            _ => self.apply(chain, live, change),
        };
        // Snapshots forgotten with the changes that took them still used their ids.
        live.skip_snapshot_ids(outcome.after.snapshots);
        let got = Outcome { answer: Answered::of(&result), after: live.standing() };
        if got != *outcome {
            return Err(diverged(chain, seq, change, outcome, &got));
        }
        position.note(seq, change, &result);
        Ok(())
    }

    /// Puts the chain back to its seed's and makes every kept change again:
    /// after a change that made it but could not be kept.
    async fn rebuild(&self, chain: Chain, live: &Arc<LiveChain>, position: &mut Position) {
        let rebuilt = async {
            let (devnet, reset) = (self.clone(), live.clone());
            tokio::task::spawn_blocking(move || reset.reset(devnet.generate(chain)))
                .await
                .map_err(|error| failed(chain, live, error))?;
            *position = Position::pristine();
            self.catch_up(chain, live, position).await
        };
        if let Err(error) = rebuilt.await {
            tracing::error!(%chain, %error, "the chain could not be rebuilt from its journal");
            live.mark_damaged();
        }
    }

    /// Makes the changes kept after `position`, page by page.
    async fn catch_up(&self, chain: Chain, live: &Arc<LiveChain>, position: &mut Position) -> Result<(), SourceError> {
        let Some(journal) = &self.inner.journal else { return Ok(()) };
        loop {
            let page = journal.store.chain_changes(chain, position.applied, PAGE).await?;
            let full = page.len() == PAGE;
            self.replay(chain, live, position, page).await?;
            if !full {
                return Ok(());
            }
        }
    }

    /// Makes the changes kept of every chain in the store, checking that
    /// each was written on this devnet's seed and scale, before the server
    /// answers anything: a store it cannot replay stops it at start rather
    /// than at the first request. Chains without a journal are generated
    /// when first used, as ever.
    pub async fn restore(&self) -> Result<Vec<Restored>, SourceError> {
        let Some(journal) = &self.inner.journal else { return Ok(Vec::new()) };
        let mut restored = Vec::new();
        for (chain, origin) in journal.store.kept_chains().await? {
            if !Devnet::builds(chain) {
                continue;
            }
            if !self.same_seed_and_scale(&origin) {
                return Err(self.refused(chain, StoreError::ChainOriginDiffers { chain, kept: origin }));
            }
            let started = std::time::Instant::now();
            let live = self.ready_live(chain).await?;
            let made = journal.chain(chain).position.lock().await.made;
            restored.push(Restored { chain, changes: made, took: started.elapsed(), latest: live.standing().number });
        }
        Ok(restored)
    }

    /// Whether `chain` keeps changes beyond its seed (never without a store).
    pub async fn keeps_changes(&self, chain: Chain) -> Result<bool, SourceError> {
        let Some(journal) = &self.inner.journal else { return Ok(false) };
        Ok(journal.store.chain_head(chain).await? > 0)
    }

    /// Whether `origin` names this devnet's seed and scale (its base block
    /// is checked once the chain is generated).
    fn same_seed_and_scale(&self, origin: &str) -> bool {
        let Ok(origin) = serde_json::from_str::<serde_json::Value>(origin) else { return false };
        origin["seed"].as_u64() == Some(self.seed()) && origin["scale"].as_str() == Some(&format!("{:?}", self.scale()))
    }

    /// Makes the chain's kept changes, the first time it is used.
    pub(crate) async fn restore_live(&self, chain: Chain, live: &Arc<LiveChain>) -> Result<(), SourceError> {
        let Some(journal) = &self.inner.journal else { return Ok(()) };
        let followed = journal.chain(chain);
        let mut position = followed.position.lock().await;
        if live.restored() {
            return Ok(());
        }
        let kept = journal.store.kept_chains().await?;
        if let Some((_, origin)) = kept.iter().find(|(kept, _)| *kept == chain) {
            let ours = self.origin(chain, live);
            if *origin != ours {
                return Err(self.refused(chain, StoreError::ChainOriginDiffers { chain, kept: origin.clone() }));
            }
            self.catch_up(chain, live, &mut position).await?;
        }
        live.mark_restored();
        Ok(())
    }

    /// What this devnet's journal of `chain` is written on: its seed and
    /// scale, and the newest block of the chain they make.
    fn origin(&self, chain: Chain, live: &LiveChain) -> String {
        let (number, hash) = live.base();
        let scale = self.scale();
        serde_json::json!({
            "seed": self.seed(),
            "scale": format!("{scale:?}"),
            "chain": chain.as_str(),
            "base": { "number": number, "hash": hash },
        })
        .to_string()
    }

    fn refused(&self, chain: Chain, error: StoreError) -> SourceError {
        match error {
            StoreError::ChainOriginDiffers { kept, .. } => SourceError::Unavailable(format!(
                "chain {chain}: the journal kept of it was written by a devnet of another seed, scale, genesis \
                 (--init), imported chain (--import) or build ({kept}); this server runs seed {} at {:?}, which \
                 makes another chain. Start it with the journal's --seed, --scale, --init and --import, or on a new \
                 data directory or database",
                self.seed(),
                self.scale()
            )),
            other => other.into(),
        }
    }
}

/// A change that did not finish on its thread: one that panicked (a bug)
/// leaves the chain damaged.
pub(crate) fn failed(chain: Chain, live: &LiveChain, failed: tokio::task::JoinError) -> SourceError {
    if failed.is_panic() {
        tracing::error!(%chain, "a change of the chain panicked; it answers nothing until reset");
        live.mark_damaged();
    }
    SourceError::Unavailable(format!("changing chain {chain}: {failed}"))
}

fn to_json(value: &impl serde::Serialize) -> Result<String, SourceError> {
    serde_json::to_string(value).map_err(|e| SourceError::Unavailable(format!("writing a chain change: {e}")))
}

fn from_json<T: serde::de::DeserializeOwned>(chain: Chain, seq: u64, what: &str, text: &str) -> Result<T, SourceError> {
    serde_json::from_str(text).map_err(|e| {
        SourceError::Unavailable(format!(
            "chain {chain}: the {what} kept as change {seq} of its journal is damaged: {e}"
        ))
    })
}

fn diverged(chain: Chain, seq: u64, change: &Change, kept: &Outcome, got: &Outcome) -> SourceError {
    SourceError::Unavailable(format!(
        "chain {chain}: change {seq} of its journal ({}) came out otherwise on replay: kept {}, got {}. The journal \
         was written by a build whose chain rules differ from this one's; this server will not serve a different \
         chain. Run the build that wrote it, or start on a new data directory or database",
        change.what(),
        serde_json::to_string(kept).unwrap_or_default(),
        serde_json::to_string(got).unwrap_or_default(),
    ))
}
