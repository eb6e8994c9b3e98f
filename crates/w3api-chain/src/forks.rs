//! A chain's fork schedule as its genesis's `config` gives it (geth's
//! names): the rules each block follows, its blob parameters, and what
//! alloy-evm's block executor asks of a chain spec (system calls from
//! Cancun and Prague, pre-merge rewards, deposit requests).

use alloy_eip2124::ForkHash;
use alloy_eips::eip7840::BlobParams;
use alloy_eips::eip7892::BlobScheduleBlobParams;
use alloy_evm::eth::spec::EthExecutorSpec;
use alloy_genesis::ChainConfig;
use alloy_hardforks::{EthereumHardfork, EthereumHardforks, ForkCondition};
use alloy_primitives::{Address, B256};
use revm::precompile::{PrecompileSpecId, Precompiles};
use revm::primitives::hardfork::SpecId;

/// The forks of one chain, by block number (to Gray Glacier), the merge,
/// and by timestamp (from Shanghai).
#[derive(Clone, Debug)]
pub struct Forks {
    /// Each fork and when it comes, Frontier first.
    schedule: Vec<(EthereumHardfork, ForkCondition)>,
    deposit_contract: Option<Address>,
    blobs: BlobScheduleBlobParams,
}

impl Forks {
    /// The schedule of `config`. `merged_at` is the first proof-of-stake
    /// block when the config gives a terminal total difficulty but no
    /// `mergeNetsplitBlock` (the importer finds it in the headers).
    pub fn new(config: &ChainConfig, merged_at: Option<u64>) -> Forks {
        use EthereumHardfork as Fork;
        let by_block = [
            (Fork::Homestead, config.homestead_block),
            (Fork::Dao, config.dao_fork_block.filter(|_| config.dao_fork_support)),
            (Fork::Tangerine, config.eip150_block),
            (Fork::SpuriousDragon, config.eip158_block),
            (Fork::Byzantium, config.byzantium_block),
            (Fork::Constantinople, config.constantinople_block),
            (Fork::Petersburg, config.petersburg_block),
            (Fork::Istanbul, config.istanbul_block),
            (Fork::MuirGlacier, config.muir_glacier_block),
            (Fork::Berlin, config.berlin_block),
            (Fork::London, config.london_block),
            (Fork::ArrowGlacier, config.arrow_glacier_block),
            (Fork::GrayGlacier, config.gray_glacier_block),
        ];
        let by_time = [
            (Fork::Shanghai, config.shanghai_time),
            (Fork::Cancun, config.cancun_time),
            (Fork::Prague, config.prague_time),
            (Fork::Osaka, config.osaka_time),
            (Fork::Bpo1, config.bpo1_time),
            (Fork::Bpo2, config.bpo2_time),
            (Fork::Bpo3, config.bpo3_time),
            (Fork::Bpo4, config.bpo4_time),
            (Fork::Bpo5, config.bpo5_time),
            (Fork::Amsterdam, config.amsterdam_time),
        ];
        let mut forks: Vec<(Fork, ForkCondition)> = vec![(Fork::Frontier, ForkCondition::Block(0))];
        forks.extend(by_block.into_iter().filter_map(|(fork, at)| Some((fork, ForkCondition::Block(at?)))));
        let merge = config.merge_netsplit_block.or(merged_at);
        if let (Some(total_difficulty), Some(activation_block_number)) = (config.terminal_total_difficulty, merge) {
            // A merge block the config names counts in the fork id (EIP-2124), as geth counts it.
            let fork_block = config.merge_netsplit_block;
            let condition = ForkCondition::TTD { activation_block_number, fork_block, total_difficulty };
            forks.push((Fork::Paris, condition));
        } else if config.terminal_total_difficulty_passed
            || config.terminal_total_difficulty == Some(Default::default())
        {
            forks.push((Fork::Paris, ForkCondition::Block(merge.unwrap_or(0))));
        }
        forks.extend(by_time.into_iter().filter_map(|(fork, at)| Some((fork, ForkCondition::Timestamp(at?)))));
        Forks {
            schedule: forks,
            deposit_contract: config.deposit_contract_address,
            blobs: config.blob_schedule_blob_params(),
        }
    }

