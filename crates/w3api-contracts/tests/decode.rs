//! Calls and logs read back by the known ABIs: the same topic with other
//! indexed parameters decodes by the form it fits, an unknown one is none.

// The library's own dependencies, named so that `unused_crate_dependencies`
// keeps watching this suite's.
use {alloy_dyn_abi as _, alloy_json_abi as _, serde_json as _, w3api_ledger as _};

use alloy_primitives::{Address, B256, U256};
use alloy_sol_types::{SolCall, SolEvent};
use w3api_contracts::decode::{call, call_name, event};
use w3api_contracts::{Collectible, MultiToken, Token};

fn log<E: SolEvent>(event: &E) -> (Vec<B256>, Vec<u8>) {
    let data = event.encode_log_data();
    (data.topics().to_vec(), data.data.to_vec())
}

fn params(decoded: &w3api_contracts::decode::Decoded) -> Vec<(&str, &str, &str)> {
    decoded.params.iter().map(|(n, v, t)| (*n, v.as_str(), *t)).collect()
}

#[test]
fn erc20_and_erc721_transfers_decode_by_the_form_they_fit() {
    let (a, b) = (Address::repeat_byte(0xaa), Address::repeat_byte(0xbb));
    let (topics, data) = log(&Token::Transfer { from: a, to: b, value: U256::from(250) });
    let erc20 = event(&topics, &data).expect("an ERC20 transfer");
    assert_eq!(erc20.signature, "Transfer(address,address,uint256)");
    assert_eq!(erc20.params[2].1, "250");
    let (topics, data) = log(&Collectible::Transfer { from: a, to: b, tokenId: U256::from(7) });
    assert_eq!(topics.len(), 4, "the id is indexed too");
    let erc721 = event(&topics, &data).expect("an ERC721 transfer");
    assert_eq!(erc721.name, "Transfer");
    assert_eq!(erc721.params[0].1, format!("{a:#x}"));
    assert_eq!(erc721.params[2].1, "7");
}

#[test]
fn batch_transfers_write_their_lists() {
    let (a, b) = (Address::repeat_byte(1), Address::repeat_byte(2));
    let batch = MultiToken::TransferBatch {
        operator: a,
        from: a,
        to: b,
        ids: vec![U256::from(1), U256::from(2)],
        values: vec![U256::from(5), U256::from(6)],
    };
    let (topics, data) = log(&batch);
    let decoded = event(&topics, &data).expect("a batch transfer");
    assert_eq!(params(&decoded)[3], ("ids", r#"["1","2"]"#, "uint256[]"));
}

#[test]
fn calls_decode_by_selector_and_arguments() {
    let to = Address::repeat_byte(3);
    let input = Token::transferCall { to, amount: U256::from(100) }.abi_encode();
    let decoded = call(&input).expect("a transfer call");
    assert_eq!(decoded.signature, "transfer(address,uint256)");
    assert_eq!(params(&decoded), vec![("to", format!("{to:#x}").as_str(), "address"), ("amount", "100", "uint256")]);
    assert_eq!(call_name(&input), Some("transfer"), "the name alone, found alike");
    assert_eq!(call(&[]), None, "a plain transfer of ether calls nothing");
    assert_eq!(call(&input[..20]), None, "arguments cut short");
    assert_eq!(call_name(&input[..20]), None, "arguments cut short, no name");
    assert_eq!(call(&[0xde, 0xad, 0xbe, 0xef]), None, "an unknown selector");
    assert_eq!(event(&[B256::repeat_byte(9)], &[]), None, "an unknown event");
    assert_eq!(event(&[], &[]), None, "an anonymous log");
}

#[test]
fn role_grants_decode_though_no_devnet_contract_emits_them() {
    // As an OpenZeppelin preset logs its minter role at deployment: the
    // topic from the signature's own hash, the role a 32-byte word.
    let topic0 = alloy_primitives::keccak256("RoleGranted(bytes32,address,address)");
    let role = alloy_primitives::keccak256("MINTER_ROLE");
    let (account, sender) = (Address::repeat_byte(4), Address::repeat_byte(5));
    let topics = vec![topic0, role, account.into_word(), sender.into_word()];
    let decoded = event(&topics, &[]).expect("a role grant");
    assert_eq!(decoded.name, "RoleGranted");
    assert_eq!(params(&decoded)[0], ("role", format!("{role:#x}").as_str(), "bytes32"));
    assert_eq!(params(&decoded)[1], ("account", format!("{account:#x}").as_str(), "address"));
    let unknown = alloy_primitives::keccak256("Unheard(uint256)");
    assert_eq!(event(&[unknown], &[0; 32]), None, "an event no known ABI has");
}
