//! `getWalletTokenTransfers` and `getTokenTransfers`: the ERC20 transfers
//! of a wallet (of the tokens it names, when it names any) or of a token,
//! one page at a time, newest first unless asked otherwise.

use std::sync::Arc;

use axum::extract::State;
use w3api_query::listing::{Order, Span};
use w3api_query::transfers::{TokenTransfer, TokenTransfers, TokenTransfersOf};
use w3api_source::SourceError;
use w3api_types::params::Param;
use w3api_types::params::operations::{get_token_transfers as token, get_wallet_token_transfers as wallet};
use w3api_types::{Address, Chain, DateInput, Erc20Transfer, Erc20TransferPage, ListingOrder, TransferParties, U256};

use super::answer::JsonAnswer;
use super::extract::{FromQuery, Paging, Request};
use super::query::Query;
use super::transaction::block_time;
use super::{Listing, begin_walk};
use crate::error::ApiError;
use crate::{App, Backend};

/// Production numbers transfer pages from 0.
const FIRST_PAGE: u64 = 0;

/// Adds both operations to `router`.
pub(super) fn route<S: Backend>(router: super::Routes<S>) -> super::Routes<S> {
    let router = super::operation(router, &wallet::OPERATION, wallet_transfers::<S>);
    super::operation(router, &token::OPERATION, token_transfers::<S>)
}

/// The blocks and order of a transfer listing, as its query names them.
#[derive(Clone, Copy, Debug, Hash)]
pub(crate) struct Window {
    pub(crate) span: Span,
    pub(crate) order: Order,
}

impl Window {
    /// The window the query's `from_block`, `to_block`, `from_date`,
    /// `to_date` and `order` name (`params` in that order).
    pub(crate) fn read(q: &mut Query, params: [&Param; 5]) -> Window {
        let [from_block, to_block, from_date, to_date, order] = params;
        let date = |q: &mut Query, param| q.schema_value::<DateInput>(param).map(|date| date.0.timestamp());
        let span = Span {
            from_block: q.integer(from_block),
            to_block: q.integer(to_block),
            from_date: date(q, from_date),
            to_date: date(q, to_date),
        };
        let order = match q.schema_value(order).unwrap_or_default() {
            ListingOrder::Ascending => Order::Ascending,
            ListingOrder::Descending => Order::Descending,
        };
        Window { span, order }
    }
}

/// The request: whose transfers, which blocks, which way, which page.
#[derive(Debug)]
pub(crate) struct TokenTransfersRequest {
    chain: Chain,
    of: TokenTransfersOf,
    window: Window,
    paging: Paging,
}

/// `getWalletTokenTransfers`' request.
pub(crate) struct WalletRequest(TokenTransfersRequest);

impl FromQuery for WalletRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&wallet::FROM_BLOCK, &wallet::TO_BLOCK, &wallet::FROM_DATE, &wallet::TO_DATE, &wallet::ORDER];
        WalletRequest(TokenTransfersRequest {
            chain: q.chain(&wallet::CHAIN),
            of: TokenTransfersOf::Wallet { address, contracts: q.addresses(&wallet::CONTRACT_ADDRESSES) },
            window: Window::read(q, params),
            paging: Paging::read(q, &wallet::LIMIT, &wallet::CURSOR),
        })
    }
}

impl FromQuery for TokenTransfersRequest {
    fn read(q: &mut Query, address: Address) -> Self {
        let params = [&token::FROM_BLOCK, &token::TO_BLOCK, &token::FROM_DATE, &token::TO_DATE, &token::ORDER];
        TokenTransfersRequest {
            chain: q.chain(&token::CHAIN),
            of: TokenTransfersOf::Token(address),
            window: Window::read(q, params),
            paging: Paging::read(q, &token::LIMIT, &token::CURSOR),
        }
    }
}

async fn wallet_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(WalletRequest(request)): Request<WalletRequest>,
) -> Result<JsonAnswer<Erc20TransferPage>, ApiError> {
    transfers(&app, request, "wallet_token_transfers").await
}

async fn token_transfers<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Request(request): Request<TokenTransfersRequest>,
) -> Result<JsonAnswer<Erc20TransferPage>, ApiError> {
    transfers(&app, request, "token_transfers").await
}

async fn transfers<S: Backend>(
    app: &App<S>,
    request: TokenTransfersRequest,
    kind: &'static str,
) -> Result<JsonAnswer<Erc20TransferPage>, ApiError> {
    let TokenTransfersRequest { chain, of, window, ref paging } = request;
    let key = (chain, &of, window);
    let listing = Listing { kind, first_page: FIRST_PAGE };
    let (walk, block) = begin_walk((&*app.source, &app.cursors), listing, &key, paging, (chain, None)).await?;
    let question = TokenTransfers {
        of: of.clone(),
        span: window.span,
        at_block: Some(block),
        order: window.order,
        page: walk.request.clone(),
    };
    let answer = app.source.ask(chain, question).await?;
    Ok(JsonAnswer(Erc20TransferPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &key, block, answer.page.next),
        result: answer.page.items.into_iter().map(erc20_transfer).collect::<Result<_, _>>()?,
    }))
}

/// A transfer as production writes it; a node names no address's label or
/// entity, and neither does the devnet.
fn erc20_transfer(transfer: TokenTransfer) -> Result<Erc20Transfer, SourceError> {
    let place = transfer.place;
    Ok(Erc20Transfer {
        token_name: transfer.name,
        token_symbol: transfer.symbol,
        token_logo: transfer.logo,
        token_decimals: transfer.decimals,
        transaction_hash: place.transaction.hash,
        address: transfer.token,
        block_timestamp: block_time(place.block_timestamp)?,
        block_number: place.block_number,
        block_hash: place.block_hash,
        parties: TransferParties::unlabelled(transfer.from, transfer.to),
        value: U256::from(transfer.value),
        transaction_index: u64::from(place.transaction_index),
        log_index: u64::from(place.log_index),
        possible_spam: transfer.possible_spam,
        verified_contract: transfer.verified,
    })
}
