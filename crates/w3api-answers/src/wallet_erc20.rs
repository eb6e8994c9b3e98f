//! `getWalletTokenBalances`: a wallet's ERC20 balances, without prices,
//! all in one answer.

use w3api_source::{PageRequest, SourceError, TokenHolding, WalletTokensQuery};
use w3api_types::Erc20TokenBalance;

use crate::Backend;
use crate::paging::block_at;

/// Every ERC20 balance the query keeps, the native currency aside, at its
/// block (the newest when it names a later one): the answer of this
/// operation and of `eth_getTokenBalances`.
pub async fn erc20_balances<S: Backend>(
    source: &S,
    query: WalletTokensQuery,
) -> Result<Vec<Erc20TokenBalance>, SourceError> {
    let to_block = Some(block_at(source, query.chain, query.to_block).await?);
    let query = WalletTokensQuery { to_block, exclude_native: true, ..query };
    let answer = source.wallet_tokens(query, PageRequest::first(usize::MAX)).await?;
    Ok(answer.holdings.items.into_iter().map(erc20_balance).collect())
}

fn erc20_balance(holding: TokenHolding) -> Erc20TokenBalance {
    let TokenHolding { token, balance, .. } = holding;
    Erc20TokenBalance {
        token_address: token.address,
        name: token.name,
        symbol: token.symbol,
        logo: token.logo,
        thumbnail: token.thumbnail,
        decimals: token.decimals,
        balance,
        possible_spam: token.possible_spam,
        verified_contract: token.verified_contract,
    }
}
