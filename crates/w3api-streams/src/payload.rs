//! What a stream gets for a block: the transactions and logs that match its
//! settings and watched addresses, with the token events among the logs
//! decoded, written as production writes them (decimal strings, lowercase
//! hex).

use std::collections::{HashMap, HashSet};

use alloy_dyn_abi::{DynSolValue, EventExt};
use alloy_json_abi::Event;
use alloy_primitives::{Address, B256, U256};
use w3api_ledger::events::{Event as TokenEvent, decode as token_event};
use w3api_source::Contract;
use w3api_types::rpc::{Block, BlockTransactions, Log, Receipt, Transaction};
use w3api_types::{
    Chain, StreamBlock, StreamErc20Approval, StreamErc20Transfer, StreamInternalTransaction, StreamLog,
    StreamNativeBalanceType, StreamNftApproval, StreamNftApprovalForAll, StreamNftTokenApproval, StreamNftTransfer,
    StreamTransaction, StreamWebhook, format_units,
};

use crate::settings::{StreamSpec, selectors_of};

/// A block with what every stream reads of it.
#[derive(Clone, Debug)]
pub struct BlockData {
    /// The chain.
    pub chain: Chain,
    /// The block, with its transactions in full.
    pub block: Block,
    /// The receipts of its transactions, in order.
    pub receipts: Vec<Receipt>,
    /// The tokens and collections that emitted its logs.
    pub contracts: HashMap<Address, Contract>,
    /// The value its transactions moved inside the EVM, in order; read
    /// only when a stream asks for internal transactions.
    pub internal: Vec<InternalTransfer>,
}

/// Value one call inside a transaction moved.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InternalTransfer {
    /// The transaction.
    pub transaction_hash: B256,
    /// The paying contract.
    pub from: Address,
    /// The recipient.
    pub to: Address,
    /// Wei moved.
    pub value: U256,
    /// Gas given to the call.
    pub gas: U256,
}

impl BlockData {
    /// The transactions with their receipts.
    fn transactions(&self) -> impl Iterator<Item = (&Transaction, &Receipt)> {
        let transactions = match &self.block.transactions {
            BlockTransactions::Full(transactions) => transactions.as_slice(),
            BlockTransactions::Hashes(_) => &[],
        };
        transactions.iter().zip(&self.receipts).filter(|(tx, receipt)| tx.hash == receipt.transaction_hash)
    }

    /// Every address that emitted a log of the block.
    pub fn log_addresses(receipts: &[Receipt]) -> Vec<Address> {
        let mut addresses: Vec<Address> = receipts.iter().flat_map(|r| r.logs.iter().map(|log| log.address)).collect();
        addresses.sort_unstable();
        addresses.dedup();
        addresses
    }
}

/// A stream's payload for a block, before its native balances are read.
pub(crate) struct Matched {
    pub(crate) webhook: StreamWebhook,
    /// The accounts whose native balances the payload carries.
    pub(crate) balances_of: Vec<Address>,
}

/// What `spec`, watching `watched`, gets for `data`; an empty payload when
/// nothing matches.
pub(crate) fn build(
    spec: &StreamSpec,
    stream_id: &str,
    watched: &HashSet<Address>,
    data: &BlockData,
    confirmed: bool,
) -> Matched {
    let mut webhook = StreamWebhook::test();
    webhook.confirmed = confirmed;
    webhook.chain_id = data.chain.hex_id().unwrap_or_else(|| data.chain.as_str().to_owned());
    webhook.abi = spec.api.abi.clone().unwrap_or_default();
    webhook.stream_id = stream_id.to_owned();
    webhook.tag = spec.api.tag.clone();
    webhook.block = StreamBlock {
        number: data.block.number.to_string(),
        hash: format!("{:#x}", data.block.hash),
        timestamp: data.block.timestamp.to_string(),
    };
    let mut included_logs = Vec::new();
    for (tx, receipt) in data.transactions() {
        let (tx_in, logs) = match_transaction(spec, watched, data, tx, receipt);
        if tx_in {
            webhook.txs.push(transaction(tx, receipt));
        }
        included_logs.extend(logs);
    }
    if StreamSpec::flag(spec.api.include_internal_txs) {
        let delivered: HashSet<String> = webhook.txs.iter().map(|tx| tx.hash.clone()).collect();
        for moved in &data.internal {
            let hash = format!("{:#x}", moved.transaction_hash);
            if watched.contains(&moved.from) || watched.contains(&moved.to) || delivered.contains(&hash) {
                webhook.txs_internal.push(internal_transaction(moved, hash));
            }
        }
    }
    for log in &included_logs {
        webhook.logs.push(stream_log(log));
        add_token_event(&mut webhook, log, &data.contracts, spec);
    }
    let balances_of = balance_addresses(spec, &webhook);
    Matched { webhook, balances_of }
}

