//! A chain that starts from a geth-style genesis (`w3api serve --init`)
//! instead of the seed's world: its accounts, code and storage are the
//! genesis's `alloc`, its block 0 the genesis's header, with the fields the
//! forks active at it add, hashed as geth hashes it. It has no tokens, NFTs
//! or DEXes of its own; the Data API follows what users deploy on it.

use alloy_consensus::{BlockBody, EMPTY_OMMER_ROOT_HASH, EMPTY_ROOT_HASH, Header, TxEnvelope};
use alloy_eips::eip4895::Withdrawals;
use alloy_eips::eip7685::EMPTY_REQUESTS_HASH;
use alloy_genesis::Genesis;
use alloy_primitives::{B64, B256, Bloom, U256};
use w3api_chain::revm::state::Bytecode;
use w3api_chain::{Account, ChainState};
use w3api_ledger::{Asset, Holder, Ledger, Place};
use w3api_types::Chain;

use super::extend::Producer;
use super::model::{BlockRecord, ChainData};
use super::simulation::Memory;
use crate::query::indexes::ChainIndexes;
use crate::world::World;

/// The base fee of a genesis that starts in London or later and names
/// none, as geth gives it (EIP-1559's initial base fee).
const INITIAL_BASE_FEE: u64 = 1_000_000_000;

/// The chain `genesis` describes, as `chain`.
pub(crate) fn generate(chain: Chain, seed: u64, genesis: &Genesis) -> ChainData {
    let mut state = ChainState::new(genesis.config.chain_id);
    let mut ledger = Ledger::new();
    for (address, account) in &genesis.alloc {
        let archive = state.archive_mut();
        let funded = Account { nonce: account.nonce.unwrap_or(0), balance: account.balance, ..Account::default() };
        archive.set_account(0, *address, funded);
        if let Some(code) = account.code.as_ref().filter(|code| !code.is_empty()) {
            archive.set_code(0, *address, Bytecode::new_raw(code.clone()));
        }
        for (slot, value) in account.storage.iter().flatten() {
            archive.set_storage(0, *address, U256::from_be_bytes(slot.0), U256::from_be_bytes(value.0));
        }
        let holder = ledger.holder(*address);
        // The ledger counts at most 2^128 - 1 wei of a balance, as it does of anvil_setBalance's.
        let amount = u128::try_from(account.balance).unwrap_or(u128::MAX);
        if amount > 0 {
            let moved = ledger.move_fungible(Place::block(0), Asset::NATIVE, Holder::NOBODY, holder, amount);
            moved.unwrap_or_else(|refused| panic!("a genesis balance is refused by an empty ledger: {refused}"));
        }
    }
    ledger.pack();
    let header = header(genesis, state.seal(0));
    let hash = header.hash_slow();
    state.archive_mut().set_block_hash(0, hash);
    let size = block_size(&header);
    let genesis_block = BlockRecord { header, hash, first_tx: 0, tx_count: 0, size };
    let mut indexes = ChainIndexes::default();
    indexes.add_blocks(std::slice::from_ref(&genesis_block), &[], 0);
    let mut data = ChainData {
        chain,
        world: World::bare(chain, genesis.coinbase, genesis.gas_limit),
        blocks: vec![genesis_block],
        transactions: Vec::new(),
        receipts: Vec::new(),
        logs: Vec::new(),
        sales: Vec::new(),
        ledger,
        state,
        indexes,
        producer: Producer::new(Memory::new(seed, chain)),
    };
    data.indexes.prices = data.build_price_index();
    data
}

/// Block 0 of `genesis`, whose state root is `state_root`: the fields of
/// the genesis, and those of the forks active at it, as geth fills them.
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

/// The RLP length of block 0: its header, no transactions or ommers, and
/// no withdrawals from Shanghai on.
fn block_size(header: &Header) -> u64 {
    let withdrawals = header.withdrawals_root.map(|_| Withdrawals::default());
    let body = BlockBody::<&TxEnvelope, &Header> { transactions: Vec::new(), ommers: Vec::new(), withdrawals };
    alloy_rlp::Encodable::length(&alloy_consensus::Block::new(header, body)) as u64
}
