//! Following a node into the tables: the replica that holds the chain's
//! lease catches the tables up with the node, rolling back what the node no
//! longer has in the transaction that writes its new branch; every replica
//! watches the tables for new blocks and reorganisations, to tell its
//! subscribers and its answer cache.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::sync::mpsc;
use w3api_store::IndexTables;

use alloy_primitives::B256;
use w3api_source::SourceError;

use super::read::{Contracts, TablesView};
use super::write::TableWriter;
use crate::follow::{FollowError, Followed};
use crate::index::Discovery;
use crate::journal::{Entry, Journal};
use crate::source::Reading;
use crate::source::view::IndexView;

/// A chain's index kept in tables, as one replica follows and reads it.
#[derive(Debug)]
pub(crate) struct TablesIndex {
    pub(crate) tables: IndexTables,
    pub(crate) contracts: Contracts,
    /// The writer, while this replica writes; opened again after a failure.
    writer: tokio::sync::Mutex<Option<TableWriter>>,
    /// The newest block the tables were seen to hold (`u64::MAX`: none),
    /// and their revision.
    head: AtomicU64,
    revision: AtomicU64,
}

impl TablesIndex {
    pub(crate) fn new(tables: IndexTables, contracts: Contracts) -> TablesIndex {
        TablesIndex {
            tables,
            contracts,
            writer: tokio::sync::Mutex::new(None),
            head: AtomicU64::new(u64::MAX),
            revision: AtomicU64::new(0),
        }
    }

    /// The newest block the tables were last seen to hold.
    pub(crate) fn head(&self) -> Option<u64> {
        Some(self.head.load(Ordering::Acquire)).filter(|head| *head != u64::MAX)
    }
}

/// The tables' failure, as a data source reports it.
fn unavailable(error: w3api_store::StoreError) -> SourceError {
    SourceError::Unavailable(format!("the index's tables: {error}"))
}

impl Followed {
    /// The newest indexed block, wherever the index is kept.
    pub async fn indexed_head(&self) -> Result<Option<u64>, SourceError> {
        let Some(index) = &self.tables else { return Ok(self.index.read().head()) };
        if let Some(head) = index.head() {
            return Ok(Some(head));
        }
        Ok(index.tables.head(self.chain).await.map_err(unavailable)?.0)
    }

    /// The hash and timestamp of indexed block `number`, wherever the index is kept.
    pub(crate) async fn indexed_header(&self, number: u64) -> Result<Option<(B256, u64)>, SourceError> {
        let Some(index) = &self.tables else {
            let index = self.index.read();
            return Ok(index.hash_at(number).zip(index.timestamp_at(number)));
        };
        index.tables.header_at(self.chain, number).await.map_err(unavailable)
    }

    /// What `reading` reads of the index, in memory under its lock, or from
    /// one snapshot of the tables on a blocking thread.
    pub(crate) async fn read<R: Reading>(self: &Arc<Self>, reading: R) -> Result<R::Out, SourceError> {
        let Some(index) = &self.tables else {
            let memory = self.index.read();
            return reading.read(&IndexView { index: &memory, followed: self });
        };
        let view = TablesView::open(Arc::clone(self), &index.tables, &index.contracts).await?;
        tokio::task::spawn_blocking(move || {
            let read = reading.read(&view);
            view.finish(read)
        })
        .await
        .map_err(|error| SourceError::Unavailable(format!("reading the index's tables: {error}")))?
    }

    /// One round in tables mode: the leader writes up to the node's head;
    /// every replica then reads where the tables stand.
    pub(crate) async fn step_tables(
        self: &Arc<Self>,
        index: &TablesIndex,
        journal: &Journal,
    ) -> Result<(), FollowError> {
        let led = if journal.lead(self.chain).await? {
            self.catch_up_tables(index, journal).await
        } else {
            let head = self.node.head().await?;
            self.set_node_head(head);
            Ok(())
        };
        self.see_tables(index).await?;
        led
    }

    /// Tells subscribers of each block the tables gained since last seen,
    /// and the answer cache of a reorganisation another replica rolled back.
    async fn see_tables(&self, index: &TablesIndex) -> Result<(), FollowError> {
        let (head, revision) = index.tables.head(self.chain).await?;
        let before = index.head();
        if index.revision.swap(revision, Ordering::AcqRel) != revision {
            self.rolled_back(head.unwrap_or(0));
        }
        index.head.store(head.unwrap_or(u64::MAX), Ordering::Release);
        if let Some(head) = head {
            let from = before.map_or(head, |before| before + 1);
            for number in from..=head {
                self.announce(number);
            }
        }
        Ok(())
    }

