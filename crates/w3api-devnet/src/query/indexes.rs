//! The query side's lookups over a chain: blocks and transactions by hash,
//! each collection's sales and token prices by block. None of it is the
//! chain itself: each is derived from the stored blocks and kept in step
//! as blocks are appended.

use std::collections::HashMap;

use alloy_primitives::B256;
use alloy_primitives::map::B256HashMap;

use crate::generate::{BlockRecord, SaleRecord, TxPosition, TxRecord};
use crate::query::prices::PriceIndex;

/// A chain's lookups, beside its [`ChainData`](crate::generate::ChainData).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChainIndexes {
    /// Each asset's price after every block that moved it.
    pub(crate) prices: PriceIndex,
    /// Hashes are uniformly distributed already: the maps index them with
    /// alloy's fixed-bytes hasher, not SipHash.
    block_by_hash: B256HashMap<u64>,
    tx_by_hash: B256HashMap<TxPosition>,
    /// Indexes in the chain's sales of each collection's sales, in order.
    sales_by_collection: HashMap<u16, Vec<u32>>,
}

impl ChainIndexes {
    /// Indexes `blocks` and their transactions, which are the chain's from
    /// index `base` on.
    pub(crate) fn add_blocks(&mut self, blocks: &[BlockRecord], transactions: &[TxRecord], base: u32) {
        for block in blocks {
            self.block_by_hash.insert(block.hash, block.header.number);
            let number = block.header.number as u32;
            self.tx_by_hash.extend(
                (block.first_tx..block.first_tx + block.tx_count)
                    .map(|index| (transactions[(index - base) as usize].hash, TxPosition { index, block: number })),
            );
        }
    }

    /// Indexes `sales`, which are the chain's from index `first` on.
    pub(crate) fn add_sales(&mut self, sales: &[SaleRecord], first: u32) {
        for (index, sale) in (first..).zip(sales) {
            self.sales_by_collection.entry(sale.collection).or_default().push(index);
        }
    }

    /// The number of the block with this hash.
    pub(crate) fn block_number(&self, hash: &B256) -> Option<u64> {
        self.block_by_hash.get(hash).copied()
    }

    /// Where the transaction with this hash is, and its block.
    pub(crate) fn transaction_position(&self, hash: &B256) -> Option<TxPosition> {
        self.tx_by_hash.get(hash).copied()
    }

    /// The indexes in the chain's sales of a collection's sales, oldest first.
    pub(crate) fn sales_of(&self, collection: u16) -> Option<&[u32]> {
        self.sales_by_collection.get(&collection).map(Vec::as_slice)
    }
}
