//! Block 0 of a geth-style genesis: its `alloc` as the state, and its header
//! with the fields of the forks active at it, hashed as geth hashes it.

use alloy_consensus::{EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Header};
use alloy_eips::eip7685::EMPTY_REQUESTS_HASH;
use alloy_genesis::Genesis;
use alloy_primitives::{B64, B256, Bloom, U256};
use revm::state::Bytecode;

use crate::{Account, ChainState};

/// The base fee of a genesis that starts in London or later and names
/// none, as geth gives it (EIP-1559's initial base fee).
const INITIAL_BASE_FEE: u64 = 1_000_000_000;

/// The state `genesis` allocates, sealed as block 0, and block 0's header.
pub fn start(genesis: &Genesis) -> (ChainState, Header) {
    let mut state = ChainState::new(genesis.config.chain_id);
    let archive = state.archive_mut();
    for (address, account) in &genesis.alloc {
        let funded = Account { nonce: account.nonce.unwrap_or(0), balance: account.balance, ..Account::default() };
        archive.set_account(0, *address, funded);
        if let Some(code) = account.code.as_ref().filter(|code| !code.is_empty()) {
            archive.set_code(0, *address, Bytecode::new_raw(code.clone()));
        }
        for (slot, value) in account.storage.iter().flatten() {
            archive.set_storage(0, *address, U256::from_be_bytes(slot.0), U256::from_be_bytes(value.0));
        }
    }
    let header = header(genesis, state.seal(0));
    state.archive_mut().set_block_hash(0, header.hash_slow());
    (state, header)
}

/// Block 0 of `genesis`, whose state root is `state_root`.
fn header(genesis: &Genesis, state_root: B256) -> Header {
    let config = &genesis.config;
    let at = |fork: Option<u64>| fork.is_some_and(|time| time <= genesis.timestamp);
    let london = config.is_london_active_at_block(0);
    let shanghai = at(config.shanghai_time);
    let cancun = at(config.cancun_time);
    let prague = at(config.prague_time);
    Header {
        parent_hash: B256::ZERO,
        ommers_hash: EMPTY_OMMER_ROOT_HASH,
        beneficiary: genesis.coinbase,
        state_root,
        transactions_root: EMPTY_ROOT_HASH,
        receipts_root: EMPTY_ROOT_HASH,
        logs_bloom: Bloom::ZERO,
        difficulty: genesis.difficulty,
        number: 0,
        gas_limit: genesis.gas_limit,
        gas_used: 0,
        timestamp: genesis.timestamp,
        extra_data: genesis.extra_data.clone(),
        mix_hash: genesis.mix_hash,
        nonce: B64::from(genesis.nonce),
        base_fee_per_gas: london.then(|| genesis.base_fee_per_gas.map_or(INITIAL_BASE_FEE, |fee| fee as u64)),
        withdrawals_root: shanghai.then_some(EMPTY_ROOT_HASH),
        blob_gas_used: cancun.then(|| genesis.blob_gas_used.unwrap_or(0)),
        excess_blob_gas: cancun.then(|| genesis.excess_blob_gas.unwrap_or(0)),
        parent_beacon_block_root: cancun.then_some(B256::ZERO),
        requests_hash: prague.then_some(EMPTY_REQUESTS_HASH),
        block_access_list_hash: None,
        slot_number: None,
    }
}
