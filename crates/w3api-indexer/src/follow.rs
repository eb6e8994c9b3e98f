//! Keeping an index up with its node: blocks fetched ahead in batches while
//! earlier ones are applied, contracts registered as blocks name them, and
//! the index rolled back to the common ancestor when the node's chain
//! forks from it.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use parking_lot::RwLock;
use tokio::sync::{Notify, broadcast, mpsc};
use w3api_source::Head;
use w3api_types::Chain;

use w3api_store::StoreError;

use crate::block::IndexedBlock;
use crate::index::{Anchors, ChainIndex, Continuity, Discovery, IndexError};
use crate::journal::{Entry, Journal, TAIL_BATCH};
use crate::node::{FetchLimits, Node, NodeError};
use crate::tables::TablesIndex;

/// How one chain is followed.
#[derive(Clone, Debug)]
pub struct FollowConfig {
    /// The first block to index (balances count transfers from it on).
    pub start_block: u64,
    /// The wrapped native token and stablecoin prices come from.
    pub anchors: Anchors,
    /// Most blocks a reorganisation may undo before the index is rebuilt.
    pub reorg_depth: u64,
    /// Batches and concurrency of block reads.
    pub limits: FetchLimits,
    /// How often the node's head is asked for.
    pub poll: Duration,
    /// Where the index is kept.
    pub place: IndexPlace,
}

/// Where a chain's index is kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexPlace {
    /// In each replica's memory, rebuilt at start from the store's journal.
    #[default]
    Memory,
    /// In tables of the store's PostgreSQL database, which every replica
    /// reads: a replica holds nothing of the chain itself.
    Tables,
}

/// One chain's index and what is known of its node, shared by the
/// follower (which writes) and the data source (which reads).
#[derive(Debug)]
pub struct Followed {
    /// The chain.
    pub chain: Chain,
    /// Its node.
    pub node: Node,
    /// The index. Readers hold the lock for one answer, so that an answer
    /// never mixes blocks of two branches.
    pub index: RwLock<ChainIndex>,
    /// The node's newest block when last asked; `u64::MAX` before.
    node_head: AtomicU64,
    /// Moves on whenever indexed blocks are rolled back.
    revision: AtomicU64,
    /// The node's `eth_chainId`, once it answered.
    chain_id: OnceLock<u64>,
    heads: broadcast::Sender<Head>,
    config: FollowConfig,
    /// Where the index is kept beyond this process, if anywhere.
    journal: Option<Journal>,
    /// Cuts the pause between two rounds short: a reader needs a block
    /// the node has and the index does not have yet.
    wake: Notify,
    /// The index in tables, when it is kept there ([`IndexPlace::Tables`]).
    pub(crate) tables: Option<TablesIndex>,
}

/// Why a round of following stopped (the next round tries again).
#[derive(Debug, thiserror::Error)]
pub enum FollowError {
    /// The node did not answer as needed.
    #[error(transparent)]
    Node(#[from] NodeError),
    /// The index refused a block or a contract.
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The store of the journal failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The next block's parent is not the indexed head.
    #[error("block {0} forks from the indexed chain")]
    Forked(u64),
    /// Another replica took the lease: this one reads the journal again.
    #[error("another replica now writes the index")]
    LostLease,
}

impl Followed {
    /// The shared state of a chain not indexed yet.
    /// `journal`: where the index is kept and shared, if anywhere.
    pub fn new(
        chain: Chain,
        node: Node,
        config: FollowConfig,
        heads: broadcast::Sender<Head>,
        journal: Option<Journal>,
    ) -> Followed {
        let index = ChainIndex::new(config.start_block, config.anchors, config.reorg_depth);
        Followed {
            chain,
            node,
            index: RwLock::new(index),
            node_head: AtomicU64::new(u64::MAX),
            revision: AtomicU64::new(0),
            chain_id: OnceLock::new(),
            heads,
            config,
            journal,
            wake: Notify::new(),
            tables: None,
        }
    }

    /// The same chain, with its index in the tables of its journal's store
    /// as its configuration asks ([`IndexPlace::Tables`]); as it is for an
    /// index in memory. [`NodeError::NoTables`] when the store holds none.
    pub fn placed(self) -> Result<Followed, NodeError> {
        if self.config.place == IndexPlace::Memory {
            return Ok(self);
        }
        let tables = self.journal.as_ref().and_then(Journal::tables).ok_or(NodeError::NoTables)?;
        let contracts = crate::tables::Contracts::new(tables.clone(), self.chain, self.config.anchors);
        Ok(Followed { tables: Some(TablesIndex::new(tables, contracts)), ..self })
    }

