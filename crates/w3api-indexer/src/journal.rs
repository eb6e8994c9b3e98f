//! The index kept in the store: each indexed block as a journal entry (its
//! header's links, its transactions' parties, the contracts it made known
//! with their metadata, and its logs that move tokens or pairs), so that a
//! restart or another replica rebuilds the same index without asking the
//! node again.
//!
//! One replica at a time holds a chain's lease and writes the journal;
//! the others read it and apply what it adds.

use std::sync::Arc;
use std::time::Duration;

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_rlp::{RlpDecodable, RlpEncodable};
use chrono::Utc;
use uuid::Uuid;
use w3api_ledger::events::{self, Event};
use w3api_store::{IndexBlock, Store, StoreError};
use w3api_types::Chain;

use crate::block::{IndexedBlock, IndexedInnerTransfer, IndexedLog, IndexedTransaction, LogPosition};
use crate::index::{CollectionMeta, TokenMeta};

/// A block as applied, with the metadata registered for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    /// Tokens first seen in the block.
    pub tokens: Vec<(Address, TokenMeta)>,
    /// Collections first seen in the block.
    pub collections: Vec<(Address, CollectionMeta)>,
    /// The block, with the logs the index reads.
    pub block: IndexedBlock,
}

#[derive(RlpEncodable, RlpDecodable)]
struct TokenRow {
    address: Address,
    name: String,
    symbol: String,
    decimals: u8,
}

#[derive(RlpEncodable, RlpDecodable)]
struct CollectionRow {
    address: Address,
    name: String,
    symbol: String,
    erc1155: bool,
}

#[derive(RlpEncodable, RlpDecodable)]
struct LogRow {
    address: Address,
    topics: Vec<B256>,
    data: Bytes,
    transaction_index: u32,
    log_index: u32,
}

/// A transaction; a creation's recipient is written as the zero address
/// and `created` (RLP has no absent value in a list).
#[derive(RlpEncodable, RlpDecodable)]
struct TransactionRow {
    hash: B256,
    from: Address,
    to: Address,
    created: bool,
    value: U256,
}

#[derive(RlpEncodable, RlpDecodable)]
struct InnerRow {
    transaction_index: u32,
    from: Address,
    to: Address,
    value: U256,
}

#[derive(RlpEncodable, RlpDecodable)]
struct Payload {
    tokens: Vec<TokenRow>,
    collections: Vec<CollectionRow>,
    transactions: Vec<TransactionRow>,
    logs: Vec<LogRow>,
    inner: Vec<InnerRow>,
}

/// Whether the index reads a log (approvals and other events it does not
/// use are not kept).
fn kept(log: &IndexedLog) -> bool {
    matches!(
        events::decode(&log.topics, &log.data),
        Some(
            Event::Erc20Transfer { .. }
                | Event::Deposit { .. }
                | Event::Withdrawal { .. }
                | Event::NftTransfers { .. }
                | Event::PairCreated { .. }
                | Event::Sync { .. }
        )
    )
}

impl Entry {
    /// The entry as the store keeps it.
    pub(crate) fn encode(&self) -> IndexBlock {
        let payload = Payload {
            tokens: self
                .tokens
                .iter()
                .map(|(address, meta)| TokenRow {
                    address: *address,
                    name: meta.name.clone(),
                    symbol: meta.symbol.clone(),
                    decimals: meta.decimals,
                })
                .collect(),
            collections: self
                .collections
                .iter()
                .map(|(address, meta)| CollectionRow {
                    address: *address,
                    name: meta.name.clone(),
                    symbol: meta.symbol.clone(),
                    erc1155: meta.erc1155,
                })
                .collect(),
            logs: self
                .block
                .logs
                .iter()
                .filter(|log| kept(log))
                .map(|log| LogRow {
                    address: log.address,
                    topics: log.topics.clone(),
                    data: log.data.clone(),
                    transaction_index: log.position.transaction_index,
                    log_index: log.position.log_index,
                })
                .collect(),
            transactions: self
                .block
                .transactions
                .iter()
                .map(|tx| TransactionRow {
                    hash: tx.hash,
                    from: tx.from,
                    to: tx.to.unwrap_or_default(),
                    created: tx.to.is_none(),
                    value: tx.value,
                })
                .collect(),
            inner: self
                .block
                .inner
                .iter()
                .map(|moved| InnerRow {
                    transaction_index: moved.transaction_index,
                    from: moved.from,
                    to: moved.to,
                    value: moved.value,
                })
                .collect(),
        };
        IndexBlock {
            number: self.block.number,
            hash: self.block.hash,
            parent_hash: self.block.parent_hash,
            timestamp: self.block.timestamp,
            payload: alloy_rlp::encode(&payload),
        }
    }

