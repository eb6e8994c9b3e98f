//! JSON-RPC client of the w3api gateway, and the API trait its server
//! implements.
//!
//! `spec/openrpc.json` is generated into `EthApiClient` and `EthApiServer`
//! (jsonrpsee), so client and server share every method name, parameter and
//! type. `RpcClient` is the client to use: it builds the gateway URL
//! (`{rpc_url}/{chain}/{apiKey}`) without ever showing the key, returns
//! typed errors (`RpcError`), and sends batches (`Batch`).
//!
//! Features: `client` (the default) builds the client half, `server` the
//! server half; [`method`], [`ErrorCode`] and [`UNANSWERABLE_METHODS`] come
//! with either.
//!
//! ```no_run
//! use w3api_rpc::RpcClient;
//! use w3api_types::Chain;
//! use w3api_types::rpc::BlockNumberOrTag;
//!
//! # async fn example() -> Result<(), w3api_rpc::RpcError> {
//! let rpc = RpcClient::new("https://site1.moralis-nodes.com", Chain::Eth, "YOUR_API_KEY")?;
//! if let Some(block) = rpc.get_block_by_number(BlockNumberOrTag::Latest, false).await? {
//!     println!("block {} has {} transactions", block.number, block.transactions.len());
//! }
//! let mut batch = rpc.batch();
//! let genesis = batch.get_block_by_number(BlockNumberOrTag::Earliest, false);
//! let first_tx = batch.get_transaction_by_block_number_and_index(BlockNumberOrTag::Latest, 0.into());
//! let answers = batch.send().await?;
//! println!("{:?} {:?}", answers.get(&genesis)?.map(|b| b.hash), answers.get(&first_tx)?.map(|t| t.hash));
//! # Ok(())
//! # }
//! ```

#[cfg(feature = "client")]
mod batch;
#[cfg(feature = "client")]
mod client;
#[cfg(feature = "client")]
mod error;
#[cfg(feature = "client")]
mod retry;
#[rustfmt::skip]
mod generated;
/// The chain-control ("cheat") methods of `spec/openrpc-cheats.json`:
/// `evm_mine`, `evm_snapshot`, `anvil_setBalance`… Their client half adds
/// a method per call to [`RpcClient`] and [`Batch`] (feature `client`).
#[rustfmt::skip]
#[path = "generated_cheats.rs"]
pub mod cheats;

#[cfg(feature = "client")]
pub use batch::{Batch, BatchItem, BatchResponse};
#[cfg(feature = "client")]
pub use client::{PRODUCTION_RPC_URL, RpcClient, RpcClientBuilder};
#[cfg(feature = "client")]
pub use error::RpcError;
#[cfg(feature = "client")]
pub use generated::EthApiClient;
#[cfg(feature = "server")]
pub use generated::EthApiServer;
pub use generated::{ErrorCode, UNANSWERABLE_METHODS, limits, method};
#[cfg(feature = "client")]
pub use w3api_retry::RetryPolicy;
