//! The devnet's own contracts, written in Solidity under `contracts/src`
//! and compiled by `cargo xtask contracts` (the pinned solc-js) into
//! `artifacts/`, which is committed: building this crate needs neither Node
//! nor solc. Each module is alloy's binding of one contract: its calls,
//! events and errors as types, and `BYTECODE`, the creation code.
//!
//! - [`Token`]: an ERC20 the owner mints and holders burn;
//! - [`WrappedNative`]: the wrapped native currency;
//! - [`Collectible`]: an ERC721 whose `tokenURI` is a base URI and the id;
//! - [`MultiToken`]: an ERC1155 with one `uri` template;
//! - [`Factory`], [`Pair`] and [`Router`]: a constant-product exchange with
//!   Uniswap V2's events, `getReserves`, `token0` and `token1`;
//! - [`Marketplace`]: fixed-price NFT listings, each sale a `Sale` event.
//!
//! [`decode`] reads calls and logs by these ABIs, which hold the standard
//! token and exchange events and functions.
//!
//! `artifacts/SOURCES` records what the artifacts were compiled from;
//! `cargo xtask check` fails when a source changed since.

// Dev-dependencies of the package's suites, named so that
// `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use w3api_ledger as _;

use alloy_sol_types::sol;

pub mod decode;

sol!(
    #[sol(all_derives, abi)]
    Token,
    "artifacts/Token.json"
);
sol!(
    #[sol(all_derives, abi)]
    WrappedNative,
    "artifacts/WrappedNative.json"
);
sol!(
    #[sol(all_derives, abi)]
    Collectible,
    "artifacts/Collectible.json"
);
sol!(
    #[sol(all_derives, abi)]
    MultiToken,
    "artifacts/MultiToken.json"
);
sol!(
    #[sol(all_derives, abi)]
    Pair,
    "artifacts/Pair.json"
);
sol!(
    #[sol(all_derives, abi)]
    Factory,
    "artifacts/Factory.json"
);
sol!(
    #[sol(all_derives, abi)]
    Router,
    "artifacts/Router.json"
);
sol!(
    #[sol(all_derives, abi)]
    Marketplace,
    "artifacts/Marketplace.json"
);
