//! The specs against the types, with nothing but the types: one test binary
//! for every suite, since each binary costs a link.

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {chrono as _, jsonschema as _, schemars as _, serde_norway as _, serde_with as _, uuid as _};

mod drift;
mod examples;
mod fixtures;
mod production_reference;
mod roundtrip;
mod spec_shape;
