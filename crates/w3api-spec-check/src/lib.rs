//! Checks the specs against the Rust types, with nothing but the types: the
//! spec documents and JSON Schema validators over them, the map from
//! component schemas to Rust types, the drift check between the two,
//! proptest strategies for every type, and the test data in `tests/fixtures`.
//!
//! A leaf of the workspace (no server, client or devnet), so that any crate
//! may dev-depend on it without a cycle; the in-process server harness is
//! `w3api-tests`.

pub mod drift;
pub mod fixtures;
pub mod registry;
pub mod repository;
pub mod spec;
pub mod strategies;

pub use repository::repository_root;
