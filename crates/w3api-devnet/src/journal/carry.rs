//! State to carry between servers: `anvil_dumpState` gives a chain's
//! journal with what it was written on, and `anvil_loadState` makes a
//! chain from one, on any server of the same seed and scale.

use serde::{Deserialize, Serialize};
use w3api_source::SourceError;
use w3api_types::Chain;

use super::change::{Carried, Change};
use super::{Position, from_json};
use crate::Devnet;
use crate::live::LiveChain;

/// What `anvil_dumpState` writes, as JSON.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Dump {
    /// The format's version.
    w3api_chain_dump: u32,
    chain: String,
    /// The seed, scale and base block the changes were made on.
    origin: serde_json::Value,
    changes: Vec<Carried>,
}

/// This format's version.
const VERSION: u32 = 1;

fn refused(why: String) -> SourceError {
    SourceError::InvalidChange(format!("state: {why}"))
}

impl Devnet {
    /// The chain's journal, with its origin, as JSON bytes.
    pub(crate) async fn dump(&self, chain: Chain) -> Result<Vec<u8>, SourceError> {
        let live = self.ready_live(chain).await?;
        let Some(journal) = &self.inner.journal else {
            return Err(SourceError::Unavailable(format!(
                "chain {chain}: a devnet without a store keeps no journal to dump (w3api serve always has one)"
            )));
        };
        // No change of this process lands while the journal is read, and
        // it is read in one statement, as it was at one moment.
        let followed = journal.chain(chain);
        let _turn = followed.position.lock().await;
        let kept = journal.store.chain_changes(chain, 0, usize::MAX).await?;
        let changes = kept
            .iter()
            .map(|kept| {
                let change = from_json(chain, kept.seq, "change", &kept.change)?;
                let outcome = from_json(chain, kept.seq, "outcome", &kept.outcome)?;
                Ok(Carried { change, outcome })
            })
            .collect::<Result<Vec<_>, SourceError>>()?;
        let origin = serde_json::from_str(&self.origin(chain, &live))
            .map_err(|e| SourceError::Unavailable(format!("chain {chain}: the origin does not read back: {e}")))?;
        let dump = Dump { w3api_chain_dump: VERSION, chain: chain.as_str().to_owned(), origin, changes };
        serde_json::to_vec(&dump).map_err(|e| SourceError::Unavailable(format!("writing the dump: {e}")))
    }

    /// Makes the chain the one `state` describes, through its journal.
    pub(crate) async fn load(&self, chain: Chain, state: &[u8]) -> Result<(), SourceError> {
        let dump: Dump = serde_json::from_slice(state)
            .map_err(|e| refused(format!("not a dump of w3api's anvil_dumpState: {e}")))?;
        if dump.w3api_chain_dump != VERSION {
            return Err(refused(format!(
                "a dump in format {}; this server reads format {VERSION}",
                dump.w3api_chain_dump
            )));
        }
        if dump.chain != chain.as_str() {
            return Err(refused(format!("a dump of chain {}, not of {chain}", dump.chain)));
        }
        let live = self.ready_live(chain).await?;
        let ours: serde_json::Value = serde_json::from_str(&self.origin(chain, &live)).unwrap_or_default();
        if dump.origin != ours {
            return Err(refused(format!(
                "dumped from a devnet on {}; this server runs on {ours}: start it with the dump's --seed and --scale",
                dump.origin
            )));
        }
        self.commit(chain, Change::Load { changes: dump.changes }).await.map(drop)
    }

    /// Makes a chain of the seed's with `changes` off to the side, checking
    /// each, and only then puts it in place of `live`: a dump that does not
    /// replay leaves the chain as it was. Snapshots taken in the dump are
    /// not carried (as Anvil's are not); their ids stay used.
    pub(super) fn load_now(&self, chain: Chain, live: &LiveChain, changes: &[Carried]) -> Result<(), SourceError> {
        let loaded = LiveChain::new(self.generate(chain));
        let mut position = Position::pristine();
        for (index, carried) in changes.iter().enumerate() {
            let seq = index as u64 + 1;
            let replayed = self.replay_change(chain, &loaded, &mut position, seq, &carried.change, &carried.outcome);
            replayed.map_err(|e| refused(format!("change {} of the dump does not replay here: {e}", index + 1)))?;
        }
        let last_id = loaded.last_snapshot_id();
        let data =
            loaded.into_data().ok_or_else(|| SourceError::Unavailable("the loaded chain is still held".into()))?;
        live.reset(data);
        live.skip_snapshot_ids(last_id);
        Ok(())
    }
}
