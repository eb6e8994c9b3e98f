//! `cargo xtask check`: the committed generated code matches the specs, and
//! any drift (a spec edited without regenerating, a generated file edited by
//! hand, a file left over) is reported with a diff.

// Dependencies this target reaches only through the library, or that other
// targets of the package use: named so that `unused_crate_dependencies` keeps
// watching the rest.
use {
    clap as _, heck as _, openapiv3 as _, prettyplease as _, proc_macro2 as _, progenitor_impl as _, quote as _,
    serde_json as _, serde_norway as _, sha2 as _, similar as _, syn as _, thiserror as _,
};

use std::path::{Path, PathBuf};

use xtask::{
    CHAIN_FILE, CHEATS_FILE, CHEATS_SPEC, OPENAPI_SPEC, OPENRPC_SPEC, PARAMS_FILE, REST_DIR, RPC_FILE, contracts,
};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_path_buf()
}

/// A scratch copy of the specs and the committed generated files.
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut files = vec![
        PathBuf::from(OPENAPI_SPEC),
        PathBuf::from(OPENRPC_SPEC),
        PathBuf::from(RPC_FILE),
        PathBuf::from(CHEATS_SPEC),
        PathBuf::from(CHEATS_FILE),
        PathBuf::from(CHAIN_FILE),
        PathBuf::from(PARAMS_FILE),
    ];
    for entry in std::fs::read_dir(workspace().join(REST_DIR)).unwrap() {
        files.push(Path::new(REST_DIR).join(entry.unwrap().file_name()));
    }
    // The contracts' inputs and their manifest (the artifacts are not read by a check).
    for entry in std::fs::read_dir(workspace().join("contracts/src")).unwrap() {
        files.push(Path::new("contracts/src").join(entry.unwrap().file_name()));
    }
    files.extend(["compile.cjs", "package.json", "package-lock.json"].map(|name| Path::new("contracts").join(name)));
    files.push(PathBuf::from(contracts::MANIFEST));
    for file in files {
        let to = dir.path().join(&file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(workspace().join(&file), to).unwrap();
    }
    dir
}