    /// The rules the devnet's own chains follow: Prague from their genesis.
    pub fn devnet(chain_id: u64) -> Forks {
        let mut config = ChainConfig { chain_id, ..ChainConfig::default() };
        for block in [
            &mut config.homestead_block,
            &mut config.eip150_block,
            &mut config.eip155_block,
            &mut config.eip158_block,
            &mut config.byzantium_block,
            &mut config.constantinople_block,
            &mut config.petersburg_block,
            &mut config.istanbul_block,
            &mut config.berlin_block,
            &mut config.london_block,
            &mut config.merge_netsplit_block,
        ] {
            *block = Some(0);
        }
        config.terminal_total_difficulty = Some(Default::default());
        config.terminal_total_difficulty_passed = true;
        (config.shanghai_time, config.cancun_time, config.prague_time) = (Some(0), Some(0), Some(0));
        Forks::new(&config, None)
    }

    /// The forks scheduled by time as EIP-7910 lists them: the one in
    /// force at `timestamp` (the last activated by block when none by time
    /// is), the next one after it, and the last one scheduled. A chain's
    /// fork ids start from its genesis's hash and timestamp.
    pub fn schedule_at(&self, (genesis_hash, genesis_time): (B256, u64), timestamp: u64) -> Schedule {
        let times = self.fork_times(genesis_time);
        let current_time = times.iter().copied().filter(|time| *time <= timestamp).max().unwrap_or(0);
        let point = |time: u64| self.fork_point(time, (genesis_hash, genesis_time));
        let next = times.iter().copied().find(|time| *time > timestamp);
        let last = times.iter().copied().max().filter(|time| *time > timestamp);
        Schedule { current: point(current_time), next: next.map(point), last: last.map(point) }
    }

    /// When each fork scheduled by time after the genesis comes, in order.
    fn fork_times(&self, genesis_time: u64) -> Vec<u64> {
        let mut times: Vec<u64> = self
            .schedule
            .iter()
            .filter_map(|(_, condition)| match condition {
                ForkCondition::Timestamp(time) if *time > genesis_time => Some(*time),
                _ => None,
            })
            .collect();
        times.sort_unstable();
        times.dedup();
        times
    }

    /// The fork that takes effect at `time`: its rules at that time, after
    /// every block-numbered fork.
    fn fork_point(&self, time: u64, (genesis_hash, genesis_time): (B256, u64)) -> ForkPoint {
        let mut blocks: Vec<u64> = self
            .schedule
            .iter()
            .filter_map(|(_, condition)| match condition {
                ForkCondition::Block(block) if *block > 0 => Some(*block),
                ForkCondition::TTD { fork_block: Some(block), .. } if *block > 0 => Some(*block),
                _ => None,
            })
            .collect();
        blocks.sort_unstable();
        blocks.dedup();
        let mut fork_id = ForkHash::from(genesis_hash);
        for passed in blocks.iter().chain(self.fork_times(genesis_time).iter().filter(|t| **t <= time)) {
            fork_id += *passed;
        }
        // Its rules at that time, past every block-numbered fork.
        let spec = self.spec_at(u64::MAX, time.max(genesis_time));
        ForkPoint {
            activation_time: time,
            blobs: self.blob_params_at(time.max(genesis_time)),
            fork_id: fork_id.0,
            precompiles: precompiles_of(spec),
            system_contracts: self.system_contracts_of(spec),
        }
    }

