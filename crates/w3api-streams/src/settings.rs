//! A stream's settings, checked: what the API sent, read into what matching
//! needs (chains, topic hashes, events to decode, filters).

use std::collections::HashMap;
use std::str::FromStr;

use alloy_json_abi::Event;
use alloy_primitives::B256;
use w3api_types::{Chain, EvmStreamCreate, StreamNativeBalanceType, StreamTriggerType};

use crate::error::StreamsError;
use crate::filter::Filter;

/// A stream's settings as sent, and what they mean for matching.
#[derive(Clone, Debug)]
pub struct StreamSpec {
    /// The settings as the API has them (and the store keeps them).
    pub api: EvmStreamCreate,
    /// The chains watched.
    pub chains: Vec<Chain>,
    /// The events listened for; empty for every event.
    pub topics: Vec<B256>,
    /// The events of the stream's ABI, by topic hash.
    pub(crate) events: HashMap<B256, Event>,
    /// The `advancedOptions`, by topic hash.
    pub(crate) options: HashMap<B256, TopicOption>,
}

/// An `advancedOptions` entry.
#[derive(Clone, Debug)]
pub(crate) struct TopicOption {
    pub(crate) filter: Option<Filter>,
    pub(crate) include_native_txs: bool,
}

impl StreamSpec {
    /// Checks `api`: every problem is reported, each naming its field.
    pub fn parse(api: EvmStreamCreate) -> Result<StreamSpec, StreamsError> {
        let mut problems = Vec::new();
        check_webhook_url(&api.webhook_url).unwrap_or_else(|e| problems.push(e));
        let chains = parse_chains(&api.chain_ids, &mut problems);
        let topics = parse_topics(api.topic0.as_deref().unwrap_or_default(), &mut problems);
        let events = parse_events(&api, &mut problems);
        let options = parse_options(&api, &topics, &events, &mut problems);
        check_native_balances(&api, &mut problems);
        check_triggers(&api, &mut problems);
        if !problems.is_empty() {
            return Err(StreamsError::Invalid(problems));
        }
        Ok(StreamSpec { api, chains, topics, events, options })
    }

    /// Checks what a stream (not a preview) must also have: something to
    /// deliver, and a webhook on a host this server posts to (`hosts`,
    /// any when empty).
    pub fn check_deliverable(&self, hosts: &[String]) -> Result<(), StreamsError> {
        let mut problems = Vec::new();
        let flags = [self.api.include_native_txs, self.api.include_contract_logs, self.api.include_internal_txs];
        if !flags.contains(&Some(true)) {
            problems.push(
                "at least one of includeNativeTxs, includeContractLogs and includeInternalTxs must be true".into(),
            );
        }
        let host = url::Url::parse(&self.api.webhook_url).ok().and_then(|url| url.host_str().map(str::to_owned));
        if let Some(host) = host.filter(|host| !hosts.is_empty() && !hosts.iter().any(|h| h.eq_ignore_ascii_case(host)))
        {
            problems.push(format!(
                "webhookUrl: this server posts only to {} (--webhook-host), not to {host}",
                hosts.join(", ")
            ));
        }
        if problems.is_empty() { Ok(()) } else { Err(StreamsError::Invalid(problems)) }
    }

    /// Whether the stream watches every contract's events of its topics
    /// (which production applies only with an ABI and topics).
    pub(crate) fn all_addresses(&self) -> bool {
        self.api.all_addresses == Some(true) && !self.topics.is_empty() && !self.events.is_empty()
    }

    pub(crate) fn flag(value: Option<bool>) -> bool {
        value == Some(true)
    }
}

/// Checks a webhook URL: absolute, http or https.
pub(crate) fn check_webhook_url(url: &str) -> Result<(), String> {
    match url::Url::parse(url) {
        Ok(parsed) if matches!(parsed.scheme(), "http" | "https") && parsed.host().is_some() => Ok(()),
        Ok(parsed) => Err(format!("webhookUrl: {url:?} is not an http or https URL (scheme {})", parsed.scheme())),
        Err(e) => Err(format!("webhookUrl: {url:?} is not a URL ({e})")),
    }
}

fn parse_chains(ids: &[String], problems: &mut Vec<String>) -> Vec<Chain> {
    if ids.is_empty() {
        problems.push("chainIds: at least one chain id, such as \"0x1\"".into());
    }
    let mut chains = Vec::new();
    for (i, id) in ids.iter().enumerate() {
        let parsed = if id.starts_with("0x") {
            Chain::from_str(id).map_err(|e| e.to_string())
        } else {
            Err("a chain id is written in hex, such as \"0x1\"".to_string())
        };
        match parsed {
            Ok(chain) if !chains.contains(&chain) => chains.push(chain),
            Ok(_) => problems.push(format!("chainIds[{i}]: {id} is listed twice")),
            Err(e) => problems.push(format!("chainIds[{i}]: {id:?}: {e}")),
        }
    }
    chains
}

