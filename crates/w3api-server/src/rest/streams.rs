//! The streams management operations and the deliveries page: requests
//! read into the streams service's arguments, its answers written as JSON.

use std::str::FromStr;
use std::sync::Arc;

use crate::Backend;
use axum::Router;
use axum::extract::{FromRequestParts, Path, RawQuery, State};
use axum::http::request::Parts;
use axum::http::{HeaderValue, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use chrono::{DateTime, Utc};
use serde::Serialize;
use uuid::Uuid;
use w3api_streams::{AttemptFilter, DashboardDelivery, DeliveryFilter, StreamsError};
use w3api_types::params::Param;
use w3api_types::params::operations::{get_delivery_logs, get_history, get_stream_addresses, get_streams};
use w3api_types::{
    Chain, DeliveryStatus, EvmStream, EvmStreamCreate, EvmStreamUpdate, EvmStreamsPage, StreamAddressChange,
    StreamAddressResponse, StreamAddressesPage, StreamBlockRequest, StreamDeliveryLogsPage, StreamHistoryItem,
    StreamHistoryPage, StreamSettings, StreamStatus, StreamStatusUpdate, StreamUsageStats, StreamWebhook,
};

use super::answer::JsonAnswer;
use super::body::JsonBody;
use super::query::{Query, known_value, whole_number};
use crate::App;
use crate::error::ApiError;

type Answer<T> = Result<JsonAnswer<T>, ApiError>;

/// The streams routes (every one needs an API key).
pub(crate) fn routes<S: Backend>() -> Router<Arc<App<S>>> {
    Router::new()
        .route("/streams/evm", get(list::<S>).put(create::<S>))
        .route("/streams/evm/{id}", get(one::<S>).post(update::<S>).delete(delete::<S>))
        .route("/streams/evm/{id}/status", post(set_status::<S>))
        .route("/streams/evm/{id}/duplicate", post(duplicate::<S>))
        .route(
            "/streams/evm/{id}/address",
            get(addresses::<S>).post(add_addresses::<S>).patch(replace_addresses::<S>).delete(remove_addresses::<S>),
        )
        // `{id}` is the chain id here: one name per path segment position.
        .route("/streams/evm/{id}/block/{block}", post(block_payload::<S>))
        .route("/settings", get(settings::<S>).post(set_settings::<S>))
        .route("/history", get(history::<S>))
        .route("/history/logs", get(delivery_logs::<S>))
        .route("/history/replay/{stream}/{id}", post(replay::<S>))
        .route("/stats", get(stats::<S>))
        .route("/stats/{stream}", get(stream_stats::<S>))
        .route("/dashboard/data", get(dashboard_data::<S>))
}

/// The deliveries page (it asks for the key itself).
pub(crate) async fn dashboard() -> Response {
    let html = Html(include_str!("../dashboard.html"));
    let mut response = html.into_response();
    // The page's script and style are inline; nothing else is loaded.
    response.headers_mut().insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "default-src 'self'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:",
        ),
    );
    response
}

impl From<StreamsError> for ApiError {
    fn from(error: StreamsError) -> Self {
        match error {
            StreamsError::StreamNotFound(_) => ApiError::not_found("Stream not found"),
            StreamsError::DeliveryNotFound { .. } => ApiError::not_found("History not found"),
            StreamsError::Invalid(messages) => ApiError::bad_request(messages),
            StreamsError::WebhookRejected { url, why } => {
                tracing::info!(%url, %why, "a stream's webhook did not answer the test webhook");
                ApiError::bad_request(vec![format!("Could not POST to {url}. Please check your webhook URL.")])
            }
            StreamsError::Store(error) => error.into(),
            StreamsError::Source(error) => error.into(),
            StreamsError::Damaged { .. } => ApiError::internal(error),
        }
    }
}

/// A path's uuid segment, named as the spec names it.
fn uuid_of(name: &str, value: &str) -> Result<Uuid, ApiError> {
    Uuid::try_parse(value).map_err(|_| ApiError::bad_request(vec![format!("{name}: {value:?} is not a UUID")]))
}

/// The path parameters of a route, in order.
struct Segments(Vec<String>);

impl<S: Send + Sync> FromRequestParts<S> for Segments {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        let Path(segments) = Path::<Vec<(String, String)>>::from_request_parts(parts, &())
            .await
            .map_err(|rejection| ApiError::bad_request(vec![format!("path: {}", rejection.body_text())]))?;
        Ok(Segments(segments.into_iter().map(|(_, value)| value).collect()))
    }
}

