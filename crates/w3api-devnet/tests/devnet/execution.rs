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
        excess_blob_gas: 0,
        blob_base_fee: 1,
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

/// The execution methods answer through the source trait, as the gateway asks.
mod methods {
    use alloy_primitives::{Address, B256, Bytes, U256, keccak256};
    use alloy_sol_types::SolCall;
    use w3api_contracts::{Collectible, Token};
    use w3api_devnet::{Devnet, Scale};
    use w3api_ledger::Asset;
    use w3api_source::prelude::*;
    use w3api_source::{BlockRef, SourceError};
    use w3api_types::Chain;
    use w3api_types::rpc::{AccountOverride, StateOverrides, TransactionRequest};

    fn request(to: Address, data: Vec<u8>) -> TransactionRequest {
        TransactionRequest { to: Some(to), input: Some(data.into()), ..TransactionRequest::default() }
    }

    fn run<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    #[test]
    fn calls_read_contract_state_at_any_block_and_reverts_carry_their_data() {
        let devnet = Devnet::new(5, Scale::TINY);
        let data = devnet.chain(Chain::Eth);
        let token = data.world.token(Asset::STABLE).unwrap().address;
        // A holder of the stablecoin at the newest block.
        let holder = (1..data.ledger.holders() as u32)
            .map(w3api_ledger::Holder)
            .find(|h| data.ledger.balance(*h, Asset::STABLE) > 0 && data.ledger.address(*h) != token)
            .unwrap();
        let address = data.ledger.address(holder);
        let latest = data.latest();
        for block in [latest / 2, latest] {
            let call = Token::balanceOfCall::new((address,)).abi_encode();
            let output = run(devnet.call(Chain::Eth, request(token, call), BlockRef::Number(block), None)).unwrap();
            let balance = Token::balanceOfCall::abi_decode_returns(&output).unwrap();
            let held = data.ledger.balance_at(holder, Asset::STABLE, block as u32);
            assert_eq!(balance, U256::from(held), "balanceOf at {block}");
        }
        // ownerOf a token never minted reverts with the contract's own error.
        let collection = data.world.collections.iter().find(|c| c.kind == w3api_types::ContractType::Erc721).unwrap();
        let missing = Collectible::ownerOfCall { tokenId: U256::from(999_999) }.abi_encode();
        let refused = run(devnet.call(Chain::Eth, request(collection.address, missing), BlockRef::Latest, None));
        let Err(SourceError::Reverted { data: revert, reason: None }) = refused else { panic!("{refused:?}") };
        let expected = Collectible::NoSuchToken { tokenId: U256::from(999_999) };
        assert_eq!(revert, Bytes::from(alloy_sol_types::SolError::abi_encode(&expected)));
        // A factory's nonce counts the pairs it created, as the EVM keeps it.
        let exchange = &data.world.exchanges[0];
        let pairs = data.world.pairs.iter().filter(|p| p.exchange == 0).count() as u64;
        let nonce = run(State::transaction_count(&devnet, Chain::Eth, exchange.factory, BlockRef::Latest));
        assert_eq!(nonce.unwrap(), 1 + pairs, "EIP-161: a contract starts at nonce 1");
        // A block past the newest is named.
        let late = run(devnet.call(Chain::Eth, request(token, Vec::new()), BlockRef::Number(latest + 1), None));
        assert!(matches!(late, Err(SourceError::BlockOutOfRange { .. })), "{late:?}");
        // Input and data that differ are refused, naming both.
        let both = TransactionRequest { data: Some(Bytes::from_static(&[1])), ..request(token, vec![2]) };
        let refused = run(devnet.call(Chain::Eth, both, BlockRef::Latest, None)).unwrap_err();
        assert!(refused.to_string().contains("input and data"), "{refused}");
    }

    #[test]
    fn overrides_replace_code_and_storage_for_one_call() {
        let devnet = Devnet::new(5, Scale::TINY);
        let target = Address::repeat_byte(0x51);
        // SLOAD slot 0 and return it.
        let code = Bytes::from_static(&[0x60, 0x00, 0x54, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]);
        let with = |account: AccountOverride| StateOverrides([(target, account)].into_iter().collect());
        let diff = AccountOverride {
            code: Some(code.clone()),
            state_diff: Some([(B256::ZERO, B256::from(U256::from(7)))].into_iter().collect()),
            ..AccountOverride::default()
        };
        let answered = run(devnet.call(Chain::Eth, request(target, Vec::new()), BlockRef::Latest, Some(with(diff))));
        assert_eq!(U256::from_be_slice(&answered.unwrap()), U256::from(7));
        let both = AccountOverride {
            code: Some(code),
            state: Some(Default::default()),
            state_diff: Some(Default::default()),
            ..AccountOverride::default()
        };
        let refused = run(devnet.call(Chain::Eth, request(target, Vec::new()), BlockRef::Latest, Some(with(both))));
        assert!(refused.unwrap_err().to_string().contains("both state"));
        // Without overrides the account has no code: the call returns nothing.
        let plain = run(devnet.call(Chain::Eth, request(target, Vec::new()), BlockRef::Latest, None)).unwrap();
        assert!(plain.is_empty());
    }

