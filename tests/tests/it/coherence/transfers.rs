//! Transfer listings agree with the receipts and the balances:
//! - every ERC20 and NFT transfer listed is a log of its transaction's
//!   receipt, at the block, transaction and log index it names;
//! - summing a wallet's ERC20 transfers from genesis gives its balances, and
//!   replaying its NFT transfers gives its NFTs;
//! - a token's (a collection's) transfers that concern a wallet are the
//!   wallet's transfers of that token (collection);
//! - oldest first is newest first reversed;
//! - every wallet transaction is the gateway's transaction and receipt.

use std::collections::BTreeMap;

use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_tests::local::Session;
use w3api_types::rpc::{Log, Receipt, WalletTransactionsParams};
use w3api_types::{Address, B256, Erc20Transfer, ListingOrder, Nft, NftTransfer, U256, WalletTransaction};

use crate::coherence::wallet_tokens_at;

const WALLETS: usize = 5;

fn word(address: Address) -> B256 {
    address.into_word()
}

/// The log at `log_index` of a receipt, checked to be where the listing says.
fn log_at(receipt: &Receipt, (block, hash): (u64, B256), transaction_index: u64, log_index: u64) -> &Log {
    assert_eq!((receipt.block_number, receipt.block_hash), (block, hash), "{}", receipt.transaction_hash);
    assert_eq!(receipt.transaction_index, transaction_index, "{}", receipt.transaction_hash);
    let log = receipt.logs.iter().find(|log| log.log_index == Some(log_index));
    log.unwrap_or_else(|| panic!("{}: no log {log_index}", receipt.transaction_hash))
}

fn receipt(session: &Session<'_>, hash: B256) -> Receipt {
    let receipt = session.run(session.rpc().get_transaction_receipt(hash)).unwrap();
    receipt.unwrap_or_else(|| panic!("{hash}: listed, but the gateway has no receipt"))
}

fn wallet_erc20(session: &Session<'_>, wallet: Address, order: ListingOrder) -> Vec<Erc20Transfer> {
    let rest = session.rest();
    let request = rest.data().get_wallet_token_transfers().address(wallet).order(order).limit(37u64);
    session.run(request.items().try_collect()).unwrap()
}

fn wallet_nft(session: &Session<'_>, wallet: Address, order: ListingOrder) -> Vec<NftTransfer> {
    let rest = session.rest();
    let request = rest.data().get_wallet_nft_transfers().address(wallet).order(order).limit(23u64);
    session.run(request.items().try_collect()).unwrap()
}

#[test]
fn erc20_transfers_are_receipt_logs_and_sum_to_the_balances() {
    let session = Session::new();
    let latest = session.run(session.rpc().block_number()).unwrap().0;
    let mut checked = 0;
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let newest_first = wallet_erc20(&session, wallet, ListingOrder::Descending);
        let mut oldest_first = wallet_erc20(&session, wallet, ListingOrder::Ascending);
        oldest_first.reverse();
        assert_eq!(newest_first, oldest_first, "{wallet}: ASC is DESC reversed");
        let mut sums: BTreeMap<Address, (U256, U256)> = BTreeMap::new();
        for transfer in &newest_first {
            assert!(
                transfer.parties.from_address == wallet || transfer.parties.to_address == wallet,
                "{wallet}: {transfer:?}"
            );
            let receipt = receipt(&session, transfer.transaction_hash);
            let place = (transfer.block_number, transfer.block_hash);
            let log = log_at(&receipt, place, transfer.transaction_index, transfer.log_index);
            assert_eq!(log.address, transfer.address, "{}", transfer.transaction_hash);
            assert_eq!(log.topics[1..], [word(transfer.parties.from_address), word(transfer.parties.to_address)]);
            assert_eq!(U256::from_be_slice(&log.data), transfer.value);
            let (received, sent) = sums.entry(transfer.address).or_default();
            if transfer.parties.to_address == wallet {
                *received += transfer.value;
            }
            if transfer.parties.from_address == wallet {
                *sent += transfer.value;
            }
            checked += 1;
        }
        let summed: BTreeMap<Address, U256> = sums
            .into_iter()
            .map(|(token, (received, sent))| (token, received - sent))
            .filter(|(_, held)| !held.is_zero())
            .collect();
        let balances: BTreeMap<Address, U256> = session
            .run(wallet_tokens_at(&session.rest(), wallet, latest, true))
            .into_iter()
            .filter(|token| !token.balance.is_zero())
            .map(|token| (token.token_address.expect("an ERC20 token's contract"), token.balance))
            .collect();
        assert_eq!(summed, balances, "{wallet}: transfers summed from genesis vs balances");
    }
    assert!(checked >= 2 * WALLETS, "the sampled wallets moved few tokens ({checked})");
    session.finish();
}

