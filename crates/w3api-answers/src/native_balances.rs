//! `getNativeBalance` and `getNativeBalancesForAddresses`: native balances
//! at a block, of one wallet as `eth_getBalance` gives it, or of several
//! with their sum.

use chrono::DateTime;
use futures::future::try_join_all;
use w3api_source::{BlockRef, SourceError};
use w3api_types::{Address, Chain, ChainNativeBalances, NativeBalance, U256, WalletNativeBalance, format_units};

use crate::Backend;
use crate::paging::block_at;

/// The decimals of every chain's native currency here.
const NATIVE_DECIMALS: u8 = 18;

/// `address`'s balance at `to_block`, or the newest block when it names a
/// later one.
pub async fn native_balance<S: Backend>(
    source: &S,
    (chain, address): (Chain, Address),
    to_block: Option<u64>,
) -> Result<NativeBalance, SourceError> {
    let block = block_at(source, chain, to_block).await?;
    Ok(NativeBalance { balance: source.balance(chain, address, BlockRef::Number(block)).await? })
}

/// The balances of `wallets` at one block (`to_block`, or the newest when
/// it names a later one), and their sum.
pub async fn native_balances<S: Backend>(
    source: &S,
    (chain, wallets): (Chain, &[Address]),
    to_block: Option<u64>,
) -> Result<Vec<ChainNativeBalances>, SourceError> {
    let block = block_at(source, chain, to_block).await?;
    let header = source.block(chain, BlockRef::Number(block), false).await?;
    let header = header.ok_or_else(|| SourceError::Unavailable(format!("block {block} is not there any more")))?;
    let balances =
        try_join_all(wallets.iter().map(|wallet| source.balance(chain, *wallet, BlockRef::Number(block)))).await?;
    let total = balances.iter().fold(U256::ZERO, |sum, balance| sum.saturating_add(*balance));
    let wallet_balances = wallets
        .iter()
        .zip(balances)
        .map(|(address, balance)| WalletNativeBalance {
            address: *address,
            balance,
            balance_formatted: format_units(balance, NATIVE_DECIMALS),
        })
        .collect();
    let id = source.chain_id(chain).or(chain.id()).unwrap_or_default();
    Ok(vec![ChainNativeBalances {
        chain: chain.data_api_name().unwrap_or(chain.as_str()).to_string(),
        chain_id: format!("{id:#x}"),
        block_number: block,
        block_timestamp: DateTime::from_timestamp(i64::try_from(header.timestamp).unwrap_or(i64::MAX), 0)
            .unwrap_or_default(),
        total_balance: total,
        total_balance_formatted: format_units(total, NATIVE_DECIMALS),
        wallet_balances,
    }])
}
