//! The one backend type the server is compiled for: a backend behind it
//! answers every concern as it answers alone, the query core's questions
//! included, and what it refuses stays refused.

use std::sync::{Arc, Mutex};

use w3api_devnet::{Devnet, Scale};
use w3api_query::Asks;
use w3api_query::block_at::BlockAt;
use w3api_server::DynBackend;
use w3api_source::prelude::*;
use w3api_source::{BlockRef, PageRequest, SourceError, WalletTokensQuery};
use w3api_tests::observed::Observed;
use w3api_types::Chain;
use w3api_types::rpc::{BlockTransactions, TransactionRequest};

#[tokio::test]
async fn a_devnet_behind_the_handle_answers_as_itself() {
    let devnet = Devnet::new(0, Scale::TINY);
    let handle = DynBackend::new(devnet.clone());
    let chain = Chain::Eth;

    let latest = devnet.latest_block(chain).await.unwrap();
    assert_eq!(handle.latest_block(chain).await.unwrap(), latest);
    let block = devnet.block(chain, BlockRef::Number(latest), true).await.unwrap().expect("the newest block");
    assert_eq!(handle.block(chain, BlockRef::Number(latest), true).await.unwrap(), Some(block.clone()));

    let first = devnet.block(chain, BlockRef::Number(1), false).await.unwrap().expect("block 1");
    let BlockTransactions::Hashes(hashes) = first.transactions else { panic!("hashes were asked for") };
    let sender = devnet.transaction_by_hash(chain, hashes[0]).await.unwrap().unwrap().from;
    assert_eq!(
        handle.balance(chain, sender, BlockRef::Latest).await.unwrap(),
        devnet.balance(chain, sender, BlockRef::Latest).await.unwrap()
    );
    assert_eq!(
        handle.transactions_with_receipts(chain, hashes.clone()).await.unwrap(),
        devnet.transactions_with_receipts(chain, hashes).await.unwrap()
    );
    let query = WalletTokensQuery::new(chain, sender);
    assert_eq!(
        handle.wallet_tokens(query.clone(), PageRequest::first(100)).await.unwrap().holdings,
        devnet.wallet_tokens(query, PageRequest::first(100)).await.unwrap().holdings
    );

    let at = BlockAt { timestamp: block.timestamp };
    assert_eq!(handle.ask(chain, at).await.unwrap(), devnet.ask(chain, at).await.unwrap());
    assert_eq!(handle.kind(), devnet.kind());
}

#[tokio::test]
async fn a_wrapped_backend_is_reached_through_the_handle_and_keeps_its_refusals() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let seen = asked.clone();
    let observed = Observed::new(Devnet::new(0, Scale::TINY), move |method| {
        seen.lock().unwrap().push(method);
        None
    });
    let handle = DynBackend::new(observed);

    handle.latest_block(Chain::Eth).await.unwrap();
    handle.ask(Chain::Eth, BlockAt { timestamp: u64::MAX }).await.unwrap();
    assert_eq!(*asked.lock().unwrap(), ["latest_block", "ask"]);

    let call = handle.call(Chain::Eth, TransactionRequest::default(), BlockRef::Latest, None).await;
    assert!(matches!(call, Err(SourceError::NotExecuted)), "{call:?}");
    let mined = handle.mine(Chain::Eth, 1, None).await;
    assert!(matches!(mined, Err(SourceError::NoChanges(_))), "{mined:?}");
}

#[tokio::test]
async fn a_handle_given_again_is_the_same_handle() {
    let asked = Arc::new(Mutex::new(0));
    let seen = asked.clone();
    let observed = Observed::new(Devnet::new(0, Scale::TINY), move |_| {
        *seen.lock().unwrap() += 1;
        None
    });
    let once = DynBackend::new(observed);
    let again = DynBackend::new(once.clone());
    again.latest_block(Chain::Eth).await.unwrap();
    assert_eq!(*asked.lock().unwrap(), 1);
    assert_eq!(format!("{again:?}"), r#"DynBackend("w3api_tests::observed::Observed")"#);
}
