//! The test data in the repository (`tests/fixtures/`): responses published
//! by the production service and the Ethereum execution-API request/response
//! pairs. Every clone has them, so a test that needs them never skips.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The fixtures folder, `tests/fixtures` at the repository's root.
pub fn fixtures_dir() -> PathBuf {
    crate::repository_root().join("tests/fixtures")
}

/// One published response: `real-world/<group>/<n>.json`.
pub struct RealWorldSample {
    /// The operation the sample answers, as the folder names it.
    pub group: String,
    /// Where the file is.
    pub path: PathBuf,
    /// Its content.
    pub json: Value,
}

/// Every `real-world/*/*.json` sample, in path order.
pub fn real_world(dir: &Path) -> Vec<RealWorldSample> {
    let mut samples = Vec::new();
    for group in sorted_entries(&dir.join("real-world")).into_iter().filter(|p| p.is_dir()) {
        let name = group.file_name().unwrap().to_string_lossy().into_owned();
        for path in sorted_entries(&group).into_iter().filter(|p| p.extension().is_some_and(|e| e == "json")) {
            samples.push(RealWorldSample { group: name.clone(), json: read_json(&path), path });
        }
    }
    samples
}

/// One execution-API case: a request line (`>>`) and its response line (`<<`).
pub struct ExecutionApiCase {
    /// The file the case comes from.
    pub path: PathBuf,
    /// The JSON-RPC request.
    pub request: Value,
    /// The JSON-RPC response.
    pub response: Value,
}

impl ExecutionApiCase {
    /// The method called.
    pub fn method(&self) -> &str {
        self.request["method"].as_str().expect("a request names its method")
    }
}

/// Every case of `execution-apis/*.io`, in path order (the folder also
/// holds the cases' `genesis.json`).
pub fn execution_apis(dir: &Path) -> Vec<ExecutionApiCase> {
    let mut cases = Vec::new();
    let cases_only =
        sorted_entries(&dir.join("execution-apis")).into_iter().filter(|p| p.extension().is_some_and(|e| e == "io"));
    for path in cases_only {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let mut request = None;
        for line in text.lines() {
            if let Some(json) = line.strip_prefix(">> ") {
                request = Some(parse(&path, json));
            } else if let Some(json) = line.strip_prefix("<< ") {
                let request =
                    request.take().unwrap_or_else(|| panic!("{}: a response before its request", path.display()));
                cases.push(ExecutionApiCase { path: path.clone(), request, response: parse(&path, json) });
            }
        }
    }
    cases
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut paths: Vec<PathBuf> = entries.map(|e| e.expect("a readable directory entry").path()).collect();
    paths.sort();
    paths
}

fn read_json(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    parse(path, &text)
}

fn parse(path: &Path, json: &str) -> Value {
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}
