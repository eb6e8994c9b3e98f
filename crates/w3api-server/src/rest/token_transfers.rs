//! `getWalletTokenTransfers` and `getTokenTransfers`: the ERC20 transfers
//! of a wallet (of the tokens it names, when it names any) or of a token,
//! one page at a time, newest first unless asked otherwise.

use std::sync::Arc;

use axum::extract::State;
use w3api_answers::token_transfers::{TokenTransfersRequest, token_transfers as answer};
use w3api_query::transfers::TokenTransfersOf;
use w3api_types::params::operations::{get_token_transfers as token, get_wallet_token_transfers as wallet};
use w3api_types::{Address, Erc20TransferPage};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Request};
use super::query::Query;
use crate::error::ApiError;
use crate::{App, Backend};

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &wallet::OPERATION, wallet_transfers::<S>);
    super::operation(router, &token::OPERATION, token_transfers::<S>)
}

/// `getWalletTokenTransfers`' request.
struct WalletRequest(TokenTransfersRequest);

impl FromQuery for WalletRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&wallet::FROM_BLOCK, &wallet::TO_BLOCK, &wallet::FROM_DATE, &wallet::TO_DATE, &wallet::ORDER];
        WalletRequest(TokenTransfersRequest {
            chain: q.chain(&wallet::CHAIN),
            of: TokenTransfersOf::Wallet { address, contracts: q.addresses(&wallet::CONTRACT_ADDRESSES) },
            window: q.window(params),
            paging: q.paging(&wallet::LIMIT, &wallet::CURSOR),
        })
    }
}

impl FromQuery for TokenTransfersRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&token::FROM_BLOCK, &token::TO_BLOCK, &token::FROM_DATE, &token::TO_DATE, &token::ORDER];
        TokenTransfersRequest {
            chain: q.chain(&token::CHAIN),
            of: TokenTransfersOf::Token(address),
            window: q.window(params),
            paging: q.paging(&token::LIMIT, &token::CURSOR),
        }
    }
}

async fn wallet_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletRequest(request)): Request<WalletRequest>,
) -> Result<JsonAnswer<Erc20TransferPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request, "wallet_token_transfers").await?))
}

async fn token_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<TokenTransfersRequest>,
) -> Result<JsonAnswer<Erc20TransferPage>, ApiError> {
    Ok(JsonAnswer(answer((&*app.source, &app.cursors), request, "token_transfers").await?))
}
