//! `w3api streams …`: the streams management API (streams, their addresses,
//! the project's webhook settings, the delivery history and its totals), and
//! `w3api stream <id>`, the same as `streams get`.

use std::num::NonZeroU64;
use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Subcommand};
use serde::de::DeserializeOwned;
use uuid::Uuid;
use w3api_rest::{Client, Page};
use w3api_types::{
    AbiItem, AbiParameter, Address, AddressList, Chain, DeliveryStatus, EvmStream, EvmStreamCreate, EvmStreamUpdate,
    EvmStreamsPage, SettingsRegion, StreamAddressChange, StreamAddressResponse, StreamAddressesPage,
    StreamBlockRequest, StreamDeliveryLogsPage, StreamHistoryItem, StreamHistoryPage, StreamSettings, StreamStatus,
    StreamStatusUpdate, StreamUsageStats, StreamWebhook, TransactionHash,
};

use crate::error::CliError;
use crate::listing::{Paging, list_pages};
use crate::output::{self, Table};

/// The streams management operations, one subcommand each.
#[derive(Subcommand, Debug)]
pub(crate) enum StreamsCommand {
    /// The project's streams, oldest first (getStreams).
    List {
        /// Only the streams in this status: active, paused, error or terminated.
        #[arg(long)]
        status: Option<StreamStatus>,
        #[command(flatten)]
        paging: PageArgs,
    },
    /// One stream's configuration (getStream).
    Get {
        /// Stream id (a UUID).
        id: Uuid,
    },
    /// Create a stream (createStream); the server first posts a test webhook to
    /// --webhook-url, which must answer 2xx.
    #[command(
        mut_arg("webhook_url", |arg| arg.required_unless_present("from_json")),
        mut_arg("description", |arg| arg.required_unless_present("from_json")),
        mut_arg("tag", |arg| arg.required_unless_present("from_json")),
        mut_arg("chains", |arg| arg.required_unless_present("from_json")),
    )]
    Create(Box<SettingsArgs>),
    /// Change a stream's settings (updateStream); options left out keep their value.
    /// The stream's webhook URL, new or not, must answer the test webhook with 2xx.
    Update {
        /// Stream id (a UUID).
        id: Uuid,
        #[command(flatten)]
        settings: Box<SettingsArgs>,
    },
    /// Delete a stream (deleteStream); its history is kept.
    Delete {
        /// Stream id (a UUID).
        id: Uuid,
    },
    /// Suspend a stream's deliveries (updateStreamStatus, status paused).
    Pause {
        /// Stream id (a UUID).
        id: Uuid,
    },
    /// Make a stream deliver again (updateStreamStatus, status active).
    Resume {
        /// Stream id (a UUID).
        id: Uuid,
    },
    /// A new stream with the settings and addresses of another (duplicateStream).
    Duplicate {
        /// Stream id (a UUID) of the stream to copy.
        id: Uuid,
    },
    /// The addresses a stream watches, in ascending order (getStreamAddresses).
    Addresses {
        /// Stream id (a UUID).
        id: Uuid,
        #[command(flatten)]
        paging: PageArgs,
    },
    /// Watch more addresses (addAddressToStream).
    AddAddress(AddressesArgs),
    /// Stop watching addresses (deleteAddressFromStream).
    RemoveAddress(AddressesArgs),
    /// Watch exactly these addresses, and no other (replaceStreamAddresses).
    ReplaceAddresses(AddressesArgs),
    /// The project's webhook secret and region (getSettings).
    Settings,
    /// Set the webhook secret or region (setSettings); what is left out keeps its value.
    SetSettings(SetSettingsArgs),
    /// Deliveries of every stream, or of one, newest first (getHistory).
    History(HistoryArgs),
    /// Every delivery attempt, newest first (getDeliveryLogs).
    Logs(LogsArgs),
    /// Send a delivery again (replayHistory).
    Replay {
        /// Stream id (a UUID).
        stream_id: Uuid,
        /// Delivery id (a UUID; see `streams history`).
        delivery_id: Uuid,
    },
    /// Delivery totals of the project and of each stream, or of one stream (getStats, getStatsByStreamId).
    Stats {
        /// Only this stream (a UUID).
        stream_id: Option<Uuid>,
    },
    /// The payload a stream of these settings would get for a block, not sent (getStreamBlockData).
    Preview(Box<PreviewArgs>),
}

