//! The devnet's suites, in one binary: each binary is a link of its own.

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {
    alloy_rlp as _, alloy_signer as _, alloy_signer_local as _, bs58 as _, chrono as _, criterion as _,
    ed25519_dalek as _, fastrand as _, parking_lot as _, rayon as _, serde as _, tracing as _, uuid as _,
    w3api_query as _, w3api_store as _,
};

mod chain;
mod execution;
mod import;
mod journal;
mod ledger;
mod live;
mod queries;
mod shape;
