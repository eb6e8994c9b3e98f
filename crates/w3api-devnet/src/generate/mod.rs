//! Generates one chain: the world is planned, the chain is simulated block
//! by block (`simulation`: every transaction built, applied to the ledger,
//! and given its receipt), then every transaction is signed, in parallel,
//! and the blocks are sealed (`sealing`: transactions root, receipts root,
//! logs bloom, and each header's hash linked to the next as its parent).
//! What comes out, [`ChainData`], is described in `model`.

mod calls;
mod execution;
mod extend;
mod found;
mod genesis;
mod import;
mod model;
mod sealing;
mod simulation;

use w3api_types::Chain;

pub(crate) use execution::{receipt_envelope, signed_tx_env};
pub(crate) use extend::Producer;
pub use extend::{BlockPlan, LAST_TIMESTAMP, StateEdit};
pub(crate) use genesis::generate as from_genesis;
pub(crate) use import::import as from_chain;
pub(crate) use model::TxPosition;
pub use model::{
    BLOCK_TIME, BlockRecord, ChainData, GAS_LIMIT, GENESIS_TIMESTAMP, ReceiptRecord, SaleRecord, TxRecord,
};
pub use simulation::swap_output;
pub(crate) use simulation::{Action, SignedTransaction};

use crate::accounts::Accounts;
use crate::query::indexes::ChainIndexes;
use crate::scale::Scale;
use crate::world::World;
use sealing::{seal, sign};
use simulation::Simulation;

/// Generates `chain` for `seed` at `scale`.
pub(crate) fn generate(chain: Chain, seed: u64, scale: &Scale, accounts: &Accounts) -> ChainData {
    let world = World::plan(chain, seed, scale, accounts);
    let mut simulation = Simulation::new(chain, seed, scale, accounts, &world);
    simulation.run();
    let memory = simulation.memory();
    let Simulation { mut ledger, chain: mut state, unsigned, pending, receipts, logs, sales, .. } = simulation;
    ledger.pack();
    let transactions = sign(unsigned, crate::accounts::Signers::new(accounts, &[]));
    let blocks = seal(seed, chain, pending, &transactions, alloy_primitives::B256::ZERO);
    for block in &blocks {
        state.archive_mut().set_block_hash(block.header.number, block.hash);
    }
    let producer = Producer::new(memory);
    let mut indexes = ChainIndexes::default();
    indexes.add_blocks(&blocks, &transactions, 0);
    indexes.add_sales(&sales, 0);
    let mut data = ChainData {
        chain,
        world,
        blocks,
        transactions,
        receipts,
        logs,
        sales,
        ledger,
        state,
        indexes,
        producer,
        imported: None,
    };
    data.indexes.prices = data.build_price_index();
    data
}
