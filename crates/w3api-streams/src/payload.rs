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

/// The transaction hash and the index of `log`, as every record of it
/// writes them.
fn emitted(log: &Log) -> (String, String) {
    (
        log.transaction_hash.map(|hash| format!("{hash:#x}")).unwrap_or_default(),
        log.log_index.unwrap_or_default().to_string(),
    )
}

fn stream_log(log: &Log) -> StreamLog {
    let topic = |i: usize| log.topics.get(i).map(|topic| format!("{topic:#x}"));
    let (transaction_hash, log_index) = emitted(log);
    StreamLog {
        log_index,
        transaction_hash,
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

/// An ERC20 event's token and value as its record writes them; the token's
/// fields are empty when the contract is not a known token.
struct Erc20Amount {
    token_name: String,
    token_symbol: String,
    token_decimals: String,
    value: String,
    value_with_decimals: String,
    possible_spam: Option<bool>,
}

impl Erc20Amount {
    /// `value` of the token `contract`; a stream that filters spam never
    /// sees a spam flag, as it gets no spam.
    fn of(contract: Option<&Contract>, value: U256, spam_filtered: bool) -> Erc20Amount {
        let (token_name, token_symbol, decimals, possible_spam) = match contract {
            Some(Contract::Token(token)) => {
                (token.name.clone(), token.symbol.clone(), Some(token.decimals), Some(token.possible_spam))
            }
            _ => (String::new(), String::new(), None, None),
        };
        Erc20Amount {
            token_name,
            token_symbol,
            token_decimals: decimals.map(|d| d.to_string()).unwrap_or_default(),
            value: value.to_string(),
            value_with_decimals: decimals.map_or_else(|| value.to_string(), |decimals| format_units(value, decimals)),
            possible_spam: possible_spam.filter(|_| !spam_filtered),
        }
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

/// What an NFT approval lets its operator move.
enum Approved {
    /// One token (ERC721 `Approval`).
    Token(U256),
    /// Every token of the owner, or none any more (`ApprovalForAll`).
    All(bool),
}

fn add_token_event(webhook: &mut StreamWebhook, log: &Log, contracts: &HashMap<Address, Contract>, spec: &StreamSpec) {
    let Some(event) = token_event(&log.topics, &log.data) else { return };
    let contract = contracts.get(&log.address);
    let spam_filtered = StreamSpec::flag(spec.api.filter_possible_spam_addresses);
    let (transaction_hash, log_index) = emitted(log);
    match event {
        TokenEvent::Erc20Transfer { from, to, value } => {
            let amount = Erc20Amount::of(contract, value, spam_filtered);
            webhook.erc20_transfers.push(StreamErc20Transfer {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                from: hex(from),
                to: hex(to),
                value: amount.value,
                token_name: amount.token_name,
                token_symbol: amount.token_symbol,
                token_decimals: amount.token_decimals,
                value_with_decimals: amount.value_with_decimals,
                possible_spam: amount.possible_spam,
                triggers: None,
            });
        }
        TokenEvent::Erc20Approval { owner, spender, value } => {
            let amount = Erc20Amount::of(contract, value, spam_filtered);
            webhook.erc20_approvals.push(StreamErc20Approval {
                transaction_hash,
                log_index,
                contract: hex(log.address),
                owner: hex(owner),
                spender: hex(spender),
                value: amount.value,
                token_name: amount.token_name,
                token_symbol: amount.token_symbol,
                token_decimals: amount.token_decimals,
                value_with_decimals: amount.value_with_decimals,
                possible_spam: amount.possible_spam,
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
            add_nft_approval(webhook, log, contract, owner, approved, Approved::Token(token_id));
        }
        TokenEvent::ApprovalForAll { owner, operator, approved } => {
            add_nft_approval(webhook, log, contract, owner, operator, Approved::All(approved));
        }
        TokenEvent::Deposit { .. }
        | TokenEvent::Withdrawal { .. }
        | TokenEvent::PairCreated { .. }
        | TokenEvent::Sync { .. } => {}
    }
}

/// Lists `owner`'s approval of `operator`, emitted by `log`, with the
/// ERC721 or the ERC1155 approvals, and with the token approvals, which
/// list both.
fn add_nft_approval(
    webhook: &mut StreamWebhook,
    log: &Log,
    contract: Option<&Contract>,
    owner: Address,
    operator: Address,
    approved: Approved,
) {
    let (transaction_hash, log_index) = emitted(log);
    let erc1155 = matches!(approved, Approved::All(_))
        && matches!(contract, Some(Contract::Collection(c)) if c.contract_type.to_string() == "ERC1155");
    let (token_name, token_symbol, standard, _) = collection_metadata(contract, erc1155);
    let (approved_all, token_id) = match approved {
        Approved::Token(token_id) => {
            webhook.nft_approvals.erc721.push(StreamNftApproval {
                transaction_hash: transaction_hash.clone(),
                log_index: log_index.clone(),
                contract: hex(log.address),
                owner: hex(owner),
                approved: hex(operator),
                token_id: token_id.to_string(),
                token_contract_type: standard.clone(),
                token_name: token_name.clone(),
                token_symbol: token_symbol.clone(),
            });
            (false, Some(token_id.to_string()))
        }
        Approved::All(approved) => {
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
            (approved, None)
        }
    };
    webhook.nft_token_approvals.push(StreamNftTokenApproval {
        transaction_hash,
        log_index,
        contract: hex(log.address),
        account: hex(owner),
        operator: hex(operator),
        approved_all,
        token_id,
        token_contract_type: standard,
        token_name,
        token_symbol,
    });
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
    let Some(slot) = selectors_of(kind).iter().position(|known| *known == selector) else { return Vec::new() };
    // Each record's addresses in the order of its kind's selectors, so that
    // their names are written once, in `selectors_of`.
    fn pick<'a, T>(records: &'a [T], slot: usize, addresses: impl Fn(&'a T) -> [Option<&'a str>; 3]) -> Vec<&'a str> {
        records.iter().filter_map(|record| addresses(record)[slot]).collect()
    }
    match kind {
        StreamNativeBalanceType::Tx => {
            pick(&webhook.txs, slot, |tx| [Some(&tx.from_address), tx.to_address.as_deref(), None])
        }
        StreamNativeBalanceType::Log => pick(&webhook.logs, slot, |log| [Some(&log.address), None, None]),
        StreamNativeBalanceType::Erc20transfer => {
            pick(&webhook.erc20_transfers, slot, |t| [Some(&t.from), Some(&t.to), Some(&t.contract)])
        }
        StreamNativeBalanceType::Nfttransfer => {
            pick(&webhook.nft_transfers, slot, |t| [Some(&t.from), Some(&t.to), Some(&t.contract)])
        }
        StreamNativeBalanceType::Erc20approval => {
            pick(&webhook.erc20_approvals, slot, |a| [Some(&a.owner), Some(&a.spender), Some(&a.contract)])
        }
        StreamNativeBalanceType::InternalTx => {
            pick(&webhook.txs_internal, slot, |t| [t.from.as_deref(), t.to.as_deref(), None])
        }
        _ => Vec::new(),
    }
}