/// Whether a transaction is delivered, and which of its logs are.
fn match_transaction<'a>(
    spec: &StreamSpec,
    watched: &HashSet<Address>,
    data: &BlockData,
    tx: &Transaction,
    receipt: &'a Receipt,
) -> (bool, Vec<&'a Log>) {
    let native_txs = StreamSpec::flag(spec.api.include_native_txs);
    let tx_watched = watched.contains(&tx.from) || tx.to.is_some_and(|to| watched.contains(&to));
    let mut tx_in = native_txs && tx_watched;
    let mut logs: Vec<&Log> = Vec::new();
    if StreamSpec::flag(spec.api.include_contract_logs) {
        for log in &receipt.logs {
            let (matched, wants_tx) = match_log(spec, watched, data, log, tx_watched);
            if matched {
                logs.push(log);
                tx_in |= wants_tx;
            }
        }
        if StreamSpec::flag(spec.api.include_all_tx_logs) && (tx_in || !logs.is_empty()) {
            logs = receipt.logs.iter().collect();
        }
    }
    (tx_in || (native_txs && !logs.is_empty()), logs)
}

/// Whether a log matches, and whether its `advancedOptions` entry asks for
/// its transaction.
fn match_log(
    spec: &StreamSpec,
    watched: &HashSet<Address>,
    data: &BlockData,
    log: &Log,
    tx_watched: bool,
) -> (bool, bool) {
    let topic0 = log.topics.first();
    if !spec.topics.is_empty() && !topic0.is_some_and(|topic| spec.topics.contains(topic)) {
        return (false, false);
    }
    let params = topic0.and_then(|topic| spec.events.get(topic)).and_then(|event| decoded_params(event, log));
    let names_watched = |value: &DynSolValue| matches!(value, DynSolValue::Address(a) if watched.contains(a));
    let addressed = spec.all_addresses()
        || tx_watched
        || watched.contains(&log.address)
        || params.as_ref().is_some_and(|params| params.values().any(names_watched))
        || token_event(&log.topics, &log.data).is_some_and(|event| event_names_any(&event, watched));
    if !addressed {
        return (false, false);
    }
    let option = topic0.and_then(|topic| spec.options.get(topic));
    if let Some(filter) = option.and_then(|option| option.filter.as_ref())
        && !params.as_ref().is_some_and(|params| filter.holds(params))
    {
        return (false, false);
    }
    if StreamSpec::flag(spec.api.filter_possible_spam_addresses) && is_spam(data.contracts.get(&log.address)) {
        return (false, false);
    }
    (true, option.is_some_and(|option| option.include_native_txs))
}

fn is_spam(contract: Option<&Contract>) -> bool {
    match contract {
        Some(Contract::Token(token)) => token.possible_spam,
        Some(Contract::Collection(collection)) => collection.possible_spam,
        None => false,
    }
}