/// Page options of the listings.
#[derive(Args, Debug)]
pub(crate) struct PageArgs {
    /// Page size (the server allows 1 to 100).
    #[arg(long, default_value = "100")]
    limit: NonZeroU64,
    /// Cursor of the page to fetch (from a previous answer).
    #[arg(long, conflicts_with = "all")]
    cursor: Option<String>,
    /// Follow cursors to the last page and show every item.
    #[arg(long)]
    all: bool,
}

impl Paging for PageArgs {
    fn cursor(&self) -> Option<String> {
        self.cursor.clone()
    }

    fn all(&self) -> bool {
        self.all
    }
}

/// What a stream matches: the options `create`, `update` and `preview` share.
#[derive(Args, Debug, Default)]
pub(crate) struct MatchingArgs {
    /// An event listened for: signature (`Transfer(address,address,uint256)`) or topic hash (repeat).
    #[arg(long = "topic0", value_name = "EVENT")]
    topic0: Vec<String>,
    /// Match the events of every contract (needs --topic0 and --abi) (`--flag` or `--flag=true|false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    all_addresses: Option<bool>,
    /// Match transactions from or to the addresses (`--flag` or `--flag=true|false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    native_txs: Option<bool>,
    /// Match logs of transactions the addresses sent (`--flag` or `--flag=true|false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    contract_logs: Option<bool>,
    /// Match value moves inside contract calls (`--flag` or `--flag=true|false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    internal_txs: Option<bool>,
    /// Every log of a transaction that matched (`--flag` or `--flag=true|false`).
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_name = "BOOL")]
    all_tx_logs: Option<bool>,
    /// ABI of the events in --topic0: a JSON file holding an array of ABI items (or one item).
    #[arg(long, value_name = "FILE.json")]
    abi: Option<PathBuf>,
}

/// The options `--from-json` replaces.
const SETTING_OPTIONS: [&str; 11] = [
    "webhook_url",
    "description",
    "tag",
    "chains",
    "topic0",
    "all_addresses",
    "native_txs",
    "contract_logs",
    "internal_txs",
    "all_tx_logs",
    "abi",
];

/// `streams create` and `streams update`: a stream's settings.
#[derive(Args, Debug)]
pub(crate) struct SettingsArgs {
    /// Where deliveries are posted.
    #[arg(long, value_name = "URL")]
    webhook_url: Option<String>,
    /// What the stream is for.
    #[arg(long)]
    description: Option<String>,
    /// Label sent with each delivery.
    #[arg(long)]
    tag: Option<String>,
    /// A chain watched: hex id (0x1) or name (eth) (repeat; on update, the list replaces the stream's).
    #[arg(long = "chain", value_name = "CHAIN", value_parser = chain_id)]
    chains: Vec<String>,
    #[command(flatten)]
    matching: MatchingArgs,
    /// An address to watch, added once the stream is created or changed (repeat).
    #[arg(long = "address", value_name = "ADDRESS")]
    addresses: Vec<Address>,
    /// The whole request body from a JSON file (create: an EvmStreamCreate, update: an
    /// EvmStreamUpdate) instead of the options above; --address still adds addresses.
    #[arg(long, value_name = "FILE.json", conflicts_with_all = SETTING_OPTIONS)]
    from_json: Option<PathBuf>,
}

impl SettingsArgs {
    /// The options as a change: what was not given is left out.
    fn change(&self) -> Result<EvmStreamUpdate, CliError> {
        Ok(EvmStreamUpdate {
            webhook_url: self.webhook_url.clone(),
            description: self.description.clone(),
            tag: self.tag.clone(),
            chain_ids: (!self.chains.is_empty()).then(|| self.chains.clone()),
            ..self.matching.change()?
        })
    }
}

