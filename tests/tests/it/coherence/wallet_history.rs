//! A wallet's history agrees with the gateway's receipts and with the other
//! wallet listings:
//! - each item's logs are its receipt's logs;
//! - its ERC20 and NFT transfers are the receipt's transfer events (WETH's
//!   `Deposit` and `Withdrawal` as a mint and a burn) that concern the
//!   wallet, and its native transfers are the transaction's own value and
//!   the value its calls moved that `callTracer` shows;
//! - every wallet transaction and every transaction of a wallet token
//!   transfer is in the history;
//! - `eth_getDecodedTransactions` is the first REST page with method labels.

use std::collections::BTreeSet;

use alloy_primitives::keccak256;
use alloy_sol_types::SolValue;
use futures::{StreamExt, TryStreamExt};
use w3api_rest::Paginated;
use w3api_source::value_transfers;
use w3api_tests::local::Session;
use w3api_types::rpc::{DecodedTransactionsParams, GethTrace, HistoryOrder, Log, TraceConfig};
use w3api_types::{
    Address, B256, Direction, Erc20Transfer, HistoryCategory, HistoryTransaction, U256, WalletTransaction,
};

/// Items whose receipts are read, per wallet.
const CHECKED_ITEMS: usize = 40;

fn topic(signature: &str) -> B256 {
    keccak256(signature)
}

fn address(word: &B256) -> Address {
    Address::from_word(*word)
}

/// `(log index, token, from, to, value)` of the ERC20 transfers `logs`
/// tell that concern `wallet`; WETH's deposits and withdrawals are a mint
/// and a burn.
fn erc20_moves(wallet: Address, logs: &[Log]) -> Vec<(u64, Address, Address, Address, U256)> {
    let (transfer, deposit, withdrawal) = (
        topic("Transfer(address,address,uint256)"),
        topic("Deposit(address,uint256)"),
        topic("Withdrawal(address,uint256)"),
    );
    logs.iter()
        .filter_map(|log| {
            let value = U256::from_be_slice(log.data.get(..32)?);
            let (from, to) = match log.topics.as_slice() {
                [t, from, to] if *t == transfer => (address(from), address(to)),
                [t, holder] if *t == deposit => (Address::ZERO, address(holder)),
                [t, holder] if *t == withdrawal => (address(holder), Address::ZERO),
                _ => return None,
            };
            let concerns = (from == wallet || to == wallet) && !value.is_zero();
            concerns.then(|| (log.log_index.unwrap(), log.address, from, to, value))
        })
        .collect()
}

/// `(log index, collection, token id, from, to, amount)` of the NFT
/// transfers `logs` tell that concern `wallet`, one per token id.
fn nft_moves(wallet: Address, logs: &[Log]) -> Vec<(u64, Address, U256, Address, Address, U256)> {
    let transfer = topic("Transfer(address,address,uint256)");
    let single = topic("TransferSingle(address,address,address,uint256,uint256)");
    let batch = topic("TransferBatch(address,address,address,uint256[],uint256[])");
    let mut moves = Vec::new();
    for log in logs {
        let index = log.log_index.unwrap();
        let found: Vec<(U256, Address, Address, U256)> = match log.topics.as_slice() {
            [t, from, to, id] if *t == transfer => {
                vec![(U256::from_be_bytes(id.0), address(from), address(to), U256::from(1))]
            }
            [t, _, from, to] if *t == single => {
                let (id, amount) = <(U256, U256)>::abi_decode_params(&log.data).unwrap();
                vec![(id, address(from), address(to), amount)]
            }
            [t, _, from, to] if *t == batch => {
                let (ids, amounts) = <(Vec<U256>, Vec<U256>)>::abi_decode_params(&log.data).unwrap();
                ids.into_iter().zip(amounts).map(|(id, amount)| (id, address(from), address(to), amount)).collect()
            }
            _ => Vec::new(),
        };
        let concerning =
            found.into_iter().filter(|(_, from, to, amount)| (*from == wallet || *to == wallet) && !amount.is_zero());
        moves.extend(concerning.map(|(id, from, to, amount)| (index, log.address, id, from, to, amount)));
    }
    moves
}

