//! `getWalletHistory`: a wallet's transactions, and those that moved its
//! tokens or NFTs, one page at a time, newest first unless asked
//! otherwise: each with its receipt, what it moved for the wallet, its
//! logs decoded, a category and a summary. Its page's items are
//! `eth_getDecodedTransactions`' too.

use std::collections::{BTreeSet, HashMap};

use w3api_contracts::decode;
use w3api_query::collection_nfts::{Erc1155As, NftsById};
use w3api_query::history_category::{self, Approval, ContractName, ContractNames, ReceiptFacts};
use w3api_query::transfers::{NftTransfer, TokenTransfer};
use w3api_query::wallet_history::{HistoryEntry, InnerValue, NativeCurrency, WalletHistory};
use w3api_source::SourceError;
use w3api_types::rpc::{Receipt, Transaction};
use w3api_types::{
    Address, B256, Chain, ContractInteractions, Direction, HistoryErc20Transfer, HistoryNftTransfer,
    HistoryTransaction, NativeTransfer, NftTransactionType, NormalizedMetadata, Permission, PermissionSpender,
    PermissionToken, TransferParties, U256, WalletHistoryPage, format_units,
};

use crate::internal_transactions as inner_calls;
use crate::paging::{Cursors, Listing, Paging, begin_walk};
use crate::transaction::{block_time, fields, input, verbose_logs, with_receipts};
use crate::{AnswerError, Backend, Window};

/// Production numbers history pages from 0.
const LISTING: Listing = Listing { kind: "wallet_history", first_page: 0 };

/// Whose history, which blocks, which way, what to add, which page.
#[derive(Debug)]
pub struct WalletHistoryRequest {
    /// The chain read.
    pub chain: Chain,
    /// The wallet.
    pub address: Address,
    /// Which blocks, which way.
    pub window: Window,
    /// Whether to add each NFT's normalized metadata.
    pub nft_metadata: bool,
    /// Whether to name the function each transaction called.
    pub method_labels: bool,
    /// Whether to list the calls each transaction made inside the EVM.
    pub internal_transactions: bool,
    /// Which page.
    pub paging: Paging,
}

/// One page of the wallet's history: the listing from the query core, each
/// transaction read in full from the source with its receipt, then the
/// names of the contracts its permissions concern and, when asked, its
/// NFTs' metadata.
pub async fn wallet_history_page<S: Backend>(
    (source, cursors): (&S, &Cursors),
    request: WalletHistoryRequest,
) -> Result<WalletHistoryPage, AnswerError> {
    let WalletHistoryRequest { chain, address, window, nft_metadata, method_labels, internal_transactions, ref paging } =
        request;
    let key = (chain, address, window, nft_metadata, method_labels, internal_transactions);
    let (walk, block) = begin_walk((source, cursors), LISTING, &key, paging, (chain, None)).await?;
    let Window { span, order } = window;
    let question = WalletHistory { address, span, at_block: Some(block), order, page: walk.request.clone() };
    let answer = source.ask(chain, question).await?;
    let hashes: Vec<B256> = answer.page.items.iter().map(|entry| entry.facts.hash).collect();
    let read = with_receipts(source, chain, &hashes).await?;
    let approvals: Vec<Vec<Approval>> =
        read.iter().map(|(_, receipt)| history_category::approvals(address, &receipt.logs)).collect();
    let names = contract_names(source, chain, &approvals).await?;
    let metadata = match nft_metadata {
        true => nft_metadata_of(source, chain, &answer.page.items).await?,
        false => HashMap::new(),
    };
    let context =
        Context { wallet: address, native: &answer.native, names: &names, metadata: &metadata, method_labels };
    let mut result = Vec::with_capacity(read.len());
    for ((entry, (transaction, receipt)), approvals) in answer.page.items.iter().zip(&read).zip(approvals) {
        let mut item = history_transaction(&context, entry, (transaction, receipt), approvals)?;
        if internal_transactions {
            item.internal_transactions = Some(inner_calls::of_mined(source, chain, receipt).await?);
        }
        result.push(item);
    }
    Ok(WalletHistoryPage {
        page: walk.page,
        page_size: paging.limit,
        cursor: cursors.next(&walk, &key, block, answer.page.next),
        result,
    })
}