    #[test]
    fn estimates_suffice_code_storage_and_access_lists_are_the_chains() {
        let devnet = Devnet::new(5, Scale::TINY);
        let data = devnet.chain(Chain::Eth);
        let token = data.world.token(Asset::STABLE).unwrap().address;
        let owner = data.ledger.address(w3api_ledger::Holder(1));
        let transfer = Token::transferCall { to: Address::repeat_byte(9), amount: U256::from(1) }.abi_encode();
        let send = TransactionRequest { from: Some(owner), ..request(token, transfer) };
        let estimate = run(devnet.estimate_gas(Chain::Eth, send.clone(), BlockRef::Latest, None)).unwrap();
        let at = |gas: u64| {
            run(devnet.call(Chain::Eth, TransactionRequest { gas: Some(gas), ..send.clone() }, BlockRef::Latest, None))
        };
        let gas = estimate.to::<u64>();
        assert!(at(gas).is_ok(), "the estimate {gas} suffices");
        assert!(
            matches!(at(gas * 9 / 10), Err(SourceError::Halted(_) | SourceError::Reverted { .. })),
            "a tenth less does not"
        );
        assert!(gas > 21_000 && gas < 100_000, "{gas}");
        // A little data to an account without code costs less to run than
        // EIP-7623's floor on it (21,000 + 10 a token, 4 tokens a nonzero
        // byte): the estimate is the floor, the least limit the chain takes.
        let little = TransactionRequest { from: Some(owner), ..request(Address::repeat_byte(8), vec![1, 2]) };
        let floor = run(devnet.estimate_gas(Chain::Eth, little.clone(), BlockRef::Latest, None)).unwrap();
        assert_eq!(floor, U256::from(21_080));
        let below = TransactionRequest { gas: Some(21_079), ..little };
        let refused = run(devnet.call(Chain::Eth, below, BlockRef::Latest, None)).unwrap_err().to_string();
        assert!(refused.contains("floor"), "{refused}");
        // Code and storage.
        let code = run(devnet.code(Chain::Eth, token, BlockRef::Latest)).unwrap();
        assert_eq!(keccak256(&code), data.state.archive().account(token, data.latest()).code_hash);
        assert!(run(devnet.code(Chain::Eth, owner, BlockRef::Latest)).unwrap().is_empty());
        let (slot, value) = data.state.archive().slots_at(token, data.latest())[0];
        assert_eq!(run(devnet.storage_at(Chain::Eth, token, slot, BlockRef::Latest)).unwrap(), B256::from(value));
        // The transfer touches the sender's and the recipient's balances: two slots of the token.
        let listed = run(devnet.create_access_list(Chain::Eth, send, BlockRef::Latest)).unwrap();
        assert_eq!(listed.error, None);
        let item = listed.access_list.iter().find(|i| i.address == token).expect("the token, with its slots");
        assert!(item.storage_keys.len() >= 2, "{listed:?}");
        assert!(listed.access_list.iter().all(|i| i.address != owner), "the sender is left out");
        // A proof through the trait holds the account the archive has.
        let key = w3api_types::rpc::StorageKey::whole(B256::from(slot));
        let proof = run(devnet.proof(Chain::Eth, token, vec![key], BlockRef::Latest)).unwrap();
        assert_eq!(proof.storage_proof[0].value, value);
        assert!(!proof.account_proof.is_empty());
    }
}

