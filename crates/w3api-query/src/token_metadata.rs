//! What is known of ERC20 tokens (`getTokenMetadata`).

use crate::LedgerReads;
use alloy_primitives::{Address, U256};
use chrono::DateTime;
use w3api_ledger::Asset;
use w3api_ledger::pricing::PriceFilter;
use w3api_source::SourceError;
use w3api_types::{Erc20Metadata, TokenLinks, format_units, usd_text};

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::{ledger_block, resolve};

/// The metadata of `addresses` at the newest block, in the order asked; an
/// address that is not a token of the view is left out.
#[derive(Clone, Debug)]
pub struct TokenMetadata {
    /// The token contracts.
    pub addresses: Vec<Address>,
}

impl Question for TokenMetadata {
    type Answer = Vec<Erc20Metadata>;

    fn answer(self, view: &impl ChainView) -> Result<Vec<Erc20Metadata>, SourceError> {
        let block = resolve(view, None)?;
        Ok(self.addresses.iter().filter_map(|address| metadata(view, *address, block)).collect())
    }
}

fn metadata(view: &impl ChainView, address: Address, block: u64) -> Option<Erc20Metadata> {
    let asset = view.asset_at(address).filter(|asset| *asset != Asset::NATIVE)?;
    let token = view.token(asset)?;
    let ledger = view.ledger();
    let supply = U256::from(ledger.supply_at(asset, ledger_block(block)));
    // A token the view names has moved at least once: that is how it was found.
    let first = u64::from(ledger.first_activity(asset)?);
    let created_at = DateTime::from_timestamp(i64::try_from(view.timestamp(first)?).ok()?, 0)?;
    let whole_supply = w3api_ledger::pricing::to_f64(supply.saturating_to::<u128>(), token.decimals);
    let fdv = view.usd_price(asset, block, PriceFilter::default()).map(|usd| usd_text(usd * whole_supply));
    Some(Erc20Metadata {
        address: token.address,
        address_label: None,
        name: token.name.to_string(),
        symbol: token.symbol.to_string(),
        decimals: token.decimals,
        logo: token.logo.map(str::to_string),
        logo_hash: None,
        thumbnail: token.thumbnail.map(str::to_string),
        total_supply: supply,
        total_supply_formatted: format_units(supply, token.decimals),
        fully_diluted_valuation: fdv,
        block_number: first,
        validated: None,
        created_at,
        possible_spam: token.possible_spam,
        verified_contract: token.verified,
        categories: Some(Vec::new()),
        links: TokenLinks::default(),
        implementations: Vec::new(),
        circulating_supply: None,
        market_cap: None,
    })
}
