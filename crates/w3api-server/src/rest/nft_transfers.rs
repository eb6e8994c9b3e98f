//! `getWalletNFTTransfers` and `getNFTContractTransfers`: the NFT transfers
//! of a wallet (of the collections it names, when it names any) or of a
//! collection, one token id per item, one page at a time, newest first
//! unless asked otherwise.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::nft_transfers::{NftTransfersRequest, nft_transfers as answer};
use w3api_query::transfers::NftTransfersOf;
use w3api_types::params::operations::{get_nft_contract_transfers as collection, get_wallet_nft_transfers as wallet};
use w3api_types::{Address, NftTransferPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &wallet::OPERATION, wallet_transfers::<S>);
    super::operation(router, &collection::OPERATION, collection_transfers::<S>)
}

/// `getWalletNFTTransfers`' request.
struct WalletRequest(NftTransfersRequest);

impl FromQuery for WalletRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&wallet::FROM_BLOCK, &wallet::TO_BLOCK, &wallet::FROM_DATE, &wallet::TO_DATE, &wallet::ORDER];
        let window = q.window(params);
        WalletRequest(NftTransfersRequest {
            chain: q.chain(&wallet::CHAIN),
            of: NftTransfersOf::Wallet { address, contracts: q.addresses(&wallet::CONTRACT_ADDRESSES) },
            window,
            format: q.schema_value(&wallet::FORMAT).unwrap_or_default(),
            include_prices: q.flag(&wallet::INCLUDE_PRICES),
            paging: q.paging(&wallet::LIMIT, &wallet::CURSOR),
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
        let window = q.window(params);
        NftTransfersRequest {
            chain: q.chain(&collection::CHAIN),
            of: NftTransfersOf::Collection(address),
            window,
            format: q.schema_value(&collection::FORMAT).unwrap_or_default(),
            include_prices: q.flag(&collection::INCLUDE_PRICES),
            paging: q.paging(&collection::LIMIT, &collection::CURSOR),
        }
    }
}

async fn wallet_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletRequest(request)): Request<WalletRequest>,
) -> Result<JsonAnswer<NftTransferPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request, "wallet_nft_transfers").await?))
}

async fn collection_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<NftTransfersRequest>,
) -> Result<JsonAnswer<NftTransferPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request, "nft_contract_transfers").await?))
}