/// What every item of a page is written with.
struct Context<'a> {
    wallet: Address,
    native: &'a NativeCurrency,
    names: &'a HashMap<Address, ContractName>,
    metadata: &'a HashMap<(Address, U256), NormalizedMetadata>,
    method_labels: bool,
}

/// The names of the contracts `approvals` concern, asked of the query core
/// once for the page; a contract it does not name is left out.
async fn contract_names<S: Backend>(
    source: &S,
    chain: Chain,
    approvals: &[Vec<Approval>],
) -> Result<HashMap<Address, ContractName>, SourceError> {
    let contracts: Vec<Address> =
        approvals.iter().flatten().map(|a| a.contract).collect::<BTreeSet<_>>().into_iter().collect();
    if contracts.is_empty() {
        return Ok(HashMap::new());
    }
    let names = source.ask(chain, ContractNames { contracts: contracts.clone() }).await?;
    Ok(contracts.into_iter().zip(names).filter_map(|(contract, name)| Some((contract, name?))).collect())
}

/// The normalized metadata of the page's NFTs, as the source describes
/// them; a token that no longer exists has none.
async fn nft_metadata_of<S: Backend>(
    source: &S,
    chain: Chain,
    entries: &[HistoryEntry],
) -> Result<HashMap<(Address, U256), NormalizedMetadata>, SourceError> {
    let tokens: BTreeSet<(Address, U256)> =
        entries.iter().flat_map(|e| &e.nfts).map(|n| (n.collection.address, n.token_id)).collect();
    if tokens.is_empty() {
        return Ok(HashMap::new());
    }
    let question =
        NftsById { tokens: tokens.into_iter().collect(), include_prices: false, erc1155: Erc1155As::AllHolders };
    let (block, found) = source.ask(chain, question).await?;
    let described = source.describe_nfts(chain, block, found.into_iter().flatten().collect()).await?;
    Ok(described
        .into_iter()
        .filter_map(|nft| Some(((nft.collection.address, nft.token_id), nft.normalized_metadata?)))
        .collect())
}

/// One item of the history, as production writes it.
fn history_transaction(
    context: &Context<'_>,
    entry: &HistoryEntry,
    (transaction, receipt): (&Transaction, &Receipt),
    approvals: Vec<Approval>,
) -> Result<HistoryTransaction, SourceError> {
    let wallet = context.wallet;
    let time = block_time(entry.timestamp)?;
    let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    let method = decode::call_name(input(transaction)?).map(str::to_owned);
    let named = |a: &Approval| (*a, context.names.get(&a.contract).cloned());
    let receipt_facts =
        ReceiptFacts { approvals: approvals.iter().map(named).collect(), method, created: receipt.contract_address };
    let (category, summary) = history_category::describe(wallet, entry, context.native, &receipt_facts);
    let possible_spam =
        entry.tokens.iter().any(|t| t.possible_spam) || entry.nfts.iter().any(|n| n.collection.possible_spam);
    Ok(HistoryTransaction {
        transaction: fields(transaction, receipt, time)?,
        transaction_fee: format_units(fee, 18),
        category,
        contract_interactions: interactions(&receipt_facts.approvals),
        possible_spam,
        method_label: receipt_facts.method.filter(|_| context.method_labels),
        summary,
        nft_transfers: entry.nfts.iter().map(|n| nft_transfer(context, n)).collect(),
        erc20_transfers: entry.tokens.iter().map(|t| erc20_transfer(wallet, t)).collect::<Result<_, _>>()?,
        native_transfers: native_transfers(wallet, (entry, receipt.contract_address), context.native),
        logs: verbose_logs(receipt, time),
        internal_transactions: None,
    })
}

fn direction(wallet: Address, from: Address) -> Direction {
    if from == wallet { Direction::Outgoing } else { Direction::Incoming }
}

