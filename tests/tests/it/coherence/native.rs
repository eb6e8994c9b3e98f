//! Native balances and nonces follow from the transactions: a wallet's
//! balance at block N (`eth_getBalance`, and the native item of wallet
//! tokens with `to_block = N`) is its genesis balance plus the value it
//! received (sent to it, or paid to it as the seller of a marketplace `buy`
//! in the native currency), minus the value it sent and the fees it paid
//! (gas used times the effective gas price, from the receipts) in blocks
//! 1..=N; its nonce (`eth_getTransactionCount`) is the number of
//! transactions it sent.
//!
//! The same balance adds up from the wallet's history alone
//! (`getWalletHistory` up to block N): its balance at genesis, plus what
//! its `native_transfers` brought in (its transactions' own value and what
//! calls inside them paid it), minus what they took out and the fees of
//! what it sent.

use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_tests::local::Session;
use w3api_types::rpc::BlockId;
use w3api_types::{Address, HistoryTransaction, ListingOrder, U256};

use crate::coherence::history::{Call, decode, full, history};
use crate::coherence::wallet_tokens_at;

#[test]
fn native_balances_and_nonces_are_the_sum_of_the_transactions() {
    let history = history();
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let latest = history.latest();
    let checkpoints = [latest / 3, 2 * latest / 3, latest];
    let mut moved = 0;
    for wallet in session.devnet().sample_wallets(4) {
        let at = |block: u64| Some(BlockId::Number(block.into()));
        let mut balance = session.run(rpc.get_balance(wallet, at(0))).unwrap();
        let mut sent = 0;
        for block in &history.blocks[1..=latest as usize] {
            let transactions = full(block);
            if transactions.iter().any(|tx| tx.from == wallet || tx.to == Some(wallet) || sells(tx, wallet)) {
                balance = apply(&session, block.number, transactions, wallet, balance);
                sent += transactions.iter().filter(|tx| tx.from == wallet).count() as u64;
                moved += 1;
            }
            if checkpoints.contains(&block.number) {
                assert_eq!(session.run(rpc.get_balance(wallet, at(block.number))).unwrap(), balance, "{wallet}");
                let count = session.run(rpc.get_transaction_count(wallet, at(block.number))).unwrap();
                assert_eq!(count.0, sent, "{wallet} at block {}: nonce vs transactions sent", block.number);
                let tokens = session.run(wallet_tokens_at(&rest, wallet, block.number, false));
                let native = tokens.iter().find(|t| t.native_token).expect("the native currency is listed");
                assert_eq!(native.balance, balance, "{wallet} at block {}: wallet tokens vs RPC", block.number);
            }
        }
    }
    assert!(moved >= 10, "the sampled wallets send and receive the native currency ({moved} blocks)");
    session.finish();
}

#[test]
fn native_balances_add_up_from_the_wallets_history() {
    let history = history();
    let session = Session::new();
    let (rest, rpc) = (session.rest(), session.rpc());
    let latest = history.latest();
    // Sellers paid in the native currency are paid by the marketplace, inside the buyer's transaction.
    let sellers = history.calls.iter().filter_map(|located| match located.call {
        Call::Sale { seller, payment_token, .. } if payment_token.is_zero() => Some(seller),
        _ => None,
    });
    let mut wallets: Vec<Address> = sellers.take(3).collect();
    wallets.extend(session.devnet().sample_wallets(3));
    let mut paid_inside = 0;
    for wallet in wallets {
        for block in [latest / 2, latest] {
            let request =
                rest.data().get_wallet_history().address(wallet).to_block(block).order(ListingOrder::Ascending);
            let items: Vec<HistoryTransaction> = session.run(request.limit(100u64).items().try_collect()).unwrap();
            let genesis = session.run(rpc.get_balance(wallet, Some(BlockId::Number(0.into())))).unwrap();
            let (mut credit, mut debit) = (genesis, U256::ZERO);
            for item in &items {
                for moved in &item.native_transfers {
                    let (from, to) = (moved.parties.from_address, moved.parties.to_address);
                    credit += if to == wallet { moved.value } else { U256::ZERO };
                    debit += if from == wallet { moved.value } else { U256::ZERO };
                    paid_inside += usize::from(moved.internal_transaction && block == latest);
                }
                let tx = &item.transaction;
                if tx.from_address == wallet {
                    debit += U256::from(tx.receipt_gas_used) * tx.gas_price;
                }
            }
            let balance = session.run(rpc.get_balance(wallet, Some(BlockId::Number(block.into())))).unwrap();
            assert_eq!(credit.checked_sub(debit), Some(balance), "{wallet} at block {block}: history vs balance");
        }
    }
    assert!(paid_inside >= 3, "the wallets were paid inside transactions ({paid_inside} times)");
    session.finish();
}

/// The wallet's balance after the block's transactions.
fn apply(
    session: &Session,
    block: u64,
    transactions: &[w3api_types::rpc::Transaction],
    wallet: Address,
    mut balance: U256,
) -> U256 {
    let receipts = session.run(session.rpc().get_block_receipts(BlockId::Number(block.into()))).unwrap().unwrap();
    for (tx, receipt) in transactions.iter().zip(&receipts) {
        if tx.to == Some(wallet) {
            balance += tx.value;
        }
        if sells(tx, wallet) {
            balance += tx.value;
        }
        if tx.from == wallet {
            balance -= tx.value + U256::from(receipt.gas_used) * U256::from(receipt.effective_gas_price);
        }
    }
    balance
}

/// Whether `tx` buys from `wallet` in the native currency (sent as the
/// call's value, which the marketplace forwards to the seller).
fn sells(tx: &w3api_types::rpc::Transaction, wallet: Address) -> bool {
    matches!(decode(tx), Call::Sale { seller, payment_token, .. } if seller == wallet && payment_token.is_zero())
}