/// Transactions users sign, from the accounts Hardhat and Anvil give, are
/// mined at once; bad ones are refused in geth's words and change nothing.
mod sending {
    use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope, TxLegacy};
    use alloy_eips::eip2718::Encodable2718;
    use alloy_primitives::{Address, B256, Bytes, TxKind, U256, address};
    use alloy_signer::SignerSync;
    use alloy_signer_local::PrivateKeySigner;
    use alloy_sol_types::{SolCall, SolConstructor};
    use w3api_contracts::{Collectible, Token};
    use w3api_devnet::{DEV_BALANCE, Devnet, Scale, dev_signers};
    use w3api_source::prelude::*;
    use w3api_source::{BlockRef, SourceError};
    use w3api_types::Chain;
    use w3api_types::rpc::{TransactionRequest, TypedData};

    fn run<T>(future: impl Future<Output = T>) -> T {
        tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(future)
    }

    struct Tx {
        nonce: u64,
        to: TxKind,
        value: u128,
        input: Vec<u8>,
        gas: u64,
        max_fee: u128,
        tip: u128,
        chain_id: u64,
    }

    fn signed(signer: &PrivateKeySigner, tx: Tx) -> Bytes {
        let unsigned = TxEip1559 {
            chain_id: tx.chain_id,
            nonce: tx.nonce,
            gas_limit: tx.gas,
            max_fee_per_gas: tx.max_fee,
            max_priority_fee_per_gas: tx.max_fee.min(tx.tip),
            to: tx.to,
            value: U256::from(tx.value),
            access_list: Default::default(),
            input: tx.input.into(),
        };
        let signature = signer.sign_hash_sync(&unsigned.signature_hash()).unwrap();
        TxEnvelope::from(unsigned.into_signed(signature)).encoded_2718().into()
    }

    fn transfer(nonce: u64, to: Address, value: u128) -> Tx {
        let (max_fee, tip) = (100_000_000_000, 1_000_000_000);
        Tx { nonce, to: TxKind::Call(to), value, input: Vec::new(), gas: 21_000, max_fee, tip, chain_id: 1 }
    }

    #[test]
    fn the_pool_orders_by_tip_replaces_only_for_more_and_drops_what_it_is_asked_to() {
        use w3api_source::ChainControl;
        let devnet = Devnet::new(5, Scale::TINY);
        run(devnet.set_automine(Chain::Eth, false)).unwrap();
        let [low, high, ..] = dev_signers() else { unreachable!() };
        let to = Address::repeat_byte(0x46);
        let send = |signer, tx| run(devnet.send_raw_transaction(Chain::Eth, signed(signer, tx)));
        let gwei = 1_000_000_000;
        let cheap = send(low, Tx { tip: gwei, ..transfer(0, to, 1) }).unwrap();
        let cheap_next = send(low, Tx { tip: 9 * gwei, ..transfer(1, to, 2) }).unwrap();
        let dear = send(high, Tx { tip: 5 * gwei, ..transfer(0, to, 3) }).unwrap();
        // The same sender and nonce: 10% more in both fee cap and tip, or refused.
        let same = Tx { tip: gwei + gwei / 20, max_fee: 105_000_000_000, ..transfer(0, to, 4) };
        let refused = send(low, same).unwrap_err().to_string();
        assert!(refused.contains("replacement transaction underpriced"), "{refused}");
        let doomed = send(high, Tx { tip: 5 * gwei, ..transfer(1, to, 5) }).unwrap();
        let status = run(devnet.pool_content(Chain::Eth)).unwrap().status();
        assert_eq!((status.pending, status.queued), (4, 0));
        assert!(run(devnet.drop_transaction(Chain::Eth, doomed)).unwrap());
        assert!(!run(devnet.drop_transaction(Chain::Eth, doomed)).unwrap(), "dropped already");
        run(devnet.mine(Chain::Eth, 1, None)).unwrap();
        let data = devnet.chain(Chain::Eth);
        let block = &data.blocks[data.latest() as usize];
        let order: Vec<_> = [dear, cheap, cheap_next].iter().map(|hash| data.transaction_index(hash)).collect();
        let first = block.first_tx;
        // The dearer sender first; the cheap sender's second pays more but follows its first.
        assert_eq!(order, [Some(first), Some(first + 1), Some(first + 2)]);
        assert_eq!(block.tx_count, 3);
        drop(data);
        // A queued transaction is dropped whole by anvil_dropAllTransactions.
        send(high, Tx { tip: gwei, ..transfer(5, to, 6) }).unwrap();
        assert_eq!(run(devnet.pool_content(Chain::Eth)).unwrap().status().queued, 1);
        run(devnet.drop_all_transactions(Chain::Eth)).unwrap();
        assert_eq!(run(devnet.pool_content(Chain::Eth)).unwrap(), Default::default());
    }

    #[test]
    fn a_transaction_whose_sender_cannot_be_recovered_is_refused_and_changes_nothing() {
        let devnet = Devnet::new(5, Scale::TINY);
        let unsigned = TxEip1559 {
            chain_id: 1,
            nonce: 0,
            gas_limit: 21_000,
            max_fee_per_gas: 100_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: TxKind::Call(Address::repeat_byte(0x48)),
            value: U256::from(1),
            access_list: Default::default(),
            input: Default::default(),
        };
        // A signature whose r is zero decodes, but names no public key.
        let nameless = alloy_primitives::Signature::new(U256::ZERO, U256::from(1), false);
        let raw: Bytes = TxEnvelope::from(unsigned.into_signed(nameless)).encoded_2718().into();
        let latest = devnet.chain(Chain::Eth).latest();
        let refused = run(devnet.send_raw_transaction(Chain::Eth, raw)).unwrap_err();
        assert!(refused.to_string().contains("invalid sender"), "{refused}");
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest, "no block was made");
        assert_eq!(run(devnet.pool_content(Chain::Eth)).unwrap(), Default::default(), "nothing waits");
    }

    #[test]
    fn with_automine_a_nonce_ahead_waits_for_its_gap_and_then_both_are_mined() {
        let devnet = Devnet::new(5, Scale::TINY);
        let signer = &dev_signers()[7];
        let to = Address::repeat_byte(0x47);
        let latest = devnet.chain(Chain::Eth).latest();
        let ahead = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(1, to, 1)))).unwrap();
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest, "it waits");
        assert!(run(devnet.receipt(Chain::Eth, ahead)).unwrap().is_none());
        let filled = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(0, to, 2)))).unwrap();
        let data = devnet.chain(Chain::Eth);
        assert_eq!(data.latest(), latest + 2, "the gap's filler in its block, then the one it let through");
        let (filled_at, ahead_at) = (data.transaction_index(&filled), data.transaction_index(&ahead));
        assert!(
            filled_at.is_some() && filled_at < ahead_at,
            "{filled_at:?} {ahead_at:?} {:?}",
            run(devnet.pool_content(Chain::Eth))
        );
        drop(data);
        assert_eq!(run(devnet.transaction_count(Chain::Eth, signer.address(), BlockRef::Latest)).unwrap(), 2);
        let low = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(0, to, 3)))).unwrap_err();
        assert!(low.to_string().contains("nonce too low"), "{low}");
    }

    #[test]
    fn the_standard_accounts_are_funded_and_their_transactions_mined_at_once() {
        let devnet = Devnet::new(5, Scale::TINY);
        let [first, second, ..] = dev_signers() else { unreachable!() };
        // The addresses every Hardhat and Anvil user knows.
        assert_eq!(first.address(), address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266"));
        assert_eq!(second.address(), address!("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"));
        let balance = |who: Address, block: BlockRef| run(devnet.balance(Chain::Eth, who, block)).unwrap();
        assert_eq!(balance(first.address(), BlockRef::Earliest), U256::from(DEV_BALANCE));
        let before = devnet.chain(Chain::Eth).latest();
        let to = Address::repeat_byte(0x33);
        let hash = run(devnet.send_raw_transaction(Chain::Eth, signed(first, transfer(0, to, 12_345)))).unwrap();
        let data = devnet.chain(Chain::Eth);
        assert_eq!(data.latest(), before + 1, "mined into a block of its own");
        let index = data.transaction_index(&hash).expect("the chain holds it") as usize;
        assert!(data.receipts[index].success);
        assert_eq!(data.receipts[index].gas_used, 21_000);
        drop(data);
        assert_eq!(balance(to, BlockRef::Latest), U256::from(12_345));
        // A contract deployed by a user runs at once.
        let constructor = Token::constructorCall {
            name_: "Mine".into(),
            symbol_: "MINE".into(),
            decimals_: 6,
            owner_: second.address(),
            initialSupply: U256::from(1_000_000),
        };
        let code = [Token::BYTECODE.as_ref(), &constructor.abi_encode()].concat();
        let deploy = Tx { to: TxKind::Create, input: code, gas: 3_000_000, value: 0, ..transfer(0, to, 0) };
        run(devnet.send_raw_transaction(Chain::Eth, signed(second, deploy))).unwrap();
        let token = second.address().create(0);
        let read = TransactionRequest {
            to: Some(token),
            input: Some(Token::balanceOfCall::new((second.address(),)).abi_encode().into()),
            ..TransactionRequest::default()
        };
        let held = run(devnet.call(Chain::Eth, read, BlockRef::Latest, None)).unwrap();
        assert_eq!(Token::balanceOfCall::abi_decode_returns(&held).unwrap(), U256::from(1_000_000));
        // A transaction that reverts is mined, failed, and charged.
        let mint = Collectible::safeMintCall { to: Address::ZERO, tokenId: U256::from(1) }.abi_encode();
        let collection = devnet.chain(Chain::Eth).world.collections[0].address;
        let failing = Tx { to: TxKind::Call(collection), input: mint, gas: 100_000, ..transfer(1, to, 0) };
        let hash = run(devnet.send_raw_transaction(Chain::Eth, signed(first, failing))).unwrap();
        let data = devnet.chain(Chain::Eth);
        let index = data.transaction_index(&hash).unwrap() as usize;
        assert!(!data.receipts[index].success, "reverted");
    }

    #[test]
    fn the_dev_accounts_sign_messages_typed_data_and_transactions() {
        let devnet = Devnet::new(5, Scale::TINY);
        let accounts = run(devnet.signing_accounts(Chain::Eth)).unwrap();
        assert_eq!(accounts, dev_signers().iter().map(PrivateKeySigner::address).collect::<Vec<_>>());
        let signer = accounts[6];
        let signature = run(devnet.sign(Chain::Eth, signer, Bytes::from_static(b"hello"))).unwrap();
        assert_eq!(signature.len(), 65);
        assert!(matches!(signature[64], 27 | 28), "v as geth gives it");
        let parsed = alloy_primitives::Signature::try_from(&signature[..]).unwrap();
        assert_eq!(parsed.recover_address_from_msg(b"hello").unwrap(), signer);
        let typed = serde_json::json!({
            "types": {
                "EIP712Domain": [{ "name": "name", "type": "string" }, { "name": "chainId", "type": "uint256" }],
                "Mail": [{ "name": "contents", "type": "string" }]
            },
            "primaryType": "Mail",
            "domain": { "name": "w3api", "chainId": 1 },
            "message": { "contents": "hello" }
        });
        let as_text = TypedData(serde_json::Value::String(typed.to_string()));
        let signature = run(devnet.sign_typed_data(Chain::Eth, signer, as_text)).unwrap();
        let parsed_typed: alloy_dyn_abi::TypedData = serde_json::from_value(typed.clone()).unwrap();
        let hash = parsed_typed.eip712_signing_hash().unwrap();
        let parsed = alloy_primitives::Signature::try_from(&signature[..]).unwrap();
        assert_eq!(parsed.recover_address_from_prehash(&hash).unwrap(), signer);
        let broken = serde_json::json!({ "types": {}, "primaryType": "Mail", "domain": {}, "message": {} });
        let refused = run(devnet.sign_typed_data(Chain::Eth, signer, TypedData(broken))).unwrap_err();
        assert!(refused.to_string().contains("typedData"), "{refused}");
        let stranger = Address::repeat_byte(0x99);
        let refused = run(devnet.sign(Chain::Eth, stranger, Bytes::new())).unwrap_err().to_string();
        assert!(refused.contains("is not a dev account"), "{refused}");

        // A transaction with only from, to and value: nonce, gas and fees filled in.
        let to = Address::repeat_byte(0x77);
        let send = TransactionRequest {
            from: Some(signer),
            to: Some(to),
            value: Some(U256::from(5_000)),
            ..TransactionRequest::default()
        };
        for _ in 0..2 {
            let hash = run(devnet.send_transaction(Chain::Eth, send.clone())).unwrap();
            let data = devnet.chain(Chain::Eth);
            let index = data.transaction_index(&hash).unwrap() as usize;
            assert!(data.receipts[index].success);
        }
        assert_eq!(run(devnet.balance(Chain::Eth, to, BlockRef::Latest)).unwrap(), U256::from(10_000));
        assert_eq!(run(devnet.transaction_count(Chain::Eth, signer, BlockRef::Latest)).unwrap(), 2);
        let from_stranger = TransactionRequest { from: Some(stranger), ..send };
        let refused = run(devnet.send_transaction(Chain::Eth, from_stranger)).unwrap_err().to_string();
        assert!(refused.contains("is not a dev account"), "{refused}");
    }

    #[test]
    fn filters_report_what_new_blocks_hold_once() {
        use w3api_types::rpc::{AddressFilter, FilterChanges, LogFilter};
        let devnet = Devnet::new(5, Scale::TINY);
        let signer = &dev_signers()[7];
        let blocks =
            run(devnet.new_change_filter(Chain::Eth, "a key".to_owned(), w3api_source::ChangeFilter::Blocks)).unwrap();
        let constructor = Token::constructorCall {
            name_: "Polled".into(),
            symbol_: "POLL".into(),
            decimals_: 18,
            owner_: signer.address(),
            initialSupply: U256::from(1_000),
        };
        let code = [Token::BYTECODE.as_ref(), &constructor.abi_encode()].concat();
        let deploy = Tx { to: TxKind::Create, input: code, gas: 3_000_000, ..transfer(0, signer.address(), 0) };
        let token = signer.address().create(0);
        let filter = LogFilter { address: Some(AddressFilter::One(token)), ..LogFilter::default() };
        let logs = run(devnet.new_filter(Chain::Eth, "a key".to_owned(), filter)).unwrap();
        assert_ne!(logs, blocks);
        run(devnet.send_raw_transaction(Chain::Eth, signed(signer, deploy))).unwrap();
        let send = Token::transferCall { to: Address::repeat_byte(1), amount: U256::from(10) }.abi_encode();
        let transfer_tx = Tx { to: TxKind::Call(token), input: send, gas: 100_000, ..transfer(1, token, 0) };
        run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer_tx))).unwrap();
        let data = devnet.chain(Chain::Eth);
        let newest: Vec<_> = data.blocks[data.blocks.len() - 2..].iter().map(|b| b.hash).collect();
        drop(data);
        assert_eq!(run(devnet.filter_changes(Chain::Eth, blocks.clone())).unwrap(), FilterChanges::Hashes(newest));
        assert_eq!(run(devnet.filter_changes(Chain::Eth, blocks.clone())).unwrap(), FilterChanges::Hashes(vec![]));
        let FilterChanges::Logs(changes) = run(devnet.filter_changes(Chain::Eth, logs.clone())).unwrap() else {
            panic!("a log filter reports logs")
        };
        assert_eq!(changes.len(), 3, "the owner set and the mint at deployment, and the transfer: {changes:?}");
        assert_eq!(changes[2].block_number, Some(changes[0].block_number.unwrap() + 1));
        assert_eq!(run(devnet.filter_changes(Chain::Eth, logs.clone())).unwrap(), FilterChanges::Logs(vec![]));
        // The whole range, read again: from the newest block, as no fromBlock was given.
        let again = run(devnet.filter_logs(Chain::Eth, logs.clone())).unwrap();
        assert_eq!(again, changes[2..].to_vec());
        assert!(run(devnet.uninstall_filter(Chain::Eth, logs.clone())).unwrap());
        assert!(!run(devnet.uninstall_filter(Chain::Eth, logs.clone())).unwrap());
        let gone = run(devnet.filter_changes(Chain::Eth, logs)).unwrap_err().to_string();
        assert!(gone.contains("not found"), "{gone}");
        let no_logs = run(devnet.filter_logs(Chain::Eth, blocks)).unwrap_err().to_string();
        assert!(no_logs.contains("block filter"), "{no_logs}");
    }

    #[test]
    fn cheat_methods_write_state_in_new_blocks_and_impersonate() {
        use w3api_source::ChainControl;
        let devnet = Devnet::new(5, Scale::TINY);
        let target = Address::repeat_byte(0x42);
        let latest = devnet.chain(Chain::Eth).latest();
        let code = Bytes::from_static(&[0x60, 0x01, 0x60, 0x00, 0x52, 0x60, 0x20, 0x60, 0x00, 0xf3]);
        run(devnet.set_code(Chain::Eth, target, code.clone())).unwrap();
        run(devnet.set_storage_at(Chain::Eth, target, U256::from(3), B256::with_last_byte(9))).unwrap();
        run(devnet.set_nonce(Chain::Eth, target, 77)).unwrap();
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest + 3, "each change is a block");
        assert_eq!(run(devnet.code(Chain::Eth, target, BlockRef::Latest)).unwrap(), code);
        assert!(run(devnet.code(Chain::Eth, target, BlockRef::Number(latest))).unwrap().is_empty(), "not before");
        let slot = run(devnet.storage_at(Chain::Eth, target, U256::from(3), BlockRef::Latest)).unwrap();
        assert_eq!(slot, B256::with_last_byte(9));
        assert_eq!(run(devnet.transaction_count(Chain::Eth, target, BlockRef::Latest)).unwrap(), 77);
        // The code runs: it returns the word 1.
        let call = TransactionRequest { to: Some(target), ..TransactionRequest::default() };
        let returned = run(devnet.call(Chain::Eth, call, BlockRef::Latest, None)).unwrap();
        assert_eq!(U256::from_be_slice(&returned), U256::from(1));

        // An account with code, impersonated, sends; then it no longer may.
        run(devnet.set_balance(Chain::Eth, target, U256::from(10u128.pow(18)))).unwrap();
        let send = TransactionRequest {
            from: Some(target),
            to: Some(Address::repeat_byte(0x43)),
            value: Some(U256::from(1_000)),
            ..TransactionRequest::default()
        };
        let refused = run(devnet.send_transaction(Chain::Eth, send.clone())).unwrap_err().to_string();
        assert!(refused.contains("is not a dev account"), "{refused}");
        run(devnet.impersonate(Chain::Eth, target, true)).unwrap();
        let hash = run(devnet.send_transaction(Chain::Eth, send.clone())).unwrap();
        let data = devnet.chain(Chain::Eth);
        let index = data.transaction_index(&hash).unwrap() as usize;
        assert_eq!((data.transactions[index].sender, data.receipts[index].success), (target, true));
        drop(data);
        assert_eq!(run(devnet.transaction_count(Chain::Eth, target, BlockRef::Latest)).unwrap(), 78);
        run(devnet.impersonate(Chain::Eth, target, false)).unwrap();
        assert!(run(devnet.send_transaction(Chain::Eth, send)).is_err());
    }

    /// A blob transaction in its network form, signed by `signer`: one blob
    /// of `data`, its commitment and proof (EIP-4844's form).
    fn blob_transaction(signer: &PrivateKeySigner, nonce: u64, data: &[u8]) -> Bytes {
        use alloy_consensus::{SidecarBuilder, SimpleCoder, TxEip4844, TxEip4844Variant, TxEip4844WithSidecar};
        use alloy_eips::eip4844::BlobTransactionSidecar;
        let sidecar: BlobTransactionSidecar = SidecarBuilder::<SimpleCoder>::from_slice(data).build().unwrap();
        let tx = TxEip4844 {
            chain_id: 1,
            nonce,
            gas_limit: 21_000,
            max_fee_per_gas: 100_000_000_000,
            max_priority_fee_per_gas: 1_000_000_000,
            to: Address::repeat_byte(0x48),
            value: U256::from(1),
            blob_versioned_hashes: sidecar.versioned_hashes().collect(),
            max_fee_per_blob_gas: 1_000_000_000,
            ..TxEip4844::default()
        };
        let signature = signer.sign_hash_sync(&tx.signature_hash()).unwrap();
        let with = TxEip4844WithSidecar::from_tx_and_sidecar(tx, sidecar.into());
        let signed = alloy_consensus::Signed::new_unhashed(TxEip4844Variant::TxEip4844WithSidecar(with), signature);
        TxEnvelope::Eip4844(signed).encoded_2718().into()
    }

    #[test]
    fn a_blob_transaction_is_taken_with_valid_blobs_and_mined_with_its_blob_gas() {
        let devnet = Devnet::new(5, Scale::TINY);
        let signer = &dev_signers()[7];
        let raw = blob_transaction(signer, 0, b"blobs for the devnet");
        // One byte of the blob changed: its commitment no longer proves it.
        let mut tampered = raw.to_vec();
        let at = tampered.windows(20).position(|w| w.starts_with(b"blobs for")).expect("the blob data");
        tampered[at] ^= 1;
        let refused = run(devnet.send_raw_transaction(Chain::Eth, tampered.into())).unwrap_err();
        assert!(refused.to_string().contains("invalid blobs"), "{refused}");
        let hash = run(devnet.send_raw_transaction(Chain::Eth, raw)).unwrap();
        let receipt = run(devnet.receipt(Chain::Eth, hash)).unwrap().expect("mined at once");
        assert_eq!((receipt.status, receipt.blob_gas_used), (Some(1), Some(131_072)));
        assert_eq!(receipt.blob_gas_price, Some(1), "no excess blob gas yet");
        let data = devnet.chain(Chain::Eth);
        let block = &data.blocks[receipt.block_number as usize];
        assert_eq!(block.header.blob_gas_used, Some(131_072));
        // The chain keeps the transaction without its blobs: its hash is the same.
        let kept = data.transactions[data.transaction_index(&hash).unwrap() as usize].envelope.clone();
        drop(data);
        assert_eq!(*kept.tx_hash(), hash);
        let bare = kept.encoded_2718();
        assert!(bare.len() < 1_000, "no blob in the block");
        // Sent without its blobs (the form a block holds), it is refused, naming what is missing.
        let missing = run(devnet.send_raw_transaction(Chain::Eth, bare.into())).unwrap_err();
        assert!(missing.to_string().contains("with its blobs"), "{missing}");
    }

    #[test]
    fn a_block_built_from_the_pool_takes_what_waits_and_keeps_nothing() {
        use w3api_source::ChainControl;
        let devnet = Devnet::new(5, Scale::TINY);
        run(devnet.set_automine(Chain::Eth, false)).unwrap();
        let signer = &dev_signers()[9];
        let to = Address::repeat_byte(0x47);
        let waiting = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(0, to, 5)))).unwrap();
        let (latest, head) = {
            let data = devnet.chain(Chain::Eth);
            (data.latest(), data.blocks[data.latest() as usize].clone())
        };
        let attributes = w3api_types::rpc::PayloadAttributes {
            timestamp: head.header.timestamp + 12,
            prev_randao: B256::repeat_byte(1),
            suggested_fee_recipient: Address::repeat_byte(0xfe),
            withdrawals: Some(Vec::new()),
            parent_beacon_block_root: Some(B256::ZERO),
        };
        let built = run(devnet.build_block(Chain::Eth, head.hash, attributes.clone(), None, None)).unwrap();
        let payload = &built.execution_payload;
        assert_eq!((payload.block_number, payload.parent_hash), (latest + 1, head.hash));
        assert_eq!(payload.transactions.len(), 1, "the waiting transaction");
        assert_eq!(alloy_primitives::keccak256(&payload.transactions[0]), waiting);
        assert_eq!(payload.gas_used, 21_000);
        assert!(built.block_value > U256::ZERO, "the tip is the fee recipient's");
        // Nothing kept: the head and the pool are as they were.
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest);
        assert!(run(devnet.pool_content(Chain::Eth)).unwrap().pending.contains_key(&signer.address()));
        // Given transactions, only those: a nonce the sender is not at refuses the build.
        let ahead = signed(signer, transfer(7, to, 5));
        let refused = run(devnet.build_block(Chain::Eth, head.hash, attributes, Some(vec![ahead]), None)).unwrap_err();
        assert!(refused.to_string().contains("nonce too high"), "{refused}");
    }

    #[test]
    fn with_automine_off_transactions_wait_for_the_next_block() {
        use w3api_source::ChainControl;
        let devnet = Devnet::new(5, Scale::TINY);
        let signer = &dev_signers()[9];
        let to = Address::repeat_byte(0x45);
        assert!(run(devnet.automine(Chain::Eth)).unwrap());
        run(devnet.set_automine(Chain::Eth, false)).unwrap();
        assert!(!run(devnet.automine(Chain::Eth)).unwrap());
        let latest = devnet.chain(Chain::Eth).latest();
        let first = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(0, to, 5)))).unwrap();
        let second = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(1, to, 6)))).unwrap();
        // A nonce ahead waits, queued, until the gap below it fills.
        let gap = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(3, to, 7)))).unwrap();
        let pool = run(devnet.pool_content(Chain::Eth)).unwrap();
        let (pending, queued) = (&pool.pending[&signer.address()], &pool.queued[&signer.address()]);
        assert_eq!(pending.keys().collect::<Vec<_>>(), ["0", "1"]);
        assert_eq!((queued.len(), queued["3"].hash), (1, gap));
        let again = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(1, to, 6)))).unwrap_err();
        assert!(again.to_string().contains("already known"), "{again}");
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest, "nothing mined yet");
        assert!(devnet.chain(Chain::Eth).transaction_index(&first).is_none());
        // Waiting, as geth's pool shows it: found by hash without a block,
        // no receipt yet, and counted by the pending nonce.
        let waiting = run(devnet.transaction_by_hash(Chain::Eth, second)).unwrap().expect("a waiting transaction");
        assert_eq!((waiting.block_hash, waiting.block_number, waiting.transaction_index), (None, None, None));
        assert_eq!((waiting.from, waiting.nonce, waiting.to), (signer.address(), 1, Some(to)));
        assert_eq!(waiting.gas_price, Some(100_000_000_000), "the most it may pay per gas");
        assert!(run(devnet.receipt(Chain::Eth, second)).unwrap().is_none());
        let nonce_at = |block| run(devnet.transaction_count(Chain::Eth, signer.address(), block)).unwrap();
        assert_eq!((nonce_at(BlockRef::Latest), nonce_at(BlockRef::Pending)), (0, 2));
        // A dev account's send takes the next nonce after those waiting.
        let from = dev_signers()[8].address();
        let request = |value: u64| TransactionRequest {
            from: Some(from),
            to: Some(to),
            value: Some(U256::from(value)),
            ..TransactionRequest::default()
        };
        let third = run(devnet.send_transaction(Chain::Eth, request(0))).unwrap();
        let fourth = run(devnet.send_transaction(Chain::Eth, request(0))).unwrap();
        let nonce_of = |hash| run(devnet.transaction_by_hash(Chain::Eth, hash)).unwrap().unwrap().nonce;
        assert_eq!((nonce_of(third), nonce_of(fourth)), (0, 1));
        run(devnet.mine(Chain::Eth, 1, None)).unwrap();
        let data = devnet.chain(Chain::Eth);
        assert_eq!(data.latest(), latest + 1);
        let block = &data.blocks[data.latest() as usize];
        assert_eq!(block.tx_count, 4, "the next block takes the pending ones");
        let at = |hash: &B256| data.transaction_index(hash).expect("mined");
        let range = block.first_tx..block.first_tx + 4;
        assert!([first, second, third, fourth].iter().all(|hash| range.contains(&at(hash))));
        assert!(at(&first) < at(&second) && at(&third) < at(&fourth), "each sender's in nonce order");
        drop(data);
        let mined = run(devnet.transaction_by_hash(Chain::Eth, second)).unwrap().unwrap();
        assert_eq!(mined.block_number, Some(latest + 1));
        assert!(run(devnet.receipt(Chain::Eth, fourth)).unwrap().is_some());
        assert_eq!(run(devnet.balance(Chain::Eth, to, BlockRef::Latest)).unwrap(), U256::from(11));
        // The queued one still waits for nonce 2; once it comes, both go into the next block.
        let pool = run(devnet.pool_content(Chain::Eth)).unwrap();
        assert!(pool.pending.is_empty() && pool.queued[&signer.address()].contains_key("3"), "{pool:?}");
        let filled = run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(2, to, 8)))).unwrap();
        assert_eq!(run(devnet.pool_content(Chain::Eth)).unwrap().pending[&signer.address()].len(), 2);
        run(devnet.mine(Chain::Eth, 1, None)).unwrap();
        let data = devnet.chain(Chain::Eth);
        assert_eq!(data.transaction_index(&gap), data.transaction_index(&filled).map(|index| index + 1));
        drop(data);
        assert_eq!(run(devnet.pool_content(Chain::Eth)).unwrap(), Default::default(), "the pool is empty");
        let with_interval = Devnet::new(5, Scale::TINY).with_automine(false);
        assert!(!run(with_interval.automine(Chain::Eth)).unwrap(), "a server mining at an interval");
    }

    #[test]
    fn bad_transactions_are_refused_in_geths_words_and_change_nothing() {
        let devnet = Devnet::new(5, Scale::TINY);
        let signer = &dev_signers()[2];
        let to = Address::repeat_byte(0x44);
        let latest = devnet.chain(Chain::Eth).latest();
        // Each is geth's -32000 at the gateway, with geth's words.
        let refused = |raw: Bytes| match run(devnet.send_raw_transaction(Chain::Eth, raw)).unwrap_err() {
            SourceError::TransactionRefused(message) => message,
            other => panic!("refused as something else: {other:?}"),
        };
        assert!(refused(signed(signer, Tx { chain_id: 5, ..transfer(0, to, 1) })).contains("invalid chain id"));
        assert!(refused(signed(signer, Tx { gas: 20_000, ..transfer(0, to, 1) })).contains("intrinsic gas too low"));
        assert!(refused(signed(signer, Tx { max_fee: 1, ..transfer(0, to, 1) })).contains("underpriced"));
        let too_much = transfer(0, to, 20_000 * 10u128.pow(18));
        assert!(refused(signed(signer, too_much)).contains("insufficient funds"));
        assert!(refused(Bytes::from_static(&[0x02, 0xf8])).starts_with("rlp:"));
        // A legacy transaction signed without a chain id is recovered, and its
        // nonce is checked like any other.
        run(devnet.send_raw_transaction(Chain::Eth, signed(signer, transfer(0, to, 1)))).unwrap();
        let replay = TxLegacy {
            nonce: 0,
            gas_price: 100_000_000_000,
            gas_limit: 21_000,
            to: TxKind::Call(to),
            ..TxLegacy::default()
        };
        let signature = signer.sign_hash_sync(&replay.signature_hash()).unwrap();
        let raw: Bytes = TxEnvelope::from(replay.into_signed(signature)).encoded_2718().into();
        assert!(refused(raw).contains("nonce too low"));
        assert_eq!(devnet.chain(Chain::Eth).latest(), latest + 1, "only the good transaction made a block");
    }
}

