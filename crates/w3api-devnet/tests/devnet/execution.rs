//! The chain is executed: every generated transaction ran on the EVM and
//! succeeded, the EVM's state agrees with what the ledger read from the
//! logs, each header's state root is the root of that state rebuilt from
//! scratch, and proofs verify against it with alloy-trie's verifier.

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_sol_types::SolCall;
use alloy_trie::proof::verify_proof;
use alloy_trie::{EMPTY_ROOT_HASH, HashBuilder, Nibbles, TrieAccount};
use w3api_chain::revm::context::TxEnv;
use w3api_chain::{BlockSpec, ChainState, Checks};
use w3api_contracts::{Collectible, Token};
use w3api_devnet::{ChainData, Devnet, GAS_LIMIT, Scale};
use w3api_ledger::{Asset, Holder};
use w3api_types::{Chain, ContractType};

fn chain() -> w3api_devnet::ChainRead {
    Devnet::new(5, Scale::TINY).chain(Chain::Eth)
}

/// `call` answered by the EVM at `block`.
fn view<C: SolCall>(state: &ChainState, block: u64, to: Address, call: C) -> C::Return {
    let spec = BlockSpec {
        number: block,
        timestamp: 0,
        beneficiary: Address::ZERO,
        base_fee: 0,
        gas_limit: GAS_LIMIT,
        prevrandao: B256::ZERO,
    };
    let tx = TxEnv { kind: to.into(), data: call.abi_encode().into(), gas_limit: 1_000_000, ..TxEnv::default() };
    let outcome = state.transact(block, &spec, tx, Checks::Call { priced: false }).unwrap();
    assert!(outcome.result.is_success(), "{to} at {block}: {:?}", outcome.result);
    C::abi_decode_returns(outcome.result.output().unwrap()).unwrap()
}

#[test]
fn every_generated_transaction_ran_and_succeeded() {
    let data = chain();
    assert!(data.receipts.len() >= 400, "{} receipts", data.receipts.len());
    let reverted = data.receipts.iter().filter(|r| !r.success).count();
    assert_eq!(reverted, 0, "the generator's own transactions all succeed");
    // Gas is what the EVM charged: a plain transfer exactly 21,000, calls more.
    for (tx, receipt) in data.transactions.iter().zip(&data.receipts) {
        let plain = alloy_consensus::Transaction::input(&tx.envelope).is_empty()
            && alloy_consensus::Transaction::to(&tx.envelope).is_some();
        let expected_plain = !plain || receipt.gas_used == 21_000;
        assert!(expected_plain && receipt.gas_used >= 21_000, "{}: {} gas", tx.hash, receipt.gas_used);
        assert!(receipt.gas_used <= alloy_consensus::Transaction::gas_limit(&tx.envelope));
    }
    // Every contract of the world has code.
    let latest = data.latest();
    for token in data.world.assets().filter_map(|a| data.world.token(a)) {
        let account = data.state.archive().account(token.address, latest);
        assert_ne!(account.code_hash, keccak256([]), "{} has no code", token.name);
    }
}

#[test]
fn the_evm_and_the_ledger_agree_at_every_sampled_block() {
    let data = chain();
    let latest = data.latest();
    for block in [1, latest / 3, latest / 2, latest] {
        for (index, asset) in data.world.assets().enumerate() {
            // Every holder the ledger knows, the zero address (burns) aside.
            for holder in (1..data.ledger.holders() as u32).map(Holder) {
                let held = data.ledger.balance_at(holder, asset, block as u32);
                let address = data.ledger.address(holder);
                let evm = if asset == Asset::NATIVE {
                    data.state.archive().account(address, block).balance
                } else {
                    let token = data.world.token(asset).unwrap().address;
                    view(&data.state, block, token, Token::balanceOfCall::new((address,)))
                };
                assert_eq!(evm, U256::from(held), "asset {index} of {address} at block {block}");
            }
        }
        check_nft_owners(&data, block);
    }
}

