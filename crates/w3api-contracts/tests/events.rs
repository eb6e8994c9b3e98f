//! The contracts' events are the ones the ledger reads: each, encoded as a
//! log exactly as the compiled contract emits it (topics and data from the
//! artifact's ABI), decodes through `w3api_ledger::events` into the event
//! the ledger applies. A change of an event in `contracts/src` that the
//! ledger would no longer see fails here.

// The library's own dependencies, named so that `unused_crate_dependencies`
// keeps watching this suite's.
use {alloy_dyn_abi as _, alloy_json_abi as _, serde_json as _};

use alloy_primitives::{Address, B256, Bytes, U256};
use alloy_sol_types::SolEvent;
use w3api_contracts::{Collectible, Factory, MultiToken, Pair, Token, WrappedNative};
use w3api_ledger::events::{Event, decode};

fn decoded<E: SolEvent>(event: &E) -> Option<Event> {
    let log = event.encode_log_data();
    let topics: Vec<B256> = log.topics().to_vec();
    decode(&topics, &Bytes::from(log.data.to_vec()))
}

fn address(byte: u8) -> Address {
    Address::repeat_byte(byte)
}

#[test]
fn fungible_tokens_move_as_the_ledger_reads_them() {
    let transfer = Token::Transfer { from: address(1), to: address(2), value: U256::from(7) };
    assert_eq!(
        decoded(&transfer),
        Some(Event::Erc20Transfer { from: address(1), to: address(2), value: U256::from(7) })
    );
    let approval = Token::Approval { owner: address(1), spender: address(3), value: U256::MAX };
    assert_eq!(
        decoded(&approval),
        Some(Event::Erc20Approval { owner: address(1), spender: address(3), value: U256::MAX })
    );
    let deposit = WrappedNative::Deposit { dst: address(4), wad: U256::from(9) };
    assert_eq!(decoded(&deposit), Some(Event::Deposit { to: address(4), value: U256::from(9) }));
    let withdrawal = WrappedNative::Withdrawal { src: address(4), wad: U256::from(2) };
    assert_eq!(decoded(&withdrawal), Some(Event::Withdrawal { from: address(4), value: U256::from(2) }));
    let wrapped = WrappedNative::Transfer { from: address(4), to: address(5), value: U256::from(1) };
    assert!(matches!(decoded(&wrapped), Some(Event::Erc20Transfer { .. })));
    let shares = Pair::Transfer { from: Address::ZERO, to: address(6), value: U256::from(1000) };
    assert!(matches!(decoded(&shares), Some(Event::Erc20Transfer { .. })), "a pair's shares are an ERC20");
}

#[test]
fn nfts_move_as_the_ledger_reads_them() {
    let minted = Collectible::Transfer { from: Address::ZERO, to: address(2), tokenId: U256::from(42) };
    let expected = Event::NftTransfers {
        operator: None,
        from: Address::ZERO,
        to: address(2),
        tokens: vec![(U256::from(42), U256::from(1))],
        erc1155: false,
        batch: false,
    };
    assert_eq!(decoded(&minted), Some(expected), "ERC721 Transfer indexes the token id");
    let all = Collectible::ApprovalForAll { owner: address(2), operator: address(9), approved: true };
    assert_eq!(decoded(&all), Some(Event::ApprovalForAll { owner: address(2), operator: address(9), approved: true }));
    let single = MultiToken::TransferSingle {
        operator: address(8),
        from: address(2),
        to: address(3),
        id: U256::from(5),
        value: U256::from(10),
    };
    let expected = Event::NftTransfers {
        operator: Some(address(8)),
        from: address(2),
        to: address(3),
        tokens: vec![(U256::from(5), U256::from(10))],
        erc1155: true,
        batch: false,
    };
    assert_eq!(decoded(&single), Some(expected));
    let batch = MultiToken::TransferBatch {
        operator: address(8),
        from: address(2),
        to: address(3),
        ids: vec![U256::from(1), U256::from(2)],
        values: vec![U256::from(3), U256::from(4)],
    };
    let Some(Event::NftTransfers { tokens, erc1155: true, batch: true, .. }) = decoded(&batch) else {
        panic!("a batch")
    };
    assert_eq!(tokens, vec![(U256::from(1), U256::from(3)), (U256::from(2), U256::from(4))]);
}

#[test]
fn pairs_are_created_and_priced_as_the_ledger_reads_them() {
    let created =
        Factory::PairCreated { token0: address(1), token1: address(2), pair: address(3), index: U256::from(1) };
    assert_eq!(
        decoded(&created),
        Some(Event::PairCreated { token0: address(1), token1: address(2), pair: address(3) })
    );
    let sync = Pair::Sync {
        reserve0: alloy_primitives::aliases::U112::from(500),
        reserve1: alloy_primitives::aliases::U112::from(7),
    };
    assert_eq!(decoded(&sync), Some(Event::Sync { reserve0: 500, reserve1: 7 }));
}