/// A user's own contracts are the chain's: a token, a collection and a pair
/// a user deploys show in the wallet answers and prices in the answer after
/// the receipt, named by what the contracts say of themselves.
mod users_contracts {
    use alloy_consensus::{SignableTransaction, TxEip1559, TxEnvelope};
    use alloy_eips::eip2718::Encodable2718;
    use alloy_primitives::{Address, Bytes, TxKind, U256};
    use alloy_signer::SignerSync;
    use alloy_signer_local::PrivateKeySigner;
    use alloy_sol_types::{SolCall, SolConstructor};
    use w3api_contracts::{Collectible, Factory, Pair, Token, WrappedNative};
    use w3api_devnet::{Devnet, Scale, TokenKind, dev_signers};
    use w3api_ledger::Asset;
    use w3api_ledger::pricing::PriceFilter;
    use w3api_source::prelude::*;
    use w3api_source::{PageRequest, TokenPriceQuery, WalletNftsQuery, WalletTokensQuery};
    use w3api_types::{Chain, ContractType};

    struct User<'a> {
        devnet: &'a Devnet,
        signer: &'a PrivateKeySigner,
        nonce: u64,
    }

    impl User<'_> {
        /// Sends a transaction and checks it succeeded; what it created, if anything.
        fn send(&mut self, to: TxKind, value: u128, input: Vec<u8>) -> Address {
            let tx = TxEip1559 {
                chain_id: 1,
                nonce: self.nonce,
                gas_limit: 5_000_000,
                max_fee_per_gas: 100_000_000_000,
                max_priority_fee_per_gas: 1_000_000_000,
                to,
                value: U256::from(value),
                access_list: Default::default(),
                input: input.into(),
            };
            let signature = self.signer.sign_hash_sync(&tx.signature_hash()).unwrap();
            let raw: Bytes = TxEnvelope::from(tx.into_signed(signature)).encoded_2718().into();
            let runtime = tokio::runtime::Builder::new_current_thread().build().unwrap();
            let hash = runtime.block_on(self.devnet.send_raw_transaction(Chain::Eth, raw)).unwrap();
            let data = self.devnet.chain(Chain::Eth);
            let index = data.transaction_index(&hash).unwrap() as usize;
            assert!(data.receipts[index].success, "transaction {} of {} reverted", self.nonce, self.signer.address());
            self.nonce += 1;
            self.signer.address().create(self.nonce - 1)
        }

        fn call(&mut self, to: Address, call: impl SolCall) {
            self.send(TxKind::Call(to), 0, call.abi_encode());
        }
    }

    #[test]
    fn a_users_token_collection_and_pair_are_indexed_and_priced_at_once() {
        let devnet = Devnet::new(5, Scale::TINY);
        let mut user = User { devnet: &devnet, signer: &dev_signers()[4], nonce: 0 };
        let holder = Address::repeat_byte(0x5a);
        let owner = user.signer.address();
        let constructor = Token::constructorCall {
            name_: "Garden Coin".into(),
            symbol_: "GRDN".into(),
            decimals_: 6,
            owner_: owner,
            initialSupply: U256::from(10u64.pow(12)),
        };
        let token = user.send(TxKind::Create, 0, [Token::BYTECODE.as_ref(), &constructor.abi_encode()].concat());
        user.call(token, Token::transferCall { to: holder, amount: U256::from(250_000) });
        let query = WalletTokensQuery::new(Chain::Eth, holder);
        let tokens = devnet.chain(Chain::Eth).wallet_tokens(&query, &PageRequest::first(10)).unwrap();
        let held = tokens.holdings.items.iter().find(|t| t.token.address == token).expect("the user's token is listed");
        assert_eq!((held.token.name.as_str(), held.token.symbol.as_str()), ("Garden Coin", "GRDN"));
        assert_eq!((held.token.decimals, held.balance), (6, U256::from(250_000)));
        assert!(!held.token.possible_spam);

        let constructor = Collectible::constructorCall {
            name_: "Garden Plots".into(),
            symbol_: "PLOT".into(),
            baseURI_: "ipfs://plots/".into(),
            owner_: owner,
        };
        let code = [Collectible::BYTECODE.as_ref(), &constructor.abi_encode()].concat();
        let collection = user.send(TxKind::Create, 0, code);
        user.call(collection, Collectible::safeMintCall { to: holder, tokenId: U256::ZERO });
        user.call(collection, Collectible::safeMintCall { to: holder, tokenId: U256::from(7) });
        let query = WalletNftsQuery::new(Chain::Eth, holder);
        let nfts = devnet.chain(Chain::Eth).wallet_nfts(&query, &PageRequest::first(10)).unwrap();
        let mut ids: Vec<_> = nfts.holdings.items.iter().filter(|n| n.collection.address == collection).collect();
        ids.sort_by_key(|n| n.token_id);
        assert_eq!(ids.len(), 2, "token ids 0 and 7");
        assert_eq!(ids[1].collection.name, "Garden Plots");
        assert_eq!(ids[1].collection.contract_type, ContractType::Erc721);
        assert_eq!(ids[0].token_uri.as_deref(), Some("ipfs://plots/0.json"), "what the contract answers");
        assert_eq!(ids[1].token_uri.as_deref(), Some("ipfs://plots/7.json"));
        assert!(ids[1].metadata.is_none(), "the document is the user's, not read");

        // A pair on the devnet's factory, with liquidity: 1,000 GRDN against 1 wrapped ETH.
        let data = devnet.chain(Chain::Eth);
        let factory = data.world.exchanges[0].factory;
        let wrapped = data.world.token(Asset::WRAPPED).unwrap().address;
        drop(data);
        user.call(factory, Factory::createPairCall { tokenA: token, tokenB: wrapped });
        let data = devnet.chain(Chain::Eth);
        let pair = data.world.pairs.last().unwrap().address;
        assert_eq!(data.world.token(data.world.asset_at(token).unwrap()).unwrap().kind, TokenKind::User);
        drop(data);
        let eth = 10u128.pow(18);
        user.send(TxKind::Call(wrapped), eth, WrappedNative::depositCall {}.abi_encode());
        user.call(wrapped, Token::transferCall { to: pair, amount: U256::from(eth) });
        user.call(token, Token::transferCall { to: pair, amount: U256::from(1_000_000_000u64) });
        user.call(pair, Pair::mintCall { to: owner });
        let data = devnet.chain(Chain::Eth);
        let asset = data.world.asset_at(token).unwrap();
        let native_usd = data.usd_price(Asset::NATIVE, data.latest(), PriceFilter::default()).unwrap();
        let query = TokenPriceQuery {
            chain: Chain::Eth,
            address: token,
            exchange: None,
            to_block: None,
            include_percent_change: false,
            max_token_inactivity_days: None,
            min_pair_side_liquidity_usd: None,
        };
        let price = data.token_price(&query).unwrap();
        assert_eq!(price.pair_address, Some(pair));
        let expected = native_usd / 1_000.0;
        assert!((price.usd_price - expected).abs() < expected * 1e-9, "{} vs {expected}", price.usd_price);
        assert_eq!(data.usd_price(asset, data.latest(), PriceFilter::default()), Some(price.usd_price));
    }

    /// Creation code that emits `logs` (topics, a one-word data) and leaves no code.
    fn emitting(logs: &[(Vec<alloy_primitives::B256>, U256)]) -> Vec<u8> {
        let mut code = Vec::new();
        for (topics, word) in logs {
            code.push(0x7f); // PUSH32 word
            code.extend_from_slice(&word.to_be_bytes::<32>());
            code.extend_from_slice(&[0x60, 0x00, 0x52]); // PUSH1 0, MSTORE
            for topic in topics.iter().rev() {
                code.push(0x7f);
                code.extend_from_slice(topic.as_slice());
            }
            code.extend_from_slice(&[0x60, 0x20, 0x60, 0x00, 0xa0 + topics.len() as u8]); // size 32, offset 0, LOGn
        }
        code.push(0x00);
        code
    }

    #[test]
    fn a_contract_breaking_its_standard_moves_nothing_it_does_not_hold() {
        use alloy_primitives::{B256, keccak256};
        let devnet = Devnet::new(5, Scale::TINY);
        let mut user = User { devnet: &devnet, signer: &dev_signers()[8], nonce: 0 };
        let transfer = keccak256("Transfer(address,address,uint256)");
        let (holder, nobody) = (Address::repeat_byte(0x6b), Address::repeat_byte(0x6c));
        let word = |a: Address| B256::left_padding_from(a.as_slice());
        let code = emitting(&[
            // A mint of 5 to the holder: kept.
            (vec![transfer, B256::ZERO, word(holder)], U256::from(5)),
            // 10^30 moved from an account holding nothing: left out.
            (vec![transfer, word(nobody), word(holder)], U256::from(10).pow(U256::from(30))),
            // An ERC721 id past what the ledger numbers: left out.
            (vec![transfer, B256::ZERO, word(holder), B256::from(U256::from(1u64 << 40))], U256::ZERO),
        ]);
        let contract = user.send(TxKind::Create, 0, code);
        let data = devnet.chain(Chain::Eth);
        let asset = data.world.asset_at(contract).expect("its Transfer made it a token");
        let token = data.world.token(asset).unwrap();
        assert_eq!((token.name.as_str(), token.symbol.as_str(), token.decimals), ("", "", 0), "it answers no metadata");
        let holder_id = data.ledger.find(holder).unwrap();
        assert_eq!(data.ledger.balance(holder_id, asset), 5);
        assert!(data.world.collection_at(contract).is_some(), "its four-topic Transfer made it a collection too");
        let query = WalletNftsQuery::new(Chain::Eth, holder);
        assert!(data.wallet_nfts(&query, &PageRequest::first(10)).unwrap().holdings.items.is_empty());
    }
}

