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

/// One test of the execution clients' suite: a file
/// `execution-apis/<method>/<case>.io`, its exchanges in order.
pub struct ExecutionApiTest {
    /// `<method>/<case>`, as hive names it.
    pub name: String,
    /// The file.
    pub path: PathBuf,
    /// Whether only the answer's shape is checked (its header says
    /// `speconly:`), as hive checks it: the exact answer depends on the node.
    pub speconly: bool,
    /// Its requests and the responses expected, in order.
    pub exchanges: Vec<ExecutionApiCase>,
}

/// Every test of `execution-apis/<method>/*.io`, in path order (the folder
/// also holds the suite's chain: `genesis.json` and `chain.rlp`).
pub fn execution_api_tests(dir: &Path) -> Vec<ExecutionApiTest> {
    let root = dir.join("execution-apis");
    let methods = sorted_entries(&root).into_iter().filter(|p| p.is_dir());
    let files = methods.flat_map(|method| sorted_entries(&method)).filter(|p| p.extension().is_some_and(|e| e == "io"));
    files.map(|path| read_test(&root, path)).collect()
}

fn read_test(root: &Path, path: PathBuf) -> ExecutionApiTest {
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let name = path.strip_prefix(root).unwrap().with_extension("").to_string_lossy().replace('\\', "/");
    let mut test = ExecutionApiTest { name, path: path.clone(), speconly: false, exchanges: Vec::new() };
    let mut request = None;
    for line in text.lines().map(str::trim) {
        if let Some(comment) = line.strip_prefix("//") {
            test.speconly |= test.exchanges.is_empty() && comment.trim_start().starts_with("speconly:");
        } else if let Some(json) = line.strip_prefix(">>") {
            request = Some(parse(&path, json.trim()));
        } else if let Some(json) = line.strip_prefix("<<") {
            let request = request.take().unwrap_or_else(|| panic!("{}: a response before its request", path.display()));
            test.exchanges.push(ExecutionApiCase { path: path.clone(), request, response: parse(&path, json.trim()) });
        } else if !line.is_empty() {
            panic!("{}: not a line of a test: {line}", path.display());
        }
    }
    test
}

/// Every exchange of every test of [`execution_api_tests`], in order.
pub fn execution_apis(dir: &Path) -> Vec<ExecutionApiCase> {
    execution_api_tests(dir).into_iter().flat_map(|test| test.exchanges).collect()
}

/// The exchanges answered with a result whose method's params and result
/// the interface's own types (`w3api-types`, the generated RPC client)
/// declare: blocks, and transactions by block and index.
pub fn typed_execution_apis(dir: &Path) -> Vec<ExecutionApiCase> {
    const TYPED: [&str; 3] =
        ["eth_getBlockByNumber", "eth_getTransactionByBlockHashAndIndex", "eth_getTransactionByBlockNumberAndIndex"];
    let typed = |case: &ExecutionApiCase| TYPED.contains(&case.method()) && case.response.get("result").is_some();
    execution_apis(dir).into_iter().filter(typed).collect()
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
