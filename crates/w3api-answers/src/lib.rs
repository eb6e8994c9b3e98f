//! The interface's answers, one module per answer, shared by a REST
//! operation and its JSON-RPC twin.
//!
//! An answer takes the backend and typed parameters and returns the
//! response type of `w3api-types`, or an [`AnswerError`]. It knows neither
//! HTTP nor JSON-RPC: reading a request and writing its answer or error
//! belong to the server's adapters (`rest/` and `rpc/`), which stay thin,
//! each with one error mapping. What several answers write alike (a mined
//! transaction's fields, an NFT, a page's cursor) lives here once, in the
//! module of the answer it comes from.

pub mod block;
pub mod contract_nfts;
pub mod date_to_block;
mod dyn_backend;
mod error;
#[cfg(test)]
mod fixtures;
pub mod internal_transactions;
pub mod native_balances;
pub mod net_worth;
pub mod nft_metadata;
pub mod nft_owners;
pub mod nft_transfers;
pub mod paging;
pub mod token_metadata;
pub mod token_price;
pub mod token_transfers;
pub mod transaction;
pub mod wallet_activity;
pub mod wallet_collections;
pub mod wallet_erc20;
pub mod wallet_history;
pub mod wallet_nfts;
pub mod wallet_tokens;
pub mod wallet_transactions;
pub mod window;

pub use dyn_backend::DynBackend;
pub use error::AnswerError;
pub use paging::{Cursors, Paging};
pub use window::Window;

use w3api_query::ask::Asks;
use w3api_source::DataSource;

/// What the answers read: a data source whose chains the query core can
/// ask.
pub trait Backend: DataSource + Asks {}

impl<S: DataSource + Asks> Backend for S {}