/// A log's parameters, by name, decoded with the stream's ABI.
fn decoded_params(event: &Event, log: &Log) -> Option<HashMap<String, DynSolValue>> {
    let decoded = event.decode_log_parts(log.topics.iter().copied(), &log.data).ok()?;
    let (mut indexed, mut body) = (decoded.indexed.into_iter(), decoded.body.into_iter());
    event
        .inputs
        .iter()
        .map(|input| {
            let value = if input.indexed { indexed.next()? } else { body.next()? };
            Some((input.name.clone(), value))
        })
        .collect()
}

fn event_names_any(event: &TokenEvent, watched: &HashSet<Address>) -> bool {
    let named = match event {
        TokenEvent::Erc20Transfer { from, to, .. } | TokenEvent::NftTransfers { from, to, .. } => vec![*from, *to],
        TokenEvent::Erc20Approval { owner, spender, .. } => vec![*owner, *spender],
        TokenEvent::NftApproval { owner, approved, .. } => vec![*owner, *approved],
        TokenEvent::ApprovalForAll { owner, operator, .. } => vec![*owner, *operator],
        // Not among the token events a payload lists: such logs match by
        // their contract and topics alone.
        TokenEvent::Deposit { .. }
        | TokenEvent::Withdrawal { .. }
        | TokenEvent::PairCreated { .. }
        | TokenEvent::Sync { .. } => Vec::new(),
    };
    named.iter().any(|address| watched.contains(address))
}

fn hex(address: Address) -> String {
    format!("{address:#x}")
}

fn stream_log(log: &Log) -> StreamLog {
    let topic = |i: usize| log.topics.get(i).map(|topic| format!("{topic:#x}"));
    StreamLog {
        log_index: log.log_index.unwrap_or_default().to_string(),
        transaction_hash: log.transaction_hash.map(|hash| format!("{hash:#x}")).unwrap_or_default(),
        address: hex(log.address),
        data: log.data.to_string(),
        topic0: topic(0),
        topic1: topic(1),
        topic2: topic(2),
        topic3: topic(3),
        triggers: None,
    }
}

fn transaction(tx: &Transaction, receipt: &Receipt) -> StreamTransaction {
    // Typed transactions carry the y-parity; legacy ones `v` itself.
    let v = tx.y_parity.map(U256::from).or(tx.v);
    StreamTransaction {
        hash: format!("{:#x}", tx.hash),
        gas: Some(tx.gas.to_string()),
        gas_price: Some(receipt.effective_gas_price.to_string()),
        nonce: Some(tx.nonce.to_string()),
        input: tx.input.get().map(ToString::to_string),
        transaction_index: receipt.transaction_index.to_string(),
        from_address: hex(tx.from),
        to_address: tx.to.map(hex),
        value: Some(tx.value.to_string()),
        kind: Some(tx.tx_type.to_string()),
        v: v.map(|v| v.to_string()),
        r: Some(tx.r.to_string()),
        s: Some(tx.s.to_string()),
        receipt_cumulative_gas_used: Some(receipt.cumulative_gas_used.to_string()),
        receipt_gas_used: Some(receipt.gas_used.to_string()),
        receipt_contract_address: receipt.contract_address.map(hex),
        receipt_root: receipt.root.map(|root| format!("{root:#x}")),
        receipt_status: receipt.status.map(|status| status.to_string()),
        triggers: None,
    }
}

fn internal_transaction(moved: &InternalTransfer, transaction_hash: String) -> StreamInternalTransaction {
    StreamInternalTransaction {
        from: Some(hex(moved.from)),
        to: Some(hex(moved.to)),
        value: Some(moved.value.to_string()),
        transaction_hash,
        gas: Some(moved.gas.to_string()),
    }
}

/// Name, symbol and decimals of a token; empty when the contract is not a known token.
fn token_metadata(contract: Option<&Contract>) -> (String, String, Option<u8>, Option<bool>) {
    match contract {
        Some(Contract::Token(token)) => {
            (token.name.clone(), token.symbol.clone(), Some(token.decimals), Some(token.possible_spam))
        }
        _ => (String::new(), String::new(), None, None),
    }
}

