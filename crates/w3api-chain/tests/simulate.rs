//! Simulating blocks (`eth_simulateV1`) against blocks another node made:
//! each block of `ethereum/execution-apis`' test chain, simulated on its
//! parent with its own header fields and its transactions as calls, gives
//! the state root, receipts root, bloom, gas and requests its producer
//! sealed, whether the parent is the last block the chain holds or an
//! older one.

// The library's own dependencies, named so that `unused_crate_dependencies`
// keeps watching this suite's.
use {
    alloy_eip2124 as _, alloy_eips as _, alloy_evm as _, alloy_hardforks as _, alloy_rlp as _,
    alloy_rpc_types_trace as _, revm as _, revm_inspectors as _, thiserror as _, w3api_trie as _,
};

use alloy_consensus::transaction::SignerRecoverable;
use alloy_consensus::{Header, Transaction, TxEnvelope};
use alloy_genesis::Genesis;
use alloy_primitives::{Address, U256};
use w3api_chain::ChainState;
use w3api_chain::forks::Forks;
use w3api_chain::import::{Block, decode_chain, forks_of};
use w3api_chain::simulate::{BlockCalls, Call, HeaderOverrides, Options, SimulateError, SimulatedBlock};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/execution-apis");

/// The suite's genesis, its blocks, and their forks.
fn suite() -> (Genesis, Vec<Block>, Forks) {
    let text = std::fs::read_to_string(format!("{FIXTURES}/genesis.json")).expect("the fixture's genesis.json");
    let genesis: Genesis = serde_json::from_str(&text).expect("a geth genesis");
    let bytes = std::fs::read(format!("{FIXTURES}/chain.rlp")).expect("the fixture's chain.rlp");
    let blocks = decode_chain(&bytes).expect("the suite's chain decodes");
    let (_, start) = w3api_chain::genesis::start(&genesis);
    let forks = forks_of(&genesis.config, &start, &blocks);
    (genesis, blocks, forks)
}

/// The chain's state with its first `count` blocks imported, and the
/// header of each block from the genesis on.
fn imported(genesis: &Genesis, blocks: &[Block], forks: &Forks, count: usize) -> (ChainState, Vec<Header>) {
    let (mut state, start) = w3api_chain::genesis::start(genesis);
    let mut headers = vec![start];
    for block in &blocks[..count] {
        state.import_block(forks, headers.last().unwrap(), block).unwrap_or_else(|refused| panic!("{refused}"));
        headers.push(block.header.clone());
    }
    (state, headers)
}

/// A transaction of the chain as a call that does what it did.
fn as_call(tx: &TxEnvelope) -> Call {
    let legacy = matches!(tx, TxEnvelope::Legacy(_) | TxEnvelope::Eip2930(_));
    Call {
        from: tx.recover_signer().expect("the chain's transactions are signed"),
        to: tx.to(),
        gas: Some(tx.gas_limit()),
        gas_price: legacy.then(|| tx.max_fee_per_gas()),
        max_fee_per_gas: (!legacy).then(|| tx.max_fee_per_gas()),
        max_priority_fee_per_gas: if legacy { None } else { tx.max_priority_fee_per_gas() },
        max_fee_per_blob_gas: tx.max_fee_per_blob_gas(),
        value: tx.value(),
        nonce: Some(tx.nonce()),
        input: tx.input().clone(),
        access_list: tx.access_list().cloned(),
        blob_hashes: tx.blob_versioned_hashes().map(<[_]>::to_vec),
        authorizations: tx.authorization_list().map(<[_]>::to_vec),
        chain_id: tx.chain_id(),
    }
}

/// Block `block` of the chain as a simulated block: its header fields and
/// its transactions.
fn as_block_calls(block: &Block) -> BlockCalls {
    let header = &block.header;
    BlockCalls {
        header: HeaderOverrides {
            number: Some(header.number),
            time: Some(header.timestamp),
            gas_limit: Some(header.gas_limit),
            fee_recipient: Some(header.beneficiary),
            prev_randao: Some(header.mix_hash),
            base_fee: header.base_fee_per_gas,
            blob_base_fee: None,
            difficulty: Some(header.difficulty),
            beacon_root: header.parent_beacon_block_root,
            withdrawals: block.body.withdrawals.clone().map(alloy_eips::eip4895::Withdrawals::into_inner),
        },
        state: Vec::new(),
        calls: block.body.transactions.iter().map(as_call).collect(),
    }
}

