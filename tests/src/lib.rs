//! Support for the workspace's tests: the spec documents, JSON Schema
//! validators over them, the map from component schemas to Rust types,
//! proptest strategies for every type, and the shared fixtures.

pub mod drift;
pub mod fixtures;
pub mod registry;
pub mod spec;
pub mod strategies;

/// The README's examples, compiled as doctests.
#[cfg(doctest)]
#[doc = include_str!("../../README.md")]
pub struct ReadmeExamples;