impl Segments {
    fn uuid(&self, position: usize, name: &str) -> Result<Uuid, ApiError> {
        uuid_of(name, self.0.get(position).map_or("", String::as_str))
    }
}

/// A listing's page: `limit` (required, 1 to the spec's maximum) and `cursor`.
struct Page {
    limit: usize,
    cursor: Option<String>,
}

impl Page {
    fn read(query: &mut Query, limit: &Param, cursor: &Param) -> Page {
        let read = query.integer(limit);
        let minimum = limit.minimum().unwrap_or(0);
        let limit = match read {
            Some(n) if n >= minimum => usize::try_from(n).unwrap_or(usize::MAX),
            Some(_) => {
                query.problem(
                    limit.name,
                    format_args!("an integer from {minimum} to {}", limit.maximum().unwrap_or(u64::MAX)),
                );
                0
            }
            None => {
                if limit.required {
                    query.problem(limit.name, "required");
                }
                usize::try_from(limit.maximum().unwrap_or(100)).unwrap_or(usize::MAX)
            }
        };
        Page { limit, cursor: query.one(cursor) }
    }
}

/// Reads a query with `read`, then fails with every problem found.
async fn query_of<T>(parts: &mut Parts, read: impl FnOnce(&mut Query) -> T) -> Result<T, ApiError> {
    let RawQuery(raw) = RawQuery::from_request_parts(parts, &()).await.unwrap_or(RawQuery(None));
    let mut query = Query::parse(raw.as_deref(), &[]);
    let value = read(&mut query);
    query.finish()?;
    Ok(value)
}

/// `getStreams`: a page, of the streams in a status if one is given.
struct StreamsRequest {
    page: Page,
    status: Option<StreamStatus>,
}

/// `getStreamAddresses`: a page.
struct AddressesRequest(Page);

/// `getHistory`.
struct HistoryRequest {
    page: Page,
    exclude_payload: bool,
    filter: DeliveryFilter,
}

/// `getDeliveryLogs`.
struct LogsRequest {
    page: Page,
    filter: AttemptFilter,
}

impl<S: Send + Sync> FromRequestParts<S> for StreamsRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_streams as op;
        query_of(parts, |q| StreamsRequest {
            page: Page::read(q, &op::LIMIT, &op::CURSOR),
            status: q.value(&op::STATUS, |v| known_value(StreamStatus::KNOWN, v)),
        })
        .await
    }
}

impl<S: Send + Sync> FromRequestParts<S> for LogsRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_delivery_logs as op;
        query_of(parts, |q| {
            let page = Page::read(q, &op::LIMIT, &op::CURSOR);
            let stream = q.value(&op::STREAM_ID, uuid);
            let outcomes = q.list(&op::DELIVERY_STATUS, "statuses", |v| known_value(DeliveryStatus::KNOWN, v));
            let where_ = history_where!(op);
            let deliveries = DeliveryFilter { stream, ..where_.read(q) };
            // Both outcomes asked for, or none, is no condition.
            let delivered =
                match (outcomes.contains(&DeliveryStatus::Success), outcomes.contains(&DeliveryStatus::Failed)) {
                    (true, false) => Some(true),
                    (false, true) => Some(false),
                    _ => None,
                };
            LogsRequest { page, filter: AttemptFilter { deliveries, delivered } }
        })
        .await
    }
}

/// The filters `getHistory` and `getDeliveryLogs` share, by their
/// parameters in one operation.
struct HistoryWhere {
    transaction: &'static Param,
    chains: &'static Param,
    blocks: &'static Param,
    from: &'static Param,
    to: &'static Param,
}

/// The [`HistoryWhere`] of the operation whose parameter table is `$op`.
macro_rules! history_where {
    ($op:ident) => {
        HistoryWhere {
            transaction: &$op::TRANSACTION_HASH,
            chains: &$op::CHAIN_ID,
            blocks: &$op::BLOCK_NUMBER,
            from: &$op::FROM_TIMESTAMP,
            to: &$op::TO_TIMESTAMP,
        }
    };
}
use history_where;

