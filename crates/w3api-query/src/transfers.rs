//! Token transfers, read from the ledger's movement indexes:
//! - ERC20 transfers of a wallet (`getWalletTokenTransfers`) or of a token
//!   (`getTokenTransfers`);
//! - NFT transfers of a wallet (`getWalletNFTTransfers`) or of a collection
//!   (`getNFTContractTransfers`).
//!
//! Each listing covers a span of blocks named by number or by date, newest
//! or oldest first, and pages by the movement's place in the ledger, which
//! is its place in the chain.

use std::borrow::Cow;

use crate::LedgerReads;
use alloy_primitives::{Address, B256, U256};
use w3api_ledger::{Asset, Movement};
use w3api_source::{CollectionInfo, Page, PageRequest, SourceError};
use w3api_types::NftLastSale;

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::resolve;
use crate::listing::{self, Order, Span};
use crate::view::{TokenId, TransactionFacts};

/// Whose ERC20 transfers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TokenTransfersOf {
    /// A wallet's, as sender or recipient; of these tokens only, when any.
    Wallet {
        /// The wallet.
        address: Address,
        /// Only these tokens' transfers, when not empty.
        contracts: Vec<Address>,
    },
    /// A token's.
    Token(Address),
}

/// One page of ERC20 transfers, up to block `at_block` (the newest when
/// `None`). The native currency's movements are not transfers here.
#[derive(Clone, Debug)]
pub struct TokenTransfers {
    /// Whose.
    pub of: TokenTransfersOf,
    /// The blocks covered.
    pub span: Span,
    /// The newest block the listing reads.
    pub at_block: Option<u64>,
    /// Which way.
    pub order: Order,
    /// Which page.
    pub page: PageRequest,
}

/// Where and in which transaction a transfer happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TransferPlace {
    /// The block.
    pub block_number: u64,
    /// Its hash.
    pub block_hash: B256,
    /// Its time (Unix seconds).
    pub block_timestamp: u64,
    /// The transaction.
    pub transaction: TransactionFacts,
    /// The transaction's index in the block.
    pub transaction_index: u32,
    /// The log's index in the block.
    pub log_index: u32,
}

/// One ERC20 transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct TokenTransfer {
    /// The token's contract.
    pub token: Address,
    /// Its name.
    pub name: String,
    /// Its symbol.
    pub symbol: String,
    /// Its logo, where the backend has one.
    pub logo: Option<String>,
    /// Its decimals.
    pub decimals: u8,
    /// Whether it is flagged as spam.
    pub possible_spam: bool,
    /// Whether its contract is verified.
    pub verified: bool,
    /// Sender (the zero address for a mint).
    pub from: Address,
    /// Recipient (the zero address for a burn).
    pub to: Address,
    /// Raw amount.
    pub value: u128,
    /// Where.
    pub place: TransferPlace,
}

/// A page of transfers, with the block it was read up to.
#[derive(Clone, Debug, PartialEq)]
pub struct Transfers<T> {
    /// The newest block read.
    pub block: u64,
    /// The page.
    pub page: Page<T>,
}

impl Question for TokenTransfers {
    type Answer = Transfers<TokenTransfer>;

    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError> {
        let block = resolve(view, self.at_block)?;
        let ledger = view.ledger();
        // `only`: the tokens named, of those the view knows (none known: no transfer passes).
        let (moves, only): (Cow<'_, [u32]>, Option<Vec<Asset>>) = match &self.of {
            TokenTransfersOf::Wallet { address, contracts } => {
                let only =
                    (!contracts.is_empty()).then(|| contracts.iter().filter_map(|c| view.asset_at(*c)).collect());
                (ledger.find(*address).map_or(Cow::Borrowed(&[][..]), |holder| ledger.moves_of(holder)), only)
            }
            TokenTransfersOf::Token(token) => match view.asset_at(*token) {
                Some(asset) if asset != Asset::NATIVE => (ledger.moves_of_asset(asset), None),
                _ => (Cow::Borrowed(&[][..]), None),
            },
        };
        let page = walk(view, &moves, (self.span, block, self.order), &self.page, |movement| {
            let Movement::Fungible { asset, .. } = *movement else { return None };
            if only.as_ref().is_some_and(|only| !only.contains(&asset)) {
                return None;
            }
            token_transfer(view, movement)
        })?;
        Ok(Transfers { block, page })
    }
}

/// Whose NFT transfers.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NftTransfersOf {
    /// A wallet's, as sender or recipient; of these collections only, when any.
    Wallet {
        /// The wallet.
        address: Address,
        /// Only these collections' transfers, when not empty.
        contracts: Vec<Address>,
    },
    /// A collection's.
    Collection(Address),
}

/// One page of NFT transfers, one item per token id moved (a batch is
/// several), up to block `at_block` (the newest when `None`).
#[derive(Clone, Debug)]
pub struct NftTransfers {
    /// Whose.
    pub of: NftTransfersOf,
    /// The blocks covered.
    pub span: Span,
    /// The newest block the listing reads.
    pub at_block: Option<u64>,
    /// Which way.
    pub order: Order,
    /// Whether to add each token's last sale before the transfer's block.
    pub include_prices: bool,
    /// Which page.
    pub page: PageRequest,
}