impl MatchingArgs {
    /// The options as a change: what was not given is left out.
    fn change(&self) -> Result<EvmStreamUpdate, CliError> {
        Ok(EvmStreamUpdate {
            topic0: (!self.topic0.is_empty()).then(|| Some(self.topic0.clone())),
            all_addresses: self.all_addresses,
            include_native_txs: self.native_txs,
            include_contract_logs: self.contract_logs,
            include_internal_txs: self.internal_txs,
            include_all_tx_logs: self.all_tx_logs,
            abi: self.abi.as_deref().map(read_abi).transpose()?.map(Some),
            ..EvmStreamUpdate::default()
        })
    }
}

/// `streams add-address`, `remove-address`, `replace-addresses`.
#[derive(Args, Debug)]
pub(crate) struct AddressesArgs {
    /// Stream id (a UUID).
    id: Uuid,
    /// Addresses (0x and 40 hex digits).
    #[arg(required = true, value_name = "ADDRESS")]
    addresses: Vec<Address>,
}

/// `streams set-settings`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("change").required(true).multiple(true).args(["secret_key", "region"])))]
pub(crate) struct SetSettingsArgs {
    /// The secret deliveries are signed with from now on.
    #[arg(long, value_name = "SECRET")]
    secret_key: Option<String>,
    /// Where production posts webhooks from: us-east-1, us-west-2, eu-central-1 or ap-southeast-1.
    #[arg(long)]
    region: Option<SettingsRegion>,
}

/// `streams history`.
#[derive(Args, Debug)]
pub(crate) struct HistoryArgs {
    /// Only the deliveries of this stream (a UUID).
    #[arg(long = "stream", value_name = "ID")]
    stream: Option<Uuid>,
    /// Include each delivery's payload.
    #[arg(long)]
    with_payload: bool,
    #[command(flatten)]
    filter: DeliveryFilterArgs,
    #[command(flatten)]
    paging: PageArgs,
}

/// `streams logs`.
#[derive(Args, Debug)]
pub(crate) struct LogsArgs {
    /// Only the attempts of this stream's deliveries (a UUID).
    #[arg(long = "stream", value_name = "ID")]
    stream: Option<Uuid>,
    /// Only the attempts with this outcome: success or failed (repeat).
    #[arg(long = "outcome", value_name = "OUTCOME")]
    outcomes: Vec<DeliveryStatus>,
    #[command(flatten)]
    filter: DeliveryFilterArgs,
    #[command(flatten)]
    paging: PageArgs,
}

/// What `streams history` and `streams logs` filter deliveries by.
#[derive(Args, Debug, Clone)]
pub(crate) struct DeliveryFilterArgs {
    /// Only deliveries that carry this transaction (its hash).
    #[arg(long = "transaction", value_name = "HASH")]
    transaction: Option<TransactionHash>,
    /// Only deliveries of blocks of this chain, by hex id or name (repeat).
    #[arg(long = "chain", value_name = "CHAIN")]
    chains: Vec<Chain>,
    /// Only deliveries of this block (repeat).
    #[arg(long = "block", value_name = "N")]
    blocks: Vec<u64>,
    /// Only from this time on, in Unix seconds (a delivery when queued, an attempt when made).
    #[arg(long, value_name = "SECONDS")]
    from: Option<f64>,
    /// Only up to this time, in Unix seconds.
    #[arg(long, value_name = "SECONDS")]
    to: Option<f64>,
}