    /// An entry the store kept; an error names the block when its payload
    /// is not one this version wrote.
    pub(crate) fn decode(kept: &IndexBlock) -> Result<Entry, StoreError> {
        // An entry written before entries kept transactions, log places and
        // inner transfers does not decode either; the replica that leads
        // indexes its block again (see `Follower::tail`).
        let payload: Payload = alloy_rlp::Decodable::decode(&mut kept.payload.as_slice()).map_err(|error| {
            StoreError::Damaged { what: "index journal", why: format!("block {}: {error}", kept.number) }
        })?;
        Ok(Entry {
            tokens: payload
                .tokens
                .into_iter()
                .map(|t| (t.address, TokenMeta { name: t.name, symbol: t.symbol, decimals: t.decimals }))
                .collect(),
            collections: payload
                .collections
                .into_iter()
                .map(|c| (c.address, CollectionMeta { name: c.name, symbol: c.symbol, erc1155: c.erc1155 }))
                .collect(),
            block: IndexedBlock {
                number: kept.number,
                hash: kept.hash,
                parent_hash: kept.parent_hash,
                timestamp: kept.timestamp,
                transactions: payload
                    .transactions
                    .into_iter()
                    .map(|t| IndexedTransaction {
                        hash: t.hash,
                        from: t.from,
                        to: (!t.created).then_some(t.to),
                        value: t.value,
                    })
                    .collect(),
                logs: payload
                    .logs
                    .into_iter()
                    .map(|l| IndexedLog {
                        address: l.address,
                        topics: l.topics,
                        data: l.data,
                        position: LogPosition { transaction_index: l.transaction_index, log_index: l.log_index },
                    })
                    .collect(),
                inner: payload
                    .inner
                    .into_iter()
                    .map(|i| IndexedInnerTransfer {
                        transaction_index: i.transaction_index,
                        from: i.from,
                        to: i.to,
                        value: i.value,
                    })
                    .collect(),
            },
        })
    }
}

/// A chain's journal in a store, as one replica uses it.
#[derive(Clone)]
pub struct Journal {
    store: Arc<dyn Store>,
    /// The index's tables, when answers read them elsewhere than the store's pool.
    tables: Option<w3api_store::IndexTables>,
    /// This replica, as a lease holder.
    holder: Uuid,
    /// How long a lease lasts without renewal.
    lease: Duration,
}

impl std::fmt::Debug for Journal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Journal").field("store", &self.store.describe()).field("holder", &self.holder).finish()
    }
}

/// Blocks read from the journal at once by a replica that does not lead.
pub(crate) const TAIL_BATCH: usize = 500;

impl Journal {
    /// This replica's use of `store`; a lease it takes lasts `lease`.
    pub fn new(store: Arc<dyn Store>, lease: Duration) -> Journal {
        Journal { store, tables: None, holder: Uuid::new_v4(), lease }
    }

    /// The same journal, whose index tables answers read as `tables` says
    /// (from a read replica, [`w3api_store::IndexTables::reading_from`]).
    pub fn with_tables(self, tables: w3api_store::IndexTables) -> Journal {
        Journal { tables: Some(tables), ..self }
    }

