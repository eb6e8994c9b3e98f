//! A chain grown after it is generated (live blocks, cheat methods): new
//! blocks check out as the generated ones do, every answer follows them,
//! and snapshots, time and balances behave as development nodes' do.

use alloy_primitives::{Address, U256};
use w3api_devnet::{Asset, BLOCK_TIME, BlockPlan, Devnet, PriceFilter, Scale};
use w3api_source::prelude::*;
use w3api_source::{BlockRef, ChainControl, PageRequest, SourceError, WalletTokensQuery};
use w3api_types::Chain;

use crate::chain::{check_blocks, check_transactions};

fn tiny() -> Devnet {
    Devnet::new(7, Scale::TINY)
}

#[tokio::test]
async fn blocks_of_activity_check_out_and_move_balances_and_prices() {
    let devnet = tiny();
    let generated = devnet.latest_block(Chain::Eth).await.unwrap();
    let latest = devnet.mine_blocks(Chain::Eth, 40, BlockPlan::activity()).await.unwrap();
    assert_eq!(latest, generated + 40);
    let data = devnet.chain(Chain::Eth);
    let new_transactions = data.transactions.len() - data.blocks[generated as usize + 1].first_tx as usize;
    assert!(new_transactions >= 40, "{new_transactions} transactions in 40 live blocks");
    check_blocks(&data, generated + 1);
    check_transactions(&data, generated + 1);
    // Every price at every new block is what the reserves then say.
    let mut moved = 0;
    for block in generated + 1..=latest {
        for asset in data.world.assets() {
            let indexed = data.price(asset, block, PriceFilter::default());
            assert_eq!(indexed, data.compute_price(asset, block, PriceFilter::default()), "{asset:?} at {block}");
            moved += usize::from(indexed != data.price(asset, block - 1, PriceFilter::default()));
        }
    }
    assert!(moved > 0, "swaps in 40 blocks moved no price");
    // Balances are the sum of the movements, generated and live alike.
    let mut sums = std::collections::HashMap::<_, i128>::new();
    for movement in data.ledger.movements() {
        if let w3api_devnet::Movement::Fungible { asset, from, to, amount, .. } = *movement {
            *sums.entry((from, asset)).or_default() -= amount as i128;
            *sums.entry((to, asset)).or_default() += amount as i128;
        }
    }
    for ((holder, asset), sum) in sums {
        if holder != w3api_devnet::Holder::NOBODY {
            assert_eq!(data.ledger.balance(holder, asset) as i128, sum, "{holder:?} {asset:?}");
        }
    }
}

#[tokio::test]
async fn a_set_balance_is_any_amount_written_at_the_start_of_a_new_block() {
    let devnet = tiny();
    let someone = Address::repeat_byte(0x5e);
    let before = devnet.latest_block(Chain::Eth).await.unwrap();
    let ten_ether = U256::from(10u128.pow(19));
    devnet.set_balance(Chain::Eth, someone, ten_ether).await.unwrap();
    let latest = devnet.latest_block(Chain::Eth).await.unwrap();
    assert_eq!(latest, before + 1);
    assert_eq!(devnet.balance(Chain::Eth, someone, BlockRef::Latest).await.unwrap(), ten_ether);
    assert_eq!(devnet.balance(Chain::Eth, someone, BlockRef::Number(before)).await.unwrap(), U256::ZERO);
    let data = devnet.chain(Chain::Eth);
    assert!(data.transactions_of(&data.blocks[latest as usize]).is_empty(), "no transaction pays for it");
    drop(data);
    // The wallet tokens say so too.
    let query = WalletTokensQuery::new(Chain::Eth, someone);
    let tokens = devnet.wallet_tokens(query, PageRequest::first(10)).await.unwrap();
    assert_eq!(tokens.block_number, latest);
    assert_eq!(tokens.holdings.items.len(), 1);
    assert_eq!(tokens.holdings.items[0].balance, ten_ether);
    // The same balance again mines nothing; a lower one, or more than any
    // faucet holds, is set as asked, and the account can still send.
    devnet.set_balance(Chain::Eth, someone, ten_ether).await.unwrap();
    assert_eq!(devnet.latest_block(Chain::Eth).await.unwrap(), latest);
    for balance in [U256::from(1), U256::from(10u128.pow(30)), U256::ZERO, U256::MAX] {
        devnet.set_balance(Chain::Eth, someone, balance).await.unwrap();
        assert_eq!(devnet.balance(Chain::Eth, someone, BlockRef::Latest).await.unwrap(), balance);
    }
    let rich = w3api_devnet::dev_addresses().next().unwrap();
    devnet.set_balance(Chain::Eth, rich, U256::from(10u128.pow(30))).await.unwrap();
    let send = w3api_types::rpc::TransactionRequest {
        from: Some(rich),
        to: Some(Address::repeat_byte(0x5f)),
        value: Some(U256::from(10u128.pow(29))),
        ..Default::default()
    };
    Signing::send_transaction(&devnet, Chain::Eth, send).await.unwrap();
    let paid = devnet.balance(Chain::Eth, rich, BlockRef::Latest).await.unwrap();
    assert!(paid < U256::from(9 * 10u128.pow(29)), "{paid}");
    // The ledger holds what the EVM holds (up to 2^128 - 1, where it stops).
    let data = devnet.chain(Chain::Eth);
    for (address, evm) in [(rich, paid), (someone, U256::from(u128::MAX))] {
        let holder = data.ledger.find(address).unwrap();
        assert_eq!(U256::from(data.ledger.balance(holder, Asset::NATIVE)), evm, "{address}");
    }
}