/// Topic hashes from `0x`-hex hashes or event signatures (`Transfer(address,address,uint256)`).
fn parse_topics(topics: &[String], problems: &mut Vec<String>) -> Vec<B256> {
    let mut hashes = Vec::new();
    for (i, topic) in topics.iter().enumerate() {
        let hash = if topic.starts_with("0x") {
            topic.parse::<B256>().map_err(|_| "a topic hash is 0x and 64 hex digits".to_string())
        } else {
            Event::parse(topic).map(|event| event.selector()).map_err(|e| format!("not an event signature ({e})"))
        };
        match hash {
            Ok(hash) => hashes.push(hash),
            Err(e) => problems.push(format!("topic0[{i}]: {topic:?}: {e}")),
        }
    }
    hashes
}

fn parse_events(api: &EvmStreamCreate, problems: &mut Vec<String>) -> HashMap<B256, Event> {
    let mut events = HashMap::new();
    for (i, item) in api.abi.iter().flatten().enumerate() {
        if item.kind.as_deref() != Some("event") {
            continue;
        }
        let parsed = serde_json::to_value(item).and_then(serde_json::from_value::<Event>);
        match parsed {
            Ok(event) => {
                events.insert(event.selector(), event);
            }
            Err(e) => problems.push(format!("abi[{i}]: not an event ABI entry ({e})")),
        }
    }
    events
}

fn parse_options(
    api: &EvmStreamCreate,
    topics: &[B256],
    events: &HashMap<B256, Event>,
    problems: &mut Vec<String>,
) -> HashMap<B256, TopicOption> {
    let mut options = HashMap::new();
    for (i, option) in api.advanced_options.iter().flatten().enumerate() {
        let at = format!("advancedOptions[{i}]");
        let mut one = Vec::new();
        let topic = parse_topics(std::slice::from_ref(&option.topic0), &mut one).first().copied();
        problems.extend(one.into_iter().map(|e| format!("{at}.{e}")));
        let Some(topic) = topic else { continue };
        if !topics.contains(&topic) {
            problems.push(format!("{at}.topic0: {:?} is not one of the stream's topic0", option.topic0));
            continue;
        }
        let fields: Vec<String> = events
            .get(&topic)
            .map(|event| event.inputs.iter().map(|input| input.name.clone()).collect())
            .unwrap_or_default();
        let filter = match &option.filter {
            Some(filter) if events.contains_key(&topic) => match Filter::parse(filter, &fields) {
                Ok(filter) => Some(filter),
                Err(e) => {
                    problems.push(format!("{at}.filter: {e}"));
                    None
                }
            },
            Some(_) => {
                problems.push(format!(
                    "{at}.filter: the stream's abi has no event {:?} to read the filter with",
                    option.topic0
                ));
                None
            }
            None => None,
        };
        options.insert(topic, TopicOption { filter, include_native_txs: option.include_native_txs == Some(true) });
    }
    options
}

/// The selectors each kind of record offers for `getNativeBalances`.
pub(crate) fn selectors_of(kind: &StreamNativeBalanceType) -> &'static [&'static str] {
    match kind {
        StreamNativeBalanceType::Tx => &["$fromAddress", "$toAddress"],
        StreamNativeBalanceType::Log => &["$address"],
        StreamNativeBalanceType::Erc20transfer | StreamNativeBalanceType::Nfttransfer => &["$from", "$to", "$contract"],
        StreamNativeBalanceType::Erc20approval => &["$owner", "$spender", "$contract"],
        StreamNativeBalanceType::InternalTx => &["$from", "$to"],
        _ => &[],
    }
}

fn check_native_balances(api: &EvmStreamCreate, problems: &mut Vec<String>) {
    for (i, balances) in api.get_native_balances.iter().flatten().enumerate() {
        if !balances.kind.is_known() {
            problems.push(not_one_of(
                &format!("getNativeBalances[{i}].type"),
                &balances.kind,
                StreamNativeBalanceType::KNOWN,
            ));
            continue;
        }
        let known = selectors_of(&balances.kind);
        for (j, selector) in balances.selectors.iter().enumerate() {
            let literal = selector.parse::<alloy_primitives::Address>().is_ok();
            if !literal && !known.contains(&selector.as_str()) {
                problems.push(format!(
                    "getNativeBalances[{i}].selectors[{j}]: {selector:?} is not an address or a selector of {} records ({})",
                    balances.kind,
                    known.join(", ")
                ));
            }
        }
    }
}

fn check_triggers(api: &EvmStreamCreate, problems: &mut Vec<String>) {
    for (i, trigger) in api.triggers.iter().flatten().enumerate() {
        if !trigger.kind.is_known() {
            problems.push(not_one_of(&format!("triggers[{i}].type"), &trigger.kind, StreamTriggerType::KNOWN));
        }
        if let Err(problem) = crate::triggers::check(trigger) {
            problems.push(format!("triggers[{i}].functionAbi: {problem}"));
        }
    }
}

