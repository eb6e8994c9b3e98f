//! What a wallet has done on one chain: its counts (`getWalletStats`),
//! which are those of its listings, and its first and last transactions
//! (`getWalletActiveChains`).

use crate::LedgerReads;
use std::collections::BTreeSet;

use alloy_primitives::{Address, B256};
use w3api_source::SourceError;

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::{ledger_block, resolve};
use crate::nfts::holdings;
use crate::transfers::{lists_erc20, lists_nft};

/// A wallet's counts at the newest block.
#[derive(Clone, Copy, Debug)]
pub struct WalletStats {
    /// The wallet.
    pub address: Address,
}

/// What [`WalletStats`] counts: the items of the wallet's listings.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalletCounts {
    /// NFTs held (`getWalletNFTs`' items).
    pub nfts: u64,
    /// Collections of those NFTs (`getWalletNFTCollections`' items).
    pub collections: u64,
    /// Transactions sent or received (`getWalletTransactions`' items).
    pub transactions: u64,
    /// NFT transfers (`getWalletNFTTransfers`' items).
    pub nft_transfers: u64,
    /// ERC20 transfers (`getWalletTokenTransfers`' items).
    pub token_transfers: u64,
}

impl Question for WalletStats {
    type Answer = WalletCounts;

    fn answer(self, view: &impl ChainView) -> Result<WalletCounts, SourceError> {
        let block = resolve(view, None)?;
        let ledger = view.ledger();
        let Some(holder) = ledger.find(self.address) else { return Ok(WalletCounts::default()) };
        let at = ledger_block(block);
        let held = holdings(view, self.address, block, |_| true);
        let collections: BTreeSet<Address> = held.iter().map(|h| h.address).collect();
        let transactions = ledger.transactions_of(holder);
        let moved = ledger.moves_of(holder);
        let moved = &moved[..moved.partition_point(|m| ledger.movement(*m).block() <= at)];
        let count = |lists: &dyn Fn(u32) -> bool| moved.iter().filter(|m| lists(**m)).count() as u64;
        let movement = |index: u32| ledger.movement(index);
        Ok(WalletCounts {
            nfts: held.len() as u64,
            collections: collections.len() as u64,
            transactions: transactions.partition_point(|(b, _)| *b <= at) as u64,
            nft_transfers: count(&|m| lists_nft(view, &movement(m))),
            token_transfers: count(&|m| lists_erc20(view, &movement(m))),
        })
    }
}

/// A wallet's first and last transactions at the newest block; `None` for
/// a wallet that has sent or received none.
#[derive(Clone, Copy, Debug)]
pub struct WalletActivity {
    /// The wallet.
    pub address: Address,
}

/// A transaction a wallet's activity starts or ends with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ActivityMark {
    /// Its block.
    pub block: u64,
    /// The block's time (Unix seconds).
    pub timestamp: u64,
    /// Its hash.
    pub hash: B256,
}

impl Question for WalletActivity {
    type Answer = Option<(ActivityMark, ActivityMark)>;

    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError> {
        let block = resolve(view, None)?;
        let ledger = view.ledger();
        let Some(holder) = ledger.find(self.address) else { return Ok(None) };
        let listed = ledger.transactions_of(holder);
        let listed = &listed[..listed.partition_point(|(b, _)| *b <= ledger_block(block))];
        let mark = |&(block, index): &(u32, u32)| -> Result<ActivityMark, SourceError> {
            let missing = || SourceError::Unavailable(format!("transaction {index} of block {block} is not indexed"));
            let block = u64::from(block);
            let hash = view.transaction(block, index).ok_or_else(missing)?.hash;
            Ok(ActivityMark { block, timestamp: view.timestamp(block).ok_or_else(missing)?, hash })
        };
        match (listed.first(), listed.last()) {
            (Some(first), Some(last)) => Ok(Some((mark(first)?, mark(last)?))),
            _ => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;
    use w3api_ledger::{Asset, Erc1155Move, Holder, Place};
    use w3api_source::PageRequest;
    use w3api_types::ContractType;

    use super::*;
    use crate::listing::{Order, Span};
    use crate::testing::{A, B, Times};
    use crate::transfers::{NftTransfers, NftTransfersOf, TokenTransfers, TokenTransfersOf};

    /// Blocks 10 to 12: A is sent a transaction and COIN in 10, an NFT of
    /// each collection in 11 (the ERC1155 one by a genesis-like mint that no
    /// log tells too), and sends one on in 12.
    fn chain() -> Times {
        let mut view = Times::new(10, &[100, 110, 120]);
        view.tokens = vec![Address::repeat_byte(0xa1)];
        view.collections = vec![
            (Address::repeat_byte(0xc0), ContractType::Erc721),
            (Address::repeat_byte(0xc1), ContractType::Erc1155),
        ];
        let ledger = &mut view.ledger;
        let (a, b, nobody) = (ledger.holder(A), ledger.holder(B), Holder::NOBODY);
        ledger.record_transaction(10, 0, B, Some(A));
        ledger.move_fungible(Place::log(10, 0, 0), Asset(1), nobody, a, 5).unwrap();
        ledger
            .move_fungible(Place { block: 10, transaction: Some(0), log: None }, Asset::NATIVE, nobody, a, 9)
            .unwrap();
        ledger.record_transaction(11, 1, B, Some(B));
        ledger.move_erc721(Place::log(11, 1, 0), 0, 7, nobody, a).unwrap();
        ledger.move_erc1155(Place::log(11, 1, 1), 1, 3, nobody, a, Erc1155Move::single(2, b)).unwrap();
        ledger.move_erc1155(Place::block(11), 1, 4, nobody, a, Erc1155Move::single(1, b)).unwrap();
        ledger.record_transaction(12, 0, A, Some(B));
        ledger.move_erc721(Place::log(12, 0, 0), 0, 7, a, b).unwrap();
        view
    }

    #[test]
    fn the_counts_are_those_of_the_listings() {
        let view = chain();
        let counts = WalletStats { address: A }.answer(&view).unwrap();
        assert_eq!(
            counts,
            WalletCounts { nfts: 2, collections: 1, transactions: 2, nft_transfers: 3, token_transfers: 1 },
            "the ERC1155 tokens #3 and #4 held; the ERC721 sent on"
        );
        let page = PageRequest::first(100);
        let (span, order) = (Span::default(), Order::Descending);
        let of = TokenTransfersOf::Wallet { address: A, contracts: Vec::new() };
        let erc20 = TokenTransfers { of, span, at_block: None, order, page: page.clone() }.answer(&view).unwrap();
        let of = NftTransfersOf::Wallet { address: A, contracts: Vec::new() };
        let nft = NftTransfers { of, span, at_block: None, order, include_prices: false, page }.answer(&view).unwrap();
        assert_eq!((erc20.page.items.len() as u64, nft.page.items.len() as u64), (1, 3));
        assert_eq!(WalletStats { address: Address::repeat_byte(9) }.answer(&view).unwrap(), WalletCounts::default());
    }

    #[test]
    fn activity_runs_from_the_first_transaction_to_the_last() {
        let view = chain();
        let (first, last) = WalletActivity { address: A }.answer(&view).unwrap().expect("A is active");
        assert_eq!((first.block, first.timestamp, first.hash), (10, 100, Times::hash(10, Some(0))));
        assert_eq!((last.block, last.hash), (12, Times::hash(12, Some(0))));
        let (first, _) = WalletActivity { address: B }.answer(&view).unwrap().unwrap();
        assert_eq!(first.block, 10);
        assert_eq!(WalletActivity { address: Address::repeat_byte(9) }.answer(&view).unwrap(), None);
    }
}