/// `eth_simulateV1` on the devnet's own chain: blocks on top of the
/// newest, each seeing what the one before left, with the transfers
/// logged, and nothing kept.
#[test]
fn simulated_blocks_follow_the_newest_and_see_each_others_state() {
    let data = chain();
    let latest = data.latest();
    let (sender, receiver) =
        ("0xc000000000000000000000000000000000000000", "0xc100000000000000000000000000000000000000");
    // Returns BALANCE(receiver), as a 32-byte word.
    let reader = format!("0x73{}3160005260206000f3", &receiver[2..]);
    let payload: w3api_types::rpc::SimulatePayload = serde_json::from_value(serde_json::json!({
        "blockStateCalls": [
            {
                "stateOverrides": { sender: { "balance": "0xde0b6b3a7640000" } },
                "calls": [{ "from": sender, "to": receiver, "value": "0x3e8" }]
            },
            {
                "stateOverrides": { "0xc200000000000000000000000000000000000000": { "code": reader } },
                "calls": [{ "from": sender, "to": "0xc200000000000000000000000000000000000000" }]
            }
        ],
        "traceTransfers": true
    }))
    .unwrap();
    let blocks = data.simulate(payload, w3api_source::BlockRef::Latest, 50_000_000, &|| false).unwrap();
    assert_eq!(blocks.len(), 2);
    let (first, second) = (&blocks[0], &blocks[1]);
    assert_eq!(first.block.number, latest + 1);
    assert_eq!(first.block.parent_hash, data.blocks[latest as usize].hash);
    assert_eq!(second.block.parent_hash, first.block.hash);
    assert_eq!(first.calls[0].status, 1);
    let transfer = &first.calls[0].logs[0];
    assert_eq!(transfer.address, w3api_chain::simulate::NATIVE_TOKEN);
    assert_eq!(transfer.data.as_ref(), U256::from(1_000).to_be_bytes::<32>().as_slice());
    // The second block reads the balance the first one's call left.
    assert_eq!(second.calls[0].return_data.as_ref(), U256::from(1_000).to_be_bytes::<32>().as_slice());
    // Nothing is kept: the chain has no block past its newest, and the receiver nothing.
    assert_eq!(data.latest(), latest);
    let receiver: Address = receiver.parse().unwrap();
    assert_eq!(data.state.archive().account(receiver, latest).balance, U256::ZERO);
}