/// Name, symbol, standard and spam flag of a collection.
fn collection_metadata(contract: Option<&Contract>, erc1155: bool) -> (String, String, String, Option<bool>) {
    let standard = if erc1155 { "ERC1155" } else { "ERC721" }.to_owned();
    match contract {
        Some(Contract::Collection(collection)) => (
            collection.name.clone(),
            collection.symbol.clone(),
            collection.contract_type.to_string(),
            Some(collection.possible_spam),
        ),
        _ => (String::new(), String::new(), standard, None),
    }
}

fn with_decimals(value: U256, decimals: Option<u8>) -> String {
    decimals.map_or_else(|| value.to_string(), |decimals| format_units(value, decimals))
}

fn add_token_event(webhook: &mut StreamWebhook, log: &Log, contracts: &HashMap<Address, Contract>, spec: &StreamSpec) {
    let Some(event) = token_event(&log.topics, &log.data) else { return };
    let contract = contracts.get(&log.address);
    let spam_filtered = StreamSpec::flag(spec.api.filter_possible_spam_addresses);
    let (transaction_hash, log_index) = (
        log.transaction_hash.map(|hash| format!("{hash:#x}")).unwrap_or_default(),
        log.log_index.unwrap_or_default().to_string(),
    );
    match event {
        TokenEvent::Erc20Transfer { from, to, value } => {
            let (token_name, token_symbol, decimals, possible_spam) = token_metadata(contract);
            webhook.erc20_transfers.push(StreamErc20Transfer {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                from: hex(from),
                to: hex(to),
                value: value.to_string(),
                token_name,
                token_symbol,
                token_decimals: decimals.map(|d| d.to_string()).unwrap_or_default(),
                value_with_decimals: with_decimals(value, decimals),
                possible_spam: possible_spam.filter(|_| !spam_filtered),
                triggers: None,
            });
        }
        TokenEvent::Erc20Approval { owner, spender, value } => {
            let (token_name, token_symbol, decimals, possible_spam) = token_metadata(contract);
            webhook.erc20_approvals.push(StreamErc20Approval {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                owner: hex(owner),
                spender: hex(spender),
                value: value.to_string(),
                token_name,
                token_symbol,
                token_decimals: decimals.map(|d| d.to_string()).unwrap_or_default(),
                value_with_decimals: with_decimals(value, decimals),
                possible_spam: possible_spam.filter(|_| !spam_filtered),
                triggers: None,
            });
        }
        TokenEvent::NftTransfers { operator, from, to, tokens, erc1155, .. } => {
            let (token_name, token_symbol, standard, possible_spam) = collection_metadata(contract, erc1155);
            for (token_id, amount) in tokens {
                webhook.nft_transfers.push(StreamNftTransfer {
                    transaction_hash: transaction_hash.clone(),
                    log_index: log_index.clone(),
                    contract: hex(log.address),
                    operator: operator.map(hex),
                    from: hex(from),
                    to: hex(to),
                    token_id: token_id.to_string(),
                    amount: amount.to_string(),
                    token_contract_type: standard.clone(),
                    token_name: token_name.clone(),
                    token_symbol: token_symbol.clone(),
                    possible_spam,
                    triggers: None,
                });
            }
        }
        TokenEvent::NftApproval { owner, approved, token_id } => {
            let (token_name, token_symbol, standard, _) = collection_metadata(contract, false);
            webhook.nft_approvals.erc721.push(StreamNftApproval {
                transaction_hash: transaction_hash.clone(),
                log_index: log_index.clone(),
                contract: hex(log.address),
                owner: hex(owner),
                approved: hex(approved),
                token_id: token_id.to_string(),
                token_contract_type: standard.clone(),
                token_name: token_name.clone(),
                token_symbol: token_symbol.clone(),
            });
            webhook.nft_token_approvals.push(StreamNftTokenApproval {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                account: hex(owner),
                operator: hex(approved),
                approved_all: false,
                token_id: Some(token_id.to_string()),
                token_contract_type: standard,
                token_name,
                token_symbol,
            });
        }
        TokenEvent::ApprovalForAll { owner, operator, approved } => {
            let erc1155 = matches!(contract, Some(Contract::Collection(c)) if c.contract_type.to_string() == "ERC1155");
            let (token_name, token_symbol, standard, _) = collection_metadata(contract, erc1155);
            webhook.nft_approvals.erc1155.push(StreamNftApprovalForAll {
                transaction_hash: transaction_hash.clone(),
                log_index: log_index.clone(),
                contract: hex(log.address),
                account: hex(owner),
                operator: hex(operator),
                approved,
                token_contract_type: standard.clone(),
                token_name: token_name.clone(),
                token_symbol: token_symbol.clone(),
            });
            webhook.nft_token_approvals.push(StreamNftTokenApproval {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                account: hex(owner),
                operator: hex(operator),
                approved_all: approved,
                token_id: None,
                token_contract_type: standard,
                token_name,
                token_symbol,
            });
        }
        TokenEvent::Deposit { .. }
        | TokenEvent::Withdrawal { .. }
        | TokenEvent::PairCreated { .. }
        | TokenEvent::Sync { .. } => {}
    }
}

