//! Code generation for w3api.
//!
//! [`generate`] turns `spec/openapi.yaml` into one progenitor client per tag
//! (`crates/w3api-rest/src/generated/`), the `x-chains` table of its `Chain`
//! schema into the chain table of `w3api-types`, its parameters and body
//! bounds into the parameter tables of `w3api-types`, and `spec/openrpc.json` into
//! a jsonrpsee API trait (`crates/w3api-rpc/src/generated.rs`), all in memory;
//! [`write`] puts them in place and [`check`] compares them with what is
//! committed. The binary (`cargo xtask generate|check`) wraps these three.

// The command line (clap) is the binary's; the scratch directories
// (tempfile) are the suites'. Named so that `unused_crate_dependencies` keeps
// watching the rest.
use clap as _;
#[cfg(test)]
use tempfile as _;

mod chains;
pub mod contracts;
mod diff;
mod format;
mod params;
mod rest;
mod rpc;

use std::path::{Path, PathBuf};

pub use diff::unified_diff;

/// The OpenAPI document, relative to the workspace root.
pub const OPENAPI_SPEC: &str = "spec/openapi.yaml";
/// The OpenRPC document, relative to the workspace root.
pub const OPENRPC_SPEC: &str = "spec/openrpc.json";
/// Where the REST clients go, relative to the workspace root.
pub const REST_DIR: &str = "crates/w3api-rest/src/generated";
/// Where the RPC trait goes, relative to the workspace root.
pub const RPC_FILE: &str = "crates/w3api-rpc/src/generated.rs";
/// The OpenRPC document of the chain-control methods, relative to the workspace root.
pub const CHEATS_SPEC: &str = "spec/openrpc-cheats.json";
/// Where the chain-control trait goes, relative to the workspace root.
pub const CHEATS_FILE: &str = "crates/w3api-rpc/src/generated_cheats.rs";
/// Where the parameter tables go, relative to the workspace root.
pub const PARAMS_FILE: &str = "crates/w3api-types/src/params/operations.rs";
/// Where the chain table goes, relative to the workspace root.
pub const CHAIN_FILE: &str = "crates/w3api-types/src/chain/table.rs";

/// A file as the generator makes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedFile {
    /// Path relative to the workspace root.
    pub path: PathBuf,
    /// Full contents, starting with the do-not-edit line.
    pub contents: String,
}

impl GeneratedFile {
    /// Number of lines.
    pub fn lines(&self) -> usize {
        self.contents.lines().count()
    }
}

/// Why generation failed.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A spec file could not be read.
    #[error("reading {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// A generated file could not be written or removed.
    #[error("writing {path}: {source}")]
    Write {
        /// The file.
        path: PathBuf,
        /// What the file system said.
        source: std::io::Error,
    },
    /// The OpenAPI document does not parse.
    #[error("{OPENAPI_SPEC}: {0}")]
    OpenApi(String),
    /// progenitor refused the OpenAPI document.
    #[error("{OPENAPI_SPEC}, tag {tag}: progenitor: {message}")]
    Progenitor {
        /// The tag whose operations were being generated.
        tag: String,
        /// progenitor's complaint.
        message: String,
    },
    /// The OpenRPC document uses something the RPC generator does not support.
    #[error("{OPENRPC_SPEC}: {0}")]
    OpenRpc(String),
    /// A tool the generator runs (node, npm) is missing or failed.
    #[error("{0}")]
    Tool(String),
    /// Generated tokens are not valid Rust (a generator bug).
    #[error("{path}: generated code does not parse: {message}")]
    Format {
        /// The file being generated.
        path: PathBuf,
        /// syn's parse error.
        message: String,
    },
}

/// Generates every file from the specs under `root`, without writing anything.
pub fn generate(root: &Path) -> Result<Vec<GeneratedFile>, Error> {
    let openapi = read(root, OPENAPI_SPEC)?;
    let openrpc = read(root, OPENRPC_SPEC)?;
    let mut files = rest::generate(&openapi)?;
    files.push(chains::generate(&openapi, &openrpc)?);
    files.push(params::generate(&openapi)?);
    files.push(rpc::generate(&openrpc, &rpc::GATEWAY)?);
    files.push(rpc::generate(&read(root, CHEATS_SPEC)?, &rpc::CHEATS)?);
    Ok(files)
}

/// Writes the files under `root`, and removes files of the REST output
/// folder that generation no longer makes (a tag that was removed).
pub fn write(root: &Path, files: &[GeneratedFile]) -> Result<(), Error> {
    for stale in orphans(root, files)? {
        std::fs::remove_file(root.join(&stale)).map_err(|source| Error::Write { path: stale, source })?;
    }
    write_files(root, files)
}

/// Writes the files under `root`, removing nothing.
pub fn write_files(root: &Path, files: &[GeneratedFile]) -> Result<(), Error> {
    for file in files {
        let path = root.join(&file.path);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|source| Error::Write { path: dir.to_path_buf(), source })?;
        }
        std::fs::write(&path, &file.contents).map_err(|source| Error::Write { path: file.path.clone(), source })?;
    }
    Ok(())
}

/// A committed file that differs from what the generator makes now.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StaleFile {
    /// Path relative to the workspace root.
    pub path: PathBuf,
    /// Unified diff from the committed file to the generated one.
    pub diff: String,
}

/// Regenerates in memory and lists the committed files that differ (missing
/// files and files generation no longer makes included), and the contracts'
/// manifest when a contract's source changed since its artifacts were
/// compiled. Empty when current.
pub fn check(root: &Path) -> Result<Vec<StaleFile>, Error> {
    let files = generate(root)?;
    let mut stale = contracts::check(root)?;
    for file in &files {
        let committed = std::fs::read_to_string(root.join(&file.path)).unwrap_or_default();
        if committed != file.contents {
            let diff = unified_diff(&file.path, &committed, &file.contents);
            stale.push(StaleFile { path: file.path.clone(), diff });
        }
    }
    for orphan in orphans(root, &files)? {
        let committed = std::fs::read_to_string(root.join(&orphan)).unwrap_or_default();
        stale.push(StaleFile { diff: unified_diff(&orphan, &committed, ""), path: orphan });
    }
    Ok(stale)
}

/// Files in the REST output folder that generation does not make.
fn orphans(root: &Path, files: &[GeneratedFile]) -> Result<Vec<PathBuf>, Error> {
    let dir = root.join(REST_DIR);
    let Ok(entries) = std::fs::read_dir(&dir) else { return Ok(Vec::new()) };
    let mut orphans = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::Read { path: dir.clone(), source })?;
        let path = Path::new(REST_DIR).join(entry.file_name());
        if !files.iter().any(|f| f.path == path) {
            orphans.push(path);
        }
    }
    orphans.sort();
    Ok(orphans)
}

fn read(root: &Path, relative: &str) -> Result<String, Error> {
    let path = root.join(relative);
    std::fs::read_to_string(&path).map_err(|source| Error::Read { path, source })
}