fn check_nft_owners(data: &ChainData, block: u64) {
    for (index, collection) in data.world.collections.iter().enumerate() {
        if collection.kind != ContractType::Erc721 {
            continue;
        }
        for id in 1..=collection.ids().min(10) {
            let history = data.ledger.erc721_history(index as u16, id);
            let Some(owner) = history.and_then(|h| h.at(block as u32)).filter(|o| *o != Holder::NOBODY) else {
                continue;
            };
            let evm =
                view(&data.state, block, collection.address, Collectible::ownerOfCall { tokenId: U256::from(id) });
            assert_eq!(evm, data.ledger.address(owner), "{} #{id} at {block}", collection.name);
        }
    }
}

/// The state root after `block`, rebuilt from the archive with alloy-trie's HashBuilder.
fn rebuilt_root(data: &ChainData, block: u64) -> B256 {
    let archive = data.state.archive();
    let mut leaves: Vec<(B256, Vec<u8>)> = archive
        .accounts_at(block)
        .map(|(address, account)| {
            let mut slots: Vec<(B256, Vec<u8>)> = archive
                .slots_at(address, block)
                .into_iter()
                .map(|(slot, value)| (keccak256(slot.to_be_bytes::<32>()), alloy_rlp::encode(value)))
                .collect();
            slots.sort();
            let storage_root = root_of_sorted(&slots);
            let leaf = TrieAccount {
                nonce: account.nonce,
                balance: account.balance,
                storage_root,
                code_hash: account.code_hash,
            };
            (keccak256(address), alloy_rlp::encode(leaf))
        })
        .collect();
    leaves.sort();
    root_of_sorted(&leaves)
}

fn root_of_sorted(leaves: &[(B256, Vec<u8>)]) -> B256 {
    if leaves.is_empty() {
        return EMPTY_ROOT_HASH;
    }
    let mut builder = HashBuilder::default();
    for (key, value) in leaves {
        builder.add_leaf(Nibbles::unpack(key), value);
    }
    builder.root()
}

#[test]
fn each_state_root_is_the_root_of_the_state_and_proofs_verify_against_it() {
    let data = chain();
    let latest = data.latest();
    let roots: Vec<B256> = data.blocks.iter().map(|b| b.header.state_root).collect();
    assert!(roots.windows(2).any(|w| w[0] != w[1]), "the state root moves");
    for block in [0, 1, 2, latest / 4, latest / 2, latest] {
        assert_eq!(roots[block as usize], rebuilt_root(&data, block), "state root of block {block}");
    }
    // An account with storage (a token), one without (a wallet), and one that never existed.
    let token = data.world.token(Asset::STABLE).unwrap().address;
    let wallet = data.transactions.last().unwrap().sender;
    for (address, block) in
        [(token, latest), (token, latest / 2), (wallet, latest), (Address::repeat_byte(0x77), latest)]
    {
        let slots: Vec<B256> =
            data.state.archive().slots_at(address, block).iter().take(3).map(|(s, _)| (*s).into()).collect();
        let absent = B256::repeat_byte(0x42);
        let asked: Vec<B256> = slots.iter().copied().chain([absent]).collect();
        let proof = data.state.proof(block, address, &asked);
        let account = proof.account;
        let leaf = (!account.is_empty()).then(|| {
            alloy_rlp::encode(TrieAccount {
                nonce: account.nonce,
                balance: account.balance,
                storage_root: proof.storage_root,
                code_hash: account.code_hash,
            })
        });
        let key = Nibbles::unpack(keccak256(address));
        verify_proof(roots[block as usize], key, leaf, &proof.account_proof)
            .unwrap_or_else(|e| panic!("account proof of {address} at {block}: {e}"));
        for (slot, value, nodes) in &proof.storage {
            let expected = (!value.is_zero()).then(|| alloy_rlp::encode(value));
            verify_proof(proof.storage_root, Nibbles::unpack(keccak256(slot)), expected, nodes)
                .unwrap_or_else(|e| panic!("slot {slot} of {address} at {block}: {e}"));
        }
        // A value the proof does not hold is refused.
        if let Some((slot, value, nodes)) = proof.storage.first().filter(|(_, v, _)| !v.is_zero()) {
            let wrong = alloy_rlp::encode(*value + U256::from(1));
            assert!(verify_proof(proof.storage_root, Nibbles::unpack(keccak256(slot)), Some(wrong), nodes).is_err());
        }
    }
}