/// The accounts `getNativeBalances` names in a payload.
fn balance_addresses(spec: &StreamSpec, webhook: &StreamWebhook) -> Vec<Address> {
    let mut addresses = Vec::new();
    for balances in spec.api.get_native_balances.iter().flatten() {
        let known = selectors_of(&balances.kind);
        for selector in &balances.selectors {
            if let Ok(literal) = selector.parse::<Address>() {
                addresses.push(literal);
                continue;
            }
            if !known.contains(&selector.as_str()) {
                continue;
            }
            addresses
                .extend(selected(webhook, &balances.kind, selector).iter().filter_map(|a| a.parse::<Address>().ok()));
        }
    }
    addresses.sort_unstable();
    addresses.dedup();
    addresses
}

/// The values a selector picks from the records of one kind.
fn selected<'a>(webhook: &'a StreamWebhook, kind: &StreamNativeBalanceType, selector: &str) -> Vec<&'a str> {
    match (kind, selector) {
        (StreamNativeBalanceType::Tx, "$fromAddress") => {
            webhook.txs.iter().map(|tx| tx.from_address.as_str()).collect()
        }
        (StreamNativeBalanceType::Tx, "$toAddress") => {
            webhook.txs.iter().filter_map(|tx| tx.to_address.as_deref()).collect()
        }
        (StreamNativeBalanceType::Log, "$address") => webhook.logs.iter().map(|log| log.address.as_str()).collect(),
        (StreamNativeBalanceType::Erc20transfer, _) => webhook
            .erc20_transfers
            .iter()
            .map(|t| match selector {
                "$from" => t.from.as_str(),
                "$to" => t.to.as_str(),
                _ => t.contract.as_str(),
            })
            .collect(),
        (StreamNativeBalanceType::Nfttransfer, _) => webhook
            .nft_transfers
            .iter()
            .map(|t| match selector {
                "$from" => t.from.as_str(),
                "$to" => t.to.as_str(),
                _ => t.contract.as_str(),
            })
            .collect(),
        (StreamNativeBalanceType::InternalTx, _) => webhook
            .txs_internal
            .iter()
            .filter_map(|t| match selector {
                "$from" => t.from.as_deref(),
                _ => t.to.as_deref(),
            })
            .collect(),
        (StreamNativeBalanceType::Erc20approval, _) => webhook
            .erc20_approvals
            .iter()
            .map(|a| match selector {
                "$owner" => a.owner.as_str(),
                "$spender" => a.spender.as_str(),
                _ => a.contract.as_str(),
            })
            .collect(),
        _ => Vec::new(),
    }
}