    /// The system contracts blocks of `spec` call, by EIP-7910's names.
    fn system_contracts_of(&self, spec: SpecId) -> Vec<(&'static str, Address)> {
        let mut contracts = Vec::new();
        if spec >= SpecId::CANCUN {
            contracts.push(("BEACON_ROOTS_ADDRESS", alloy_eips::eip4788::BEACON_ROOTS_ADDRESS));
        }
        if spec >= SpecId::PRAGUE {
            contracts.push(("HISTORY_STORAGE_ADDRESS", alloy_eips::eip2935::HISTORY_STORAGE_ADDRESS));
            contracts.push((
                "WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS",
                alloy_eips::eip7002::WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS,
            ));
            let consolidations = alloy_eips::eip7251::CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS;
            contracts.push(("CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS", consolidations));
            contracts.push(("DEPOSIT_CONTRACT_ADDRESS", self.deposit_contract.unwrap_or_default()));
        }
        contracts
    }

    /// The EVM's rules for block `number` at `timestamp`.
    pub fn spec_at(&self, number: u64, timestamp: u64) -> SpecId {
        alloy_evm::spec_by_timestamp_and_block_number(self, timestamp, number)
    }

    /// The blob parameters in force at `timestamp`; none before Cancun.
    pub fn blob_params_at(&self, timestamp: u64) -> Option<BlobParams> {
        let active = |fork| self.is_ethereum_fork_active_at_timestamp(fork, timestamp);
        if active(EthereumHardfork::Osaka) {
            let scheduled = self.blobs.active_scheduled_params_at_timestamp(timestamp);
            Some(*scheduled.unwrap_or(&self.blobs.osaka))
        } else if active(EthereumHardfork::Prague) {
            Some(self.blobs.prague)
        } else if active(EthereumHardfork::Cancun) {
            Some(self.blobs.cancun)
        } else {
            None
        }
    }
}

/// EIP-7910's view of a chain's forks scheduled by time.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    /// The fork in force.
    pub current: ForkPoint,
    /// The next one scheduled.
    pub next: Option<ForkPoint>,
    /// The last one scheduled, when it is after the current.
    pub last: Option<ForkPoint>,
}