/// `$request` with the filters of `$filter` (a [`DeliveryFilterArgs`]) that are given.
macro_rules! filtered {
    ($request:expr, $filter:expr) => {{
        let filter: &DeliveryFilterArgs = $filter;
        let mut request = $request;
        if let Some(hash) = filter.transaction {
            request = request.transaction_hash(hash);
        }
        if !filter.chains.is_empty() {
            request = request.chain_id(filter.chains.clone());
        }
        if !filter.blocks.is_empty() {
            request = request.block_number(filter.blocks.clone());
        }
        if let Some(from) = filter.from {
            request = request.from_timestamp(from);
        }
        if let Some(to) = filter.to {
            request = request.to_timestamp(to);
        }
        request
    }};
}

/// `streams preview`.
#[derive(Args, Debug)]
pub(crate) struct PreviewArgs {
    /// The chain: hex id (0x1) or name (eth).
    #[arg(long, value_name = "CHAIN", value_parser = chain_id)]
    chain: String,
    /// The block's number.
    #[arg(long, value_name = "N")]
    block: u64,
    /// Label put in the payload.
    #[arg(long)]
    tag: Option<String>,
    #[command(flatten)]
    matching: MatchingArgs,
    /// An address watched (repeat).
    #[arg(long = "address", value_name = "ADDRESS")]
    addresses: Vec<Address>,
}

/// A chain as the streams API names it: a hex id is kept as written (the
/// server judges it), a name is turned into its hex id.
fn chain_id(text: &str) -> Result<String, String> {
    if text.starts_with("0x") {
        return Ok(text.to_string());
    }
    let chain: Chain = text.parse().map_err(|e| format!("{e}"))?;
    chain.hex_id().ok_or_else(|| format!("no known chain id for {text:?}; give the hex id, such as 0x1"))
}

/// Runs a streams command.
pub(crate) async fn run(client: &Client, command: StreamsCommand, json: bool) -> Result<(), CliError> {
    let streams = client.streams();
    match command {
        StreamsCommand::List { status, paging } => {
            list_pages(
                {
                    let request = streams.get_streams().limit(paging.limit);
                    match status.clone() {
                        Some(status) => request.status(status),
                        None => request,
                    }
                },
                &paging,
                json,
                render_streams,
            )
            .await
        }
        StreamsCommand::Get { id } => {
            output::emit(json, &streams.get_stream().id(id).send().await?.into_inner(), render_stream)
        }
        StreamsCommand::Create(args) => create(client, *args, json).await,
        StreamsCommand::Update { id, settings } => update(client, id, *settings, json).await,
        StreamsCommand::Delete { id } => {
            let deleted = streams.delete_stream().id(id).send().await?.into_inner();
            output::emit(json, &deleted, |s| format!("deleted stream {} ({})\n", s.id, s.tag))
        }
        StreamsCommand::Pause { id } => set_status(client, id, StreamStatus::Paused, json).await,
        StreamsCommand::Resume { id } => set_status(client, id, StreamStatus::Active, json).await,
        StreamsCommand::Duplicate { id } => {
            output::emit(json, &streams.duplicate_stream().id(id).send().await?.into_inner(), render_stream)
        }
        StreamsCommand::Addresses { id, paging } => {
            list_pages(streams.get_stream_addresses().id(id).limit(paging.limit), &paging, json, render_addresses).await
        }
        StreamsCommand::AddAddress(args) => {
            let answer = streams.add_address_to_stream().id(args.id).body(address_change(&args.addresses));
            output::emit(json, &answer.send().await?.into_inner(), |a| render_address_change("added", a))
        }
        StreamsCommand::RemoveAddress(args) => {
            let answer = streams.delete_address_from_stream().id(args.id).body(address_change(&args.addresses));
            output::emit(json, &answer.send().await?.into_inner(), |a| render_address_change("removed", a))
        }
        StreamsCommand::ReplaceAddresses(args) => {
            let answer = streams.replace_stream_addresses().id(args.id).body(address_change(&args.addresses));
            output::emit(json, &answer.send().await?.into_inner(), |a| render_address_change("now watches", a))
        }
        StreamsCommand::Settings => {
            output::emit(json, &streams.get_settings().send().await?.into_inner(), render_settings)
        }
        StreamsCommand::SetSettings(args) => {
            let change = StreamSettings { secret_key: args.secret_key, region: args.region };
            output::emit(json, &streams.set_settings().body(change).send().await?.into_inner(), render_settings)
        }
        StreamsCommand::History(HistoryArgs { stream, with_payload, filter, paging }) => {
            list_pages(
                {
                    let request = streams.get_history().limit(paging.limit).exclude_payload(!with_payload);
                    let request = filtered!(request, &filter);
                    match stream {
                        Some(stream) => request.stream_id(stream),
                        None => request,
                    }
                },
                &paging,
                json,
                render_history,
            )
            .await
        }
        StreamsCommand::Logs(LogsArgs { stream, outcomes, filter, paging }) => {
            list_pages(
                {
                    let request = filtered!(streams.get_delivery_logs().limit(paging.limit), &filter);
                    let request = if outcomes.is_empty() { request } else { request.delivery_status(outcomes.clone()) };
                    match stream {
                        Some(stream) => request.stream_id(stream),
                        None => request,
                    }
                },
                &paging,
                json,
                render_logs,
            )
            .await
        }
        StreamsCommand::Replay { stream_id, delivery_id } => {
            let replayed = streams.replay_history().stream_id(stream_id).id(delivery_id).send().await?.into_inner();
            output::emit(json, &replayed, render_delivery)
        }
        StreamsCommand::Stats { stream_id } => {
            let stats = match stream_id {
                Some(id) => streams.get_stats_by_stream_id().stream_id(id).send().await?,
                None => streams.get_stats().send().await?,
            };
            output::emit(json, &stats.into_inner(), render_stats)
        }
        StreamsCommand::Preview(args) => preview(client, *args, json).await,
    }
}