    /// How the chain is followed.
    pub(crate) fn config(&self) -> &FollowConfig {
        &self.config
    }

    /// Records the node's newest block.
    pub(crate) fn set_node_head(&self, head: u64) {
        self.node_head.store(head, Ordering::Release);
    }

    /// Tells subscribers that block `number` is indexed.
    pub(crate) fn announce(&self, number: u64) {
        let _ = self.heads.send(Head { chain: self.chain, number });
    }

    /// The node's newest block when last asked; `None` before it answered.
    pub fn node_head(&self) -> Option<u64> {
        Some(self.node_head.load(Ordering::Acquire)).filter(|head| *head != u64::MAX)
    }

    /// The first block the index holds, or will hold.
    pub fn first_block(&self) -> u64 {
        self.config.start_block
    }

    /// Moves on whenever indexed blocks are rolled back.
    pub fn revision(&self) -> u64 {
        self.revision.load(Ordering::Acquire)
    }

    /// Follows the node for ever: catches up, then polls for new heads.
    /// With a journal, a replica that holds the chain's lease does so and
    /// writes what it indexes; the others apply what the journal adds.
    /// Failures (the node down, a reorganisation deeper than allowed) are
    /// logged and retried after the poll interval.
    pub async fn follow(self: Arc<Self>) {
        loop {
            if let Err(error) = self.step().await {
                match error {
                    FollowError::Forked(number) => {
                        tracing::info!(chain = %self.chain, number, "the chain forked from the index");
                    }
                    FollowError::LostLease => tracing::info!(chain = %self.chain, "{error}"),
                    error => tracing::warn!(chain = %self.chain, node = self.node.name(), %error, "following the node"),
                }
            }
            tokio::select! {
                () = tokio::time::sleep(self.config.poll) => {}
                () = self.wake.notified() => {}
            }
        }
    }

    /// Waits until the index holds block `number` with hash `hash`, asking
    /// the follower to look at the node now rather than at its next poll;
    /// `false` when it does not within `patience` (the node is slow, or
    /// the block left the chain).
    pub async fn reach(&self, number: u64, hash: alloy_primitives::B256, patience: Duration) -> bool {
        let deadline = Instant::now() + patience;
        let mut heads = self.heads.subscribe();
        loop {
            // A block before the first indexed one has no hash there to
            // compare; one of another hash is on a branch the follower has
            // yet to roll back from, so it is waited for too.
            if let Ok(Some(head)) = self.indexed_head().await
                && head >= number
                && let Ok(ours) = self.indexed_header(number).await
                && ours.is_none_or(|(ours, _)| ours == hash)
            {
                return true;
            }
            self.wake.notify_one();
            let Some(left) = deadline.checked_duration_since(Instant::now()) else { return false };
            if tokio::time::timeout(left, heads.recv()).await.is_err() {
                return false;
            }
        }
    }

    /// The node's chain id; `None` before it answered.
    pub fn chain_id(&self) -> Option<u64> {
        self.chain_id.get().copied()
    }

    /// One round: up to the node's head, or up to the journal's.
    pub async fn step(self: &Arc<Self>) -> Result<(), FollowError> {
        if let (Some(tables), Some(journal)) = (&self.tables, &self.journal) {
            self.learn_chain_id().await?;
            return self.step_tables(tables, journal).await;
        }
        // What the journal holds is served before the node is asked anything.
        if let Some(journal) = &self.journal {
            self.tail(journal).await?;
        }
        self.learn_chain_id().await?;
        let Some(journal) = &self.journal else { return self.catch_up().await };
        if journal.lead(self.chain).await? {
            self.catch_up().await
        } else {
            let head = self.node.head().await?;
            self.node_head.store(head, Ordering::Release);
            Ok(())
        }
    }

    /// Asks the node its chain id, until it answers once.
    async fn learn_chain_id(&self) -> Result<(), FollowError> {
        if self.chain_id.get().is_none() {
            let id: alloy_primitives::U64 = self.node.request("eth_chainId", serde_json::json!([])).await?;
            let _ = self.chain_id.set(id.to());
        }
        Ok(())
    }

