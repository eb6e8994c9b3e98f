//! ERC20 balances follow from the transfers: for a wallet whose tokens only
//! ever move by `transfer(address,uint256)` calls, its balance of each token
//! at block N (wallet tokens with `to_block = N`, every page) is the sum of
//! the `transfer` calls to it minus those from it in blocks 0..=N, decoded
//! from the full transactions the RPC gateway returns.

use std::collections::BTreeMap;

use w3api_tests::local::Session;
use w3api_types::{Address, U256};

use crate::coherence::history::history;
use crate::coherence::wallet_tokens_at;

/// Wallets sampled: the showcase wallet (every token) and ordinary ones.
const WALLETS: usize = 6;

#[test]
fn erc20_balances_are_the_sum_of_transfer_calls() {
    let history = history();
    let session = Session::new();
    let rest = session.rest();
    let sampled = session.devnet().sample_wallets(WALLETS);
    let (qualified, others): (Vec<Address>, Vec<Address>) =
        sampled.iter().partition(|w| history.other_token_movements(**w).is_none());
    // Ordinary wallets leave swaps to traders; if most sampled ones did not, the check would prove little.
    assert!(qualified.len() >= WALLETS - 1 && qualified[0] == sampled[0], "{:?}", describe(history, &others));
    let latest = history.latest();
    let mut compared = 0;
    for block in [latest / 3, 2 * latest / 3, latest] {
        for &wallet in &qualified {
            let expected = history.erc20_balances(wallet, block).unwrap();
            let answered: BTreeMap<Address, U256> = session
                .run(wallet_tokens_at(&rest, wallet, block, true))
                .into_iter()
                .map(|t| {
                    assert!(!t.native_token, "exclude_native leaves the native currency out");
                    (t.token_address.expect("an ERC20 has an address"), t.balance)
                })
                .collect();
            assert_eq!(answered, expected, "wallet {wallet} at block {block}: API balances vs transfer calls");
            compared += expected.len();
        }
    }
    assert!(compared >= 3 * 6, "the sampled wallets hold tokens at the sampled blocks ({compared} balances)");
    session.finish();
}

fn describe(history: &crate::coherence::history::History, wallets: &[Address]) -> Vec<String> {
    wallets.iter().map(|w| format!("{w}: {}", history.other_token_movements(*w).unwrap_or_default())).collect()
}
