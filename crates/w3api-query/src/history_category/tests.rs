use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
use w3api_source::CollectionInfo;
use w3api_types::rpc::Log;
use w3api_types::{ContractType, HistoryCategory as C};

use super::*;
use crate::transfers::TransferPlace;
use crate::view::TransactionFacts;
use crate::wallet_history::InnerValue;

const WALLET: Address = Address::repeat_byte(0x0a);
const OTHER: Address = Address::repeat_byte(0x0b);
const PAIR: Address = Address::repeat_byte(0x0c);
const COIN: Address = Address::repeat_byte(0xa1);
const WETH: Address = Address::repeat_byte(0xa2);
const ART: Address = Address::repeat_byte(0xc0);
const ZERO: Address = Address::ZERO;

fn native() -> NativeCurrency {
    NativeCurrency { symbol: "ETH".into(), logo: None, decimals: 18, wrapped: Some(WETH) }
}

fn facts(from: Address, to: Address, wei: u64) -> TransactionFacts {
    TransactionFacts { hash: B256::repeat_byte(1), from, to: Some(to), value: U256::from(wei) }
}

fn place(facts: TransactionFacts) -> TransferPlace {
    TransferPlace {
        block_number: 5,
        block_hash: B256::repeat_byte(2),
        block_timestamp: 50,
        transaction: facts,
        transaction_index: 0,
        log_index: 0,
    }
}

/// A transaction `facts` moving `tokens` (token, from, to, raw amount with
/// 6 decimals) and `nfts` (from, to, token id of ART).
fn entry(
    facts: TransactionFacts,
    tokens: &[(Address, Address, Address, u128)],
    nfts: &[(Address, Address, u64)],
) -> HistoryEntry {
    let symbol = |token| if token == WETH { "WETH" } else { "COIN" };
    let tokens = tokens
        .iter()
        .map(|&(token, from, to, value)| TokenTransfer {
            token,
            name: symbol(token).into(),
            symbol: symbol(token).into(),
            logo: None,
            decimals: 6,
            possible_spam: false,
            verified: true,
            from,
            to,
            value,
            place: place(facts),
        })
        .collect();
    let nfts = nfts
        .iter()
        .map(|&(from, to, id)| NftTransfer {
            collection: CollectionInfo {
                address: ART,
                contract_type: ContractType::Erc721,
                name: "Art".into(),
                symbol: "ART".into(),
                possible_spam: false,
                verified: false,
                logo: None,
                banner: None,
            },
            token_id: U256::from(id),
            from,
            to,
            amount: 1,
            operator: None,
            batch: false,
            place: place(facts),
            last_sale: None,
        })
        .collect();
    HistoryEntry {
        block: 5,
        index: 0,
        block_hash: B256::repeat_byte(2),
        timestamp: 50,
        facts,
        tokens,
        nfts,
        shared: false,
        inner: Vec::new(),
    }
}

fn category(entry: &HistoryEntry) -> C {
    describe(WALLET, entry, &native(), &ReceiptFacts::default()).0
}

fn summary(entry: &HistoryEntry) -> String {
    describe(WALLET, entry, &native(), &ReceiptFacts::default()).1
}

const ETH: u64 = 1_000_000_000_000_000_000;

#[test]
fn native_value_alone_is_a_send_or_a_receipt() {
    let sent = entry(facts(WALLET, OTHER, ETH / 2), &[], &[]);
    assert_eq!((category(&sent), summary(&sent)), (C::Send, format!("Sent 0.5 ETH to {OTHER:#x}")));
    let received = entry(facts(OTHER, WALLET, ETH), &[], &[]);
    assert_eq!((category(&received), summary(&received)), (C::Receive, format!("Received 1 ETH from {OTHER:#x}")));
    let called = entry(facts(WALLET, PAIR, 0), &[], &[]);
    assert_eq!((category(&called), summary(&called)), (C::ContractInteraction, format!("Interacted with {PAIR:#x}")));
}

