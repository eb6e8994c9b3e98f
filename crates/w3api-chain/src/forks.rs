//! A chain's fork schedule as its genesis's `config` gives it (geth's
//! names): the rules each block follows, its blob parameters, and what
//! alloy-evm's block executor asks of a chain spec (system calls from
//! Cancun and Prague, pre-merge rewards, deposit requests).

use alloy_eips::eip7840::BlobParams;
use alloy_eips::eip7892::BlobScheduleBlobParams;
use alloy_evm::eth::spec::EthExecutorSpec;
use alloy_genesis::ChainConfig;
use alloy_hardforks::{EthereumChainHardforks, EthereumHardfork, EthereumHardforks, ForkCondition};
use alloy_primitives::Address;
use revm::primitives::hardfork::SpecId;

/// The forks of one chain, by block number (to Gray Glacier), the merge,
/// and by timestamp (from Shanghai).
#[derive(Clone, Debug)]
pub struct Forks {
    chain_id: u64,
    hardforks: EthereumChainHardforks,
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
            let condition = ForkCondition::TTD { activation_block_number, fork_block: None, total_difficulty };
            forks.push((Fork::Paris, condition));
        } else if config.terminal_total_difficulty_passed
            || config.terminal_total_difficulty == Some(Default::default())
        {
            forks.push((Fork::Paris, ForkCondition::Block(merge.unwrap_or(0))));
        }
        forks.extend(by_time.into_iter().filter_map(|(fork, at)| Some((fork, ForkCondition::Timestamp(at?)))));
        Forks {
            chain_id: config.chain_id,
            hardforks: EthereumChainHardforks::new(forks),
            deposit_contract: config.deposit_contract_address,
            blobs: config.blob_schedule_blob_params(),
        }
    }

    /// The chain's id.
    pub fn chain_id(&self) -> u64 {
        self.chain_id
    }

    /// The EVM's rules for block `number` at `timestamp`.
    pub fn spec_at(&self, number: u64, timestamp: u64) -> SpecId {
        alloy_evm::spec_by_timestamp_and_block_number(self, timestamp, number)
    }

    /// The blob parameters in force at `timestamp`; none before Cancun.
    pub fn blob_params_at(&self, timestamp: u64) -> Option<BlobParams> {
        let active = |fork| self.hardforks.is_ethereum_fork_active_at_timestamp(fork, timestamp);
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

impl EthereumHardforks for Forks {
    fn ethereum_fork_activation(&self, fork: EthereumHardfork) -> ForkCondition {
        self.hardforks.ethereum_fork_activation(fork)
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
