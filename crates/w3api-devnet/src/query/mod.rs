//! Answers to the data-source questions, read from a generated chain at any block.

pub(crate) mod blocks;
mod chain_config;
mod contracts;
mod execution;
pub(crate) mod indexes;
pub(crate) mod nfts;
pub(crate) mod node;
pub(crate) mod parity_traces;
mod payload;
pub(crate) mod prices;
pub(crate) mod raw;
pub(crate) mod sales;
pub(crate) mod sending;
mod simulate;
pub(crate) mod traces;
mod view;
pub(crate) mod wallet_tokens;

pub(crate) use execution::Prepared;

/// Blocks in a day at 12 seconds a block, as the generated chain has them.
pub const BLOCKS_PER_DAY: u64 = DAY / crate::generate::BLOCK_TIME;

/// Seconds in a day.
pub(crate) const DAY: u64 = 86_400;