/// `entry` with native value its inner calls moved.
fn paid_inside(mut entry: HistoryEntry, paid: &[(Address, Address, u64)]) -> HistoryEntry {
    entry.inner = paid.iter().map(|&(from, to, wei)| InnerValue { from, to, value: U256::from(wei) }).collect();
    entry
}

#[test]
fn native_value_paid_inside_a_transaction_is_received_or_swapped_for() {
    // A splitter another called pays the wallet a share.
    let payout =
        paid_inside(entry(facts(OTHER, PAIR, ETH), &[], &[]), &[(PAIR, OTHER, ETH / 2), (PAIR, WALLET, ETH / 4)]);
    assert_eq!((category(&payout), summary(&payout)), (C::Receive, format!("Received 0.25 ETH from {PAIR:#x}")));
    // A router sells the wallet's tokens for the native currency.
    let sold = entry(facts(WALLET, PAIR, 0), &[(COIN, WALLET, PAIR, 2_000_000)], &[]);
    let sold = paid_inside(sold, &[(PAIR, WALLET, ETH)]);
    assert_eq!((category(&sold), summary(&sold)), (C::TokenSwap, "Swapped 2 COIN for 1 ETH".to_string()));
    // The wallet's own call that paid itself back moved nothing for it.
    let refund = paid_inside(entry(facts(WALLET, PAIR, 0), &[], &[]), &[(WALLET, WALLET, ETH)]);
    assert_eq!(category(&refund), C::ContractInteraction);
}

#[test]
fn tokens_and_nfts_one_way_are_sends_receipts_mints_burns_and_airdrops() {
    let token_send = entry(facts(WALLET, COIN, 0), &[(COIN, WALLET, OTHER, 1_500_000)], &[]);
    assert_eq!((category(&token_send), summary(&token_send)), (C::TokenSend, format!("Sent 1.5 COIN to {OTHER:#x}")));
    let token_receive = entry(facts(OTHER, COIN, 0), &[(COIN, OTHER, WALLET, 2_000_000)], &[]);
    assert_eq!(category(&token_receive), C::TokenReceive);
    let nft_send = entry(facts(WALLET, ART, 0), &[], &[(WALLET, OTHER, 7)]);
    assert_eq!((category(&nft_send), summary(&nft_send)), (C::NftSend, format!("Sent Art #7 to {OTHER:#x}")));
    let nft_receive = entry(facts(OTHER, ART, 0), &[], &[(OTHER, WALLET, 7)]);
    assert_eq!(category(&nft_receive), C::NftReceive);
    let mint = entry(facts(WALLET, ART, 0), &[], &[(ZERO, WALLET, 8)]);
    assert_eq!((category(&mint), summary(&mint)), (C::Mint, "Minted Art #8".to_string()));
    let burn = entry(facts(WALLET, COIN, 0), &[(COIN, WALLET, ZERO, 3_000_000)], &[]);
    assert_eq!((category(&burn), summary(&burn)), (C::Burn, "Burned 3 COIN".to_string()));
    let mut airdrop = entry(facts(OTHER, PAIR, 0), &[(COIN, PAIR, WALLET, 1_000_000)], &[]);
    assert_eq!(category(&airdrop), C::TokenReceive, "alone, it is a receipt");
    airdrop.shared = true;
    assert_eq!((category(&airdrop), summary(&airdrop)), (C::Airdrop, "Received an airdrop of 1 COIN".to_string()));
}

