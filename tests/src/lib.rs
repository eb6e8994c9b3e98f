//! Support for the workspace's tests: the spec documents, JSON Schema
//! validators over them, the map from component schemas to Rust types,
//! proptest strategies for every type, the shared fixtures, and an
//! in-process server whose every answer is checked against the specs.

pub mod drift;
pub mod fixtures;
pub mod local;
pub mod registry;
pub mod spec;
pub mod strategies;

/// An HTTP client for tests. reqwest leaves the TLS crypto provider to the
/// application; ring is installed first, as the REST client does.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
