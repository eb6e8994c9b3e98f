//! Marketplace prices of NFTs (`include_prices`), from the chain's sales:
//! the last sale of a token, and a collection's floor.

use alloy_primitives::{Address, U256};
use chrono::DateTime;
use w3api_types::{NATIVE_TOKEN_ADDRESS, NftLastSale, NftPaymentToken, NftPrices, format_units};

use crate::generate::{ChainData, SaleRecord};
use w3api_ledger::Asset;
use w3api_ledger::pricing::PriceFilter;
use w3api_ledger::pricing::to_f64;

impl ChainData {
    /// Prices at `block` of an NFT (its last sale), or of a collection (its
    /// latest sale of any token) when `token_id` is `None`, with the
    /// collection's floor; `None` before the collection's first sale.
    ///
    /// The floor is the lowest USD price the collection sold for in the day
    /// up to the block (its last sale when it had none that day), written in
    /// the native currency at the block's price.
    pub fn nft_prices(&self, block: u64, token_address: Address, token_id: Option<U256>) -> Option<NftPrices> {
        let collection = self.world.collection_at(token_address)?;
        let sales: Vec<&SaleRecord> = self
            .indexes
            .sales_of(collection)?
            .iter()
            .map(|index| &self.sales[*index as usize])
            .take_while(|sale| u64::from(sale.block) <= block)
            .collect();
        let latest = *sales.last()?;
        let last_sale = match token_id {
            Some(id) => sales.iter().rev().find(|sale| U256::from(sale.id) == id).copied(),
            None => Some(latest),
        };
        let day_start = self.day_before(block).unwrap_or(0);
        let floor_usd = sales
            .iter()
            .filter(|sale| u64::from(sale.block) > day_start)
            .filter_map(|sale| self.usd_value(sale.payment, sale.price, u64::from(sale.block)))
            .min_by(f64::total_cmp)
            .or_else(|| self.usd_value(latest.payment, latest.price, u64::from(latest.block)));
        let native_usd = self.usd_price(Asset::NATIVE, block, PriceFilter::default());
        let floor_wei = floor_usd.zip(native_usd).map(|(usd, native)| U256::from(usd / native * 1e18));
        Some(NftPrices {
            floor_price: floor_wei.map(|wei| format_units(wei, 18)),
            floor_price_usd: floor_usd.map(|usd| usd.to_string()),
            floor_price_currency: floor_wei.map(|_| self.world.native.symbol.to_ascii_lowercase()),
            last_sale: last_sale.map(|sale| self.last_sale(sale, block)),
        })
    }

    /// USD worth of `amount` raw units of `asset` at `block`.
    fn usd_value(&self, asset: Asset, amount: u128, block: u64) -> Option<f64> {
        let price = self.price(asset, block, PriceFilter::default())?;
        Some(to_f64(amount, self.world.decimals(asset)) * price.usd)
    }

    fn last_sale(&self, sale: &SaleRecord, block: u64) -> NftLastSale {
        let decimals = self.world.decimals(sale.payment);
        let at_sale = u64::from(sale.block);
        NftLastSale {
            transaction_hash: self.transactions[sale.tx as usize].hash,
            block_timestamp: DateTime::from_timestamp(self.timestamp(at_sale) as i64, 0).unwrap_or_default(),
            buyer_address: sale.buyer,
            seller_address: sale.seller,
            price: U256::from(sale.price),
            price_formatted: format_units(U256::from(sale.price), decimals),
            usd_price_at_sale: self.usd_value(sale.payment, sale.price, at_sale).map(|usd| usd.to_string()),
            current_usd_value: self.usd_value(sale.payment, sale.price, block).map(|usd| usd.to_string()),
            token_address: self.world.collections[usize::from(sale.collection)].address,
            token_id: sale.id.to_string(),
            payment_token: self.payment_token(sale.payment),
        }
    }

    fn payment_token(&self, asset: Asset) -> NftPaymentToken {
        match self.world.token(asset) {
            Some(token) => NftPaymentToken {
                token_name: token.name.clone(),
                token_symbol: token.symbol.clone(),
                token_logo: token.logo.clone(),
                token_decimals: token.decimals,
                token_address: token.address,
            },
            None => NftPaymentToken {
                token_name: self.world.native.name.to_string(),
                token_symbol: self.world.native.symbol.to_string(),
                token_logo: Some(self.world.native.logo.clone()),
                token_decimals: 18,
                token_address: NATIVE_TOKEN_ADDRESS,
            },
        }
    }
}