#[test]
fn both_ways_are_swaps_wrapping_and_nft_trades() {
    let swap = entry(facts(WALLET, PAIR, 0), &[(COIN, WALLET, PAIR, 1_000_000), (WETH, PAIR, WALLET, 250_000)], &[]);
    assert_eq!((category(&swap), summary(&swap)), (C::TokenSwap, "Swapped 1 COIN for 0.25 WETH".to_string()));
    let native_swap = entry(facts(WALLET, PAIR, ETH), &[(COIN, PAIR, WALLET, 4_000_000)], &[]);
    assert_eq!((category(&native_swap), summary(&native_swap)), (C::TokenSwap, "Swapped 1 ETH for 4 COIN".to_string()));
    let deposit = entry(facts(WALLET, WETH, ETH), &[(WETH, ZERO, WALLET, 1_000_000)], &[]);
    assert_eq!((category(&deposit), summary(&deposit)), (C::Deposit, "Deposited 1 ETH for 1 WETH".to_string()));
    let withdraw = entry(facts(WALLET, WETH, 0), &[(WETH, WALLET, ZERO, 1_000_000)], &[]);
    assert_eq!((category(&withdraw), summary(&withdraw)), (C::Withdraw, "Withdrew 1 WETH".to_string()));
    let purchase = entry(facts(WALLET, PAIR, ETH), &[], &[(OTHER, WALLET, 3)]);
    assert_eq!((category(&purchase), summary(&purchase)), (C::NftPurchase, "Bought Art #3 for 1 ETH".to_string()));
    // The buyer's transaction pays the seller inside the EVM: the seller sees its value.
    let sale = entry(facts(OTHER, PAIR, ETH), &[], &[(WALLET, OTHER, 3)]);
    assert_eq!((category(&sale), summary(&sale)), (C::NftSale, "Sold Art #3 for 1 ETH".to_string()));
}

fn log(topics: Vec<B256>, word: U256) -> Log {
    serde_json::from_value(serde_json::json!({
        "address": COIN, "topics": topics, "data": Bytes::from(word.to_be_bytes::<32>().to_vec()),
        "blockNumber": "0x5", "blockHash": B256::repeat_byte(2), "transactionHash": B256::repeat_byte(1),
        "transactionIndex": "0x0", "logIndex": "0x0", "removed": false,
    }))
    .unwrap()
}

#[test]
fn permissions_are_read_from_the_owners_approval_logs() {
    assert_eq!(APPROVAL, keccak256("Approval(address,address,uint256)"));
    assert_eq!(APPROVAL_FOR_ALL, keccak256("ApprovalForAll(address,address,bool)"));
    let (owner, spender, token_id) = (WALLET.into_word(), PAIR.into_word(), B256::with_last_byte(7));
    let logs = [
        log(vec![APPROVAL, owner, spender], U256::from(123_000u64)),
        log(vec![APPROVAL, OTHER.into_word(), spender], U256::from(5u64)),
        log(vec![APPROVAL, owner, spender, token_id], U256::ZERO),
        log(vec![APPROVAL_FOR_ALL, owner, spender], U256::ZERO),
    ];
    let found = approvals(WALLET, &logs);
    let expected = [
        Approval { contract: COIN, spender: PAIR, value: U256::from(123_000u64), all: false },
        Approval { contract: COIN, spender: PAIR, value: U256::ZERO, all: true },
    ];
    assert_eq!(found, expected, "not another owner's, not an ERC721 token's");
    let called = entry(facts(WALLET, COIN, 0), &[], &[]);
    let unnamed = |approvals: &[Approval]| ReceiptFacts {
        approvals: approvals.iter().map(|a| (*a, None)).collect(),
        ..ReceiptFacts::default()
    };
    assert_eq!(describe(WALLET, &called, &native(), &unnamed(&found)).0, C::Approve);
    assert_eq!(describe(WALLET, &called, &native(), &unnamed(&found[1..])).0, C::Revoke);
    let name = ContractName { name: "Coin".into(), symbol: "COIN".into(), logo: None, decimals: Some(6) };
    let receipt = ReceiptFacts { approvals: vec![(found[0], Some(name.clone()))], ..ReceiptFacts::default() };
    assert_eq!(describe(WALLET, &called, &native(), &receipt), (C::Approve, "Approved 0.123 COIN".to_string()));
    let receipt = ReceiptFacts { approvals: vec![(found[1], Some(name))], ..ReceiptFacts::default() };
    assert_eq!(describe(WALLET, &called, &native(), &receipt), (C::Revoke, "Revoked all of COIN".to_string()));
}
