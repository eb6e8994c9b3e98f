//! The four JSON-RPC methods through `w3api-rpc`: block tags, null results
//! for what does not exist, token prices, batches, and the typed errors.

use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_rpc::{ErrorCode, RpcClient, RpcError};
use w3api_tests::local::Session;
use w3api_types::rpc::{Block, BlockNumberOrTag, BlockTransactions, TokenPriceInclude, TokenPriceParams};
use w3api_types::{Address, TokenBalance};

async fn block(rpc: &RpcClient, block: BlockNumberOrTag, full: bool) -> Block {
    rpc.get_block_by_number(block, full).await.unwrap().unwrap_or_else(|| panic!("block {block} exists"))
}

/// The error kind of a failed call.
fn kind<T: std::fmt::Debug>(result: Result<T, RpcError>) -> Option<ErrorCode> {
    result.expect_err("the call should fail").kind()
}

/// Blocks by number and by tag, with transaction hashes or in full.
mod blocks {
    use super::*;

    #[test]
    fn tags_name_the_blocks_they_should() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let latest = block(&rpc, BlockNumberOrTag::Latest, false).await;
            assert!(latest.number > 1000, "the default devnet has thousands of blocks");
            assert_eq!(block(&rpc, BlockNumberOrTag::Number(latest.number), false).await, latest);
            assert_eq!(block(&rpc, BlockNumberOrTag::Pending, false).await, latest, "nothing is pending");
            let genesis = block(&rpc, BlockNumberOrTag::Earliest, false).await;
            assert_eq!(genesis.number, 0);
            assert_eq!(block(&rpc, BlockNumberOrTag::Number(0), false).await, genesis);
            let first = block(&rpc, BlockNumberOrTag::Number(1), false).await;
            assert_eq!(first.parent_hash, genesis.hash, "blocks link to their parents");
            let beyond = rpc.get_block_by_number(BlockNumberOrTag::Number(latest.number + 1), true).await;
            assert_eq!(beyond.unwrap(), None, "a block not made yet is a null result");
        });
        session.finish();
    }

    #[test]
    fn hydrated_blocks_carry_the_transactions_their_hashes_name() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let hashes = block(&rpc, BlockNumberOrTag::Number(1), false).await;
            let full = block(&rpc, BlockNumberOrTag::Number(1), true).await;
            assert!(matches!(hashes.transactions, BlockTransactions::Hashes(_)));
            let BlockTransactions::Full(transactions) = &full.transactions else { panic!("full transactions") };
            assert!(!transactions.is_empty(), "block 1 deploys the contracts");
            assert_eq!(full.transactions.hashes(), hashes.transactions.hashes());
            for (index, tx) in transactions.iter().enumerate() {
                assert_eq!((tx.block_hash, tx.block_number), (Some(full.hash), Some(full.number)));
                assert_eq!(tx.transaction_index, Some(index as u64));
            }
            assert_eq!(Block { transactions: hashes.transactions.clone(), ..full }, hashes);
        });
        session.finish();
    }
}

/// Transactions by block and position; null past the end or for unknown blocks.
mod transactions {
    use super::*;

    #[test]
    fn both_lookups_agree_and_miss_alike() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let full = block(&rpc, BlockNumberOrTag::Number(1), true).await;
            let count = full.transactions.len() as u64;
            let BlockTransactions::Full(transactions) = &full.transactions else { panic!("full transactions") };
            for index in [0, count / 2, count - 1] {
                let by_number =
                    rpc.get_transaction_by_block_number_and_index(full.number.into(), index.into()).await.unwrap();
                let by_hash = rpc.get_transaction_by_block_hash_and_index(full.hash, index.into()).await.unwrap();
                assert_eq!(by_number.as_ref(), Some(&transactions[index as usize]));
                assert_eq!(by_hash, by_number);
            }
            let past_end = rpc.get_transaction_by_block_number_and_index(full.number.into(), count.into()).await;
            assert_eq!(past_end.unwrap(), None);
            let unknown = w3api_types::B256::repeat_byte(0x12);
            assert_eq!(rpc.get_transaction_by_block_hash_and_index(unknown, 0.into()).await.unwrap(), None);
            let latest = block(&rpc, BlockNumberOrTag::Latest, true).await;
            let beyond = BlockNumberOrTag::Number(latest.number + 1);
            assert_eq!(rpc.get_transaction_by_block_number_and_index(beyond, 0.into()).await.unwrap(), None);
            let by_tag = rpc.get_transaction_by_block_number_and_index(BlockNumberOrTag::Latest, 0.into()).await;
            // An empty list reads back as either variant: JSON `[]` cannot say which.
            match &latest.transactions {
                BlockTransactions::Full(txs) => assert_eq!(by_tag.unwrap().as_ref(), txs.first()),
                BlockTransactions::Hashes(hashes) if hashes.is_empty() => assert_eq!(by_tag.unwrap(), None),
                BlockTransactions::Hashes(_) => panic!("asked for full transactions"),
            }
            let genesis = rpc.get_transaction_by_block_number_and_index(BlockNumberOrTag::Earliest, 0.into()).await;
            assert_eq!(genesis.unwrap(), None, "genesis has no transactions");
        });
        session.finish();
    }
}

/// `eth_getTokenPrice`: the showcase wallet's tokens are priced, other
/// addresses get the PriceNotFound error, and parameters are checked.
mod prices {
    use super::*;