fn edit(root: &Path, file: &str, from: &str, to: &str) {
    let path = root.join(file);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(from), "{file} does not contain {from:?}");
    std::fs::write(path, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn the_committed_generated_code_is_current() {
    let stale = xtask::check(&workspace()).unwrap();
    let diffs: Vec<&str> = stale.iter().map(|s| s.diff.as_str()).collect();
    assert!(stale.is_empty(), "run `cargo xtask generate`:\n{}", diffs.join("\n"));
}

#[test]
fn a_scratch_copy_checks_clean() {
    let root = scratch();
    assert_eq!(xtask::check(root.path()).unwrap(), Vec::new());
}

#[test]
fn an_openapi_change_without_regenerating_is_reported_with_a_diff() {
    let root = scratch();
    edit(root.path(), OPENAPI_SPEC, "summary: One EVM stream", "summary: One EVM stream, by id");
    let stale = xtask::check(root.path()).unwrap();
    assert_eq!(stale.len(), 1, "{stale:#?}");
    assert_eq!(stale[0].path, Path::new(REST_DIR).join("streams.rs"));
    let diff = &stale[0].diff;
    assert!(diff.contains("(committed)") && diff.contains("(generated)"), "{diff}");
    assert!(diff.lines().any(|l| l.starts_with('-') && l.contains("One EVM stream") && !l.contains("by id")), "{diff}");
    assert!(diff.lines().any(|l| l.starts_with('+') && l.contains("One EVM stream, by id")), "{diff}");
}

#[test]
fn an_openrpc_change_without_regenerating_is_reported_with_a_diff() {
    let root = scratch();
    edit(root.path(), OPENRPC_SPEC, "\"name\": \"hydrated\"", "\"name\": \"fullTransactions\"");
    let stale = xtask::check(root.path()).unwrap();
    assert_eq!(stale.iter().map(|s| s.path.clone()).collect::<Vec<_>>(), [PathBuf::from(RPC_FILE)]);
    assert!(stale[0].diff.contains("+        full_transactions: bool"), "{}", stale[0].diff);
}

#[test]
fn a_generated_file_edited_by_hand_is_reported() {
    let root = scratch();
    let file = Path::new(REST_DIR).join("data.rs");
    let path = root.path().join(&file);
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str("// a hand edit\n");
    std::fs::write(&path, text).unwrap();
    let stale = xtask::check(root.path()).unwrap();
    assert_eq!(stale.len(), 1);
    assert!(stale[0].diff.contains("-// a hand edit"), "{}", stale[0].diff);
}

#[test]
fn a_file_generation_no_longer_makes_is_reported_and_removed_by_generate() {
    let root = scratch();
    let leftover = Path::new(REST_DIR).join("billing.rs");
    std::fs::write(root.path().join(&leftover), "// from a tag that was removed\n").unwrap();
    let stale = xtask::check(root.path()).unwrap();
    assert_eq!(stale.iter().map(|s| s.path.clone()).collect::<Vec<_>>(), std::slice::from_ref(&leftover));
    xtask::write(root.path(), &xtask::generate(root.path()).unwrap()).unwrap();
    assert!(!root.path().join(&leftover).exists());
    assert_eq!(xtask::check(root.path()).unwrap(), Vec::new());
}

#[test]
fn generate_then_check_is_clean_and_generation_is_deterministic() {
    let root = scratch();
    edit(root.path(), OPENAPI_SPEC, "summary: One EVM stream", "summary: A stream");
    let first = xtask::generate(root.path()).unwrap();
    assert_eq!(first, xtask::generate(root.path()).unwrap());
    xtask::write(root.path(), &first).unwrap();
    assert_eq!(xtask::check(root.path()).unwrap(), Vec::new());
}

#[test]
fn every_generated_file_says_it_is_generated_and_how() {
    for file in xtask::generate(&workspace()).unwrap() {
        let first = file.contents.lines().next().unwrap();
        assert!(
            first.starts_with("// Generated by `cargo xtask generate`") && first.contains("do not edit"),
            "{first}"
        );
    }
}

/// The RPC generator refuses what it does not support, naming it.
#[test]
fn unsupported_openrpc_constructs_are_named() {
    let cases = [
        ("\"paramStructure\": \"by-position\"", "\"paramStructure\": \"by-name\"", "paramStructure \"by-name\""),
        (
            "\"name\": \"block\",\n          \"required\": true",
            "\"name\": \"block\",\n          \"required\": false",
            "the required parameter hydrated after an optional one",
        ),
        (
            "\"schema\": {\n            \"type\": \"boolean\"\n          }",
            "\"schema\": {\n            \"type\": \"object\"\n          }",
            "the schema {\"type\":\"object\"}",
        ),
        ("\"reason\": \"the gateway holds no keys\"", "\"why\": \"no keys\"", "key \"why\""),
        (
            "\"paramStructure\": \"by-position\",",
            "\"paramStructure\": \"by-position\", \"links\": [],",
            "key \"links\"",
        ),
    ];
    for (from, to, expected) in cases {
        let root = scratch();
        edit(root.path(), OPENRPC_SPEC, from, to);
        let error = xtask::generate(root.path()).unwrap_err().to_string();
        assert!(error.contains(expected) && error.contains("not supported"), "{to}: {error}");
    }
}

#[test]
fn an_operation_without_a_declared_tag_is_refused() {
    let root = scratch();
    edit(
        root.path(),
        OPENAPI_SPEC,
        "tags: [streams]\n      operationId: getStream",
        "tags: [admin]\n      operationId: getStream",
    );
    let error = xtask::generate(root.path()).unwrap_err().to_string();
    assert!(error.contains("getStream") && error.contains("\"admin\" is not declared"), "{error}");
}

#[test]
fn a_chain_added_to_the_table_regenerates_the_chain_table() {
    let root = scratch();
    edit(
        root.path(),
        OPENAPI_SPEC,
        "        - monad\n        - '0x8f'\n",
        "        - monad\n        - '0x8f'\n        - mars\n        - '0x3e7'\n",
    );
    edit(root.path(), OPENAPI_SPEC, "rpcSlug: monad}", "rpcSlug: monad}\n        - {name: mars, id: '0x3e7'}");
    let stale = xtask::check(root.path()).unwrap();
    assert_eq!(stale.iter().map(|s| s.path.clone()).collect::<Vec<_>>(), [PathBuf::from(CHAIN_FILE)]);
    assert!(stale[0].diff.lines().any(|l| l.starts_with('+') && l.contains("Mars")), "{}", stale[0].diff);
}

#[test]
fn chain_lists_that_disagree_with_the_table_are_refused_by_name() {
    let cases = [
        // In the OpenAPI enum, not in the table.
        (
            OPENAPI_SPEC,
            "        - monad\n        - '0x8f'\n",
            "        - monad\n        - '0x8f'\n        - mars\n",
            "\"mars\"",
        ),
        // A slug of the table the OpenRPC document does not list.
        (OPENRPC_SPEC, "            \"monad\"\n", "            \"monad-mainnet\"\n", "\"monad\""),
        // Two rows with one id.
        (OPENAPI_SPEC, "{name: monad, id: '0x8f'", "{name: monad, id: '0x171'", "id 0x171"),
    ];
    for (file, from, to, expected) in cases {
        let root = scratch();
        edit(root.path(), file, from, to);
        let error = xtask::generate(root.path()).unwrap_err().to_string();
        assert!(error.contains(expected), "{to}: {error}");
    }
}

#[test]
fn a_bound_changed_in_the_spec_changes_the_parameter_table() {
    let dir = scratch();
    edit(dir.path(), OPENAPI_SPEC, "maxItems: 10\n", "maxItems: 12\n");
    edit(dir.path(), OPENAPI_SPEC, "minimum: 15\n          maximum: 120", "minimum: 15\n          maximum: 90");
    let stale = xtask::check(dir.path()).unwrap();
    let paths: Vec<&Path> = stale.iter().map(|s| s.path.as_path()).collect();
    assert!(paths.contains(&Path::new(PARAMS_FILE)), "{paths:?}");
    let diff = &stale.iter().find(|s| s.path == Path::new(PARAMS_FILE)).unwrap().diff;
    assert!(diff.contains("+            max_items: Some(12u64),"), "{diff}");
    assert!(diff.contains("+        maximum: Some(90u64),"), "{diff}");
}

#[test]
fn a_parameter_schema_the_generator_cannot_read_is_named() {
    let dir = scratch();
    edit(dir.path(), OPENAPI_SPEC, "name: to_block\n          in: query", "name: to_block\n          in: header");
    let error = xtask::generate(dir.path()).unwrap_err().to_string();
    assert!(error.contains("getWalletTokenBalancesPrice, parameter to_block") && error.contains("header"), "{error}");
}

#[test]
fn a_contract_changed_without_recompiling_is_reported() {
    let root = scratch();
    edit(
        root.path(),
        "contracts/src/Token.sol",
        "uint8 public immutable decimals;",
        "uint8 public immutable decimals; // changed",
    );
    let stale = xtask::check(root.path()).unwrap();
    let manifest = stale.iter().find(|s| s.path == Path::new(contracts::MANIFEST)).expect("the manifest is stale");
    assert!(manifest.diff.contains("contracts/src/Token.sol"), "{}", manifest.diff);
    assert_eq!(stale.len(), 1, "nothing else: {:?}", stale.iter().map(|s| &s.path).collect::<Vec<_>>());
}