impl HistoryWhere {
    fn read(&self, q: &mut Query) -> DeliveryFilter {
        let transaction = q.value(self.transaction, transaction_hash);
        let chains = q.list(self.chains, "chains", |v| {
            Chain::from_str(v).ok().and_then(Chain::hex_id).ok_or_else(|| "a chain's hex id".to_string())
        });
        let blocks = q.list(self.blocks, "blocks", |v| whole_number(v).ok_or_else(|| "a block number".to_string()));
        // A `from` after `to` is an empty window, answered with an empty page.
        let from = q.number(self.from).map(unix_time);
        let to = q.number(self.to).map(unix_time);
        DeliveryFilter { stream: None, transaction, chain_ids: chains, block_numbers: blocks, from, to }
    }
}

/// A UUID, as a query value.
fn uuid(text: &str) -> Result<Uuid, String> {
    Uuid::try_parse(text).map_err(|_| "a UUID".into())
}

/// A transaction hash, lowercase as deliveries keep it.
fn transaction_hash(text: &str) -> Result<String, String> {
    let hex = text.strip_prefix("0x").filter(|hex| hex.len() == 64 && hex.bytes().all(|b| b.is_ascii_hexdigit()));
    hex.map(|hex| format!("0x{}", hex.to_ascii_lowercase())).ok_or_else(|| "a 0x-prefixed 32-byte hex hash".into())
}

/// A time given in Unix seconds, or in Unix milliseconds when it is 10^12
/// or more (a time in seconds that large is 30,000 years away).
fn unix_time(value: f64) -> DateTime<Utc> {
    let millis = if value >= 1e12 { value } else { value * 1000.0 };
    // Past what chrono holds, the latest time it holds: a bound beyond it bounds nothing.
    DateTime::from_timestamp_millis(millis as i64).unwrap_or(DateTime::<Utc>::MAX_UTC)
}

impl<S: Send + Sync> FromRequestParts<S> for AddressesRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_stream_addresses as op;
        query_of(parts, |q| AddressesRequest(Page::read(q, &op::LIMIT, &op::CURSOR))).await
    }
}

impl<S: Send + Sync> FromRequestParts<S> for HistoryRequest {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _: &S) -> Result<Self, ApiError> {
        use get_history as op;
        query_of(parts, |q| {
            let page = Page::read(q, &op::LIMIT, &op::CURSOR);
            let exclude_payload = q.flag(&op::EXCLUDE_PAYLOAD);
            let stream = q.value(&op::STREAM_ID, uuid);
            let where_ = history_where!(op);
            HistoryRequest { page, exclude_payload, filter: DeliveryFilter { stream, ..where_.read(q) } }
        })
        .await
    }
}

async fn list<S: Backend>(State(app): State<Arc<App<S>>>, request: StreamsRequest) -> Answer<EvmStreamsPage> {
    let StreamsRequest { page, status } = request;
    Ok(JsonAnswer(app.streams.list(page.limit, page.cursor.as_deref(), status.as_ref()).await?))
}

async fn create<S: Backend>(
    State(app): State<Arc<App<S>>>,
    JsonBody(body): JsonBody<EvmStreamCreate>,
) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.create(body).await?))
}

async fn one<S: Backend>(State(app): State<Arc<App<S>>>, path: Segments) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.get(path.uuid(0, "id")?).await?))
}

async fn update<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    JsonBody(change): JsonBody<EvmStreamUpdate>,
) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.update(path.uuid(0, "id")?, change).await?))
}

async fn delete<S: Backend>(State(app): State<Arc<App<S>>>, path: Segments) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.delete(path.uuid(0, "id")?).await?))
}

async fn set_status<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    JsonBody(change): JsonBody<StreamStatusUpdate>,
) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.set_status(path.uuid(0, "id")?, change.status).await?))
}

async fn duplicate<S: Backend>(State(app): State<Arc<App<S>>>, path: Segments) -> Answer<EvmStream> {
    Ok(JsonAnswer(app.streams.duplicate(path.uuid(0, "id")?).await?))
}

async fn addresses<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    AddressesRequest(page): AddressesRequest,
) -> Answer<StreamAddressesPage> {
    Ok(JsonAnswer(app.streams.addresses(path.uuid(0, "id")?, page.limit, page.cursor.as_deref()).await?))
}

async fn add_addresses<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    JsonBody(change): JsonBody<StreamAddressChange>,
) -> Answer<StreamAddressResponse> {
    Ok(JsonAnswer(app.streams.add_addresses(path.uuid(0, "id")?, change.address).await?))
}

