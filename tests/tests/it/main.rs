//! Every suite that needs a running server, in one test binary: one link
//! instead of one per suite, and one shared server and devnet
//! (`w3api_tests::local`) for all of them.
//!
//! - `contract`: every operation of both specs through the generated clients;
//! - `coherence`: what the data API answers follows from the chain the
//!   JSON-RPC gateway returns;
//! - `server`: the server over raw HTTP (errors, CORS, fuzzing, shutdown);
//! - `rpc_client`: the RPC client against a stub gateway;
//! - `book`: the book and the README hold together (links, pages, doctests).

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {rustls as _, tower as _, w3api_query as _, w3api_source as _, w3api_testkit as _};

mod book;
mod coherence;
mod contract;
mod rpc_client;
mod server;
