//! `getWalletNFTTransfers` and `getNFTContractTransfers`: the NFT transfers
//! of a wallet (of the collections it names, when it names any) or of a
//! collection, one token id per item, one page at a time, newest first
//! unless asked otherwise.

use w3api_query::transfers::{NftTransfer, NftTransfers, NftTransfersOf};
use w3api_source::SourceError;
use w3api_types::{Chain, NftTransactionType, NftTransferPage, TokenIdFormat, TransferParties};

use crate::paging::{Cursors, Listing, Paging, begin_walk};
use crate::transaction::block_time;
use crate::{AnswerError, Backend, Window};

/// Production numbers transfer pages from 0.
const FIRST_PAGE: u64 = 0;

/// Whose transfers, which blocks, which way, how token ids are written,
/// whether with sales, which page.
#[derive(Debug)]
pub struct NftTransfersRequest {
    /// The chain read.
    pub chain: Chain,
    /// A wallet's transfers or a collection's.
    pub of: NftTransfersOf,
    /// Which blocks, which way.
    pub window: Window,
    /// How token ids are written.
    pub format: TokenIdFormat,
    /// Whether to add each transfer's last sale.
    pub include_prices: bool,
    /// Which page.
    pub paging: Paging,
}

/// The page of transfers `request` asks for; `kind` tells its cursors from
/// another listing's.
pub async fn nft_transfers<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: NftTransfersRequest,
    kind: &'static str,
) -> Result<NftTransferPage, AnswerError> {
    let NftTransfersRequest { chain, of, window, format, include_prices, ref paging } = request;
    let key = (chain, &of, window, format, include_prices);
    let listing = Listing { kind, first_page: FIRST_PAGE };
    let (walk, block) = begin_walk((source, cursors), listing, &key, paging, (chain, None)).await?;
    let question = NftTransfers {
        of: of.clone(),
        span: window.span,
        at_block: Some(block),
        order: window.order,
        include_prices,
        page: walk.request.clone(),
    };
    let answer = source.ask(chain, question).await?;
    let write = |transfer| nft_transfer(transfer, format);
    Ok(NftTransferPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        // The listing reads every block up to the newest the backend has
        // indexed, so only a later `to_block` is missing.
        block_exists: Some(window.span.to_block.is_none_or(|to_block| to_block <= answer.block)),
        index_complete: Some(true),
        result: answer.page.items.into_iter().map(write).collect::<Result<_, _>>()?,
    })
}

/// A transfer as production writes it; a node names no address's label or
/// entity, and neither does the devnet.
fn nft_transfer(transfer: NftTransfer, format: TokenIdFormat) -> Result<w3api_types::NftTransfer, SourceError> {
    let place = transfer.place;
    Ok(w3api_types::NftTransfer {
        token_address: transfer.collection.address,
        token_id: format.write(transfer.token_id),
        token_name: transfer.collection.name,
        token_symbol: transfer.collection.symbol,
        parties: TransferParties::unlabelled(transfer.from, transfer.to),
        value: place.transaction.value,
        amount: transfer.amount,
        contract_type: transfer.collection.contract_type,
        block_number: place.block_number,
        block_timestamp: block_time(place.block_timestamp)?,
        block_hash: place.block_hash,
        transaction_hash: place.transaction.hash,
        transaction_type: if transfer.batch { NftTransactionType::Batch } else { NftTransactionType::Single },
        transaction_index: u64::from(place.transaction_index),
        log_index: u64::from(place.log_index),
        operator: transfer.operator,
        possible_spam: transfer.collection.possible_spam,
        verified_collection: transfer.collection.verified,
        last_sale: transfer.last_sale,
    })
}
