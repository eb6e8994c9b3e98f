//! The specs against the types, with nothing but the types: one test binary
//! for every suite, since each binary costs a link.

mod drift;
mod examples;
mod fixtures;
mod roundtrip;
mod spec_shape;
