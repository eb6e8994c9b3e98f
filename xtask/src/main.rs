//! `cargo xtask generate`: regenerate the clients from `spec/`.
//! `cargo xtask check`: fail, with a diff, when the committed clients are stale.
//! `cargo xtask dev-cycles`: fail when a package's dev-dependencies reach the package itself.
//! `cargo xtask contracts`: compile the devnet's contracts (needs Node and npm).

// Dependencies this target reaches only through the library, or that the
// suites use: named so that `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use tempfile as _;
use {
    heck as _, openapiv3 as _, prettyplease as _, proc_macro2 as _, progenitor_impl as _, quote as _,
    serde_norway as _, sha2 as _, similar as _, syn as _, thiserror as _,
};

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use clap::Parser;

#[derive(Parser)]
#[command(name = "cargo xtask", about = "Code generation for w3api")]
enum Command {
    /// Regenerate the REST clients and the RPC trait from spec/.
    Generate,
    /// Regenerate in memory and fail if any committed generated file differs.
    Check,
    /// Fail if a workspace package's dev-dependencies depend, at any depth, on the package.
    DevCycles,
    /// Compile contracts/src with the pinned solc (needs Node and npm) into
    /// crates/w3api-contracts/artifacts.
    Contracts,
}

fn main() -> ExitCode {
    let root = workspace_root();
    let outcome = match Command::parse() {
        Command::Generate => generate(&root),
        Command::Check => check(&root),
        Command::DevCycles => Ok(dev_cycles(&root)),
        Command::Contracts => contracts(&root),
    };
    match outcome {
        Ok(code) => code,
        Err(error) => {
            eprintln!("error: {error}");
            ExitCode::FAILURE
        }
    }
}

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

fn generate(root: &Path) -> Result<ExitCode, xtask::Error> {
    let start = Instant::now();
    let files = xtask::generate(root)?;
    xtask::write(root, &files)?;
    let elapsed = start.elapsed();
    for file in &files {
        println!("{:>6} lines  {}", file.lines(), file.path.display());
    }
    let total: usize = files.iter().map(xtask::GeneratedFile::lines).sum();
    println!("{total:>6} lines in {} files, generated in {:.2?}", files.len(), elapsed);
    Ok(ExitCode::SUCCESS)
}

fn contracts(root: &Path) -> Result<ExitCode, xtask::Error> {
    let start = Instant::now();
    let files = xtask::contracts::compile(root)?;
    xtask::contracts::write(root, &files)?;
    for file in &files {
        println!("{:>6} lines  {}", file.lines(), file.path.display());
    }
    println!("{} files, compiled in {:.2?}", files.len(), start.elapsed());
    Ok(ExitCode::SUCCESS)
}

fn check(root: &Path) -> Result<ExitCode, xtask::Error> {
    let stale = xtask::check(root)?;
    if stale.is_empty() {
        println!("generated code is current with spec/");
        return Ok(ExitCode::SUCCESS);
    }
    for file in &stale {
        println!("{}", file.diff);
    }
    eprintln!(
        "error: {} generated file(s) differ from what spec/ or contracts/ generates: {}\nrun `cargo xtask generate` \
         (or `cargo xtask contracts` for the contracts) and commit the result",
        stale.len(),
        stale.iter().map(|f| f.path.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(ExitCode::FAILURE)
}

fn dev_cycles(root: &Path) -> ExitCode {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = std::process::Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--no-deps"])
        .current_dir(root)
        .output();
    let output = match output {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            eprintln!("error: cargo metadata failed:\n{}", String::from_utf8_lossy(&output.stderr));
            return ExitCode::FAILURE;
        }
        Err(error) => {
            eprintln!("error: running cargo metadata: {error}");
            return ExitCode::FAILURE;
        }
    };
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).expect("cargo metadata prints JSON");
    let cycles = packages_reaching_themselves(&metadata);
    if cycles.is_empty() {
        println!("no package's dev-dependencies reach the package itself");
        return ExitCode::SUCCESS;
    }
    eprintln!("error: dev-dependency cycles: {}", cycles.join("; "));
    ExitCode::FAILURE
}

/// Each workspace package whose dev-dependencies depend on it, as
/// `package -> dev-dependency -> ... -> package`. Only workspace packages can
/// close such a loop, so `--no-deps` metadata is enough.
fn packages_reaching_themselves(metadata: &serde_json::Value) -> Vec<String> {
    use std::collections::BTreeMap;
    let mut normal: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let mut dev: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    for package in packages {
        let name = package["name"].as_str().unwrap_or_default();
        normal.entry(name).or_default();
        for dependency in package["dependencies"].as_array().into_iter().flatten() {
            let target = dependency["name"].as_str().unwrap_or_default();
            let edges = if dependency["kind"] == "dev" { &mut dev } else { &mut normal };
            edges.entry(name).or_default().push(target);
        }
    }
    let mut cycles = Vec::new();
    for (&package, starts) in &dev {
        // Depth-first over normal and build dependencies, keeping the way back.
        let mut came_from: BTreeMap<&str, &str> = BTreeMap::new();
        let mut stack: Vec<&str> = Vec::new();
        for &start in starts {
            if !came_from.contains_key(start) {
                came_from.insert(start, package);
                stack.push(start);
            }
        }
        while let Some(at) = stack.pop() {
            if at == package {
                let mut path = vec![package];
                let mut step = came_from[package];
                while step != package {
                    path.push(step);
                    step = came_from[step];
                }
                path.push(package);
                path.reverse();
                cycles.push(path.join(" -> "));
                break;
            }
            for &next in normal.get(at).into_iter().flatten() {
                if !came_from.contains_key(next) {
                    came_from.insert(next, at);
                    stack.push(next);
                }
            }
        }
    }
    cycles
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::packages_reaching_themselves;

    fn package(name: &str, deps: &[(&str, Option<&str>)]) -> serde_json::Value {
        let deps: Vec<_> = deps.iter().map(|(name, kind)| json!({"name": name, "kind": kind})).collect();
        json!({"name": name, "dependencies": deps})
    }

    #[test]
    fn a_dev_dependency_that_depends_back_is_a_cycle() {
        let metadata = json!({"packages": [
            package("rpc", &[("types", None), ("harness", Some("dev"))]),
            package("harness", &[("server", None)]),
            package("server", &[("rpc", None)]),
            package("types", &[]),
            package("cli", &[("rpc", None), ("harness", Some("dev"))]),
        ]});
        assert_eq!(packages_reaching_themselves(&metadata), ["rpc -> harness -> server -> rpc"]);
    }

    #[test]
    fn dev_dependencies_of_dev_dependencies_do_not_count() {
        let metadata = json!({"packages": [
            package("a", &[("b", Some("dev"))]),
            package("b", &[("a", Some("dev"))]),
        ]});
        assert!(packages_reaching_themselves(&metadata).is_empty());
    }
}