#[test]
fn a_tokens_transfers_with_a_wallet_are_the_wallets_transfers_of_that_token() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = session.devnet().sample_wallets(1)[0];
    let mine = wallet_erc20(&session, wallet, ListingOrder::Descending);
    let token = mine.first().expect("the wallet moved a token").address;
    let request = rest.data().get_token_transfers().address(token).limit(100u64);
    let all: Vec<Erc20Transfer> = session.run(request.items().try_collect()).unwrap();
    assert!(all.iter().all(|t| t.address == token));
    let with_wallet: Vec<&Erc20Transfer> =
        all.iter().filter(|t| t.parties.from_address == wallet || t.parties.to_address == wallet).collect();
    let of_token: Vec<&Erc20Transfer> = mine.iter().filter(|t| t.address == token).collect();
    assert_eq!(with_wallet, of_token, "{token} with {wallet}");
    let named = rest.data().get_wallet_token_transfers().address(wallet).contract_addresses(vec![token]);
    let named: Vec<Erc20Transfer> = session.run(named.items().try_collect()).unwrap();
    assert_eq!(named.iter().collect::<Vec<_>>(), of_token, "contract_addresses keeps that token's transfers");
    session.finish();
}

/// What replaying NFT transfers leaves `wallet`: amounts by (collection, id).
fn replayed(wallet: Address, oldest_first: &[NftTransfer]) -> BTreeMap<(Address, U256), U256> {
    let mut held: BTreeMap<(Address, U256), U256> = BTreeMap::new();
    for transfer in oldest_first {
        let id: U256 = transfer.token_id.parse().unwrap();
        let amount = U256::from(transfer.amount);
        let entry = held.entry((transfer.token_address, id)).or_default();
        if transfer.parties.to_address == wallet {
            *entry += amount;
        }
        if transfer.parties.from_address == wallet {
            *entry = entry.checked_sub(amount).unwrap_or_else(|| panic!("{wallet} sent {id} it lacked"));
        }
    }
    held.retain(|_, amount| !amount.is_zero());
    held
}

#[test]
fn nft_transfers_are_receipt_logs_and_replay_to_the_wallets_nfts() {
    let session = Session::new();
    let mut checked = 0;
    for wallet in session.devnet().sample_wallets(WALLETS) {
        let oldest_first = wallet_nft(&session, wallet, ListingOrder::Ascending);
        for transfer in &oldest_first {
            let receipt = receipt(&session, transfer.transaction_hash);
            let place = (transfer.block_number, transfer.block_hash);
            let log = log_at(&receipt, place, transfer.transaction_index, transfer.log_index);
            assert_eq!(log.address, transfer.token_address, "{}", transfer.transaction_hash);
            // ERC721 Transfer(from, to, id), ERC1155 Transfer*(operator, from, to, …).
            let parties = match transfer.operator {
                Some(operator) => {
                    vec![word(operator), word(transfer.parties.from_address), word(transfer.parties.to_address)]
                }
                None => vec![word(transfer.parties.from_address), word(transfer.parties.to_address)],
            };
            assert_eq!(log.topics[1..=parties.len()], parties, "{}", transfer.transaction_hash);
            checked += 1;
        }
        let rest = session.rest();
        let nfts: Vec<Nft> = session.run(rest.data().get_wallet_nfts().address(wallet).items().try_collect()).unwrap();
        let held: BTreeMap<(Address, U256), U256> = nfts
            .iter()
            .map(|nft| ((nft.token_address, nft.token_id.parse().unwrap()), nft.amount.expect("an amount")))
            .collect();
        assert_eq!(replayed(wallet, &oldest_first), held, "{wallet}: NFT transfers replayed vs wallet NFTs");
        let mut newest_first = wallet_nft(&session, wallet, ListingOrder::Descending);
        newest_first.reverse();
        assert_eq!(newest_first, oldest_first, "{wallet}: DESC is ASC reversed");
    }
    assert!(checked >= WALLETS, "the sampled wallets moved few NFTs ({checked})");
    session.finish();
}

