//! The contract suite through the generated clients: every operation of both
//! specs against the in-process gateway (`w3api_tests::local`), on its
//! success and error paths, cursor pagination at every page size, and the
//! execution-API fixtures replayed. The gateway's checking layer validates
//! every raw answer against the specs; each test ends with
//! `Session::finish`, which fails on anything the layer found.

mod execution_apis;
mod harness;
mod node;
mod pagination;
mod rest;
mod rpc;
mod signin;

use std::fmt::Debug;
use std::sync::OnceLock;

use w3api_rest::Error;
use w3api_tests::local::Session;
use w3api_types::Address;

/// Asserts that a REST call failed with an API error of `status` whose
/// messages include `fragment` (the server names the culprit parameter).
pub(crate) fn expect_api_error<T: Debug>(result: Result<T, Error>, status: u16, fragment: &str) {
    let error = result.expect_err(&format!("expected HTTP {status} mentioning {fragment:?}"));
    let Error::Api(api) = &error else { panic!("expected an API error with status {status}, got {error:?}") };
    assert_eq!(api.status.as_u16(), status, "{error}");
    assert!(api.body.is_some(), "the error body should decode as the spec's Error: {error:?}");
    let messages = api.messages();
    assert!(messages.iter().any(|m| m.contains(fragment)), "no message mentions {fragment:?}: {messages:?}");
}

/// A wallet with many NFTs in several collections: of the first 200 sample
/// wallets, the one whose collections (with counts) add up to the most
/// tokens, as the API reports them.
pub(crate) fn nft_rich_wallet() -> Address {
    static WALLET: OnceLock<Address> = OnceLock::new();
    *WALLET.get_or_init(|| {
        let session = Session::new();
        let rest = session.rest();
        let wallet = session.run(async {
            let mut best = (0, 0, Address::ZERO);
            for wallet in session.devnet().sample_wallets(200) {
                let request = rest.data().get_wallet_nft_collections().address(wallet).token_counts(true);
                let page = w3api_rest::Paginated::fetch(request).await.unwrap();
                let tokens: u64 = page.result.iter().map(|c| c.count.unwrap()).sum();
                best = best.max((tokens, page.result.len(), wallet));
            }
            let (tokens, collections, wallet) = best;
            assert!(collections >= 3 && tokens >= 8, "no sample wallet holds many NFTs: {best:?}");
            wallet
        });
        session.finish();
        wallet
    })
}