fn simulate(state: &ChainState, forks: &Forks, base: &Header, block: &Block) -> Result<SimulatedBlock, SimulateError> {
    let options = Options { forks, base, validation: true, trace_transfers: false, gas_cap: 0, stop: &|| false };
    Ok(state.simulate(&options, vec![as_block_calls(block)])?.remove(0))
}

/// The fields of a simulated block that its transactions' execution sets
/// must be the real block's. A call with a gas price is a legacy
/// transaction, as geth makes it, so an EIP-2930 transaction's receipt
/// differs in its type alone: its block's receipts root is not compared.
fn assert_sealed_alike(simulated: &SimulatedBlock, block: &Block) {
    let (ours, theirs, number) = (&simulated.header, &block.header, block.header.number);
    assert_eq!(ours.state_root, theirs.state_root, "block {number}: stateRoot");
    if !block.body.transactions.iter().any(|tx| matches!(tx, TxEnvelope::Eip2930(_))) {
        assert_eq!(ours.receipts_root, theirs.receipts_root, "block {number}: receiptsRoot");
    }
    assert_eq!(ours.logs_bloom, theirs.logs_bloom, "block {number}: logsBloom");
    assert_eq!(ours.gas_used, theirs.gas_used, "block {number}: gasUsed");
    assert_eq!(ours.requests_hash, theirs.requests_hash, "block {number}: requestsHash");
    assert_eq!(ours.excess_blob_gas, theirs.excess_blob_gas, "block {number}: excessBlobGas");
    assert_eq!(ours.blob_gas_used, theirs.blob_gas_used, "block {number}: blobGasUsed");
    assert_eq!(ours.withdrawals_root, theirs.withdrawals_root, "block {number}: withdrawalsRoot");
}

/// Post-merge blocks with transactions (before the merge a block's
/// ommers, which a simulation has none of, are rewarded too).
fn merged_with_transactions<'a>(blocks: &'a [Block], forks: &Forks) -> Vec<&'a Block> {
    use alloy_hardforks::EthereumHardforks;
    let chosen: Vec<&Block> = blocks
        .iter()
        .filter(|block| forks.is_paris_active_at_block(block.header.number) && !block.body.transactions.is_empty())
        .collect();
    assert!(chosen.len() >= 5, "the suite's chain has blocks with transactions after the merge");
    chosen
}

#[test]
fn each_block_simulated_on_its_parent_seals_as_its_producer_sealed_it() {
    let (genesis, blocks, forks) = suite();
    let (state, headers) = imported(&genesis, &blocks, &forks, blocks.len());
    for block in merged_with_transactions(&blocks, &forks) {
        let parent = &headers[block.header.number as usize - 1];
        let simulated = simulate(&state, &forks, parent, block).unwrap_or_else(|e| panic!("{e}"));
        assert_sealed_alike(&simulated, block);
        assert_eq!(simulated.header.parent_hash, parent.hash_slow());
        assert!(simulated.calls.iter().all(|call| call.gas_used > 0));
    }
}

#[test]
fn a_block_simulated_on_the_newest_block_seals_as_on_an_older_one() {
    let (genesis, blocks, forks) = suite();
    let last = *merged_with_transactions(&blocks, &forks).last().unwrap();
    let parent_count = last.header.number as usize - 1;
    // The chain held up to the parent: its tries are the parent's.
    let (state, headers) = imported(&genesis, &blocks, &forks, parent_count);
    let simulated = simulate(&state, &forks, headers.last().unwrap(), last).unwrap_or_else(|e| panic!("{e}"));
    assert_sealed_alike(&simulated, last);
}