#[tokio::test]
async fn revert_puts_back_every_answer_and_moves_the_revision() {
    let devnet = tiny();
    let wallet = devnet.sample_wallets(1)[0];
    let query = || WalletTokensQuery::new(Chain::Eth, wallet);
    let generated = devnet.latest_block(Chain::Eth).await.unwrap();
    let tokens_before = devnet.wallet_tokens(query(), PageRequest::first(50)).await.unwrap();
    let head_before = devnet.block(Chain::Eth, BlockRef::Latest, true).await.unwrap().unwrap();
    let first = devnet.snapshot(Chain::Eth).await.unwrap();
    devnet.mine_blocks(Chain::Eth, 20, BlockPlan::activity()).await.unwrap();
    devnet.set_balance(Chain::Eth, wallet, U256::from(10u128.pow(24))).await.unwrap();
    let second = devnet.snapshot(Chain::Eth).await.unwrap();
    assert!(second > first);
    let tokens_after = devnet.wallet_tokens(query(), PageRequest::first(50)).await.unwrap();
    assert_ne!(tokens_after, tokens_before);
    let revision = devnet.revision(Chain::Eth);

    assert!(devnet.revert(Chain::Eth, first).await.unwrap());
    assert_eq!(devnet.latest_block(Chain::Eth).await.unwrap(), generated);
    assert_eq!(devnet.wallet_tokens(query(), PageRequest::first(50)).await.unwrap(), tokens_before);
    assert_eq!(devnet.block(Chain::Eth, BlockRef::Latest, true).await.unwrap().unwrap(), head_before);
    assert!(devnet.revision(Chain::Eth) > revision);
    // Blocks after the snapshot are gone, by number and by hash.
    assert_eq!(devnet.block(Chain::Eth, BlockRef::Number(generated + 1), false).await.unwrap(), None);
    // The snapshot and the later one are used up.
    assert!(!devnet.revert(Chain::Eth, first).await.unwrap());
    assert!(!devnet.revert(Chain::Eth, second).await.unwrap());
    // The chain goes on from where it went back to, and checks out.
    devnet.mine_blocks(Chain::Eth, 3, BlockPlan::activity()).await.unwrap();
    let data = devnet.chain(Chain::Eth);
    check_blocks(&data, generated);
    check_transactions(&data, generated);
}

#[tokio::test]
async fn reset_goes_back_to_the_generated_chain() {
    let devnet = tiny();
    let generated = devnet.block(Chain::Base, BlockRef::Latest, false).await.unwrap().unwrap();
    let snapshot = devnet.snapshot(Chain::Base).await.unwrap();
    devnet.mine(Chain::Base, 5, None).await.unwrap();
    devnet.reset(Chain::Base).await.unwrap();
    assert_eq!(devnet.block(Chain::Base, BlockRef::Latest, false).await.unwrap().unwrap(), generated);
    assert!(!devnet.revert(Chain::Base, snapshot).await.unwrap(), "a reset forgets snapshots");
}

#[tokio::test]
async fn time_moves_as_the_cheat_methods_say() {
    let devnet = tiny();
    let chain = Chain::Eth;
    let timestamp = |devnet: &Devnet, number: u64| devnet.chain(chain).timestamp(number);
    let start = devnet.latest_block(chain).await.unwrap();
    let at_start = timestamp(&devnet, start);
    devnet.mine(chain, 2, None).await.unwrap();
    assert_eq!(timestamp(&devnet, start + 2), at_start + 2 * BLOCK_TIME);
    devnet.mine(chain, 2, Some(60)).await.unwrap();
    assert_eq!(timestamp(&devnet, start + 4), at_start + 2 * BLOCK_TIME + 120);
    // An interval of 0 means none, as viem sends it.
    devnet.mine(chain, 1, Some(0)).await.unwrap();
    assert_eq!(timestamp(&devnet, start + 5), at_start + 3 * BLOCK_TIME + 120);
    let start = start + 1;
    assert_eq!(devnet.increase_time(chain, 100).await.unwrap(), 100);
    assert_eq!(devnet.increase_time(chain, 50).await.unwrap(), 150);
    devnet.mine(chain, 1, None).await.unwrap();
    assert_eq!(timestamp(&devnet, start + 5), timestamp(&devnet, start + 4) + BLOCK_TIME + 150);
    // Time added is used up by one block.
    devnet.mine(chain, 1, None).await.unwrap();
    assert_eq!(timestamp(&devnet, start + 6), timestamp(&devnet, start + 5) + BLOCK_TIME);
    let newest = timestamp(&devnet, start + 6);
    let error = devnet.set_next_block_timestamp(chain, newest).await.unwrap_err();
    assert!(matches!(&error, SourceError::InvalidChange(m) if m.contains("not after")), "{error}");
    devnet.set_next_block_timestamp(chain, newest + 86_400).await.unwrap();
    devnet.mine(chain, 1, None).await.unwrap();
    let day_later = start + 7;
    assert_eq!(timestamp(&devnet, day_later), newest + 86_400);
    // "A day before" follows timestamps, not block counts.
    assert_eq!(devnet.chain(chain).day_before(day_later), Some(start + 6));
    let generated = start - 1;
    let error = devnet.mine(chain, w3api_devnet::MAX_MINED_BLOCKS + 1, None).await.unwrap_err();
    assert!(error.to_string().contains("at most"), "{error}");
    // Generated blocks still answer "a day before" by count.
    let data = devnet.chain(chain);
    assert_eq!(data.day_before(generated), generated.checked_sub(w3api_devnet::BLOCKS_PER_DAY));
    assert!(data.price(Asset::WRAPPED, day_later, PriceFilter::default()).is_some());
}

