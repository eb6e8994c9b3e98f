//! `getWalletNetWorth`: the USD value of a wallet's native and ERC20
//! balances, per chain and in total: on each chain, the sum of the values
//! `getWalletTokenBalancesPrice` gives with the same filters.

use futures::future::join_all;
use w3api_source::{PageRequest, SourceError, WalletTokensPage, WalletTokensQuery};
use w3api_types::{Chain, ChainNetWorth, NetWorth, U256, UnavailableChain, format_units, usd_text};

use crate::Backend;

/// The chains to count, and the wallet tokens query each reads (its chain
/// aside).
#[derive(Debug)]
pub struct NetWorthRequest {
    /// The chains counted.
    pub chains: Vec<Chain>,
    /// What each reads.
    pub query: WalletTokensQuery,
}

/// The wallet's worth on each chain asked and in total; a chain not served
/// or out of reach is listed as such rather than failing the answer.
pub async fn net_worth<S: Backend>(source: &S, request: NetWorthRequest) -> Result<NetWorth, SourceError> {
    let answers = join_all(request.chains.iter().map(|chain| {
        let query = WalletTokensQuery { chain: *chain, ..request.query.clone() };
        source.wallet_tokens(query, PageRequest::first(usize::MAX))
    }))
    .await;
    let mut worth = NetWorth {
        total_networth_usd: String::new(),
        chains: Vec::new(),
        unsupported_chain_ids: Vec::new(),
        unavailable_chains: Vec::new(),
    };
    let mut total = 0.0;
    for (chain, answer) in request.chains.iter().zip(answers) {
        let id = || source.chain_id(*chain).or(chain.id()).map_or_else(|| chain.to_string(), |id| format!("{id:#x}"));
        match answer {
            Ok(page) => {
                let (on_chain, usd) = chain_worth(*chain, page);
                total += usd;
                worth.chains.push(on_chain);
            }
            Err(SourceError::ChainNotServed(_)) => worth.unsupported_chain_ids.push(id()),
            Err(SourceError::Unavailable(cause)) => {
                tracing::warn!(%chain, %cause, "net worth: chain unavailable");
                worth.unavailable_chains.push(UnavailableChain { chain_id: id() });
            }
            Err(error) => return Err(error),
        }
    }
    worth.total_networth_usd = usd_text(total);
    Ok(worth)
}

/// One chain's worth from every holding of the wallet there, and its sum.
fn chain_worth(chain: Chain, page: WalletTokensPage) -> (ChainNetWorth, f64) {
    let (mut native_balance, mut native_usd, mut tokens_usd) = (U256::ZERO, 0.0, 0.0);
    for holding in &page.holdings.items {
        let value = holding.usd_value().unwrap_or(0.0);
        if holding.token.native {
            native_balance = holding.balance;
            native_usd += value;
        } else {
            tokens_usd += value;
        }
    }
    let worth = ChainNetWorth {
        chain: chain.data_api_name().unwrap_or(chain.as_str()).to_string(),
        native_balance,
        native_balance_formatted: format_units(native_balance, 18),
        native_balance_usd: usd_text(native_usd),
        token_balance_usd: usd_text(tokens_usd),
        networth_usd: usd_text(native_usd + tokens_usd),
    };
    (worth, native_usd + tokens_usd)
}
