//! A wallet's summaries agree with its listings:
//! - its stats are the item counts of its NFT, collection, transaction, NFT
//!   transfer and ERC20 transfer listings;
//! - its active chains run from its first transaction to its last, as its
//!   transactions list them, and a chain where it has none says so.

use futures::TryStreamExt;
use w3api_rest::Paginated;
use w3api_tests::local::Session;
use w3api_types::{Address, Chain, WalletTransaction};

#[test]
fn wallet_stats_are_the_counts_of_the_listings() {
    let session = Session::new();
    let rest = session.rest();
    let data = rest.data();
    let mut seen = [0u64; 5];
    for wallet in session.devnet().sample_wallets(4) {
        let stats = session.run(data.get_wallet_stats().address(wallet).send()).unwrap().into_inner();
        let count = |items: usize| items as u64;
        let nfts = session.run(data.get_wallet_nfts().address(wallet).items().try_collect::<Vec<_>>()).unwrap();
        let collections =
            session.run(data.get_wallet_nft_collections().address(wallet).items().try_collect::<Vec<_>>()).unwrap();
        let transactions =
            session.run(data.get_wallet_transactions().address(wallet).items().try_collect::<Vec<_>>()).unwrap();
        let nft_transfers =
            session.run(data.get_wallet_nft_transfers().address(wallet).items().try_collect::<Vec<_>>()).unwrap();
        let token_transfers =
            session.run(data.get_wallet_token_transfers().address(wallet).items().try_collect::<Vec<_>>()).unwrap();
        let listed = [
            count(nfts.len()),
            count(collections.len()),
            count(transactions.len()),
            count(nft_transfers.len()),
            count(token_transfers.len()),
        ];
        let said = [
            stats.nfts,
            stats.collections,
            stats.transactions.total,
            stats.nft_transfers.total,
            stats.token_transfers.total,
        ];
        assert_eq!(said, listed, "{wallet}: nfts, collections, transactions, NFT and ERC20 transfers");
        seen.iter_mut().zip(listed).for_each(|(sum, n)| *sum += n);
    }
    assert!(seen.iter().all(|n| *n > 0), "the sampled wallets have some of each: {seen:?}");
    session.finish();
}

#[test]
fn active_chains_run_from_the_first_transaction_to_the_last() {
    let session = Session::new();
    let rest = session.rest();
    let data = rest.data();
    let wallet = session.devnet().sample_wallets(1)[0];
    let request = data.get_wallet_active_chains().address(wallet).chains(vec![Chain::Eth, Chain::Polygon, Chain::Eth]);
    let answer = session.run(request.send()).unwrap().into_inner();
    assert_eq!(answer.address, wallet);
    let names: Vec<&str> = answer.active_chains.iter().map(|c| c.chain.as_str()).collect();
    assert_eq!(names, ["eth", "polygon"], "each chain once, in the order asked");
    assert_eq!((answer.active_chains[0].chain_id.as_str(), answer.active_chains[1].chain_id.as_str()), ("0x1", "0x89"));
    let eth = &answer.active_chains[0];
    let oldest = data.get_wallet_transactions().address(wallet).order(w3api_types::ListingOrder::Ascending).limit(1u64);
    let oldest: WalletTransaction = session.run(oldest.send()).unwrap().into_inner().result.remove(0);
    let newest = data.get_wallet_transactions().address(wallet).limit(1u64);
    let newest: WalletTransaction = session.run(newest.send()).unwrap().into_inner().result.remove(0);
    let (first, last) = (eth.first_transaction.as_ref().unwrap(), eth.last_transaction.as_ref().unwrap());
    assert_eq!(
        (first.transaction_hash, first.block_number),
        (oldest.transaction.hash, oldest.transaction.block_number)
    );
    assert_eq!(first.block_timestamp, oldest.transaction.block_timestamp);
    assert_eq!((last.transaction_hash, last.block_number), (newest.transaction.hash, newest.transaction.block_number));
    let stranger = Address::repeat_byte(0x77);
    let idle = session.run(data.get_wallet_active_chains().address(stranger).send()).unwrap().into_inner();
    assert_eq!(idle.active_chains.len(), 1, "eth when no chain is asked");
    assert!(idle.active_chains[0].first_transaction.is_none() && idle.active_chains[0].last_transaction.is_none());
    session.finish();
}
