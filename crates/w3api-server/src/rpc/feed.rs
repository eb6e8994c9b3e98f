//! What WebSocket subscriptions hear, made once per chain.
//!
//! A chain's feed starts with its first subscriber and follows the source's
//! heads (polling where a source announces none). On each change it walks
//! from the new head back to a block it announced before, so that every
//! block is announced once, in chain order, after its parent; blocks it
//! announced that are no longer on the chain (a revert, a reorg) are
//! announced as dropped, with their logs, before the new branch. Each
//! block's header and logs are encoded once here, whatever the number of
//! subscribers: a subscription only filters and frames them.
//!
//! Events go out on a bounded broadcast channel: a subscriber that falls
//! behind it by more than [`EVENTS`] misses events, which its connection
//! hears of (`Lagged`) and closes on; the feed never waits for anyone.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast;

use w3api_source::{BlockRef, HeadWatch, SourceError, Wake};
use w3api_types::rpc::{Block, Log, SyncingStatus};
use w3api_types::{Address, B256, Chain};

use crate::Backend;

/// Blocks one change announces at most: a longer jump (a mined batch)
/// announces its newest ones, as geth announces only an imported batch's head.
pub(crate) const MAX_CATCH_UP: usize = 1_024;
/// Announced blocks kept to find where a new branch leaves the old one.
const WINDOW: usize = 256;
/// Events a subscriber may be behind before it misses some.
const EVENTS: usize = 4_096;
/// How often a feed reads the head when the source announces none, and
/// between announcements otherwise (a missed one is caught up then).
const POLL_SILENT: Duration = Duration::from_millis(250);
const POLL_ANNOUNCED: Duration = Duration::from_secs(2);

/// A block's fields that a header notification leaves out, as geth's does.
const NOT_IN_HEADER: [&str; 5] = ["transactions", "uncles", "withdrawals", "size", "totalDifficulty"];

/// A change of a chain, as its subscribers hear it.
#[derive(Debug)]
pub(crate) enum Event {
    /// A block added to the chain: its header and its logs.
    Block { header: Box<str>, logs: Vec<FedLog> },
    /// The logs of a block no longer on the chain, each `removed: true`.
    Dropped { logs: Vec<FedLog> },
    /// `eth_syncing`'s new answer.
    Syncing(Box<str>),
}

/// A log, encoded once, with what a filter reads of it.
#[derive(Debug)]
pub(crate) struct FedLog {
    pub(crate) address: Address,
    pub(crate) topics: Vec<B256>,
    pub(crate) json: Box<str>,
}

impl FedLog {
    fn of(log: &Log) -> FedLog {
        let json = serde_json::to_string(log).expect("a log encodes").into_boxed_str();
        FedLog { address: log.address, topics: log.topics.clone(), json }
    }
}

/// The feeds of the chains someone subscribed to.
pub(crate) struct Feeds<S> {
    source: Arc<S>,
    chains: Mutex<HashMap<Chain, Running>>,
}

struct Running {
    events: broadcast::Sender<Arc<Event>>,
    task: tokio::task::AbortHandle,
}

impl<S> Drop for Feeds<S> {
    fn drop(&mut self) {
        let chains = self.chains.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner);
        for running in chains.values() {
            running.task.abort();
        }
    }
}

impl<S: Backend> Feeds<S> {
    pub(crate) fn new(source: Arc<S>) -> Feeds<S> {
        Feeds { source, chains: Mutex::new(HashMap::new()) }
    }