/// The problem of `field` when its `value` is none of the `known` ones: an
/// open enum reads any text, so an unknown value is refused here.
fn not_one_of<T: std::fmt::Display>(field: &str, value: &T, known: &[T]) -> String {
    let known: Vec<String> = known.iter().map(T::to_string).collect();
    format!("{field}: {:?} is not one of {}", value.to_string(), known.join(", "))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn create(extra: serde_json::Value) -> EvmStreamCreate {
        let mut body = json!({
            "webhookUrl": "http://127.0.0.1:9/hook", "description": "d", "tag": "t", "chainIds": ["0x1"],
            "includeContractLogs": true,
        });
        body.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        serde_json::from_value(body).unwrap()
    }

    fn problems(extra: serde_json::Value) -> Vec<String> {
        match StreamSpec::parse(create(extra)) {
            Err(StreamsError::Invalid(problems)) => problems,
            other => panic!("expected problems, got {other:?}"),
        }
    }

    #[test]
    fn signatures_and_hashes_name_the_same_topic() {
        let transfer = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";
        let spec =
            StreamSpec::parse(create(json!({"topic0": ["Transfer(address,address,uint256)", transfer]}))).unwrap();
        assert_eq!(spec.topics[0], spec.topics[1]);
        assert_eq!(format!("{:#x}", spec.topics[0]), transfer);
        assert_eq!(spec.chains, vec![Chain::Eth]);
    }

    #[test]
    fn every_problem_is_named_with_its_field() {
        let found = problems(json!({
            "webhookUrl": "ftp://example.org/x",
            "chainIds": ["1", "0x1", "0x1"],
            "topic0": ["Transfer(address,address", "0x12"],
            "advancedOptions": [{"topic0": "Approval(address,address,uint256)"}],
            "includeContractLogs": false,
            "getNativeBalances": [{"selectors": ["$from"], "type": "AAA"}],
            "triggers": [{"type": "block", "contractAddress": "$contract", "functionAbi": {
                "type": "function", "name": "owner", "inputs": [], "outputs": [{"name": "", "type": "address"}],
                "stateMutability": "view",
            }}],
        }));
        let expected = [
            "webhookUrl: \"ftp://example.org/x\" is not an http or https URL",
            "chainIds[0]: \"1\"",
            "chainIds[2]: 0x1 is listed twice",
            "topic0[0]: \"Transfer(address,address\"",
            "topic0[1]: \"0x12\": a topic hash is 0x and 64 hex digits",
            "advancedOptions[0].topic0: \"Approval(address,address,uint256)\" is not one of the stream's topic0",
            "getNativeBalances[0].type: \"AAA\" is not one of tx, log, erc20transfer, erc20approval, nfttransfer, internalTx",
            "triggers[0].type: \"block\" is not one of tx, log, erc20transfer, erc20approval, nfttransfer",
            "triggers[0].functionAbi: owner() is not a read answered here",
        ];
        assert_eq!(found.len(), expected.len(), "{found:#?}");
        for (found, expected) in found.iter().zip(expected) {
            assert!(found.starts_with(expected), "{found:?} does not start with {expected:?}");
        }
    }

    #[test]
    fn a_stream_must_deliver_something_to_an_allowed_host() {
        let quiet = StreamSpec::parse(create(json!({"includeContractLogs": false}))).unwrap();
        let Err(StreamsError::Invalid(problems)) = quiet.check_deliverable(&[]) else { panic!("refused") };
        assert!(problems[0].starts_with("at least one of includeNativeTxs"), "{problems:?}");
        let spec = StreamSpec::parse(create(json!({}))).unwrap();
        assert!(spec.check_deliverable(&[]).is_ok(), "any host without a list");
        assert!(spec.check_deliverable(&["127.0.0.1".into()]).is_ok());
        let Err(StreamsError::Invalid(problems)) = spec.check_deliverable(&["localhost".into()]) else { panic!() };
        assert_eq!(
            problems,
            vec!["webhookUrl: this server posts only to localhost (--webhook-host), not to 127.0.0.1"]
        );
    }

    #[test]
    fn a_filter_is_read_against_the_abi_event() {
        let abi = json!([{"anonymous": false, "name": "Transfer", "type": "event", "inputs": [
            {"indexed": true, "name": "from", "type": "address"},
            {"indexed": true, "name": "to", "type": "address"},
            {"indexed": false, "name": "value", "type": "uint256"}]}]);
        let topic = json!(["Transfer(address,address,uint256)"]);
        let good = json!({"topic0": topic, "abi": abi,
            "advancedOptions": [{"topic0": "Transfer(address,address,uint256)", "filter": {"gt": ["value", "5"]}}]});
        let spec = StreamSpec::parse(create(good)).unwrap();
        assert!(spec.options[&spec.topics[0]].filter.is_some());
        let bad = json!({"topic0": topic, "abi": abi,
            "advancedOptions": [{"topic0": "Transfer(address,address,uint256)", "filter": {"gt": ["amount", "5"]}}]});
        assert!(problems(bad)[0].starts_with("advancedOptions[0].filter: \"amount\" is not a parameter"));
        let selector = json!({"getNativeBalances": [{"selectors": ["$sender"], "type": "tx"}]});
        assert!(problems(selector)[0].starts_with("getNativeBalances[0].selectors[0]: \"$sender\""));
    }
}
