//! `eth_config` (EIP-7910): the fork the chain's newest block follows, and
//! the next and last ones scheduled by time, from the imported chain's
//! schedule or the devnet's own (Prague from the genesis).

use std::borrow::Cow;

use w3api_chain::forks::{ForkPoint, Forks};
use w3api_types::rpc::{BlobSchedule, CapabilitiesHead, EthCapabilities, EthConfig, ForkConfig, ResourceCapability};

use crate::generate::ChainData;

impl ChainData {
    /// `eth_capabilities`: the devnet keeps every kind of data of every
    /// block, from the genesis on.
    pub fn capabilities(&self) -> EthCapabilities {
        let everything = ResourceCapability { disabled: false, oldest_block: Some(0), delete_strategy: None };
        let newest = &self.blocks[self.latest() as usize];
        EthCapabilities {
            head: CapabilitiesHead { number: newest.header.number, hash: newest.hash },
            state: everything,
            tx: everything,
            logs: everything,
            receipts: everything,
            blocks: everything,
            stateproofs: everything,
        }
    }

    /// The rules the chain's blocks follow: an imported chain's schedule,
    /// or the devnet's own.
    pub(crate) fn forks(&self) -> Cow<'_, Forks> {
        match &self.imported {
            Some(imported) => Cow::Borrowed(&imported.forks),
            None => Cow::Owned(Forks::devnet(self.state.chain_id())),
        }
    }

    /// The chain's forks as `eth_config` answers them.
    pub fn eth_config(&self) -> EthConfig {
        let chain_id = self.state.chain_id();
        let forks = self.forks();
        let genesis = &self.blocks[0];
        let schedule = forks.schedule_at((genesis.hash, genesis.header.timestamp), self.timestamp(self.latest()));
        let config = |point: ForkPoint| fork_config(point, chain_id);
        EthConfig {
            current: config(schedule.current),
            next: schedule.next.map(config),
            last: schedule.last.map(config),
        }
    }
}

fn fork_config(point: ForkPoint, chain_id: u64) -> ForkConfig {
    let named =
        |list: Vec<(&str, alloy_primitives::Address)>| list.into_iter().map(|(n, a)| (n.to_string(), a)).collect();
    ForkConfig {
        activation_time: point.activation_time,
        blob_schedule: point.blobs.map(|blobs| BlobSchedule {
            target: blobs.target_blob_count,
            max: blobs.max_blob_count,
            base_fee_update_fraction: blobs.update_fraction as u64,
        }),
        chain_id,
        fork_id: point.fork_id.into(),
        precompiles: named(point.precompiles),
        system_contracts: named(point.system_contracts),
    }
}
