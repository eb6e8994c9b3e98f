//! A chain another node made, served as the devnet's own (`w3api serve
//! --init genesis.json --import chain.rlp`): its blocks are executed on top
//! of the genesis's block 0 by their forks' rules, each checked against its
//! header (`w3api_chain::import`), and what they did is followed as the
//! devnet's own blocks are: native balances by the ledger, the ERC20 and
//! NFT movements their logs tell, the contracts those logs reveal.

use std::collections::BTreeMap;
use std::sync::Arc;

use alloy_consensus::{Eip658Value, ReceiptEnvelope, Transaction};
use alloy_eips::eip4895::Withdrawal;
use alloy_eips::eip7840::BlobParams;
use alloy_genesis::Genesis;
use alloy_primitives::B256;
use w3api_chain::forks::Forks;
use w3api_chain::import::{Block, Executed, ImportError, forks_of};
use w3api_ledger::Place;
use w3api_types::Chain;

use super::model::{BlockRecord, ChainData, TxRecord};
use super::simulation::Simulation;
use crate::accounts::{Accounts, Signers};
use crate::scale::Scale;

/// What an imported chain's blocks need beyond the devnet's own.
#[derive(Debug)]
pub(crate) struct Imported {
    /// The rules of each block.
    pub(crate) forks: Forks,
    /// The last block imported: blocks up to it are final, as the node
    /// they came from had them.
    pub(crate) head: u64,
    /// The state root in each receipt of the transactions before
    /// Byzantium (the first ones of the chain), which hold one instead of a
    /// status.
    pub(crate) receipt_roots: Vec<B256>,
    /// Each block's withdrawals, where it has any.
    pub(crate) withdrawals: BTreeMap<u64, Vec<Withdrawal>>,
    /// Each block's ommers (uncles), where it has any: before the merge.
    pub(crate) ommers: BTreeMap<u64, Vec<alloy_consensus::Header>>,
}

impl ChainData {
    /// The blob parameters in force at `timestamp`: the imported chain's
    /// schedule, or the devnet's own fork's.
    pub(crate) fn blob_params_at(&self, timestamp: u64) -> BlobParams {
        let imported = self.imported.as_ref().and_then(|imported| imported.forks.blob_params_at(timestamp));
        imported.unwrap_or(super::simulation::BLOBS)
    }

    /// The withdrawals of block `number`.
    pub(crate) fn withdrawals_of(&self, number: u64) -> &[Withdrawal] {
        let imported = self.imported.as_ref().and_then(|imported| imported.withdrawals.get(&number));
        imported.map_or(&[], Vec::as_slice)
    }

    /// The ommers (uncles) of block `number`.
    pub(crate) fn ommers_of(&self, number: u64) -> &[alloy_consensus::Header] {
        let imported = self.imported.as_ref().and_then(|imported| imported.ommers.get(&number));
        imported.map_or(&[], Vec::as_slice)
    }

    /// The state root in the receipt of transaction `index` of the chain,
    /// for one before Byzantium.
    pub(crate) fn receipt_root(&self, index: u32) -> Option<B256> {
        self.imported.as_ref().and_then(|imported| imported.receipt_roots.get(index as usize).copied())
    }

    /// The newest block that is final whatever comes after it: the last
    /// one imported.
    pub(crate) fn imported_head(&self) -> Option<u64> {
        self.imported.as_ref().map(|imported| imported.head)
    }
}

/// The chain of `genesis` that `blocks` continue, as `chain`. Refused at
/// the first block whose header its body or execution does not give.
pub(crate) fn import(
    chain: Chain,
    seed: u64,
    (scale, accounts): (&Scale, &Accounts),
    genesis: &Genesis,
    blocks: &[Block],
) -> Result<ChainData, ImportError> {
    let mut data = super::genesis::generate(chain, seed, genesis);
    let genesis_header = data.blocks[0].header.clone();
    let forks = forks_of(&genesis.config, &genesis_header, blocks);
    let parts = (std::mem::take(&mut data.ledger), std::mem::replace(&mut data.state, w3api_chain::ChainState::new(0)));
    let memory = data.producer.memory.clone();
    let signers = Signers::new(accounts, &[]);
    let mut simulation =
        Simulation::resume(chain, seed, scale, signers, &data.world, parts, memory, (0, 0), &genesis_header);
    let mut records = Vec::with_capacity(blocks.len());
    let mut receipt_roots = Vec::new();
    let mut withdrawals = BTreeMap::new();
    let mut ommers = BTreeMap::new();
    let mut transactions = Vec::new();
    let mut parent = genesis_header;
    for block in blocks {
        let executed = simulation.chain.import_block(&forks, &parent, block)?;
        receipt_roots.extend(executed.receipts.iter().filter_map(|receipt| match receipt {
            ReceiptEnvelope::Legacy(receipt) => match receipt.receipt.status {
                Eip658Value::PostState(root) => Some(root),
                Eip658Value::Eip658(_) => None,
            },
            _ => None,
        }));
        if !block.body.ommers.is_empty() {
            ommers.insert(block.header.number, block.body.ommers.clone());
        }
        if let Some(list) = block.body.withdrawals.as_ref().filter(|list| !list.is_empty()) {
            withdrawals.insert(block.header.number, list.to_vec());
        }
        simulation.follow_imported(block, &executed);
        let first_tx = transactions.len() as u32;
        let body = block.body.transactions.iter().zip(executed.senders);
        transactions.extend(body.map(|(envelope, sender)| TxRecord {
            hash: *envelope.tx_hash(),
            envelope: envelope.clone(),
            sender,
        }));
        records.push(BlockRecord {
            header: block.header.clone(),
            hash: executed.hash,
            first_tx,
            tx_count: block.body.transactions.len() as u32,
            size: alloy_rlp::Encodable::length(block) as u64,
        });
        parent = block.header.clone();
    }
    let Simulation { ledger, chain: state, receipts, logs, found, .. } = simulation;
    (data.ledger, data.state) = (ledger, state);
    found.into_world(&mut data.world);
    data.indexes.add_blocks(&records, &transactions, 0);
    data.blocks.extend(records);
    data.transactions = transactions;
    data.receipts = receipts;
    data.logs = logs;
    data.indexes.prices = data.build_price_index();
    let head = data.latest();
    data.imported = Some(Arc::new(Imported { forks, head, receipt_roots, withdrawals, ommers }));
    Ok(data)
}

impl Simulation<'_> {
    /// Follows what imported `block`, already executed, did: each
    /// transaction's balances, inner transfers and logs, then the balances
    /// the block moved outside them (rewards, withdrawals).
    fn follow_imported(&mut self, block: &Block, executed: &Executed) {
        let number = block.header.number as u32;
        self.open_block(number, block.header.timestamp);
        let each = executed.receipts.iter().zip(&executed.balances).zip(&executed.inside).zip(&executed.senders);
        for ((((receipt, balances), inside), sender), tx) in each.zip(&block.body.transactions) {
            let at = self.next_transaction();
            for change in balances {
                self.follow_native_change(at, change.address, (change.before, change.after));
            }
            if receipt.status() {
                self.follow_inside(receipt.logs(), &inside.transfers, true);
            }
            self.keep((*sender, tx.kind()), receipt.clone());
        }
        for change in &executed.block_balances {
            self.follow_native_change(Place::block(number), change.address, (change.before, change.after));
        }
        let receipts = std::mem::take(&mut self.block_receipts);
        self.keep_receipts(receipts);
    }
}
