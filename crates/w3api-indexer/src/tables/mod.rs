//! Node mode's index in PostgreSQL tables (`--index postgres`) rather than
//! in each replica's memory.
//!
//! The writer holds what does not grow with the chain: the contracts, the
//! exchanges and the pairs, and its newest blocks' hashes. Each batch of
//! blocks is applied by the same [`ChainIndex`](crate::ChainIndex) the in-memory index uses,
//! over a ledger that holds that batch alone: before it applies, the writer
//! reads from the tables the values the batch's logs read (balances,
//! supplies, owners, amounts, as [`w3api_ledger::apply::reads`] names
//! them) and carries them in. What the batch changed then becomes rows,
//! written in one transaction under the chain's lease. So both indexes
//! take and refuse the same logs with one copy of the rules.
//!
//! Readers answer from the tables through `read::TablesView`: the query
//! core's reads, each a query in one snapshot of the tables. `follow`
//! keeps the tables up with the node on the replica that holds the lease,
//! and tells every replica's subscribers what the tables gained.

mod follow;
mod read;
mod write;

pub(crate) use follow::TablesIndex;
pub(crate) use read::Contracts;

#[cfg(test)]
mod tests;
