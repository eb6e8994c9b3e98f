//! `getWalletStats` and `getWalletActiveChains`: a wallet's counts on one
//! chain, and its first and last transactions on each chain asked.

use futures::future::join_all;
use w3api_query::wallet_activity::{ActivityMark, WalletActivity, WalletCounts, WalletStats};
use w3api_source::SourceError;
use w3api_types::{ActiveChain, ActiveChains, Address, Chain, ChainActivity, StatTotal};

use crate::Backend;
use crate::transaction::block_time;

/// The wallet's counts on `chain`.
pub async fn wallet_stats<S: Backend>(
    source: &S,
    chain: Chain,
    address: Address,
) -> Result<w3api_types::WalletStats, SourceError> {
    let counts: WalletCounts = source.ask(chain, WalletStats { address }).await?;
    Ok(w3api_types::WalletStats {
        nfts: counts.nfts,
        collections: counts.collections,
        transactions: StatTotal { total: counts.transactions },
        nft_transfers: StatTotal { total: counts.nft_transfers },
        token_transfers: StatTotal { total: counts.token_transfers },
    })
}

/// The wallet's first and last transactions on each of `chains`, in the
/// order asked.
pub async fn active_chains<S: Backend>(
    source: &S,
    chains: Vec<Chain>,
    address: Address,
) -> Result<ActiveChains, SourceError> {
    let answers = join_all(chains.iter().map(|chain| source.ask(*chain, WalletActivity { address }))).await;
    let mut active_chains = Vec::with_capacity(chains.len());
    for (chain, answer) in chains.into_iter().zip(answers) {
        let marks = answer?;
        let id = source.chain_id(chain).or(chain.id()).map_or_else(|| chain.to_string(), |id| format!("{id:#x}"));
        let (first_transaction, last_transaction) = match marks {
            Some((first, last)) => (Some(activity(first)?), Some(activity(last)?)),
            None => (None, None),
        };
        let name = chain.data_api_name().unwrap_or(chain.as_str()).to_string();
        active_chains.push(ActiveChain { chain: name, chain_id: id, first_transaction, last_transaction });
    }
    Ok(ActiveChains { address, active_chains })
}

fn activity(mark: ActivityMark) -> Result<ChainActivity, SourceError> {
    Ok(ChainActivity {
        block_number: mark.block,
        block_timestamp: block_time(mark.timestamp)?,
        transaction_hash: mark.hash,
    })
}
