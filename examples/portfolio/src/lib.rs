//! A wallet view, as an app would write it over the w3api REST client: the
//! tokens a wallet holds with their USD values, and its NFTs, spam hidden.
//!
//! ```no_run
//! use w3api_types::{Address, Chain};
//!
//! # async fn example() -> Result<(), Box<dyn std::error::Error>> {
//! let client = w3api_rest::Client::production("YOUR_API_KEY")?;
//! let wallet: Address = "0xd8da6bf26964af9d7eed9e03e53415d37aa96045".parse().unwrap();
//! let view = portfolio::portfolio(&client, Chain::Eth, wallet).await?;
//! println!("{} tokens worth ${:.2}, {} NFTs", view.tokens.len(), view.total_usd, view.nfts.len());
//! # Ok(())
//! # }
//! ```
//!
//! Retries are the client's business, not this crate's: the client passed
//! in retries what may pass (429 and 503 among them, waiting as long as
//! `Retry-After` asks) as its [`w3api_rest::RetryPolicy`] says, the default
//! one unless it was built with
//! [`w3api_rest::ClientBuilder::retry_policy`] (`RetryPolicy::none()` sends
//! every request once).

// Dev-dependencies of the package's tests, named so that
// `unused_crate_dependencies` keeps watching the rest.
#[cfg(test)]
use {tokio as _, w3api_testkit as _};

use futures::TryStreamExt;
use w3api_rest::{Client, Paginated};
use w3api_types::{Address, Chain};

/// What a wallet holds, spam left out.
#[derive(Clone, Debug, PartialEq)]
pub struct Portfolio {
    /// Fungible holdings, the native currency among them, in the order the API gives.
    pub tokens: Vec<Holding>,
    /// NFTs, in the order the API gives.
    pub nfts: Vec<Nft>,
    /// The sum of the tokens' USD values; tokens without a price count for nothing.
    pub total_usd: f64,
}

/// A wallet's balance of one token.
#[derive(Clone, Debug, PartialEq)]
pub struct Holding {
    /// The token's symbol, such as "ETH".
    pub symbol: String,
    /// The balance in whole tokens, as an exact decimal string.
    pub balance_formatted: String,
    /// The balance's value in USD; `None` when the token has no price.
    pub usd_value: Option<f64>,
}

/// An NFT the wallet owns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nft {
    /// The collection's contract.
    pub collection: Address,
    /// The token id, in decimal.
    pub token_id: String,
    /// The token's own name, from its metadata, when it has one.
    pub name: Option<String>,
}

/// Why a portfolio could not be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A REST call failed (after the client's retries).
    #[error(transparent)]
    Rest(#[from] w3api_rest::Error),
}

/// The portfolio of `wallet` on `chain`: every page of its token balances
/// and of its NFTs, without what the API marks as possible spam.
pub async fn portfolio(client: &Client, chain: Chain, wallet: Address) -> Result<Portfolio, Error> {
    let balances = client.data().get_wallet_token_balances_price().address(wallet).chain(chain);
    let nfts = client.data().get_wallet_nfts().address(wallet).chain(chain).normalize_metadata(true);
    let (balances, nfts): (Vec<_>, Vec<_>) =
        futures::try_join!(balances.items().try_collect(), nfts.items().try_collect())?;

    let tokens: Vec<Holding> = balances
        .into_iter()
        .filter(|token| !token.possible_spam)
        .map(|token| Holding {
            symbol: token.symbol,
            balance_formatted: token.balance_formatted,
            usd_value: token.usd_value,
        })
        .collect();
    let total_usd = tokens.iter().filter_map(|token| token.usd_value).sum();
    let nfts = nfts
        .into_iter()
        .filter(|nft| nft.possible_spam != Some(true))
        .map(|nft| Nft {
            collection: nft.token_address,
            token_id: nft.token_id,
            name: nft.normalized_metadata.and_then(|metadata| metadata.name),
        })
        .collect();
    Ok(Portfolio { tokens, nfts, total_usd })
}