    /// Writes every block up to the node's head, after rolling back what
    /// the node no longer has.
    async fn catch_up_tables(self: &Arc<Self>, index: &TablesIndex, journal: &Journal) -> Result<(), FollowError> {
        let node_head = self.node.head().await?;
        self.set_node_head(node_head);
        let mut writer = index.writer.lock().await;
        if writer.is_none() {
            let config = self.config();
            let opened = TableWriter::open(
                index.tables.clone(),
                self.chain,
                config.start_block,
                config.anchors,
                config.reorg_depth,
            );
            *writer = Some(opened.await?);
        }
        let Some(open) = writer.as_mut() else { return Ok(()) };
        let written = self.write_tables(index, open, journal, node_head).await;
        if written.is_err() {
            // What the writer holds may be ahead of the tables: read them again.
            *writer = None;
        }
        written
    }

    async fn write_tables(
        self: &Arc<Self>,
        index: &TablesIndex,
        writer: &mut TableWriter,
        journal: &Journal,
        node_head: u64,
    ) -> Result<(), FollowError> {
        let mut rollback = self.tables_ancestor(writer, journal, node_head).await?;
        let from = rollback.map_or(writer.next_block(), |ancestor| ancestor + 1);
        if from > node_head {
            if let Some(ancestor) = rollback {
                self.write_batch(index, writer, journal, Some(ancestor), &[]).await?;
            }
            return Ok(());
        }
        let (sender, mut batches) = mpsc::channel(self.config().limits.concurrency.max(1));
        let fetcher = tokio::spawn(Arc::clone(self).fetch(from, node_head, sender));
        let result = async {
            while let Some(batch) = batches.recv().await {
                let entries = self.table_entries(writer, batch?).await?;
                self.write_batch(index, writer, journal, rollback.take(), &entries).await?;
            }
            Ok(())
        }
        .await;
        fetcher.abort();
        result
    }

    /// The block to roll the tables back to, when the node's chain left
    /// theirs; `None` when it did not. A reorganisation deeper than the
    /// writer keeps empties the tables, to index again from the first block.
    async fn tables_ancestor(
        &self,
        writer: &mut TableWriter,
        journal: &Journal,
        node_head: u64,
    ) -> Result<Option<u64>, FollowError> {
        let Some(indexed) = writer.head() else { return Ok(None) };
        let lowest = writer.lowest_kept().unwrap_or(indexed);
        let mut number = indexed.min(node_head);
        loop {
            let ours = writer.hash_at(number);
            if ours.is_some() && self.node.hash_at(number).await? == ours {
                return Ok((number != indexed).then_some(number));
            }
            if number == 0 || number <= lowest {
                break;
            }
            number -= 1;
        }
        tracing::warn!(chain = %self.chain, indexed, "a reorganisation deeper than kept: indexing again from the first block");
        if !writer.clear(journal).await? {
            return Err(FollowError::LostLease);
        }
        self.rolled_back(self.config().start_block.saturating_sub(1));
        Ok(None)
    }

    /// The blocks with the metadata of the contracts each discovers first.
    async fn table_entries(
        &self,
        writer: &TableWriter,
        blocks: Vec<crate::IndexedBlock>,
    ) -> Result<Vec<Entry>, FollowError> {
        let mut found: HashSet<Discovery> = HashSet::new();
        let mut entries = Vec::with_capacity(blocks.len());
        for block in blocks {
            let discoveries: Vec<Discovery> =
                writer.discoveries(&block).into_iter().filter(|discovery| found.insert(*discovery)).collect();
            entries.push(self.entry(block, discoveries).await?);
        }
        Ok(entries)
    }

    async fn write_batch(
        &self,
        index: &TablesIndex,
        writer: &mut TableWriter,
        journal: &Journal,
        rollback: Option<u64>,
        entries: &[Entry],
    ) -> Result<(), FollowError> {
        if !writer.write(journal, rollback, entries).await? {
            return Err(FollowError::LostLease);
        }
        // This replica's own view moves with what it wrote, so that its
        // next look at the tables finds nothing new to tell.
        if let Some(ancestor) = rollback {
            tracing::info!(chain = %self.chain, to = ancestor, "rolled back a reorganisation");
            index.revision.store(writer.progress().revision, Ordering::Release);
            self.rolled_back(ancestor);
        }
        index.head.store(writer.head().unwrap_or(u64::MAX), Ordering::Release);
        for entry in entries {
            self.announce(entry.block.number);
        }
        Ok(())
    }
}