async fn create(client: &Client, args: SettingsArgs, json: bool) -> Result<(), CliError> {
    let body = match &args.from_json {
        Some(path) => read_json::<EvmStreamCreate>(path, "an EvmStreamCreate body")?,
        None => {
            let change = args.change()?;
            EvmStreamCreate {
                webhook_url: change.webhook_url.unwrap_or_default(),
                description: change.description.unwrap_or_default(),
                tag: change.tag.unwrap_or_default(),
                topic0: change.topic0.flatten(),
                all_addresses: change.all_addresses,
                include_native_txs: change.include_native_txs,
                include_contract_logs: change.include_contract_logs,
                include_internal_txs: change.include_internal_txs,
                include_all_tx_logs: change.include_all_tx_logs,
                abi: change.abi.flatten(),
                chain_ids: change.chain_ids.unwrap_or_default(),
                ..EvmStreamCreate::default()
            }
        }
    };
    let created = client.streams().create_stream().body(body).send().await?.into_inner();
    let stream = with_addresses(client, created, &args.addresses).await?;
    output::emit(json, &stream, render_stream)
}

async fn update(client: &Client, id: Uuid, args: SettingsArgs, json: bool) -> Result<(), CliError> {
    let change = match &args.from_json {
        Some(path) => read_json::<EvmStreamUpdate>(path, "an EvmStreamUpdate body")?,
        None => args.change()?,
    };
    let streams = client.streams();
    let stream = match (change == EvmStreamUpdate::default(), args.addresses.is_empty()) {
        (true, true) => {
            return Err(CliError::Input(
                "nothing to change: give an option to change (see `w3api streams update --help`) or --from-json".into(),
            ));
        }
        // Only addresses: the settings are left alone (an update would post the test webhook).
        (true, false) => streams.get_stream().id(id).send().await?.into_inner(),
        (false, _) => streams.update_stream().id(id).body(change).send().await?.into_inner(),
    };
    let stream = with_addresses(client, stream, &args.addresses).await?;
    output::emit(json, &stream, render_stream)
}

