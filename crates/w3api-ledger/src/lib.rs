//! The one reading of a chain's token activity, shared by the devnet and
//! the indexer of a real node:
//! - [`events`]: logs decoded into the token standards' events;
//! - [`discovery`]: the contracts logs name, and their metadata calls;
//! - [`Ledger`]: balances, NFT owners and supplies from those events, with
//!   their history by block ([`History`]);
//! - [`pricing`]: token prices from DEX pair reserves, which [`PairReserves`]
//!   follows from pairs' own events.

pub mod apply;
pub mod discovery;
pub mod events;
mod history;
mod ledger;
mod pairs;
pub mod pricing;

pub use apply::Contracts;
pub use history::{Checkpoints, History};
pub use ledger::{Asset, Erc1155Move, Holder, InnerTransfer, Ledger, LedgerError, Movement, NftId, Place};
pub use pairs::{PairInfo, PairReserves};
