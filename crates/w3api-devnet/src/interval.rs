//! Interval mining (`evm_setIntervalMining`, `anvil_setIntervalMining`): a
//! chain set to mine every N seconds gets an empty block (the pool's
//! pending transactions in it) every N seconds, as Anvil makes them, with
//! automine off meanwhile. The setting is a change of the chain, journaled
//! like any other; the blocks are made by one task per devnet, started by
//! the first chain set to it, and on replicas by the one holding the lease
//! on live blocks, as `--block-time`'s are.

use std::collections::HashMap;
use std::sync::{Arc, Weak};
use std::time::{Duration, Instant};

use w3api_types::Chain;

use crate::journal::Change;
use crate::{Devnet, Inner};

/// How often the task looks at the chains' settings.
const LOOK: Duration = Duration::from_millis(100);

impl Devnet {
    /// Starts the task that makes interval blocks, unless it runs.
    pub(crate) fn start_interval_mining(&self) {
        if self.inner.interval_miner.set(()).is_err() {
            return;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            tracing::warn!("no async runtime runs here: interval mining makes no blocks");
            return;
        };
        runtime.spawn(mine_at_intervals(Arc::downgrade(&self.inner)));
    }
}

/// Makes each chain's interval blocks while the devnet lives.
async fn mine_at_intervals(devnet: Weak<Inner>) {
    let mut last: HashMap<Chain, Instant> = HashMap::new();
    loop {
        tokio::time::sleep(LOOK).await;
        let Some(inner) = devnet.upgrade() else { return };
        let devnet = Devnet { inner };
        for chain in devnet.generated_chains() {
            let Some(seconds) = devnet.chain(chain).producer.interval else {
                last.remove(&chain);
                continue;
            };
            let every = Duration::from_secs(seconds);
            let since = *last.entry(chain).or_insert_with(Instant::now);
            if since.elapsed() < every || !devnet.leads_live_blocks(chain, every).await {
                continue;
            }
            last.insert(chain, Instant::now());
            if let Err(error) = devnet.commit(chain, Change::IntervalBlock { seconds }).await {
                tracing::error!(%chain, %error, "an interval block could not be made");
            }
        }
    }
}
