//! `getWalletTokenTransfers` and `getTokenTransfers`: the ERC20 transfers
//! of a wallet (of the tokens it names, when it names any) or of a token,
//! one page at a time, newest first unless asked otherwise.

use w3api_query::transfers::{TokenTransfer, TokenTransfers, TokenTransfersOf};
use w3api_source::SourceError;
use w3api_types::{Chain, Erc20Transfer, Erc20TransferPage, TransferParties, U256};

use crate::paging::{Cursors, Listing, Paging, begin_walk};
use crate::transaction::block_time;
use crate::{AnswerError, Backend, Window};

/// Production numbers transfer pages from 0.
const FIRST_PAGE: u64 = 0;

/// Whose transfers, which blocks, which way, which page.
#[derive(Debug)]
pub struct TokenTransfersRequest {
    /// The chain read.
    pub chain: Chain,
    /// A wallet's transfers or a token's.
    pub of: TokenTransfersOf,
    /// Which blocks, which way.
    pub window: Window,
    /// Which page.
    pub paging: Paging,
}

/// The page of transfers `request` asks for; `kind` tells its cursors from
/// another listing's.
pub async fn token_transfers<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: TokenTransfersRequest,
    kind: &'static str,
) -> Result<Erc20TransferPage, AnswerError> {
    let TokenTransfersRequest { chain, of, window, ref paging } = request;
    let key = (chain, &of, window);
    let listing = Listing { kind, first_page: FIRST_PAGE };
    let (walk, block) = begin_walk((source, cursors), listing, &key, paging, (chain, None)).await?;
    let question = TokenTransfers {
        of: of.clone(),
        span: window.span,
        at_block: Some(block),
        order: window.order,
        page: walk.request.clone(),
    };
    let answer = source.ask(chain, question).await?;
    Ok(Erc20TransferPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        result: answer.page.items.into_iter().map(erc20_transfer).collect::<Result<_, _>>()?,
    })
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
