//! `console.log` from Solidity reaches the server's log: a contract that
//! passes its call data on to `console.sol`'s address, called with a
//! formatted `log(string,uint256,bool)`, has the devnet print the message
//! it makes, as Anvil prints it.
#![cfg(unix)]

use alloy_primitives::{B256, U256, keccak256};
use serde_json::json;

use crate::kept::rpc;
use crate::serve::Server;

/// Init code of a contract whose runtime calls the console address with
/// its own call data, then stops.
const TO_CONSOLE: &str = "0x6021600a5f3960215ff3365f5f375f5f365f5f73000000000000000000636f6e736f6c652e6c6f675af100";

/// A format string of `console.log`: `%s` takes the number, `%%` is a percent sign.
const FORMAT: &str = "%s apples, 100%% ripe:";

/// `log(string,uint256,bool)`'s call data, ABI-encoded by hand.
fn log_call(text: &str, number: u64, flag: bool) -> Vec<u8> {
    let word = |value: U256| B256::from(value).0;
    let mut input = keccak256("log(string,uint256,bool)")[..4].to_vec();
    for head in [U256::from(0x60), U256::from(number), U256::from(u8::from(flag)), U256::from(text.len())] {
        input.extend(word(head));
    }
    input.extend(text.as_bytes());
    let padded = 4 + (input.len() - 4).next_multiple_of(32);
    input.resize(padded, 0);
    input
}

#[test]
fn console_log_from_a_contract_is_in_the_server_log() {
    let server = Server::start(&["--api-key", "k", "--scale", "tiny"], &[]);
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let from = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
    let base = server.base.clone();
    let hash = runtime.block_on(async {
        let deployed = rpc(&base, "eth_sendTransaction", json!([{"from": from, "data": TO_CONSOLE}])).await;
        let receipt = rpc(&base, "eth_getTransactionReceipt", json!([deployed])).await;
        let contract = receipt["contractAddress"].clone();
        let data = alloy_primitives::hex::encode_prefixed(log_call(FORMAT, 7, true));
        let sent = rpc(&base, "eth_sendTransaction", json!([{"from": from, "to": contract, "data": data}])).await;
        assert_eq!(rpc(&base, "eth_getTransactionReceipt", json!([sent.clone()])).await["status"], "0x1");
        sent
    });
    let (clean_exit, stderr) = server.terminate();
    assert!(clean_exit, "{stderr}");
    let line =
        stderr.lines().find(|line| line.contains("7 apples")).unwrap_or_else(|| panic!("no console line:\n{stderr}"));
    assert!(line.contains("7 apples, 100% ripe: true"), "the format filled, the bool after it: {line}");
    assert!(line.contains(hash.as_str().unwrap()), "the line names its transaction: {line}");
}