/// `(from, to, value, true)` of the value the calls inside transaction
/// `hash` moved, from its `callTracer` trace: the frames that moved value
/// and took effect.
fn paid_inside(session: &Session<'_>, hash: B256) -> Vec<(Address, Address, U256, bool)> {
    let config = TraceConfig { tracer: Some("callTracer".into()), ..TraceConfig::default() };
    let traced = session.run(session.rpc().debug_trace_transaction(hash, Some(config))).unwrap();
    let GethTrace::Call(top) = traced else { panic!("{hash}: callTracer answers a call tree") };
    let moved = value_transfers(&top).into_iter();
    moved.map(|frame| (frame.from, frame.to.unwrap(), frame.value.unwrap(), true)).collect()
}

/// One item checked against the gateway's transaction, receipt and trace.
fn check_item(session: &Session<'_>, wallet: Address, item: &HistoryTransaction) {
    let tx = &item.transaction;
    let rpc = session.rpc();
    let receipt = session.run(rpc.get_transaction_receipt(tx.hash)).unwrap().expect("a listed transaction's receipt");
    let by_hash = session.run(rpc.get_transaction_by_hash(tx.hash)).unwrap().expect("a listed transaction");
    assert_eq!((receipt.block_number, receipt.transaction_index), (tx.block_number, tx.transaction_index));
    assert_eq!((by_hash.from, by_hash.to, by_hash.value), (tx.from_address, tx.to_address, tx.value), "{}", tx.hash);
    let fee = U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
    assert_eq!(item.transaction_fee, w3api_types::format_units(fee, 18), "{}", tx.hash);
    let logs: Vec<(u64, Address, Vec<B256>)> = item
        .logs
        .iter()
        .map(|l| {
            (
                l.log.log_index,
                l.log.address,
                [l.log.topic0, l.log.topic1, l.log.topic2, l.log.topic3].into_iter().flatten().collect(),
            )
        })
        .collect();
    let receipt_logs: Vec<(u64, Address, Vec<B256>)> =
        receipt.logs.iter().map(|l| (l.log_index.unwrap(), l.address, l.topics.clone())).collect();
    assert_eq!(logs, receipt_logs, "{}: the item's logs are the receipt's", tx.hash);

    let erc20: Vec<_> = item
        .erc20_transfers
        .iter()
        .map(|t| (t.log_index, t.address, t.parties.from_address, t.parties.to_address, t.value))
        .collect();
    assert_eq!(erc20, erc20_moves(wallet, &receipt.logs), "{}: erc20_transfers", tx.hash);
    let nfts: Vec<_> = item
        .nft_transfers
        .iter()
        .map(|n| {
            let id: U256 = n.token_id.parse().unwrap();
            (n.log_index, n.token_address, id, n.parties.from_address, n.parties.to_address, U256::from(n.amount))
        })
        .collect();
    assert_eq!(nfts, nft_moves(wallet, &receipt.logs), "{}: nft_transfers", tx.hash);
    let native: Vec<_> = item
        .native_transfers
        .iter()
        .map(|n| (n.parties.from_address, n.parties.to_address, n.value, n.internal_transaction))
        .collect();
    let concerned = tx.from_address == wallet || tx.to_address == Some(wallet);
    let mut expected = match (concerned && !tx.value.is_zero(), tx.to_address) {
        (true, Some(to)) => vec![(tx.from_address, to, tx.value, false)],
        _ => Vec::new(),
    };
    expected
        .extend(paid_inside(session, tx.hash).into_iter().filter(|(from, to, _, _)| *from == wallet || *to == wallet));
    assert_eq!(native, expected, "{}: native_transfers", tx.hash);
    check_category(item);
}

/// What a category says of the transfers holds.
fn check_category(item: &HistoryTransaction) {
    let incoming = |d: &Direction| *d == Direction::Incoming;
    let tokens_in = item.erc20_transfers.iter().any(|t| incoming(&t.direction));
    let nfts_in = item.nft_transfers.iter().any(|n| incoming(&n.direction));
    let hash = item.transaction.hash;
    match item.category {
        HistoryCategory::Send => assert!(item.native_transfers.iter().any(|n| !incoming(&n.direction)), "{hash}"),
        HistoryCategory::TokenSwap | HistoryCategory::Deposit => assert!(tokens_in, "{hash}"),
        HistoryCategory::NftPurchase | HistoryCategory::NftReceive => assert!(nfts_in, "{hash}"),
        HistoryCategory::Approve | HistoryCategory::Revoke => {
            assert!(item.contract_interactions.is_some(), "{hash}: permissions without contract_interactions");
        }
        _ => {}
    }
    assert!(!item.summary.is_empty(), "{hash}: a summary");
}