    /// Takes or renews the chain's lease: whether this replica writes.
    pub(crate) async fn lead(&self, chain: Chain) -> Result<bool, StoreError> {
        let now = Utc::now();
        let until = now + chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::seconds(10));
        self.store.lead_index(chain, self.holder, now, until).await
    }

    /// Appends entries, renewing the lease first (a long catch-up writes
    /// many batches between two polls); `false` when this replica no
    /// longer leads.
    pub(crate) async fn append(&self, chain: Chain, entries: &[Entry]) -> Result<bool, StoreError> {
        if entries.is_empty() {
            return Ok(true);
        }
        if !self.lead(chain).await? {
            return Ok(false);
        }
        let blocks: Vec<IndexBlock> = entries.iter().map(Entry::encode).collect();
        self.store.append_index_blocks(chain, self.holder, Utc::now(), &blocks).await
    }

    /// Forgets blocks after `after`; `false` when this replica no longer leads.
    pub(crate) async fn truncate(&self, chain: Chain, after: u64) -> Result<bool, StoreError> {
        self.store.truncate_index(chain, self.holder, Utc::now(), after).await
    }

    /// Forgets the whole journal; `false` when this replica no longer leads.
    pub(crate) async fn clear(&self, chain: Chain) -> Result<bool, StoreError> {
        self.store.clear_index(chain, self.holder, Utc::now()).await
    }

    /// The index's tables in the store itself, where it can hold them.
    pub fn tables_of_store(&self) -> Option<w3api_store::IndexTables> {
        self.store.index_tables()
    }

    /// The index's tables in the journal's store, where it can hold them.
    pub(crate) fn tables(&self) -> Option<w3api_store::IndexTables> {
        self.tables.clone().or_else(|| self.store.index_tables())
    }

    /// Writes a batch to the index's tables, renewing the lease first;
    /// `false` when this replica no longer leads.
    pub(crate) async fn write_tables(
        &self,
        tables: &w3api_store::IndexTables,
        chain: Chain,
        batch: &w3api_store::index_tables::TableBatch,
    ) -> Result<bool, StoreError> {
        if !self.lead(chain).await? {
            return Ok(false);
        }
        tables.write(chain, self.holder, Utc::now(), batch).await
    }

    /// Forgets what the index's tables hold of `chain`; `false` when this
    /// replica no longer leads.
    pub(crate) async fn clear_tables(
        &self,
        tables: &w3api_store::IndexTables,
        chain: Chain,
    ) -> Result<bool, StoreError> {
        tables.clear(chain, self.holder, Utc::now()).await
    }

    /// Entries from block `from` on.
    pub(crate) async fn read(&self, chain: Chain, from: u64) -> Result<Vec<Entry>, StoreError> {
        let kept = self.store.index_blocks(chain, from, TAIL_BATCH).await?;
        kept.iter().map(Entry::decode).collect()
    }

    /// Kept hashes of blocks `from..=to`.
    pub(crate) async fn hashes(&self, chain: Chain, from: u64, to: u64) -> Result<Vec<(u64, B256)>, StoreError> {
        self.store.index_hashes(chain, from, to).await
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::U256;
    use alloy_sol_types::{SolEvent, sol};

    use super::*;

    sol! {
        event Transfer(address indexed from, address indexed to, uint256 value);
    }

    #[test]
    fn an_entry_reads_back_as_written_without_the_logs_the_index_does_not_use() {
        let logged = Transfer { from: Address::repeat_byte(2), to: Address::repeat_byte(3), value: U256::from(7) }
            .encode_log_data();
        let transfer = IndexedLog {
            address: Address::repeat_byte(1),
            topics: logged.topics().to_vec(),
            data: logged.data,
            position: LogPosition { transaction_index: 1, log_index: 3 },
        };
        let unknown = IndexedLog {
            address: Address::repeat_byte(1),
            topics: vec![B256::repeat_byte(9)],
            data: Bytes::new(),
            position: LogPosition { transaction_index: 0, log_index: 2 },
        };
        let transactions = vec![
            IndexedTransaction {
                hash: B256::repeat_byte(0x11),
                from: Address::repeat_byte(2),
                to: None,
                value: U256::ZERO,
            },
            IndexedTransaction {
                hash: B256::repeat_byte(0x12),
                from: Address::repeat_byte(2),
                to: Some(Address::repeat_byte(1)),
                value: U256::from(5),
            },
        ];
        let inner = vec![IndexedInnerTransfer {
            transaction_index: 1,
            from: Address::repeat_byte(1),
            to: Address::repeat_byte(3),
            value: U256::from(2),
        }];
        let entry = Entry {
            tokens: vec![(
                Address::repeat_byte(1),
                TokenMeta { name: "Token".into(), symbol: "TKN".into(), decimals: 6 },
            )],
            collections: vec![(
                Address::repeat_byte(4),
                CollectionMeta { name: String::new(), symbol: "N".into(), erc1155: true },
            )],
            block: IndexedBlock {
                number: 7,
                hash: B256::repeat_byte(7),
                parent_hash: B256::repeat_byte(6),
                timestamp: 1_700_000_000,
                transactions: transactions.clone(),
                logs: vec![unknown, transfer.clone()],
                inner: inner.clone(),
            },
        };
        let read = Entry::decode(&entry.encode()).unwrap();
        assert_eq!(read.block.logs, vec![transfer], "with its place in the block");
        assert_eq!(read.block.transactions, transactions, "a creation's recipient stays absent");
        assert_eq!(read.block.inner, inner);
        assert_eq!((&read.tokens, &read.collections), (&entry.tokens, &entry.collections));
        assert_eq!(
            (read.block.number, read.block.hash, read.block.timestamp),
            (7, B256::repeat_byte(7), 1_700_000_000)
        );
        let damaged = IndexBlock { payload: vec![0xff, 1], ..entry.encode() };
        assert!(matches!(Entry::decode(&damaged), Err(StoreError::Damaged { .. })));
    }
}
