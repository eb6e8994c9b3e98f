//! The shared fixtures: responses published by the production service and the
//! Ethereum execution-API request/response pairs. They live outside the
//! repository (`../shared/fixtures`, or `$W3API_SHARED_FIXTURES`). A test
//! that needs them fails when they are absent, naming the folder it looked
//! for, unless `W3API_ALLOW_MISSING_FIXTURES` is set: then it says why and
//! skips, so that a skip is always something someone asked for.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// Set (to anything) to let the fixture tests skip when the fixtures are absent.
pub const ALLOW_MISSING: &str = "W3API_ALLOW_MISSING_FIXTURES";

/// Where the fixtures are looked for: `$W3API_SHARED_FIXTURES`, or
/// `shared/fixtures` next to the repository.
pub fn fixtures_dir() -> PathBuf {
    match std::env::var_os("W3API_SHARED_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/fixtures"),
    }
}

/// The fixtures folder. Panics, naming the folder, when it is absent, unless
/// `W3API_ALLOW_MISSING_FIXTURES` is set: then it prints why and returns `None`.
pub fn shared_fixtures() -> Option<PathBuf> {
    let dir = fixtures_dir();
    if dir.is_dir() {
        return Some(dir);
    }
    if std::env::var_os(ALLOW_MISSING).is_some() {
        println!("skipped: no shared fixtures at {} ({ALLOW_MISSING} is set)", dir.display());
        None
    } else {
        panic!(
            "no shared fixtures at {}: put them there, point W3API_SHARED_FIXTURES at them, \
             or set {ALLOW_MISSING}=1 to skip the tests that need them",
            dir.display()
        );
    }
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

/// Every case of `execution-apis/*.io`, in path order.
pub fn execution_apis(dir: &Path) -> Vec<ExecutionApiCase> {
    let mut cases = Vec::new();
    for path in sorted_entries(&dir.join("execution-apis")) {
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
