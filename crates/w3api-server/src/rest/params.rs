//! One typed extractor per wallet operation: the path and query of a
//! request, read with the operation's generated parameter table and checked
//! as a whole (every problem in one 400).

use axum::extract::{FromRequestParts, Path, RawQuery};
use axum::http::request::Parts;
use w3api_source::{WalletCollectionsQuery, WalletNftsQuery, WalletTokensQuery};
use w3api_types::params::Param;
use w3api_types::params::operations::{get_wallet_nft_collections, get_wallet_nfts, get_wallet_token_balances_price};
use w3api_types::{Address, TokenIdFormat};

use super::convert::NftView;
use super::query::Query;
use crate::error::ApiError;

/// Which page a listing request asks for.
#[derive(Clone, Debug)]
pub(crate) struct Paging {
    /// Items per page: 1 to the spec's maximum.
    pub limit: u64,
    /// The cursor of the previous page, if any.
    pub cursor: Option<String>,
}

impl Paging {
    /// `limit` as the spec defines it: 0 or absent is the spec's default
    /// (its maximum, should a limit ever come without one).
    fn read(query: &mut Query, limit: &Param, cursor: &Param) -> Paging {
        let limit = match query.integer(limit) {
            None | Some(0) => limit.default_integer().or(limit.maximum()).unwrap_or(u64::MAX),
            Some(limit) => limit,
        };
        Paging { limit, cursor: query.one(cursor) }
    }
}

/// Reads a request's path address and query with `read`, then fails with
/// every problem found, or answers what `read` built.
async fn extract<T>(parts: &mut Parts, read: impl FnOnce(&mut Query, Address) -> T) -> Result<T, ApiError> {
    let segment = Path::<String>::from_request_parts(parts, &())
        .await
        .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))?;
    let RawQuery(raw) = RawQuery::from_request_parts(parts, &()).await.unwrap_or(RawQuery(None));
    let mut query = Query::parse(raw.as_deref());
    let address = query.path_address(&segment.0);
    let value = read(&mut query, address.unwrap_or_default());
    query.finish()?;
    Ok(value)
}

/// `getWalletTokenBalancesPrice`.
#[derive(Debug)]
pub(crate) struct WalletTokensRequest {
    /// What to read.
    pub query: WalletTokensQuery,
    /// Which page.
    pub paging: Paging,
}

impl<S: Send + Sync> FromRequestParts<S> for WalletTokensRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_wallet_token_balances_price as op;
        extract(parts, |q, address| WalletTokensRequest {
            query: WalletTokensQuery {
                chain: q.chain(&op::CHAIN),
                address,
                to_block: q.integer(&op::TO_BLOCK),
                token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                exclude_unverified_contracts: q.flag(&op::EXCLUDE_UNVERIFIED_CONTRACTS),
                exclude_native: q.flag(&op::EXCLUDE_NATIVE),
                max_token_inactivity_days: q.integer(&op::MAX_TOKEN_INACTIVITY),
                min_pair_side_liquidity_usd: q.number(&op::MIN_PAIR_SIDE_LIQUIDITY_USD),
            },
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
        })
        .await
    }
}

/// `getWalletNfts`.
#[derive(Debug)]
pub(crate) struct WalletNftsRequest {
    /// What to read.
    pub query: WalletNftsQuery,
    /// How to write it.
    pub view: NftView,
    /// Which page.
    pub paging: Paging,
}

impl<S: Send + Sync> FromRequestParts<S> for WalletNftsRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_wallet_nfts as op;
        extract(parts, |q, address| WalletNftsRequest {
            query: WalletNftsQuery {
                chain: q.chain(&op::CHAIN),
                address,
                at_block: None,
                token_addresses: q.addresses(&op::TOKEN_ADDRESSES),
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                include_prices: q.flag(&op::INCLUDE_PRICES),
            },
            view: NftView {
                format: q.schema_value::<TokenIdFormat>(&op::FORMAT).unwrap_or_default(),
                normalize_metadata: q.flag(&op::NORMALIZE_METADATA),
                media_items: q.flag(&op::MEDIA_ITEMS),
            },
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
        })
        .await
    }
}

/// `getWalletNftCollections`.
#[derive(Debug)]
pub(crate) struct WalletCollectionsRequest {
    /// What to read.
    pub query: WalletCollectionsQuery,
    /// Whether to write each collection's token count.
    pub token_counts: bool,
    /// Which page.
    pub paging: Paging,
}

impl<S: Send + Sync> FromRequestParts<S> for WalletCollectionsRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_wallet_nft_collections as op;
        extract(parts, |q, address| WalletCollectionsRequest {
            query: WalletCollectionsQuery {
                chain: q.chain(&op::CHAIN),
                address,
                at_block: None,
                exclude_spam: q.flag(&op::EXCLUDE_SPAM),
                include_prices: q.flag(&op::INCLUDE_PRICES),
            },
            token_counts: q.flag(&op::TOKEN_COUNTS),
            paging: Paging::read(q, &op::LIMIT, &op::CURSOR),
        })
        .await
    }
}
