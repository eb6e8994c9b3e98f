//! The REST operations of `spec/openapi.yaml`.

pub mod body;
pub mod pagination;
pub mod query;

use std::sync::Arc;

use axum::Json;
use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use w3api_source::{DataSource, NftRef, WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery};
use w3api_types::{
    EvmStream, NftCollectionPage, NftPage, SolanaChallengeRequest, SolanaChallengeResponse, SolanaVerifiedChallenge,
    SolanaVerifyRequest, TokenBalancePage, TokenIdFormat, U256,
};

use self::body::JsonBody;
use self::pagination::{effective_limit, fingerprint, page};
use self::query::Query;
use crate::App;
use crate::error::ApiError;
use crate::signin;

/// A path segment, decoded; a segment that does not decode (invalid UTF-8)
/// is a 400 like any other bad parameter.
struct Segment(String);

impl<S: Send + Sync> axum::extract::FromRequestParts<S> for Segment {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut axum::http::request::Parts, state: &S) -> Result<Self, ApiError> {
        Path::<String>::from_request_parts(parts, state)
            .await
            .map(|Path(segment)| Segment(segment))
            .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))
    }
}

/// At most this many `token_addresses`.
const MAX_TOKEN_ADDRESSES: usize = 10;
/// Largest `limit`.
const MAX_LIMIT: u64 = 100;
/// Production numbers wallet-token pages from 0 (its answers of one page say
/// `"page": 0`) and NFT and collection pages from 1 (its cursors record
/// page 1 at offset 0).
const FIRST_TOKEN_PAGE: u64 = 0;
const FIRST_NFT_PAGE: u64 = 1;

/// The REST routes (every one needs an API key).
pub fn routes<S: DataSource>() -> Router<Arc<App<S>>> {
    Router::new()
        .route("/challenge/request/solana", post(request_challenge::<S>))
        .route("/challenge/verify/solana", post(verify_challenge::<S>))
        .route("/api/v2.2/wallets/{address}/tokens", get(wallet_tokens::<S>))
        .route("/api/v2.2/{address}/nft", get(wallet_nfts::<S>))
        .route("/api/v2.2/{address}/nft/collections", get(wallet_collections::<S>))
        .route("/streams/evm/{id}", get(stream::<S>))
}

async fn request_challenge<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaChallengeRequest>,
) -> Result<(StatusCode, Json<SolanaChallengeResponse>), ApiError> {
    let response = signin::request(&app.challenges, request, chrono::Utc::now())?;
    Ok((StatusCode::CREATED, Json(response)))
}

async fn verify_challenge<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    JsonBody(request): JsonBody<SolanaVerifyRequest>,
) -> Result<(StatusCode, Json<SolanaVerifiedChallenge>), ApiError> {
    let verified = signin::verify(&app.challenges, request, chrono::Utc::now())?;
    Ok((StatusCode::CREATED, Json(verified)))
}

async fn wallet_tokens<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    Segment(address): Segment,
    RawQuery(raw): RawQuery,
) -> Result<Response, ApiError> {
    let mut params = Query::parse(raw.as_deref());
    let address = params.path_address(&address);
    let mut query = WalletTokensQuery::new(params.chain(), address.unwrap_or_default());
    query.to_block = params.integer("to_block", u64::MAX);
    query.token_addresses = params.addresses("token_addresses", MAX_TOKEN_ADDRESSES);
    query.exclude_spam = params.flag("exclude_spam", false);
    query.exclude_unverified_contracts = params.flag("exclude_unverified_contracts", false);
    query.exclude_native = params.flag("exclude_native", false);
    query.max_token_inactivity_days = params.integer("max_token_inactivity", u64::MAX);
    query.min_pair_side_liquidity_usd = params.number("min_pair_side_liquidity_usd");
    let cursor = params.one("cursor");
    let limit = effective_limit(params.integer("limit", MAX_LIMIT));
    params.finish()?;
    let fingerprint = fingerprint("tokens", &query);
    let position = cursor.map(|c| app.cursors.open(&c, &fingerprint)).transpose()?;
    // Every page of a walk reads the block the first page read. A block
    // past the newest reads the newest (`block_number` says which).
    let block = match &position {
        Some(position) => position.block,
        None => {
            let latest = app.source.latest_block(query.chain).await?;
            query.to_block.map_or(latest, |requested| requested.min(latest))
        }
    };
    query.to_block = Some(block);
    let offset = position.as_ref().map_or(0, |p| p.offset);
    let key = format!("tokens|{fingerprint}|{block}|{limit}|{offset}");
    if let Some(answer) = app.answers.get(&key) {
        return Ok(json_bytes(answer));
    }
    let answer = app.source.wallet_tokens(query).await?;
    let page = page(&app.cursors, answer.items, (limit, FIRST_TOKEN_PAGE), position, &fingerprint, answer.block_number);
    let body = TokenBalancePage {
        cursor: page.cursor,
        page: page.page,
        page_size: page.page_size,
        block_number: Some(answer.block_number),
        result: page.items,
    };
    // Sized for the whole answer (about 800 bytes a token), so that encoding does not regrow and copy it.
    let mut encoded = Vec::with_capacity(1024 * (body.result.len() + 1));
    serde_json::to_writer(&mut encoded, &body).map_err(|e| ApiError::internal(format!("encoding the answer: {e}")))?;
    let bytes = Bytes::from(encoded);
    app.answers.insert(key, bytes.clone());
    Ok(json_bytes(bytes))
}

