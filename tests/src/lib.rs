//! The workspace's in-process server harness ([`local`]): `w3api-server`
//! over the devnet behind a layer that checks every answer against the
//! specs, and the clients that talk to it. Its suites (contract, coherence,
//! the server's and the RPC client's) are the `it` test binary. Checks that
//! need only the types are in `w3api-spec-check`.
//!
//! Dev-only: a crate under test may dev-depend on it only if nothing the
//! harness uses depends on that crate (the CLI may; the server may not).

// Dev-dependencies of the package's other targets (its suites and doc
// examples), named so that `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use {
    alloy_primitives as _, alloy_sol_types as _, bs58 as _, chrono as _, ed25519_dalek as _, form_urlencoded as _,
    futures as _, proptest as _, serde as _, tokio_tungstenite as _, uuid as _, w3api_contracts as _,
    w3api_streams as _, wiremock as _,
};

pub mod local;
pub mod observed;

/// An HTTP client for tests. reqwest leaves the TLS crypto provider to the
/// application; ring is installed first, as the REST client does.
pub fn http_client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// Each page of the book (and the README) whose Rust examples run as
/// doctests: a type per page, documented with the page. The book's check
/// (`it`'s `book` suite) fails when a page with Rust examples is missing here.
macro_rules! doctested_pages {
    ($($page:ident: $path:literal),* $(,)?) => {
        $(
            #[cfg(doctest)]
            #[doc = include_str!(concat!("../../", $path))]
            pub struct $page;
        )*
        /// The pages doctested, from the repository's root.
        pub const DOCTESTED_PAGES: &[&str] = &[$($path),*];
    };
}

doctested_pages! {
    Readme: "README.md",
    Clients: "docs/src/clients.md",
    Testing: "docs/src/testing.md",
}
