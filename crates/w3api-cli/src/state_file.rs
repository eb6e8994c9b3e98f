//! `w3api serve --state FILE`: the devnet's chains carried in one file, as
//! Anvil's `--state` carries its chain: loaded at start when the file
//! exists, written when the server stops (SIGTERM or Ctrl-C).

use std::path::Path;

use serde_json::{Value, json};
use w3api_devnet::Devnet;
use w3api_source::ChainControl;
use w3api_store::Store;
use w3api_types::Chain;

use crate::error::CliError;

/// This file format's version.
const VERSION: u64 = 1;

fn failed(path: &Path, why: impl std::fmt::Display) -> CliError {
    CliError::Input(format!("state {}: {why}", path.display()))
}

/// Loads every chain the file at `path` holds; the chains loaded (none
/// when there is no file yet).
pub(crate) async fn load(path: &Path, devnet: &Devnet) -> Result<Vec<Chain>, CliError> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(error) => return Err(failed(path, error)),
    };
    let file: Value = serde_json::from_slice(&text).map_err(|e| failed(path, format!("not JSON: {e}")))?;
    if file["w3apiState"].as_u64() != Some(VERSION) {
        return Err(failed(path, format!("not a state file of w3api serve --state (format {VERSION})")));
    }
    let dumps = file["chains"].as_array().ok_or_else(|| failed(path, "no chains list"))?;
    let mut loaded = Vec::new();
    for dump in dumps {
        let name = dump["chain"].as_str().ok_or_else(|| failed(path, "a chain's dump names no chain"))?;
        let chain: Chain = name.parse().map_err(|e| failed(path, format!("chain {name:?}: {e}")))?;
        let bytes = serde_json::to_vec(dump).map_err(|e| failed(path, e))?;
        devnet.load_state(chain, bytes).await.map_err(|e| failed(path, format!("chain {chain}: {e}")))?;
        loaded.push(chain);
    }
    Ok(loaded)
}

/// Writes every chain the store keeps changes of to `path`, through a
/// file beside it renamed into place, so that a stop midway leaves the
/// file as it was.
pub(crate) async fn save(path: &Path, devnet: &Devnet, store: &dyn Store) -> Result<usize, CliError> {
    let kept = store.kept_chains().await.map_err(|e| failed(path, e))?;
    let mut chains = Vec::new();
    for (chain, _) in kept {
        let dump = devnet.dump_state(chain).await.map_err(|e| failed(path, format!("chain {chain}: {e}")))?;
        chains.push(serde_json::from_slice::<Value>(&dump).map_err(|e| failed(path, e))?);
    }
    let count = chains.len();
    let text = serde_json::to_vec(&json!({ "w3apiState": VERSION, "chains": chains })).map_err(|e| failed(path, e))?;
    let mut beside = path.as_os_str().to_owned();
    beside.push(".writing");
    std::fs::write(&beside, text).map_err(|e| failed(path, e))?;
    std::fs::rename(&beside, path).map_err(|e| failed(path, e))?;
    Ok(count)
}
