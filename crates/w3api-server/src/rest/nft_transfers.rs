//! `getWalletNFTTransfers` and `getNFTContractTransfers`: the NFT transfers
//! of a wallet (of the collections it names, when it names any) or of a
//! collection, one token id per item, one page at a time, newest first
//! unless asked otherwise.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::transfers::{NftTransfer, NftTransfers, NftTransfersOf};
use w3api_source::SourceError;
use w3api_types::params::operations::{get_nft_contract_transfers as collection, get_wallet_nft_transfers as wallet};
use w3api_types::{Address, Chain, NftTransactionType, NftTransferPage, TokenIdFormat, TransferParties};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Paging, Request};
use super::query::Query;
use super::token_transfers::Window;
use super::transaction::block_time;
use super::{Listing, begin_walk};
use crate::error::ApiError;
use crate::{App, Backend};

/// Production numbers transfer pages from 0.
const FIRST_PAGE: u64 = 0;

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &wallet::OPERATION, wallet_transfers::<S>);
    super::operation(router, &collection::OPERATION, collection_transfers::<S>)
}

/// The request: whose transfers, which blocks, which way, how token ids
/// are written, whether with sales, which page.
#[derive(Debug)]
pub(crate) struct NftTransfersRequest {
    chain: Chain,
    of: NftTransfersOf,
    window: Window,
    format: TokenIdFormat,
    include_prices: bool,
    paging: Paging,
}

/// `getWalletNFTTransfers`' request.
pub(crate) struct WalletRequest(NftTransfersRequest);

impl FromQuery for WalletRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&wallet::FROM_BLOCK, &wallet::TO_BLOCK, &wallet::FROM_DATE, &wallet::TO_DATE, &wallet::ORDER];
        let window = Window::read(q, params);
        WalletRequest(NftTransfersRequest {
            chain: q.chain(&wallet::CHAIN),
            of: NftTransfersOf::Wallet { address, contracts: q.addresses(&wallet::CONTRACT_ADDRESSES) },
            window,
            format: q.schema_value(&wallet::FORMAT).unwrap_or_default(),
            include_prices: q.flag(&wallet::INCLUDE_PRICES),
            paging: Paging::read(q, &wallet::LIMIT, &wallet::CURSOR),
        })
    }
}

impl FromQuery for NftTransfersRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [
            &collection::FROM_BLOCK,
            &collection::TO_BLOCK,
            &collection::FROM_DATE,
            &collection::TO_DATE,
            &collection::ORDER,
        ];
        let window = Window::read(q, params);
        NftTransfersRequest {
            chain: q.chain(&collection::CHAIN),
            of: NftTransfersOf::Collection(address),
            window,
            format: q.schema_value(&collection::FORMAT).unwrap_or_default(),
            include_prices: q.flag(&collection::INCLUDE_PRICES),
            paging: Paging::read(q, &collection::LIMIT, &collection::CURSOR),
        }
    }
}

async fn wallet_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletRequest(request)): Request<WalletRequest>,
) -> Result<JsonAnswer<NftTransferPage>, ApiError> {
    transfers(&app, request, "wallet_nft_transfers").await
}

async fn collection_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NftTransfersRequest>,
) -> Result<JsonAnswer<NftTransferPage>, ApiError> {
    transfers(&app, request, "nft_contract_transfers").await
}

async fn transfers<S: Backend>(
    app: &App<S>,
    request: NftTransfersRequest,
    kind: &'static str,
) -> Result<JsonAnswer<NftTransferPage>, ApiError> {
    let NftTransfersRequest { chain, of, window, format, include_prices, ref paging } = request;
    let key = (chain, &of, window, format, include_prices);
    let listing = Listing { kind, first_page: FIRST_PAGE };
    let (walk, block) = begin_walk((&*app.source, &app.cursors), listing, &key, paging, (chain, None)).await?;
    let question = NftTransfers {
        of: of.clone(),
        span: window.span,
        at_block: Some(block),
        order: window.order,
        include_prices,
        page: walk.request.clone(),
    };
    let answer = app.source.ask(chain, question).await?;
    let write = |transfer| nft_transfer(transfer, format);
    Ok(JsonAnswer(NftTransferPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &key, block, answer.page.next),
        // The listing reads every block up to the newest the backend has
        // indexed, so only a later `to_block` is missing.
        block_exists: Some(window.span.to_block.is_none_or(|to_block| to_block <= answer.block)),
        index_complete: Some(true),
        result: answer.page.items.into_iter().map(write).collect::<Result<_, _>>()?,
    }))
}

/// A transfer as production writes it; a node names no address's label or
/// entity, and neither does the devnet.
fn nft_transfer(transfer: NftTransfer, format: TokenIdFormat) -> Result<w3api_types::NftTransfer, SourceError> {
    let place = transfer.place;
    Ok(w3api_types::NftTransfer {
        token_address: transfer.collection,
        token_id: format.write(transfer.token_id),
        token_name: transfer.name,
        token_symbol: transfer.symbol,
        parties: TransferParties::unlabelled(transfer.from, transfer.to),
        value: place.transaction.value,
        amount: transfer.amount,
        contract_type: transfer.kind,
        block_number: place.block_number,
        block_timestamp: block_time(place.block_timestamp)?,
        block_hash: place.block_hash,
        transaction_hash: place.transaction.hash,
        transaction_type: if transfer.batch { NftTransactionType::Batch } else { NftTransactionType::Single },
        transaction_index: u64::from(place.transaction_index),
        log_index: u64::from(place.log_index),
        operator: transfer.operator,
        possible_spam: transfer.possible_spam,
        verified_collection: transfer.verified,
        last_sale: transfer.last_sale,
    })
}
