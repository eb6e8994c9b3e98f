//! The one query core: the Data API's answers assembled, filtered, priced
//! and paged over a chain's [`Ledger`](w3api_ledger::Ledger), written once
//! for every backend.
//!
//! A backend (the devnet, or node mode's index) shows its chain through
//! [`ChainView`]: the ledger, block times, and what the chain alone does not
//! say (names, logos, spam and verified flags). Everything else, what a
//! query keeps, how it is ranked and priced, which block it is read at, is
//! here, so that both backends answer the same question the same way.
//!
//! - [`view`]: the trait and the facts a backend gives;
//! - [`blocks`]: the block an answer is read at;
//! - [`wallet_tokens`]: a wallet's balances with USD prices;
//! - [`nfts`]: a wallet's NFTs and collections;
//! - [`collection_nfts`]: a collection's tokens and owners, and tokens by id;
//! - [`token_price`]: a token's price from its deepest pair;
//! - [`token_metadata`]: what is known of ERC20 tokens;
//! - [`block_at`]: the block at a date;
//! - [`listing`]: the blocks, order and pages of listings over the chain;
//! - [`transfers`]: ERC20 and NFT transfers of a wallet, token or collection;
//! - [`wallet_transactions`]: the transactions a wallet sent or was sent;
//! - [`wallet_activity`]: a wallet's counts, and its first and last transactions;
//! - [`wallet_history`]: a wallet's transactions with what they moved for it,
//!   and [`history_category`]: what each one was for it.
//!
//! A backend shows its views through [`Asks`]; each operation added since
//! is a [`Question`] (see [`ask`]).

pub mod ask;
pub mod block_at;
pub mod blocks;
pub mod collection_nfts;
pub mod history_category;
pub mod listing;
pub mod nfts;
pub mod reads;
#[cfg(test)]
mod testing;
pub mod token_metadata;
pub mod token_price;
pub mod transfers;
pub mod view;
pub mod wallet_activity;
pub mod wallet_history;
pub mod wallet_tokens;
pub mod wallet_transactions;

pub use ask::{AnyQuestion, Asks, Question};
pub use reads::LedgerReads;
pub use view::{ChainView, CollectionFacts, Exchange, TokenFacts, TokenId, TransactionFacts};

/// Seconds in the day that 24-hour changes and inactivity count in.
pub const DAY: u64 = 86_400;