    /// The ERC20 tokens the showcase wallet holds that the data API prices.
    async fn priced_tokens(session: &Session<'_>) -> Vec<Address> {
        let showcase = session.devnet().sample_wallets(1)[0];
        let rest = session.rest();
        let request = rest.data().get_wallet_token_balances_price().address(showcase).exclude_native(true);
        let items: Vec<TokenBalance> = request.items().try_collect().await.unwrap();
        items.into_iter().filter(|t| t.usd_price.is_some()).map(|t| t.token_address.unwrap()).collect()
    }

    #[test]
    fn tokens_are_priced_on_any_or_a_named_exchange() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let tokens = priced_tokens(&session).await;
            assert!(tokens.len() >= 5, "the showcase wallet holds priced tokens: {tokens:?}");
            let mut changes = 0;
            for token in tokens {
                let params = TokenPriceParams {
                    include: Some(TokenPriceInclude::PercentChange),
                    ..TokenPriceParams::new(token)
                };
                let price = rpc.get_token_price(params).await.unwrap();
                assert_eq!(price.token_address, Some(token));
                assert!(price.usd_price > 0.0, "{price:?}");
                changes += usize::from(price.percent_change_24hr.is_some());
                let on_exchange =
                    TokenPriceParams { exchange: Some(price.exchange_name.clone()), ..TokenPriceParams::new(token) };
                let same = rpc.get_token_price(on_exchange).await.unwrap();
                assert_eq!(same.exchange_address, price.exchange_address, "the deepest pair is on that exchange");
                assert_eq!(same.usd_price, price.usd_price);
                let plain = rpc.get_token_price(TokenPriceParams::new(token)).await.unwrap();
                assert_eq!(plain.percent_change_24hr, None, "the change comes only when asked for");
            }
            assert!(changes > 0, "over a day of blocks, some token has a 24-hour change");
        });
        session.finish();
    }

    #[test]
    fn unpriced_addresses_and_bad_parameters_have_typed_errors() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let token = priced_tokens(&session).await[0];
            let nothing = TokenPriceParams::new(Address::repeat_byte(0x77));
            assert_eq!(kind(rpc.get_token_price(nothing).await), Some(ErrorCode::PriceNotFound));
            let nowhere = TokenPriceParams { exchange: Some("Nowhere".into()), ..TokenPriceParams::new(token) };
            assert_eq!(kind(rpc.get_token_price(nowhere).await), Some(ErrorCode::InvalidParams));
            let latest = block(&rpc, BlockNumberOrTag::Latest, false).await.number;
            let future = TokenPriceParams { to_block: Some(latest + 1), ..TokenPriceParams::new(token) };
            let error = rpc.get_token_price(future).await.expect_err("a block not made yet has no price");
            assert_eq!(error.kind(), Some(ErrorCode::InvalidParams), "{error}");
        });
        session.finish();
    }
}

/// Batches: every call answered in order, a failing call failing alone.
mod batches {
    use super::*;

    #[test]
    fn a_batch_answers_each_call_as_a_single_call_would() {
        let session = Session::new();
        let rpc = session.rpc();
        session.run(async {
            let latest = block(&rpc, BlockNumberOrTag::Latest, true).await;
            let mut batch = rpc.batch();
            let genesis = batch.get_block_by_number(BlockNumberOrTag::Earliest, false);
            let newest = batch.get_block_by_number(BlockNumberOrTag::Number(latest.number), true);
            let missing = batch.get_block_by_number(BlockNumberOrTag::Number(latest.number + 1), false);
            let first_tx = batch.get_transaction_by_block_number_and_index(BlockNumberOrTag::Latest, 0.into());
            let by_hash = batch.get_transaction_by_block_hash_and_index(latest.hash, 0.into());
            let unpriced = batch.get_token_price(TokenPriceParams::new(Address::repeat_byte(0x77)));
            assert_eq!(batch.len(), 6);
            let answers = batch.send().await.unwrap();
            assert_eq!(answers.len(), 6);
            assert_eq!(answers.get(&genesis).unwrap(), Some(block(&rpc, BlockNumberOrTag::Earliest, false).await));
            assert_eq!(answers.get(&newest).unwrap().as_ref(), Some(&latest));
            assert_eq!(answers.get(&missing).unwrap(), None);
            let single = rpc.get_transaction_by_block_number_and_index(BlockNumberOrTag::Latest, 0.into()).await;
            assert_eq!(answers.get(&first_tx).unwrap(), single.unwrap());
            assert_eq!(answers.get(&by_hash).unwrap(), answers.get(&first_tx).unwrap());
            assert_eq!(kind(answers.get(&unpriced)), Some(ErrorCode::PriceNotFound));
        });
        session.finish();
    }
}

/// The key in the path: a wrong one is refused before any call runs.
mod keys {
    use super::*;

    #[test]
    fn a_wrong_key_is_unauthorized_for_calls_and_batches() {
        let session = Session::new();
        let rpc = session.rpc_with_key(&session.wrong_key());
        session.run(async {
            let single = rpc.get_block_by_number(BlockNumberOrTag::Latest, false).await;
            assert_eq!(kind(single), Some(ErrorCode::Unauthorized));
            let mut batch = rpc.batch();
            batch.get_block_by_number(BlockNumberOrTag::Earliest, false);
            assert_eq!(kind(batch.send().await), Some(ErrorCode::Unauthorized));
        });
        session.finish();
    }
}