#[test]
fn history_items_are_their_receipts_transfers_for_the_wallet() {
    let session = Session::new();
    let rest = session.rest();
    let mut checked = 0;
    let mut categories = BTreeSet::new();
    for wallet in session.devnet().sample_wallets(3) {
        let request = rest.data().get_wallet_history().address(wallet).limit(31u64);
        let history: Vec<HistoryTransaction> = session.run(request.items().try_collect()).unwrap();
        let listed: BTreeSet<B256> = history.iter().map(|item| item.transaction.hash).collect();
        assert_eq!(listed.len(), history.len(), "{wallet}: a transaction listed twice");
        let places: Vec<(u64, u64)> =
            history.iter().map(|i| (i.transaction.block_number, i.transaction.transaction_index)).collect();
        assert!(places.windows(2).all(|w| w[0] > w[1]), "{wallet}: newest first");
        for item in history.iter().take(CHECKED_ITEMS) {
            check_item(&session, wallet, item);
            categories.insert(format!("{:?}", item.category));
            checked += 1;
        }
        let transactions = rest.data().get_wallet_transactions().address(wallet).limit(100u64);
        let transactions: Vec<WalletTransaction> = session.run(transactions.items().try_collect()).unwrap();
        let transfers = rest.data().get_wallet_token_transfers().address(wallet).limit(100u64);
        let transfers: Vec<Erc20Transfer> = session.run(transfers.items().try_collect()).unwrap();
        let expected: BTreeSet<B256> = transactions
            .iter()
            .map(|t| t.transaction.hash)
            .chain(transfers.iter().map(|t| t.transaction_hash))
            .collect();
        let missing: Vec<&B256> = expected.difference(&listed).collect();
        assert!(missing.is_empty(), "{wallet}: transactions and transfers missing from the history: {missing:?}");
    }
    assert!(checked >= 30, "the sampled wallets have little history ({checked})");
    assert!(categories.len() >= 4, "the sampled history is of few kinds: {categories:?}");
    session.finish();
}

#[test]
fn decoded_transactions_are_the_first_history_page_with_method_labels() {
    let session = Session::new();
    let rest = session.rest();
    let wallet = session.devnet().sample_wallets(1)[0];
    for (order, rest_order) in [
        (HistoryOrder::Descending, w3api_types::ListingOrder::Descending),
        (HistoryOrder::Ascending, w3api_types::ListingOrder::Ascending),
    ] {
        let request = rest.data().get_wallet_history().address(wallet).include_input_data(true).order(rest_order);
        let page = session.run(request.send()).unwrap().into_inner();
        let params = DecodedTransactionsParams { address: wallet, nft_metadata: None, order: Some(order) };
        let decoded = session.run(session.rpc().get_decoded_transactions(params)).unwrap();
        assert!(!decoded.is_empty(), "{wallet} has a history");
        assert_eq!(decoded, page.result, "{wallet}: {order:?}");
        assert!(decoded.iter().any(|item| item.method_label.is_some()), "calls are named");
    }
    let plain = session.run(rest.data().get_wallet_history().address(wallet).limit(5u64).send()).unwrap().into_inner();
    assert!(plain.result.iter().all(|item| item.method_label.is_none()), "method labels only when asked");
    let stream = rest.data().get_wallet_history().address(wallet).nft_metadata(true).limit(50u64).items();
    let with_nfts: Vec<HistoryTransaction> = session.run(stream.take(100).try_collect()).unwrap();
    let nfts: Vec<_> = with_nfts.iter().flat_map(|item| &item.nft_transfers).collect();
    assert!(!nfts.is_empty(), "{wallet} moved NFTs");
    assert!(nfts.iter().any(|n| n.normalized_metadata.is_some()), "nft_metadata adds normalized_metadata");
    session.finish();
}
