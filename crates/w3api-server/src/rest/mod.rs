//! The REST operations of `spec/openapi.yaml`.

pub(crate) mod answer;
pub(crate) mod body;
pub(crate) mod convert;
pub(crate) mod pagination;
pub(crate) mod params;
pub(crate) mod query;
pub(crate) mod streams;

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{StatusCode, Uri};
use axum::response::Response;
use axum::routing::{get, post};
use w3api_source::{DataSource, WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery};
use w3api_types::{
    Chain, NftCollectionPage, NftPage, SolanaChallengeRequest, SolanaChallengeResponse, SolanaVerifiedChallenge,
    SolanaVerifyRequest, TokenBalancePage,
};

use self::answer::{JsonAnswer, json_bytes};
use self::body::JsonBody;
use self::pagination::Walk;
use self::params::{WalletCollectionsRequest, WalletNftsRequest, WalletTokensRequest};
use crate::error::ApiError;
use crate::signin;
use crate::{App, answers};

/// Production numbers wallet-token pages from 0 (its answers of one page say
/// `"page": 0`) and NFT and collection pages from 1 (its cursors record
/// page 1 at offset 0).
const FIRST_TOKEN_PAGE: u64 = 0;
const FIRST_NFT_PAGE: u64 = 1;

/// The REST routes (every one needs an API key).
pub(crate) fn routes<S: DataSource>() -> Router<Arc<App<S>>> {
    Router::new()
        .route("/challenge/request/solana", post(request_challenge::<S>))
        .route("/challenge/verify/solana", post(verify_challenge::<S>))
        .route("/api/v2.2/wallets/{address}/tokens", get(wallet_tokens::<S>))
        .route("/api/v2.2/{address}/nft", get(wallet_nfts::<S>))
        .route("/api/v2.2/{address}/nft/collections", get(wallet_collections::<S>))
}

async fn request_challenge<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaChallengeRequest>,
) -> Result<(StatusCode, JsonAnswer<SolanaChallengeResponse>), ApiError> {
    let response = signin::request(&app.challenges, request, chrono::Utc::now()).await?;
    Ok((StatusCode::CREATED, JsonAnswer(response)))
}

async fn verify_challenge<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaVerifyRequest>,
) -> Result<(StatusCode, JsonAnswer<SolanaVerifiedChallenge>), ApiError> {
    let verified = signin::verify(&app.challenges, request, chrono::Utc::now()).await?;
    Ok((StatusCode::CREATED, JsonAnswer(verified)))
}

/// The block a walk reads: the one its first page read, or else the
/// newest, or `requested` when that is older (a block past the newest reads
/// the newest, and the answer says which).
async fn walk_block<S: DataSource>(
    app: &App<S>,
    chain: Chain,
    walk: &Walk,
    requested: Option<u64>,
) -> Result<u64, ApiError> {
    if let Some(block) = walk.block {
        return Ok(block);
    }
    let latest = app.source.latest_block(chain).await?;
    Ok(requested.map_or(latest, |requested| requested.min(latest)))
}

async fn wallet_tokens<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    uri: Uri,
    WalletTokensRequest { query, paging }: WalletTokensRequest,
) -> Result<Response, ApiError> {
    let walk = app.cursors.walk("tokens", &query, &paging, FIRST_TOKEN_PAGE)?;
    // Read before the answer: see `DataSource::revision`.
    let revision = app.source.revision(query.chain);
    let block = walk_block(&app, query.chain, &walk, query.to_block).await?;
    let key = answers::key(&uri, block, revision);
    if let Some(answer) = app.answers.get(&key) {
        return Ok(json_bytes(answer));
    }
    let at_block = WalletTokensQuery { to_block: Some(block), ..query.clone() };
    let answer = app.source.wallet_tokens(at_block, walk.request.clone()).await?;
    let total = answer.priced_total_usd;
    let body = TokenBalancePage {
        cursor: app.cursors.next(&walk, &query, answer.block_number, answer.holdings.next),
        page: walk.page,
        page_size: paging.limit,
        block_number: Some(answer.block_number),
        result: answer.holdings.items.into_iter().map(|h| convert::token_balance(h, total)).collect(),
    };
    // About 800 bytes a token.
    let bytes = answer::encode(&body, 1024 * (body.result.len() + 1))?;
    app.answers.insert(key, bytes.clone());
    Ok(json_bytes(bytes))
}

async fn wallet_nfts<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    WalletNftsRequest { query, view, paging }: WalletNftsRequest,
) -> Result<JsonAnswer<NftPage>, ApiError> {
    let walk = app.cursors.walk("nfts", &(&query, view), &paging, FIRST_NFT_PAGE)?;
    let block = walk_block(&app, query.chain, &walk, None).await?;
    let at_block = WalletNftsQuery { at_block: Some(block), ..query.clone() };
    let answer = app.source.wallet_nfts(at_block, walk.request.clone()).await?;
    Ok(JsonAnswer(NftPage {
        status: Some(answer.status),
        total: answer.total,
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &(&query, view), block, answer.holdings.next),
        result: answer.holdings.items.into_iter().map(|h| convert::nft(h, view)).collect(),
    }))
}

async fn wallet_collections<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    WalletCollectionsRequest { query, token_counts, paging }: WalletCollectionsRequest,
) -> Result<JsonAnswer<NftCollectionPage>, ApiError> {
    let walk = app.cursors.walk("collections", &(&query, token_counts), &paging, FIRST_NFT_PAGE)?;
    let block = walk_block(&app, query.chain, &walk, None).await?;
    let at_block = WalletCollectionsQuery { at_block: Some(block), ..query.clone() };
    let answer = app.source.wallet_collections(at_block, walk.request.clone()).await?;
    Ok(JsonAnswer(NftCollectionPage {
        status: Some(answer.status),
        page: walk.page,
        page_size: paging.limit,
        cursor: app.cursors.next(&walk, &(&query, token_counts), block, answer.holdings.next),
        result: answer.holdings.items.into_iter().map(|h| convert::collection(h, token_counts)).collect(),
    }))
}