/// A dev account sends a set-code transaction (EIP-7702) as Anvil does:
/// the account that signed the authorization takes the delegate's code.
#[tokio::test]
async fn a_dev_account_sends_a_set_code_transaction_and_the_signer_is_delegated() {
    use alloy_signer::SignerSync;
    let devnet = tiny();
    let (sender, authority) = (&w3api_devnet::dev_signers()[0], &w3api_devnet::dev_signers()[1]);
    let delegate = Address::repeat_byte(0x7d);
    let chain_id = U256::from(Chain::Eth.id().unwrap());
    let nonce = devnet.transaction_count(Chain::Eth, authority.address(), BlockRef::Latest).await.unwrap();
    let unsigned = alloy_eips::eip7702::Authorization { chain_id, address: delegate, nonce };
    let signature = authority.sign_hash_sync(&unsigned.signature_hash()).unwrap();
    let authorization = w3api_types::rpc::Authorization {
        chain_id,
        address: delegate,
        nonce,
        y_parity: u8::from(signature.v()),
        r: signature.r(),
        s: signature.s(),
    };
    let send = w3api_types::rpc::TransactionRequest {
        from: Some(sender.address()),
        to: Some(Address::repeat_byte(0x5e)),
        authorization_list: Some(vec![authorization.clone()]),
        ..Default::default()
    };
    let hash = Signing::send_transaction(&devnet, Chain::Eth, send).await.unwrap();
    let mined = devnet.transaction_by_hash(Chain::Eth, hash).await.unwrap().unwrap();
    assert_eq!((mined.tx_type, mined.authorization_list), (4, Some(vec![authorization])));
    let code = devnet.code(Chain::Eth, authority.address(), BlockRef::Latest).await.unwrap();
    assert_eq!(code.as_ref(), [&[0xef, 0x01, 0x00][..], delegate.as_slice()].concat(), "EIP-7702's delegation");
    // Signed elsewhere and sent raw, as a wallet sends one.
    let other = &w3api_devnet::dev_signers()[2];
    let nonce = devnet.transaction_count(Chain::Eth, other.address(), BlockRef::Latest).await.unwrap();
    let unsigned = alloy_eips::eip7702::Authorization { chain_id, address: delegate, nonce: nonce + 1 };
    let signature = other.sign_hash_sync(&unsigned.signature_hash()).unwrap();
    let fees = devnet.fee_suggestion(Chain::Eth).await.unwrap();
    let tx = alloy_consensus::TxEip7702 {
        chain_id: Chain::Eth.id().unwrap(),
        nonce,
        gas_limit: 100_000,
        max_fee_per_gas: fees.next_base_fee * 2 + fees.tip,
        max_priority_fee_per_gas: fees.tip,
        to: Address::repeat_byte(0x5e),
        authorization_list: vec![unsigned.into_signed(signature)],
        ..Default::default()
    };
    let signed = alloy_consensus::SignableTransaction::into_signed(
        tx.clone(),
        other.sign_hash_sync(&alloy_consensus::SignableTransaction::signature_hash(&tx)).unwrap(),
    );
    let raw = alloy_eips::eip2718::Encodable2718::encoded_2718(&alloy_consensus::TxEnvelope::from(signed));
    Sending::send_raw_transaction(&devnet, Chain::Eth, raw.into()).await.unwrap();
    let code = devnet.code(Chain::Eth, other.address(), BlockRef::Latest).await.unwrap();
    assert_eq!(code.as_ref(), [&[0xef, 0x01, 0x00][..], delegate.as_slice()].concat(), "delegated by a raw one too");
    // Blob transactions come signed, with their sidecar.
    let blob = w3api_types::rpc::TransactionRequest {
        from: Some(sender.address()),
        to: Some(Address::repeat_byte(0x5e)),
        blob_versioned_hashes: Some(vec![alloy_primitives::B256::repeat_byte(1)]),
        ..Default::default()
    };
    let refused = Signing::send_transaction(&devnet, Chain::Eth, blob).await.unwrap_err();
    assert!(refused.to_string().contains("eth_sendRawTransaction"), "{refused}");
}