async fn replace_addresses<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    JsonBody(change): JsonBody<StreamAddressChange>,
) -> Answer<StreamAddressResponse> {
    Ok(JsonAnswer(app.streams.replace_addresses(path.uuid(0, "id")?, change.address).await?))
}

async fn remove_addresses<S: Backend>(
    State(app): State<Arc<App<S>>>,
    path: Segments,
    JsonBody(change): JsonBody<StreamAddressChange>,
) -> Answer<StreamAddressResponse> {
    Ok(JsonAnswer(app.streams.remove_addresses(path.uuid(0, "id")?, change.address).await?))
}

async fn block_payload<S: Backend>(
    State(app): State<Arc<App<S>>>,
    Segments(path): Segments,
    JsonBody(request): JsonBody<StreamBlockRequest>,
) -> Answer<StreamWebhook> {
    let (chain_id, block) = (path[0].as_str(), path[1].as_str());
    let number = block
        .parse::<u64>()
        .map_err(|_| ApiError::bad_request(vec![format!("blockNumber: {block:?} is not a block number")]))?;
    Ok(JsonAnswer(app.streams.block_payload(chain_id, number, request).await?))
}

async fn settings<S: Backend>(State(app): State<Arc<App<S>>>) -> Answer<StreamSettings> {
    Ok(JsonAnswer(app.streams.settings().await?))
}

async fn set_settings<S: Backend>(
    State(app): State<Arc<App<S>>>,
    JsonBody(change): JsonBody<StreamSettings>,
) -> Answer<StreamSettings> {
    Ok(JsonAnswer(app.streams.set_settings(change).await?))
}

async fn history<S: Backend>(State(app): State<Arc<App<S>>>, request: HistoryRequest) -> Answer<StreamHistoryPage> {
    let HistoryRequest { page, exclude_payload, filter } = request;
    Ok(JsonAnswer(app.streams.history(page.limit, page.cursor.as_deref(), exclude_payload, &filter).await?))
}

async fn delivery_logs<S: Backend>(
    State(app): State<Arc<App<S>>>,
    request: LogsRequest,
) -> Answer<StreamDeliveryLogsPage> {
    let LogsRequest { page, filter } = request;
    Ok(JsonAnswer(app.streams.delivery_logs(page.limit, page.cursor.as_deref(), &filter).await?))
}

async fn replay<S: Backend>(State(app): State<Arc<App<S>>>, path: Segments) -> Answer<StreamHistoryItem> {
    Ok(JsonAnswer(app.streams.replay(path.uuid(0, "streamId")?, path.uuid(1, "id")?).await?))
}

async fn stats<S: Backend>(State(app): State<Arc<App<S>>>) -> Answer<StreamUsageStats> {
    Ok(JsonAnswer(app.streams.stats(None).await?))
}

async fn stream_stats<S: Backend>(State(app): State<Arc<App<S>>>, path: Segments) -> Answer<StreamUsageStats> {
    Ok(JsonAnswer(app.streams.stats(Some(path.uuid(0, "streamId")?)).await?))
}

/// What the deliveries page reads.
#[derive(Serialize)]
struct DashboardData {
    streams: Vec<EvmStream>,
    deliveries: Vec<DashboardDelivery>,
}

/// Deliveries the page shows at most.
const DASHBOARD_LIMIT: u64 = 200;

async fn dashboard_data<S: Backend>(State(app): State<Arc<App<S>>>, RawQuery(raw): RawQuery) -> Answer<DashboardData> {
    let mut query = Query::parse(raw.as_deref(), &[]);
    let limit = dashboard_limit(&mut query);
    query.finish()?;
    let (streams, deliveries) = app.streams.dashboard(limit).await?;
    Ok(JsonAnswer(DashboardData { streams, deliveries }))
}

fn dashboard_limit(query: &mut Query) -> usize {
    let param = Param {
        name: "limit",
        location: w3api_types::params::ParamLocation::Query,
        required: false,
        kind: w3api_types::params::ParamKind::Integer {
            minimum: Some(1),
            maximum: Some(DASHBOARD_LIMIT),
            default: Some(50),
        },
    };
    usize::try_from(query.integer(&param).unwrap_or(50).max(1)).unwrap_or(50)
}
