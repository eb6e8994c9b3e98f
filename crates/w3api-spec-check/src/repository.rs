//! Where the repository is, found when the tests run rather than when they
//! were built, so that a test binary run in another copy of the clone reads
//! that copy's files (`.ci/run` runs the suites that read test data in a
//! copy with nothing beside it).

use std::path::{Path, PathBuf};

/// The repository's root: the nearest folder above the running package that
/// holds `Cargo.lock` and `spec/`. `cargo test` runs each test with
/// `CARGO_MANIFEST_DIR` set to its package; a binary run otherwise starts
/// from the package it was built from.
pub fn repository_root() -> PathBuf {
    let package =
        std::env::var_os("CARGO_MANIFEST_DIR").map_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")), PathBuf::from);
    root_above(&package).unwrap_or_else(|| {
        panic!("no repository (a folder with Cargo.lock and spec/) at or above {}", package.display())
    })
}

fn root_above(package: &Path) -> Option<PathBuf> {
    package.ancestors().find(|dir| dir.join("Cargo.lock").is_file() && dir.join("spec").is_dir()).map(Path::to_path_buf)
}
