//! A block built on top of another from transactions someone signed, as a
//! block producer seals one (`testing_buildBlockV1`): the payload's time,
//! fee recipient, randomness, withdrawals and beacon root; geth's gas
//! limit rule and EIP-1559's base fee; every transaction checked as a block
//! checks it. Nothing is kept.

use alloy_consensus::transaction::Recovered;
use alloy_consensus::{Header, Transaction, TxEnvelope};
use alloy_eips::eip4895::Withdrawal;
use alloy_primitives::{Address, B256, Bytes, U256};

use super::{HeaderOverrides, Options, Overlay, Planned, SimulateError, SimulatedBlock, Transactions, preliminary};
use crate::ChainState;
use crate::forks::Forks;

/// The gas limit geth's block builder moves towards by default
/// (`--miner.gaslimit`).
pub const GAS_CEILING: u64 = 60_000_000;

/// How far a block's gas limit may move from its parent's: 1/1024 of it
/// (EIP-1559's bound divisor).
const GAS_LIMIT_BOUND_DIVISOR: u64 = 1024;

/// The least gas limit a block may have.
const MIN_GAS_LIMIT: u64 = 5_000;

/// What the consensus layer asks a block to be built with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attributes {
    /// Its time.
    pub timestamp: u64,
    /// Its PREVRANDAO.
    pub prev_randao: B256,
    /// Who is paid its fees.
    pub fee_recipient: Address,
    /// Its withdrawals.
    pub withdrawals: Vec<Withdrawal>,
    /// Its parent beacon block root (from Cancun).
    pub beacon_root: Option<B256>,
    /// Its extra data.
    pub extra_data: Bytes,
}

/// A block built, and what its producer would be paid for it.
#[derive(Clone, Debug)]
pub struct Built {
    /// The block.
    pub block: SimulatedBlock,
    /// The tips it pays its fee recipient, in wei.
    pub value: U256,
}

/// geth's gas limit for a block after one of `parent`'s, moving towards
/// `desired` by at most the bound.
pub fn next_gas_limit(parent: u64, desired: u64) -> u64 {
    let delta = (parent / GAS_LIMIT_BOUND_DIVISOR).saturating_sub(1);
    let desired = desired.max(MIN_GAS_LIMIT);
    if parent < desired { parent.saturating_add(delta).min(desired) } else { parent.saturating_sub(delta).max(desired) }
}

impl ChainState {
    /// Builds the block after `parent` from `transactions` with
    /// `attributes`, checking each as a block does; refused at the first
    /// the block cannot take.
    pub fn build_block(
        &self,
        forks: &Forks,
        parent: &Header,
        attributes: Attributes,
        transactions: Vec<Recovered<TxEnvelope>>,
        stop: &dyn Fn() -> bool,
    ) -> Result<Built, SimulateError> {
        if attributes.timestamp <= parent.timestamp {
            return Err(SimulateError::TimeOrder { time: attributes.timestamp, previous: parent.timestamp });
        }
        let options = Options { forks, base: parent, validation: true, trace_transfers: false, gas_cap: 0, stop };
        let planned = Planned {
            header: HeaderOverrides {
                gas_limit: Some(next_gas_limit(parent.gas_limit, GAS_CEILING)),
                fee_recipient: Some(attributes.fee_recipient),
                prev_randao: Some(attributes.prev_randao),
                beacon_root: attributes.beacon_root,
                withdrawals: Some(attributes.withdrawals),
                ..HeaderOverrides::default()
            },
            number: parent.number + 1,
            time: attributes.timestamp,
            state: Vec::new(),
            transactions: Transactions::Signed(transactions),
        };
        let mut header = preliminary(&options, parent, &planned);
        header.extra_data = attributes.extra_data;
        let base_fee = header.base_fee_per_gas;
        let mut overlay = Overlay::new(self, parent.number);
        let mut unbounded = u64::MAX;
        let block = self.simulate_block(&options, &mut overlay, &mut unbounded, header, planned)?;
        let value = block
            .transactions
            .iter()
            .zip(&block.calls)
            .map(|(tx, call)| {
                U256::from(tx.effective_tip_per_gas(base_fee.unwrap_or_default()).unwrap_or_default())
                    * U256::from(call.gas_used)
            })
            .sum();
        Ok(Built { block, value })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gas_limit_moves_towards_the_ceiling_by_at_most_a_1024th() {
        // The suite's chain: 200,000,000 down to 199,804,689 (geth's).
        assert_eq!(next_gas_limit(200_000_000, GAS_CEILING), 199_804_689);
        assert_eq!(next_gas_limit(30_000_000, GAS_CEILING), 30_029_295);
        assert_eq!(next_gas_limit(60_000_100, GAS_CEILING), GAS_CEILING);
        assert_eq!(next_gas_limit(GAS_CEILING, GAS_CEILING), GAS_CEILING);
    }
}