/// One NFT transfer.
#[derive(Clone, Debug, PartialEq)]
pub struct NftTransfer {
    /// The collection.
    pub collection: CollectionInfo,
    /// The token.
    pub token_id: U256,
    /// Sender (the zero address for a mint).
    pub from: Address,
    /// Recipient (the zero address for a burn).
    pub to: Address,
    /// Amount moved (1 for ERC721).
    pub amount: u64,
    /// ERC1155's operator; `None` for ERC721.
    pub operator: Option<Address>,
    /// Whether an ERC1155 `TransferBatch` moved it.
    pub batch: bool,
    /// Where.
    pub place: TransferPlace,
    /// The token's last sale up to the transfer's block, when asked for
    /// and the backend records sales.
    pub last_sale: Option<NftLastSale>,
}

impl Question for NftTransfers {
    type Answer = Transfers<NftTransfer>;

    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError> {
        let block = resolve(view, self.at_block)?;
        let ledger = view.ledger();
        // `only`: the collections named, of those the view knows (none known: no transfer passes).
        let (moves, only): (Cow<'_, [u32]>, Option<Vec<u16>>) = match &self.of {
            NftTransfersOf::Wallet { address, contracts } => {
                let only =
                    (!contracts.is_empty()).then(|| contracts.iter().filter_map(|c| view.collection_at(*c)).collect());
                (ledger.find(*address).map_or(Cow::Borrowed(&[][..]), |holder| ledger.moves_of(holder)), only)
            }
            NftTransfersOf::Collection(address) => match view.collection_at(*address) {
                Some(collection) => (ledger.moves_of_collection(collection), None),
                None => (Cow::Borrowed(&[][..]), None),
            },
        };
        let page = walk(view, &moves, (self.span, block, self.order), &self.page, |movement| {
            let Movement::Nft { collection, .. } = *movement else { return None };
            if only.as_ref().is_some_and(|only| !only.contains(&collection)) {
                return None;
            }
            nft_transfer(view, movement, self.include_prices)
        })?;
        Ok(Transfers { block, page })
    }
}

/// A movement as an ERC20 transfer; `None` for one the listings do not
/// show (see [`lists_erc20`]).
pub(crate) fn token_transfer<V: ChainView>(view: &V, movement: &Movement<V::Id>) -> Option<TokenTransfer> {
    let Movement::Fungible { asset, from, to, amount, at } = *movement else { return None };
    if !lists_erc20(view, movement) {
        return None;
    }
    let token = view.token(asset)?;
    let ledger = view.ledger();
    Some(TokenTransfer {
        token: token.address,
        name: token.name.to_string(),
        symbol: token.symbol.to_string(),
        logo: token.logo.map(str::to_string),
        decimals: token.decimals,
        possible_spam: token.possible_spam,
        verified: token.verified,
        from: ledger.address(from),
        to: ledger.address(to),
        value: amount,
        place: place(view, at)?,
    })
}

/// A movement as an NFT transfer, with the token's last sale before it
/// when `include_prices`; `None` for one the listings do not show (see
/// [`lists_nft`]).
pub(crate) fn nft_transfer<V: ChainView>(
    view: &V,
    movement: &Movement<V::Id>,
    include_prices: bool,
) -> Option<NftTransfer> {
    let Movement::Nft { at, collection, id, from, to, amount, operator, batch, .. } = *movement else {
        return None;
    };
    if !lists_nft(view, movement) {
        return None;
    }
    let collection = crate::nfts::collection_info(view, collection)?;
    let token_id = id.to_u256();
    let last_sale = match include_prices {
        true => view.nft_prices(u64::from(at.block), collection.address, Some(token_id)).last_sale,
        false => None,
    };
    let ledger = view.ledger();
    Some(NftTransfer {
        collection,
        token_id,
        from: ledger.address(from),
        to: ledger.address(to),
        amount,
        operator: operator.map(|operator| ledger.address(operator)),
        batch,
        place: place(view, at)?,
        last_sale,
    })
}

/// Whether a movement is an ERC20 transfer the listings show: of a token
/// the view names (not the native currency), told by a log.
pub(crate) fn lists_erc20<V: ChainView>(view: &V, movement: &Movement<V::Id>) -> bool {
    matches!(movement, Movement::Fungible { asset, at, .. }
        if *asset != Asset::NATIVE && at.log.is_some() && view.token(*asset).is_some())
}

/// Whether a movement is an NFT transfer the listings show: of a
/// collection the view names, told by a log.
pub(crate) fn lists_nft<V: ChainView>(view: &V, movement: &Movement<V::Id>) -> bool {
    matches!(movement, Movement::Nft { collection, at, .. } if at.log.is_some() && view.collection(*collection).is_some())
}

/// Where a movement logged by a transaction happened; `None` for one no
/// log tells (native value) or outside the view.
fn place(view: &impl ChainView, at: w3api_ledger::Place) -> Option<TransferPlace> {
    let (transaction_index, log_index) = (at.transaction?, at.log?);
    let block = u64::from(at.block);
    Some(TransferPlace {
        block_number: block,
        block_hash: view.block_hash(block)?,
        block_timestamp: view.timestamp(block)?,
        transaction: view.transaction(block, transaction_index)?,
        transaction_index,
        log_index,
    })
}

/// One page of `moves` (indexes into the ledger's movements, in chain
/// order) within `span` up to `head`, in `order`, each kept as `keep`
/// writes it (`None` leaves it out).
fn walk<T, V: ChainView>(
    view: &V,
    moves: &[u32],
    (span, head, order): (Span, u64, Order),
    page: &PageRequest,
    keep: impl Fn(&Movement<V::Id>) -> Option<T>,
) -> Result<Page<T>, SourceError> {
    let ledger = view.ledger();
    let block = |index: &u32| ledger.movement(*index).block();
    listing::page(view, moves, block, (span, head, order), page, |index| keep(&ledger.movement(*index)))
}

#[cfg(test)]
mod tests;