/// Adds `addresses` to `stream`, and reads it again so that its count of
/// addresses is the new one; `stream` itself when there are none.
async fn with_addresses(client: &Client, stream: EvmStream, addresses: &[Address]) -> Result<EvmStream, CliError> {
    if addresses.is_empty() {
        return Ok(stream);
    }
    let streams = client.streams();
    streams.add_address_to_stream().id(stream.id).body(address_change(addresses)).send().await?;
    Ok(streams.get_stream().id(stream.id).send().await?.into_inner())
}

async fn set_status(client: &Client, id: Uuid, status: StreamStatus, json: bool) -> Result<(), CliError> {
    let body = StreamStatusUpdate { status };
    let stream = client.streams().update_stream_status().id(id).body(body).send().await?.into_inner();
    output::emit(json, &stream, render_stream)
}

async fn preview(client: &Client, args: PreviewArgs, json: bool) -> Result<(), CliError> {
    let matching = args.matching.change()?;
    let request = StreamBlockRequest {
        tag: args.tag,
        topic0: matching.topic0.flatten(),
        all_addresses: matching.all_addresses,
        include_native_txs: matching.include_native_txs,
        include_contract_logs: matching.include_contract_logs,
        include_internal_txs: matching.include_internal_txs,
        include_all_tx_logs: matching.include_all_tx_logs,
        abi: matching.abi.flatten(),
        addresses: (!args.addresses.is_empty()).then(|| args.addresses.iter().map(|a| format!("{a:#x}")).collect()),
        ..StreamBlockRequest::default()
    };
    let call = client.streams().get_stream_block_data().chain_id(args.chain).block_number(args.block);
    output::emit(json, &call.body(request).send().await?.into_inner(), render_payload)
}

/// The body of the address operations: one address, or a list.
fn address_change(addresses: &[Address]) -> StreamAddressChange {
    let mut texts: Vec<String> = addresses.iter().map(|a| format!("{a:#x}")).collect();
    let address = if texts.len() == 1 { AddressList::One(texts.remove(0)) } else { AddressList::Many(texts) };
    StreamAddressChange { address }
}

/// A JSON file read as `T` (`what` names it in errors).
fn read_json<T: DeserializeOwned>(path: &Path, what: &str) -> Result<T, CliError> {
    let text = std::fs::read_to_string(path).map_err(CliError::file(path))?;
    serde_json::from_str(&text).map_err(|e| CliError::Input(format!("{}: not {what}: {e}", path.display())))
}

/// An ABI file: an array of ABI items, or one.
fn read_abi(path: &Path) -> Result<Vec<AbiItem>, CliError> {
    match read_json::<serde_json::Value>(path, "JSON")? {
        serde_json::Value::Array(items) => serde_json::from_value(serde_json::Value::Array(items)),
        item => serde_json::from_value(item).map(|item| vec![item]),
    }
    .map_err(|e| CliError::Input(format!("{}: not an ABI (an array of ABI items): {e}", path.display())))
}

/// Where a listing stops: how many of how many, and how to get the next page.
fn footer<P: Page>(pages: &[P], total: impl Fn(&P) -> u64, noun: &str) -> String {
    let shown: usize = pages.iter().map(|p| p.items().len()).sum();
    let total = pages.first().map_or(0, total);
    let more = match pages.last().and_then(Page::next_cursor) {
        Some(cursor) => format!("; next page: --cursor {cursor} (or --all)"),
        None => String::new(),
    };
    format!("{shown} of {total} {noun}{more}\n")
}

fn render_streams(pages: &[EvmStreamsPage]) -> String {
    let mut table = Table::new(&["ID", "STATUS", "TAG", "CHAINS", ">ADDRESSES", "WEBHOOK"]);
    for stream in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            stream.id.to_string(),
            output::wire_name(&stream.status),
            stream.tag.clone(),
            stream.chain_ids.join(","),
            if stream.all_addresses == Some(true) { "all".into() } else { output::or_dash(stream.amount_of_addresses) },
            stream.webhook_url.clone(),
        ]);
    }
    table.render() + &footer(pages, |page| page.total, "streams")
}

