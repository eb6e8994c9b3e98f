//! Answers to the data-source questions, read from a generated chain at any block.

pub mod blocks;
pub mod nfts;
pub mod node;
pub mod prices;
pub mod sales;
pub mod wallet_tokens;

/// Blocks in a day at 12 seconds a block.
pub const BLOCKS_PER_DAY: u64 = 86_400 / crate::generate::BLOCK_TIME;