    /// Indexes every block up to the node's head, after rolling back what
    /// the node no longer has.
    async fn catch_up(self: &Arc<Self>) -> Result<(), FollowError> {
        let head = self.node.head().await?;
        self.node_head.store(head, Ordering::Release);
        self.reconcile(head).await?;
        let from = self.index.read().next_block();
        if from > head {
            return Ok(());
        }
        let (sender, mut batches) = mpsc::channel(self.config.limits.concurrency.max(1));
        let fetcher = tokio::spawn(Arc::clone(self).fetch(from, head, sender));
        let result = async {
            while let Some(batch) = batches.recv().await {
                let mut entries = Vec::new();
                for block in batch? {
                    entries.push(self.apply(block).await?);
                }
                self.write(&entries).await?;
            }
            Ok(())
        }
        .await;
        fetcher.abort();
        result
    }

    /// Reads blocks `from..=to` in batches, `concurrency` at a time, and
    /// hands them on in order.
    pub(crate) async fn fetch(
        self: Arc<Self>,
        from: u64,
        to: u64,
        batches: mpsc::Sender<Result<Vec<IndexedBlock>, NodeError>>,
    ) {
        use futures::StreamExt;
        let size = self.config.limits.batch.max(1) as u64;
        let ranges = (from..=to).step_by(size as usize).map(|start| start..=to.min(start + size - 1));
        let node = &self.node;
        let mut reads = futures::stream::iter(ranges)
            .map(|range| node.blocks(range))
            .buffered(self.config.limits.concurrency.max(1));
        while let Some(batch) = reads.next().await {
            let failed = batch.is_err();
            if batches.send(batch).await.is_err() || failed {
                return;
            }
        }
    }

    /// Registers what `block` discovers, then applies it; returns it as
    /// the journal keeps it.
    async fn apply(&self, block: IndexedBlock) -> Result<Entry, FollowError> {
        let discoveries = self.index.read().discoveries(&block);
        let entry = self.entry(block, discoveries).await?;
        self.apply_entry(&entry)?;
        Ok(entry)
    }

    /// `block` with the metadata of the contracts it discovers, read from the node.
    pub(crate) async fn entry(&self, block: IndexedBlock, discoveries: Vec<Discovery>) -> Result<Entry, FollowError> {
        let mut entry = Entry { tokens: Vec::new(), collections: Vec::new(), block };
        for discovery in discoveries {
            match discovery {
                Discovery::Token(token) => {
                    entry.tokens.push((token, self.node.token_meta(token, entry.block.number).await?));
                }
                Discovery::Collection { address, erc1155 } => {
                    let meta = self.node.collection_meta(address, erc1155, entry.block.number).await?;
                    entry.collections.push((address, meta));
                }
            }
        }
        Ok(entry)
    }

    /// Registers an entry's contracts and applies its block.
    fn apply_entry(&self, entry: &Entry) -> Result<(), FollowError> {
        let block = &entry.block;
        let applied = {
            let mut index = self.index.write();
            for (token, meta) in &entry.tokens {
                index.register_token(*token, meta.clone())?;
            }
            for (collection, meta) in &entry.collections {
                index.register_collection(*collection, meta.clone())?;
            }
            index.apply(block)
        };
        match applied {
            Ok(refused) => {
                for refusal in refused {
                    tracing::warn!(chain = %self.chain, block = block.number, %refusal, "log not applied");
                }
                let _ = self.heads.send(Head { chain: self.chain, number: block.number });
                Ok(())
            }
            Err(IndexError::NotNext { continuity: Continuity::Fork, number }) => Err(FollowError::Forked(number)),
            Err(error) => Err(error.into()),
        }
    }

    /// Keeps what was just indexed in the journal, if there is one.
    async fn write(&self, entries: &[Entry]) -> Result<(), FollowError> {
        match &self.journal {
            Some(journal) if !journal.append(self.chain, entries).await? => Err(FollowError::LostLease),
            _ => Ok(()),
        }
    }