    /// The events of `chain` from now on, starting its feed if none runs.
    ///
    /// A new feed reads the head before this returns, so before the
    /// subscription is answered: a block mined after the answer is news to
    /// the subscriber, never the feed's starting point (which a feed that
    /// took its first reading later, from its own task, would swallow).
    pub(crate) async fn subscribe(&self, chain: Chain) -> broadcast::Receiver<Arc<Event>> {
        if let Some(receiver) = listen(&self.lock(), chain) {
            return receiver;
        }
        let (events, receiver) = broadcast::channel(EVENTS);
        let mut followed = Followed { recent: VecDeque::new(), syncing: None };
        // The first reading announces nothing; a failed one is taken again by the feed.
        if let Err(error) = followed.advance(self.source.as_ref(), chain, &events).await {
            tracing::warn!(%chain, %error, "a subscription feed could not read the chain's head; it tries again");
        }
        let mut chains = self.lock();
        // Another subscriber may have started the chain's feed meanwhile: its
        // first reading came before this one's answer too.
        if let Some(receiver) = listen(&chains, chain) {
            return receiver;
        }
        let task = tokio::spawn(follow(self.source.clone(), chain, events.clone(), followed)).abort_handle();
        chains.insert(chain, Running { events, task });
        receiver
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<Chain, Running>> {
        self.chains.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// A receiver of `chain`'s feed, if one runs.
fn listen(chains: &HashMap<Chain, Running>, chain: Chain) -> Option<broadcast::Receiver<Arc<Event>>> {
    chains.get(&chain).filter(|running| !running.task.is_finished()).map(|running| running.events.subscribe())
}

/// Follows `chain` for as long as the feed runs, from where `followed` is.
async fn follow<S: Backend>(
    source: Arc<S>,
    chain: Chain,
    events: broadcast::Sender<Arc<Event>>,
    mut followed: Followed,
) {
    let heads = source.heads();
    let poll = if heads.is_some() { POLL_ANNOUNCED } else { POLL_SILENT };
    let mut watch = HeadWatch::new(heads, poll);
    loop {
        if let Wake::Head(head) = watch.next().await
            && head.chain != chain
        {
            continue;
        }
        if let Err(error) = followed.advance(source.as_ref(), chain, &events).await {
            tracing::warn!(%chain, %error, "a subscription feed could not read the chain; it tries again");
        }
    }
}

/// A block the feed announced.
struct Seen {
    number: u64,
    hash: B256,
    logs: Vec<Log>,
}

/// Where a feed is on its chain.
struct Followed {
    /// The newest announced blocks, in chain order.
    recent: VecDeque<Seen>,
    syncing: Option<SyncingStatus>,
}

impl Followed {
    async fn advance<S: Backend>(
        &mut self,
        source: &S,
        chain: Chain,
        events: &broadcast::Sender<Arc<Event>>,
    ) -> Result<(), SourceError> {
        self.announce_syncing(source, chain, events).await?;
        let number = source.latest_block(chain).await?;
        let Some(head) = source.block(chain, BlockRef::Number(number), false).await? else { return Ok(()) };
        if self.recent.is_empty() {
            // The first reading: what comes after it is news.
            self.recent.push_back(Seen { number, hash: head.hash, logs: Vec::new() });
            return Ok(());
        }
        let branch = self.new_branch(source, chain, head).await?;
        // The parent of the branch's first block is where the chain is still the one announced.
        let kept = branch.last().map_or(number, |first| first.number.saturating_sub(1));
        self.drop_after(kept, events);
        for block in branch.into_iter().rev() {
            self.announce_block(source, chain, block, events).await?;
        }
        Ok(())
    }

    /// The blocks from `head` back to the first whose parent was announced
    /// (newest first; none when `head` itself was announced).
    async fn new_branch<S: Backend>(&self, source: &S, chain: Chain, head: Block) -> Result<Vec<Block>, SourceError> {
        if self.hash_at(head.number) == Some(head.hash) {
            return Ok(Vec::new());
        }
        let oldest = self.recent.front().map_or(0, |seen| seen.number);
        let mut branch = vec![head];
        while let Some(first) = branch.last()
            && branch.len() < MAX_CATCH_UP
            && first.number > oldest
            && self.hash_at(first.number - 1) != Some(first.parent_hash)
        {
            match source.block(chain, BlockRef::Hash(first.parent_hash), false).await? {
                Some(parent) => branch.push(parent),
                None => break,
            }
        }
        Ok(branch)
    }

    fn hash_at(&self, number: u64) -> Option<B256> {
        let oldest = self.recent.front()?.number;
        let index = usize::try_from(number.checked_sub(oldest)?).ok()?;
        self.recent.get(index).map(|seen| seen.hash)
    }

    /// Announces as dropped the blocks announced after `kept`, oldest first.
    fn drop_after(&mut self, kept: u64, events: &broadcast::Sender<Arc<Event>>) {
        let at = self.recent.iter().position(|seen| seen.number > kept).unwrap_or(self.recent.len());
        for seen in self.recent.drain(at..) {
            if seen.logs.is_empty() {
                continue;
            }
            let logs = seen.logs.iter().map(|log| FedLog::of(&Log { removed: true, ..log.clone() })).collect();
            let _ = events.send(Arc::new(Event::Dropped { logs }));
        }
    }

    async fn announce_block<S: Backend>(
        &mut self,
        source: &S,
        chain: Chain,
        block: Block,
        events: &broadcast::Sender<Arc<Event>>,
    ) -> Result<(), SourceError> {
        let receipts = source.block_receipts(chain, BlockRef::Hash(block.hash)).await?.unwrap_or_default();
        let logs: Vec<Log> = receipts.into_iter().flat_map(|receipt| receipt.logs).collect();
        let event = Event::Block { header: header_json(&block), logs: logs.iter().map(FedLog::of).collect() };
        let _ = events.send(Arc::new(event));
        self.recent.push_back(Seen { number: block.number, hash: block.hash, logs });
        if self.recent.len() > WINDOW {
            self.recent.pop_front();
        }
        Ok(())
    }

    async fn announce_syncing<S: Backend>(
        &mut self,
        source: &S,
        chain: Chain,
        events: &broadcast::Sender<Arc<Event>>,
    ) -> Result<(), SourceError> {
        let now = source.syncing(chain).await?;
        if self.syncing.replace(now).is_some_and(|before| before != now) {
            let json = serde_json::to_string(&now).expect("a sync status encodes").into_boxed_str();
            let _ = events.send(Arc::new(Event::Syncing(json)));
        }
        Ok(())
    }
}

/// A block as a header notification carries it: its fields without its
/// transactions, uncles, withdrawals or size, as geth's `newHeads`.
fn header_json(block: &Block) -> Box<str> {
    let mut value = serde_json::to_value(block).expect("a block encodes");
    if let Some(fields) = value.as_object_mut() {
        for field in NOT_IN_HEADER {
            fields.remove(field);
        }
    }
    value.to_string().into_boxed_str()
}

#[cfg(test)]
mod tests {
    use super::*;
    use w3api_devnet::{Devnet, Scale};
    use w3api_source::prelude::*;

    /// On one thread a feed's task cannot run until the test waits: a block
    /// mined as soon as `subscribe` returns is the first one announced, not
    /// the head the feed starts from.
    #[tokio::test(flavor = "current_thread")]
    async fn a_block_mined_as_soon_as_subscribe_returns_is_announced() {
        let devnet = Devnet::new(7, Scale::TINY);
        let feeds = Feeds::new(Arc::new(devnet.clone()));
        let before = devnet.latest_block(Chain::Eth).await.expect("the devnet has a head");
        let mut events = feeds.subscribe(Chain::Eth).await;
        let mined = devnet.mine(Chain::Eth, 1, None).await.expect("the devnet mines");
        assert_eq!(mined, before + 1);
        let event = tokio::time::timeout(Duration::from_secs(10), events.recv())
            .await
            .expect("the mined block is announced")
            .expect("the feed runs");
        let Event::Block { header, .. } = event.as_ref() else { panic!("a block's event: {event:?}") };
        let header: serde_json::Value = serde_json::from_str(header).expect("a header is JSON");
        assert_eq!(header["number"], format!("{mined:#x}"), "{header}");
    }
}
