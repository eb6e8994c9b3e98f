//! A chain that starts from a geth-style genesis (`w3api serve --init`)
//! instead of the seed's world: its accounts, code and storage are the
//! genesis's `alloc`, its block 0 the genesis's header, with the fields the
//! forks active at it add, hashed as geth hashes it. It has no tokens, NFTs
//! or DEXes of its own; the Data API follows what users deploy on it.

use alloy_consensus::{BlockBody, Header, TxEnvelope};
use alloy_eips::eip4895::Withdrawals;
use alloy_genesis::Genesis;
use w3api_ledger::{Asset, Holder, Ledger, Place};
use w3api_types::Chain;

use super::extend::Producer;
use super::model::{BlockRecord, ChainData};
use super::simulation::Memory;
use crate::query::indexes::ChainIndexes;
use crate::world::World;

/// The chain `genesis` describes, as `chain`.
pub(crate) fn generate(chain: Chain, seed: u64, genesis: &Genesis) -> ChainData {
    let (state, header) = w3api_chain::genesis::start(genesis);
    let mut ledger = Ledger::new();
    for (address, account) in &genesis.alloc {
        let holder = ledger.holder(*address);
        // The ledger counts at most 2^128 - 1 wei of a balance, as it does of anvil_setBalance's.
        let amount = u128::try_from(account.balance).unwrap_or(u128::MAX);
        if amount > 0 {
            let moved = ledger.move_fungible(Place::block(0), Asset::NATIVE, Holder::NOBODY, holder, amount);
            moved.unwrap_or_else(|refused| panic!("a genesis balance is refused by an empty ledger: {refused}"));
        }
    }
    ledger.pack();
    let hash = header.hash_slow();
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
        imported: None,
    };
    data.indexes.prices = data.build_price_index();
    data
}

/// The RLP length of block 0: its header, no transactions or ommers, and
/// no withdrawals from Shanghai on.
fn block_size(header: &Header) -> u64 {
    let withdrawals = header.withdrawals_root.map(|_| Withdrawals::default());
    let body = BlockBody::<&TxEnvelope, &Header> { transactions: Vec::new(), ommers: Vec::new(), withdrawals };
    alloy_rlp::Encodable::length(&alloy_consensus::Block::new(header, body)) as u64
}