    /// Applies what the journal holds past the index, after rolling back
    /// what it no longer holds.
    async fn tail(&self, journal: &Journal) -> Result<(), FollowError> {
        self.reconcile_with_journal(journal).await?;
        let mut applied = 0;
        loop {
            let next = self.index.read().next_block();
            let entries = match journal.read(self.chain, next).await {
                Err(StoreError::Damaged { why, .. }) if journal.lead(self.chain).await? => {
                    return self.drop_unreadable(journal, &why).await;
                }
                read => read?,
            };
            for entry in &entries {
                self.apply_entry(entry)?;
            }
            applied += entries.len();
            if entries.len() < TAIL_BATCH {
                if applied > 0 {
                    let head = self.index.read().head();
                    tracing::info!(chain = %self.chain, blocks = applied, ?head, "index read from the store's journal");
                }
                return Ok(());
            }
        }
    }

    /// Rolls the index back to the newest block whose hash the journal
    /// keeps; empties it when the journal keeps none of its recent blocks.
    /// Forgets the journal from the first entry that does not read (one an
    /// older w3api wrote, or a damaged one): the node has the blocks, and
    /// this replica, which leads, indexes them again.
    async fn drop_unreadable(&self, journal: &Journal, why: &str) -> Result<(), FollowError> {
        let head = self.index.read().head();
        tracing::warn!(chain = %self.chain, why, ?head, "the journal does not read from here: indexing again from the node");
        let kept = match head {
            Some(head) => journal.truncate(self.chain, head).await?,
            None => journal.clear(self.chain).await?,
        };
        if kept { Ok(()) } else { Err(FollowError::LostLease) }
    }

    async fn reconcile_with_journal(&self, journal: &Journal) -> Result<(), FollowError> {
        let Some(head) = self.index.read().head() else { return Ok(()) };
        let lowest = head.saturating_sub(self.config.reorg_depth).max(self.config.start_block);
        let kept = journal.hashes(self.chain, lowest, head).await?;
        let ancestor = {
            let index = self.index.read();
            kept.iter().rev().find(|(number, hash)| index.hash_at(*number) == Some(*hash)).map(|(n, _)| *n)
        };
        match ancestor {
            Some(ancestor) if ancestor == head => return Ok(()),
            Some(ancestor) => self.index.write().rollback_to(ancestor)?,
            None => self.restart(),
        }
        self.rolled_back(ancestor.unwrap_or(self.config.start_block.saturating_sub(1)));
        Ok(())
    }

    /// Empties the index, to be built again from the first block.
    fn restart(&self) {
        let config = &self.config;
        *self.index.write() = ChainIndex::new(config.start_block, config.anchors, config.reorg_depth);
    }

    /// Tells readers that blocks after `number` were undone.
    pub(crate) fn rolled_back(&self, number: u64) {
        self.revision.fetch_add(1, Ordering::AcqRel);
        let _ = self.heads.send(Head { chain: self.chain, number });
    }

    /// Rolls the index back to the newest block the node still has, when
    /// its head is not the node's block of that number. A rollback deeper
    /// than allowed starts the index again from its first block.
    async fn reconcile(&self, node_head: u64) -> Result<(), FollowError> {
        let Some(indexed) = self.index.read().head() else { return Ok(()) };
        let mut number = indexed.min(node_head);
        let lowest = indexed.saturating_sub(self.config.reorg_depth);
        let ancestor = loop {
            let ours = self.index.read().hash_at(number);
            if ours.is_some() && self.node.hash_at(number).await? == ours {
                break Some(number);
            }
            if number == 0 || number <= lowest {
                break None;
            }
            number -= 1;
        };
        if ancestor == Some(indexed) {
            return Ok(());
        }
        let rolled = match ancestor {
            Some(ancestor) => self.index.write().rollback_to(ancestor).map(|()| ancestor),
            None => Err(IndexError::TooDeep { depth: indexed - lowest, limit: self.config.reorg_depth }),
        };
        // Readers learn of the rollback before the journal does: what they
        // were told was on the abandoned branch is gone either way.
        let kept = match rolled {
            Ok(ancestor) => {
                tracing::info!(chain = %self.chain, from = indexed, to = ancestor, "rolled back a reorganisation");
                self.rolled_back(ancestor);
                match &self.journal {
                    Some(journal) => journal.truncate(self.chain, ancestor).await?,
                    None => true,
                }
            }
            Err(error) => {
                tracing::warn!(chain = %self.chain, %error, "indexing again from the first block");
                self.restart();
                self.rolled_back(self.config.start_block.saturating_sub(1));
                match &self.journal {
                    Some(journal) => journal.clear(self.chain).await?,
                    None => true,
                }
            }
        };
        if kept { Ok(()) } else { Err(FollowError::LostLease) }
    }
}