/// A JSON body already encoded.
fn json_bytes(bytes: Bytes) -> Response {
    ([(header::CONTENT_TYPE, HeaderValue::from_static("application/json"))], bytes).into_response()
}

async fn wallet_nfts<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    Segment(address): Segment,
    RawQuery(raw): RawQuery,
) -> Result<Json<NftPage>, ApiError> {
    let mut params = Query::parse(raw.as_deref());
    let address = params.path_address(&address);
    let mut query = WalletNftsQuery::new(params.chain(), address.unwrap_or_default());
    query.format = params
        .parsed("format", |v| match v {
            "decimal" => Ok(TokenIdFormat::Decimal),
            "hex" => Ok(TokenIdFormat::Hex),
            _ => Err("decimal or hex".into()),
        })
        .unwrap_or_default();
    query.exclude_spam = params.flag("exclude_spam", false);
    query.token_addresses = params.addresses("token_addresses", MAX_TOKEN_ADDRESSES);
    query.normalize_metadata = params.flag("normalizeMetadata", true);
    query.media_items = params.flag("media_items", false);
    let include_prices = params.flag("include_prices", false);
    let cursor = params.one("cursor");
    let limit = effective_limit(params.integer("limit", MAX_LIMIT));
    params.finish()?;
    app.indexing.request(query.chain, &query.token_addresses);
    let fingerprint = fingerprint("nfts", &query);
    let position = cursor.map(|c| app.cursors.open(&c, &fingerprint)).transpose()?;
    let block = match &position {
        Some(position) => position.block,
        None => app.source.latest_block(query.chain).await?,
    };
    query.at_block = Some(block);
    let (chain, filter) = (query.chain, query.token_addresses.clone());
    let all = app.source.wallet_nfts(query).await?;
    let status = app.indexing.status(chain, filter.into_iter().chain(all.iter().map(|n| n.token_address)));
    let mut page = page(&app.cursors, all, (limit, FIRST_NFT_PAGE), position, &fingerprint, block);
    if include_prices {
        for nft in &mut page.items {
            // Token ids are decimal or 0x hex (`format`); U256 parses both.
            let token_id = nft.token_id.parse::<U256>().ok();
            let item = NftRef { token_address: nft.token_address, token_id };
            nft.prices = Some(app.source.nft_prices(chain, block, item).await?.unwrap_or_default());
        }
    }
    Ok(Json(NftPage {
        status,
        total: Some(page.total as u64),
        page: page.page,
        page_size: page.page_size,
        cursor: page.cursor,
        result: page.items,
    }))
}

async fn wallet_collections<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    Segment(address): Segment,
    RawQuery(raw): RawQuery,
) -> Result<Json<NftCollectionPage>, ApiError> {
    let mut params = Query::parse(raw.as_deref());
    let address = params.path_address(&address);
    let chain = params.chain();
    let mut query = WalletCollectionsQuery {
        chain,
        address: address.unwrap_or_default(),
        at_block: None,
        exclude_spam: params.flag("exclude_spam", false),
        token_counts: params.flag("token_counts", false),
    };
    let include_prices = params.flag("include_prices", false);
    let cursor = params.one("cursor");
    let limit = effective_limit(params.integer("limit", MAX_LIMIT));
    params.finish()?;
    let fingerprint = fingerprint("collections", &query);
    let position = cursor.map(|c| app.cursors.open(&c, &fingerprint)).transpose()?;
    let block = match &position {
        Some(position) => position.block,
        None => app.source.latest_block(chain).await?,
    };
    query.at_block = Some(block);
    let all = app.source.wallet_collections(query).await?;
    let status = app.indexing.status(chain, all.iter().map(|c| c.token_address));
    let mut page = page(&app.cursors, all, (limit, FIRST_NFT_PAGE), position, &fingerprint, block);
    if include_prices {
        for collection in &mut page.items {
            let item = NftRef { token_address: collection.token_address, token_id: None };
            collection.prices = Some(app.source.nft_prices(chain, block, item).await?.unwrap_or_default());
        }
    }
    Ok(Json(NftCollectionPage {
        status,
        page: page.page,
        page_size: page.page_size,
        cursor: page.cursor,
        result: page.items,
    }))
}

async fn stream<S: DataSource>(
    State(app): State<Arc<App<S>>>,
    Segment(id): Segment,
) -> Result<Json<EvmStream>, ApiError> {
    let id =
        uuid::Uuid::try_parse(&id).map_err(|_| ApiError::bad_request(vec![format!("id: {id:?} is not a UUID")]))?;
    app.source.stream(id).await?.map(Json).ok_or_else(|| ApiError::not_found("Stream not found"))
}