/// One fork as `eth_config` describes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForkPoint {
    /// When it takes effect; 0 at the genesis.
    pub activation_time: u64,
    /// Its blob parameters, from Cancun on.
    pub blobs: Option<BlobParams>,
    /// Its EIP-2124 fork id.
    pub fork_id: [u8; 4],
    /// Its precompiles, by name.
    pub precompiles: Vec<(&'static str, Address)>,
    /// The system contracts its blocks call, by name.
    pub system_contracts: Vec<(&'static str, Address)>,
}

/// The precompiles of `spec`, by EIP-7910's names.
fn precompiles_of(spec: SpecId) -> Vec<(&'static str, Address)> {
    const NAMES: [(u16, &str); 18] = [
        (0x01, "ECREC"),
        (0x02, "SHA256"),
        (0x03, "RIPEMD160"),
        (0x04, "ID"),
        (0x05, "MODEXP"),
        (0x06, "BN254_ADD"),
        (0x07, "BN254_MUL"),
        (0x08, "BN254_PAIRING"),
        (0x09, "BLAKE2F"),
        (0x0a, "KZG_POINT_EVALUATION"),
        (0x0b, "BLS12_G1ADD"),
        (0x0c, "BLS12_G1MSM"),
        (0x0d, "BLS12_G2ADD"),
        (0x0e, "BLS12_G2MSM"),
        (0x0f, "BLS12_PAIRING_CHECK"),
        (0x10, "BLS12_MAP_FP_TO_G1"),
        (0x11, "BLS12_MAP_FP2_TO_G2"),
        (0x100, "P256VERIFY"),
    ];
    let active = Precompiles::new(PrecompileSpecId::from_spec_id(spec));
    NAMES
        .iter()
        .map(|(low, name)| {
            let mut bytes = [0u8; 20];
            bytes[18..].copy_from_slice(&low.to_be_bytes());
            (*name, Address::from(bytes))
        })
        .filter(|(_, address)| active.contains(address))
        .collect()
}

impl EthereumHardforks for Forks {
    fn ethereum_fork_activation(&self, fork: EthereumHardfork) -> ForkCondition {
        self.schedule.iter().find(|(scheduled, _)| *scheduled == fork).map_or(ForkCondition::Never, |(_, at)| *at)
    }
}

impl EthExecutorSpec for Forks {
    fn deposit_contract_address(&self) -> Option<Address> {
        self.deposit_contract
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(json: serde_json::Value) -> ChainConfig {
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn each_block_follows_the_fork_its_number_or_time_has_reached() {
        let forks = Forks::new(
            &config(serde_json::json!({
                "chainId": 7, "homesteadBlock": 0, "eip150Block": 3, "eip155Block": 6, "eip158Block": 6,
                "byzantiumBlock": 9, "londonBlock": 27, "berlinBlock": 24, "mergeNetsplitBlock": 36,
                "terminalTotalDifficulty": 100, "shanghaiTime": 390, "cancunTime": 420, "pragueTime": 450,
                "osakaTime": 480
            })),
            None,
        );
        assert_eq!(forks.spec_at(2, 20), SpecId::HOMESTEAD);
        assert_eq!(forks.spec_at(3, 30), SpecId::TANGERINE);
        assert_eq!(forks.spec_at(9, 90), SpecId::BYZANTIUM);
        assert_eq!(forks.spec_at(30, 300), SpecId::LONDON);
        assert_eq!(forks.spec_at(36, 360), SpecId::MERGE);
        assert_eq!(forks.spec_at(40, 395), SpecId::SHANGHAI);
        assert_eq!(forks.spec_at(41, 449), SpecId::CANCUN);
        assert_eq!(forks.spec_at(42, 450), SpecId::PRAGUE);
        assert_eq!(forks.spec_at(43, 500), SpecId::OSAKA);
        assert_eq!(forks.blob_params_at(419), None);
        assert_eq!(forks.blob_params_at(420).map(|blobs| blobs.max_blob_count), Some(6));
        assert_eq!(forks.blob_params_at(460).map(|blobs| blobs.max_blob_count), Some(9));
    }

    #[test]
    fn the_devnets_own_forks_are_the_rules_its_evm_runs() {
        let devnet = Forks::devnet(1);
        assert_eq!(devnet.spec_at(0, 0), crate::SPEC);
        assert_eq!(devnet.spec_at(u64::MAX, u64::MAX), crate::SPEC);
        assert_eq!(devnet.blob_params_at(0), Some(BlobParams::prague()));
    }

    #[test]
    fn a_blob_schedule_after_osaka_takes_over_at_its_time() {
        let forks = Forks::new(
            &config(serde_json::json!({
                "chainId": 7, "terminalTotalDifficulty": 0, "shanghaiTime": 0, "cancunTime": 0,
                "pragueTime": 0, "osakaTime": 10, "bpo1Time": 20,
                "blobSchedule": {
                    "cancun": { "target": 3, "max": 6, "baseFeeUpdateFraction": 3338477 },
                    "prague": { "target": 6, "max": 9, "baseFeeUpdateFraction": 5007716 },
                    "osaka": { "target": 6, "max": 9, "baseFeeUpdateFraction": 5007716 },
                    "bpo1": { "target": 10, "max": 15, "baseFeeUpdateFraction": 8346193 }
                }
            })),
            None,
        );
        assert_eq!(forks.blob_params_at(15).map(|blobs| blobs.max_blob_count), Some(9));
        let bpo1 = forks.blob_params_at(20).unwrap();
        assert_eq!((bpo1.target_blob_count, bpo1.max_blob_count, bpo1.update_fraction), (10, 15, 8_346_193));
        assert_eq!(forks.spec_at(0, 0), SpecId::PRAGUE);
    }
}
