//! `cargo xtask generate`: regenerate the clients from `spec/`.
//! `cargo xtask check`: fail, with a diff, when the committed clients are stale.

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
}

fn main() -> ExitCode {
    let root = workspace_root();
    let outcome = match Command::parse() {
        Command::Generate => generate(&root),
        Command::Check => check(&root),
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
        "error: {} generated file(s) differ from what spec/ generates: {}\nrun `cargo xtask generate` and commit the result",
        stale.len(),
        stale.iter().map(|f| f.path.display().to_string()).collect::<Vec<_>>().join(", ")
    );
    Ok(ExitCode::FAILURE)
}