fn render_addresses(pages: &[StreamAddressesPage]) -> String {
    let lines: String =
        pages.iter().flat_map(|p| &p.result).map(|a| format!("{}\n", output::printable(&a.address))).collect();
    lines + &footer(pages, |page| page.total, "addresses")
}

fn render_address_change(done: &str, answer: &StreamAddressResponse) -> String {
    let addresses = answer.address.as_slice();
    let mut text =
        format!("stream {} {done} {} address{}:\n", answer.stream_id, addresses.len(), plural(addresses.len()));
    for address in addresses {
        text += &format!("  {}\n", output::printable(address));
    }
    text
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "es" }
}

fn render_settings(settings: &StreamSettings) -> String {
    output::fields(&[
        ("region", output::or_dash(settings.region.as_ref())),
        ("secret key", output::or_dash(settings.secret_key.as_ref())),
    ])
}

fn render_history(pages: &[StreamHistoryPage]) -> String {
    let mut table = Table::new(&[
        "DELIVERY",
        "DATE",
        "STREAM",
        "TAG",
        "CHAIN",
        ">BLOCK",
        "CONFIRMED",
        ">RECORDS",
        ">TRIES",
        "ERROR",
    ]);
    let items: Vec<&StreamHistoryItem> = pages.iter().flat_map(|p| &p.result).collect();
    for item in &items {
        let tiny = &item.tiny_payload;
        table.row(vec![
            item.id.to_string(),
            item.date.to_rfc3339(),
            item.stream_id.clone(),
            item.tag.clone(),
            tiny.chain_id.clone(),
            tiny.block.clone(),
            tiny.confirmed.to_string(),
            tiny.records.to_string(),
            tiny.retries.to_string(),
            item.error_message.clone(),
        ]);
    }
    let mut text = table.render();
    for item in items {
        if let Some(payload) = &item.payload {
            text += &format!("\ndelivery {}:\n{}", item.id, render_payload(payload));
        }
    }
    text + &footer(pages, |page| page.total, "deliveries")
}

fn render_logs(pages: &[StreamDeliveryLogsPage]) -> String {
    let mut table =
        Table::new(&["DELIVERY", "AT", "TAG", "CHAIN", ">BLOCK", "STATUS", ">HTTP", ">MS", ">RETRIES", "ERROR"]);
    for log in pages.iter().flat_map(|p| &p.result) {
        table.row(vec![
            log.id.to_string(),
            log.created_at.to_rfc3339(),
            log.tag.clone(),
            log.chain.clone(),
            log.block_number.to_string(),
            log.delivery_status.to_string(),
            output::or_dash(log.status_code),
            output::or_dash(log.latency_ms),
            log.retries.to_string(),
            log.error_message.clone(),
        ]);
    }
    table.render() + &footer(pages, |page| page.total, "attempts")
}

/// One delivery (what `replay` answers).
fn render_delivery(item: &StreamHistoryItem) -> String {
    let tiny = &item.tiny_payload;
    output::fields(&[
        ("delivery", item.id.to_string()),
        ("stream", format!("{} ({})", item.stream_id, item.tag)),
        ("date", item.date.to_rfc3339()),
        ("block", format!("{} on {}{}", tiny.block, tiny.chain_id, if tiny.confirmed { ", confirmed" } else { "" })),
        ("records", tiny.records.to_string()),
        ("attempts", tiny.retries.to_string()),
        ("webhook", item.webhook_url.clone()),
        ("error", if item.error_message.is_empty() { "-".into() } else { item.error_message.clone() }),
    ])
}