#[test]
fn the_state_a_block_leaves_is_the_next_ones_and_nothing_is_kept() {
    let (genesis, blocks, forks) = suite();
    let (state, headers) = imported(&genesis, &blocks, &forks, blocks.len());
    let head = headers.last().unwrap();
    let (sender, receiver) = (Address::repeat_byte(0xc0), Address::repeat_byte(0xc1));
    let funded = w3api_chain::AccountOverride { balance: Some(U256::from(1_000u64)), ..Default::default() };
    let send = |value: u64| Call { from: sender, to: Some(receiver), value: U256::from(value), ..Call::default() };
    let first = BlockCalls { state: vec![(sender, funded, None)], calls: vec![send(600)], ..BlockCalls::default() };
    let second = BlockCalls { calls: vec![send(400)], ..BlockCalls::default() };
    let options =
        Options { forks: &forks, base: head, validation: false, trace_transfers: true, gas_cap: 0, stop: &|| false };
    let simulated = state.simulate(&options, vec![first, second]).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(simulated.len(), 2);
    assert_eq!(simulated[0].header.number, head.number + 1);
    assert_eq!(simulated[1].header.parent_hash, simulated[0].hash);
    assert_eq!(simulated[1].header.timestamp, head.timestamp + 24);
    // The second block spends what the first left: 400 of 1,000 after 600.
    assert!(simulated[1].calls[0].failure.is_none());
    assert_eq!(simulated[1].calls[0].logs.len(), 1, "the transfer is logged");
    // A third sending 1 more than is left is refused with the sender's funds named.
    let third = BlockCalls { calls: vec![send(1)], ..BlockCalls::default() };
    let first = BlockCalls {
        state: vec![(sender, w3api_chain::AccountOverride { balance: Some(U256::ZERO), ..Default::default() }, None)],
        calls: vec![],
        ..BlockCalls::default()
    };
    match state.simulate(&options, vec![first, third]) {
        Err(SimulateError::Transaction { message, .. }) => assert!(message.contains("insufficient funds"), "{message}"),
        other => panic!("expected insufficient funds, got {other:?}"),
    }
    // Nothing was kept: the chain's newest state is the head's.
    assert_eq!(state.archive().account(sender, head.number).balance, U256::ZERO);
}

#[test]
fn a_call_with_a_gas_price_is_a_legacy_transaction_nobody_signed() {
    use alloy_rlp::Encodable;
    let (genesis, blocks, forks) = suite();
    let (state, headers) = imported(&genesis, &blocks, &forks, blocks.len());
    let (from, to) = (Address::repeat_byte(0xc0), Address::repeat_byte(0xc1));
    let call = Call { from, to: Some(to), gas: Some(30_000), gas_price: Some(7), ..Call::default() };
    let options = Options {
        forks: &forks,
        base: headers.last().unwrap(),
        validation: false,
        trace_transfers: false,
        gas_cap: 0,
        stop: &|| false,
    };
    let funded = w3api_chain::AccountOverride { balance: Some(U256::from(1_000_000u64)), ..Default::default() };
    let block = BlockCalls { state: vec![(from, funded, None)], calls: vec![call], ..BlockCalls::default() };
    let simulated = state.simulate(&options, vec![block]).unwrap_or_else(|e| panic!("{e}")).remove(0);
    let tx = &simulated.transactions[0];
    assert!(matches!(tx, TxEnvelope::Legacy(_)));
    // geth's unsigned legacy transaction: its six fields, then v, r and s of zero.
    let mut fields = Vec::new();
    0u64.encode(&mut fields);
    7u128.encode(&mut fields);
    30_000u64.encode(&mut fields);
    to.encode(&mut fields);
    U256::ZERO.encode(&mut fields);
    alloy_primitives::Bytes::new().encode(&mut fields);
    fields.extend([0x80; 3]);
    let mut rlp = Vec::new();
    alloy_rlp::Header { list: true, payload_length: fields.len() }.encode(&mut rlp);
    rlp.extend(fields);
    assert_eq!(*tx.tx_hash(), alloy_primitives::keccak256(&rlp));
    let root = alloy_trie::root::ordered_trie_root_with_encoder(&[rlp], |item, out| out.extend_from_slice(item));
    assert_eq!(simulated.header.transactions_root, root);
}