fn erc20_transfer(wallet: Address, transfer: &TokenTransfer) -> Result<HistoryErc20Transfer, SourceError> {
    let value = U256::from(transfer.value);
    Ok(HistoryErc20Transfer {
        token_name: transfer.name.clone(),
        token_symbol: transfer.symbol.clone(),
        token_logo: transfer.logo.clone(),
        token_decimals: transfer.decimals,
        address: transfer.token,
        block_timestamp: block_time(transfer.place.block_timestamp)?,
        parties: TransferParties::unlabelled(transfer.from, transfer.to),
        value,
        value_formatted: format_units(value, transfer.decimals),
        direction: direction(wallet, transfer.from),
        log_index: u64::from(transfer.place.log_index),
        possible_spam: transfer.possible_spam,
        verified_contract: transfer.verified,
    })
}

fn nft_transfer(context: &Context<'_>, transfer: &NftTransfer) -> HistoryNftTransfer {
    HistoryNftTransfer {
        token_address: transfer.collection.address,
        token_id: transfer.token_id.to_string(),
        token_name: transfer.collection.name.clone(),
        token_symbol: transfer.collection.symbol.clone(),
        parties: TransferParties::unlabelled(transfer.from, transfer.to),
        value: transfer.place.transaction.value,
        amount: transfer.amount,
        contract_type: transfer.collection.contract_type.clone(),
        transaction_type: if transfer.batch { NftTransactionType::Batch } else { NftTransactionType::Single },
        log_index: u64::from(transfer.place.log_index),
        operator: transfer.operator,
        possible_spam: transfer.collection.possible_spam,
        verified_collection: transfer.collection.verified,
        direction: direction(context.wallet, transfer.from),
        collection_logo: transfer.collection.logo.clone(),
        collection_banner_image: transfer.collection.banner.clone(),
        normalized_metadata: context.metadata.get(&(transfer.collection.address, transfer.token_id)).cloned(),
    }
}

/// The transaction's own value (a creation's goes to the contract it
/// made), when it has any and the wallet sent or received it, then what
/// calls inside it paid the wallet or the wallet paid.
fn native_transfers(
    wallet: Address,
    (entry, created): (&HistoryEntry, Option<Address>),
    native: &NativeCurrency,
) -> Vec<NativeTransfer> {
    let facts = &entry.facts;
    let to = facts.to.or(created);
    let own = to.filter(|to| !facts.value.is_zero() && (facts.from == wallet || *to == wallet));
    let own = own.map(|to| (InnerValue { from: facts.from, to, value: facts.value }, false));
    let inner = entry.inner.iter().map(|paid| (*paid, true));
    let transfer = |(paid, internal): (InnerValue, bool)| NativeTransfer {
        parties: TransferParties::unlabelled(paid.from, paid.to),
        value: paid.value,
        value_formatted: format_units(paid.value, native.decimals),
        direction: direction(wallet, paid.from),
        internal_transaction: internal,
        token_symbol: native.symbol.clone(),
        token_logo: native.logo.clone(),
    };
    own.into_iter().chain(inner).map(transfer).collect()
}

/// The permissions, by kind; `None` when there are none.
fn interactions(approvals: &[(Approval, Option<ContractName>)]) -> Option<ContractInteractions> {
    let mut kinds = ContractInteractions::default();
    for (approval, name) in approvals {
        let list = match (approval.all, approval.granted()) {
            (false, true) => &mut kinds.approvals,
            (false, false) => &mut kinds.revokes,
            (true, true) => &mut kinds.set_approvals_all,
            (true, false) => &mut kinds.set_revokes_all,
        };
        let name = name.clone().unwrap_or_default();
        list.push(Permission {
            value: approval.value,
            value_formatted: name.decimals.filter(|_| !approval.all).map(|d| format_units(approval.value, d)),
            token: PermissionToken {
                address: approval.contract,
                address_label: None,
                token_name: name.name,
                token_logo: name.logo,
                token_symbol: name.symbol,
            },
            spender: PermissionSpender { address: approval.spender, address_label: None },
        });
    }
    (!approvals.is_empty()).then_some(kinds)
}
