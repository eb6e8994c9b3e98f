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
mod model;
mod sealing;
mod simulation;

use std::collections::HashMap;

use w3api_types::Chain;

pub(crate) use execution::signed_tx_env;
pub(crate) use extend::Producer;
pub use extend::{BlockPlan, LAST_TIMESTAMP, StateEdit};
pub(crate) use genesis::generate as from_genesis;
pub(crate) use model::TxPosition;
pub use model::{
    BLOCK_TIME, BlockRecord, ChainData, GAS_LIMIT, GENESIS_TIMESTAMP, ReceiptRecord, SaleRecord, TxRecord,
};
pub use simulation::swap_output;
pub(crate) use simulation::{Action, SignedTransaction};

use crate::accounts::Accounts;
use crate::query::prices::PriceIndex;
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
    let block_by_hash = blocks.iter().map(|b| (b.hash, b.header.number)).collect();
    let tx_by_hash = positions(&blocks, &transactions, 0).collect();
    let mut sales_by_collection: HashMap<u16, Vec<u32>> = HashMap::new();
    for (index, sale) in sales.iter().enumerate() {
        sales_by_collection.entry(sale.collection).or_default().push(index as u32);
    }
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
        price_index: PriceIndex::default(),
        block_by_hash,
        tx_by_hash,
        sales_by_collection,
        producer,
    };
    data.price_index = data.build_price_index();
    data
}

/// Each transaction's hash and position, for the blocks holding them;
/// `transactions` are the chain's from index `base` on.
pub(super) fn positions<'a>(
    blocks: &'a [BlockRecord],
    transactions: &'a [TxRecord],
    base: u32,
) -> impl Iterator<Item = (alloy_primitives::B256, TxPosition)> + 'a {
    blocks.iter().flat_map(move |block| {
        let number = block.header.number as u32;
        (block.first_tx..block.first_tx + block.tx_count)
            .map(move |index| (transactions[(index - base) as usize].hash, TxPosition { index, block: number }))
    })
}
