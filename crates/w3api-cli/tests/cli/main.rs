//! `w3api` as a user runs it, in one test binary (each binary is a link of
//! its own): the API commands against the harness's in-process server, and
//! `w3api serve` as a process of its own.

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {
    alloy_primitives as _, bs58 as _, chrono as _, clap as _, ed25519_dalek as _, either as _, futures as _,
    humantime as _, hyper as _, mimalloc as _, serde as _, thiserror as _, tracing_subscriber as _, uuid as _,
    w3api_cli as _, w3api_devnet as _, w3api_indexer as _, w3api_rest as _, w3api_rpc as _, w3api_server as _,
    w3api_source as _, w3api_streams as _, zerocopy as _,
};

mod book;
mod commands;
mod console;
mod kept;
mod live;
mod node_limits;
mod node_traces;
mod replicas;
mod serve;
mod streams;
