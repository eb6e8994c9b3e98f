//! `w3api stream <id>`: one EVM stream's configuration.

use w3api_rest::Client;
use w3api_types::EvmStream;

use crate::error::CliError;
use crate::output;

pub(crate) async fn stream(client: &Client, id: uuid::Uuid, json: bool) -> Result<(), CliError> {
    let stream = client.streams().get_stream().id(id).send().await?.into_inner();
    output::emit(json, &stream, render_stream)
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
        ("all addresses", output::or_dash(stream.all_addresses)),
        ("addresses", output::or_dash(stream.amount_of_addresses)),
        ("ABI items", output::or_dash(stream.abi.as_ref().map(Vec::len))),
        ("triggers", output::or_dash(stream.triggers.as_ref().map(Vec::len))),
        ("updated", output::or_dash(stream.updated_at.map(|t| t.to_rfc3339()))),
    ])
}