/// A simulation geth would refuse is refused with geth's code, before any
/// call runs: blocks out of order, and too many of them.
#[test]
fn a_simulation_out_of_order_or_too_long_is_refused_with_geths_codes() {
    let data = chain();
    let latest = data.latest();
    let refused = |payload: serde_json::Value| {
        let payload = serde_json::from_value(payload).unwrap();
        match data.simulate(payload, w3api_source::BlockRef::Latest, 50_000_000, &|| false) {
            Err(w3api_source::SourceError::SimulationRefused { kind, message }) => (kind, message),
            other => panic!("expected a refusal, got {other:?}"),
        }
    };
    let backwards = serde_json::json!({ "blockStateCalls": [
        { "blockOverrides": { "number": format!("{:#x}", latest + 5) } },
        { "blockOverrides": { "number": format!("{:#x}", latest + 2) } }
    ]});
    let (kind, message) = refused(backwards);
    assert_eq!(kind, w3api_source::SimulationRefusal::BlockNumberOrder);
    assert_eq!(message, format!("block numbers must be in order: {} <= {}", latest + 2, latest + 5));
    let far =
        serde_json::json!({ "blockStateCalls": [{ "blockOverrides": { "number": format!("{:#x}", latest + 257) } }]});
    assert_eq!(refused(far).0, w3api_source::SimulationRefusal::ClientLimitExceeded);
    assert_eq!(refused(serde_json::json!({ "blockStateCalls": [] })).0, w3api_source::SimulationRefusal::InvalidParams);
}