fn render_stats(stats: &StreamUsageStats) -> String {
    let mut text = output::fields(&[
        ("webhooks delivered", stats.total_webhooks_delivered.to_string()),
        ("webhooks failed", stats.total_webhooks_failed.to_string()),
        ("logs processed", stats.total_logs_processed.to_string()),
        ("transactions processed", stats.total_txs_processed.to_string()),
        ("internal transactions processed", stats.total_txs_internal_processed.to_string()),
        ("since", output::or_dash(stats.created_at.map(|t| t.to_rfc3339()))),
        ("updated", output::or_dash(stats.updated_at.map(|t| t.to_rfc3339()))),
    ]);
    if let Some(streams) = stats.streams.as_ref().filter(|s| !s.is_empty()) {
        let mut table = Table::new(&["STREAM", ">DELIVERED", ">FAILED", ">LOGS", ">TXS", ">INTERNAL TXS"]);
        for s in streams {
            table.row(vec![
                s.stream_id.clone(),
                s.total_webhooks_delivered.to_string(),
                s.total_webhooks_failed.to_string(),
                s.total_logs_processed.to_string(),
                s.total_txs_processed.to_string(),
                s.total_txs_internal_processed.to_string(),
            ]);
        }
        text += &format!("\n{}", table.render());
    }
    text
}

pub(crate) fn render_stream(stream: &EvmStream) -> String {
    let list = |items: Option<&Vec<String>>| items.map_or_else(|| "-".into(), |items| items.join(", "));
    let status = output::wire_name(&stream.status);
    output::fields(&[
        ("id", stream.id.to_string()),
        ("tag", stream.tag.clone()),
        ("description", stream.description.clone()),
        ("status", format!("{status} ({})", stream.status_message)),
        ("webhook", stream.webhook_url.clone()),
        ("chains", stream.chain_ids.join(", ")),
        ("topic0", list(stream.topic0.as_ref())),
        ("native transactions", output::or_dash(stream.include_native_txs)),
        ("contract logs", output::or_dash(stream.include_contract_logs)),
        ("internal transactions", output::or_dash(stream.include_internal_txs)),
        ("all transaction logs", output::or_dash(stream.include_all_tx_logs)),
        ("all addresses", output::or_dash(stream.all_addresses)),
        ("addresses", output::or_dash(stream.amount_of_addresses)),
        ("ABI items", output::or_dash(stream.abi.as_ref().map(Vec::len))),
        ("triggers", output::or_dash(stream.triggers.as_ref().map(Vec::len))),
        ("updated", output::or_dash(stream.updated_at.map(|t| t.to_rfc3339()))),
    ])
}

/// Settings that watch every ERC20 transfer: a stream's view of a block.
pub(crate) fn erc20_transfers_preview(tag: &str) -> StreamBlockRequest {
    let param = |name: &str, indexed: bool| AbiParameter {
        name: name.into(),
        kind: if name == "value" { "uint256" } else { "address" }.into(),
        indexed: Some(indexed),
        components: None,
        internal_type: None,
    };
    StreamBlockRequest {
        tag: Some(tag.into()),
        topic0: Some(vec!["Transfer(address,address,uint256)".into()]),
        all_addresses: Some(true),
        include_contract_logs: Some(true),
        abi: Some(vec![AbiItem {
            anonymous: Some(false),
            inputs: Some(vec![param("from", true), param("to", true), param("value", false)]),
            name: Some("Transfer".into()),
            kind: Some("event".into()),
            ..AbiItem::default()
        }]),
        ..StreamBlockRequest::default()
    }
}

/// A payload in brief: the block, and one line per decoded token transfer.
pub(crate) fn render_payload(payload: &StreamWebhook) -> String {
    let mut out = output::fields(&[
        ("block", format!("{} ({})", payload.block.number, payload.block.hash)),
        ("logs", payload.logs.len().to_string()),
        ("transactions", payload.txs.len().to_string()),
        ("ERC20 transfers", payload.erc20_transfers.len().to_string()),
        ("NFT transfers", payload.nft_transfers.len().to_string()),
    ]);
    for transfer in payload.erc20_transfers.iter().take(10) {
        // The symbol is the token deployer's choice.
        let line = format!(
            "{} {} from {} to {}",
            transfer.value_with_decimals, transfer.token_symbol, transfer.from, transfer.to
        );
        out.push_str(&format!("  {}\n", output::printable(&line)));
    }
    out
}