#[test]
fn a_collections_transfers_with_a_wallet_are_the_wallets_transfers_of_it() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = session.devnet().sample_wallets(1)[0];
    let mine = wallet_nft(&session, wallet, ListingOrder::Descending);
    let collection = mine.first().expect("the wallet moved an NFT").token_address;
    let request = rest.data().get_nft_contract_transfers().address(collection).limit(100u64);
    let all: Vec<NftTransfer> = session.run(request.items().try_collect()).unwrap();
    let with_wallet: Vec<&NftTransfer> =
        all.iter().filter(|t| t.parties.from_address == wallet || t.parties.to_address == wallet).collect();
    let of_collection: Vec<&NftTransfer> = mine.iter().filter(|t| t.token_address == collection).collect();
    assert_eq!(with_wallet, of_collection, "{collection} with {wallet}");
    session.finish();
}

/// Every wallet transaction is the gateway's transaction and receipt, with
/// the fee they give; a wallet's transactions are those it sent or was
/// sent, newest first, and the extended RPC's page is the REST page.
#[test]
fn wallet_transactions_are_the_gateways_transactions_and_receipts() {
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let mut checked = 0;
    for wallet in session.devnet().sample_wallets(3) {
        let request = rest.data().get_wallet_transactions().address(wallet).limit(17u64);
        let listed: Vec<WalletTransaction> = session.run(request.items().try_collect()).unwrap();
        let mut previous = (u64::MAX, u64::MAX);
        for item in &listed {
            let tx = &item.transaction;
            let place = (tx.block_number, tx.transaction_index);
            assert!(place < previous, "{wallet}: newest first, {place:?} after {previous:?}");
            previous = place;
            assert!(tx.from_address == wallet || tx.to_address == Some(wallet), "{wallet}: {} is not its", tx.hash);
            let by_hash = session.run(rpc.get_transaction_by_hash(tx.hash)).unwrap().expect("the gateway has it");
            let receipt = receipt(&session, tx.hash);
            let input = by_hash.input.parsed().expect("well-formed input").clone();
            assert_eq!((by_hash.nonce, by_hash.value, input), (tx.nonce, tx.value, tx.input.clone()));
            assert_eq!((receipt.block_number, receipt.block_hash), (tx.block_number, tx.block_hash));
            assert_eq!((receipt.gas_used, receipt.status), (tx.receipt_gas_used, Some(tx.receipt_status)));
            let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
            assert_eq!(item.transaction_fee, w3api_types::format_units(fee, 18), "{}", tx.hash);
            checked += 1;
        }
        let first = WalletTransactionsParams {
            address: wallet,
            from_block: None,
            to_block: None,
            limit: Some(17),
            cursor: None,
            include: None,
        };
        let page = session.run(rpc.get_transactions(first)).unwrap();
        assert_eq!(page.result, listed[..page.result.len()], "{wallet}: eth_getTransactions is the REST page");
    }
    assert!(checked >= 3, "the sampled wallets sent few transactions ({checked})");
    session.finish();
}
