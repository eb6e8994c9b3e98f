//! Domain data into response types: the one place that decides how a
//! source's answer is written (formatted amounts, USD values and changes,
//! portfolio shares, token-id format, and the metadata and media a caller
//! asked for). Sources answer what is true; this answers how it reads.

use w3api_source::{CollectionHolding, NftHolding, TokenHolding};
use w3api_types::{Nft, NftCollection, TokenBalance, TokenIdFormat, format_units};

/// How NFTs are written, as the request asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct NftView {
    /// How token ids are written.
    pub format: TokenIdFormat,
    /// Whether to add `normalized_metadata`.
    pub normalize_metadata: bool,
    /// Whether to add `media`.
    pub media_items: bool,
}

/// A wallet's holding of one token; `priced_total_usd` is the wallet's
/// priced total, of which the holding's value is a share.
pub(crate) fn token_balance(holding: TokenHolding, priced_total_usd: f64) -> TokenBalance {
    let usd_value = holding.usd_value();
    let whole = holding.whole_tokens();
    let change = holding.usd_price.zip(holding.usd_price_day_before).map(|(now, then)| now - then);
    let percent_change = holding
        .usd_price
        .zip(holding.usd_price_day_before)
        .filter(|(_, then)| *then > 0.0)
        .map(|(now, then)| (now - then) / then * 100.0);
    let portfolio_percentage = match usd_value {
        Some(value) if priced_total_usd > 0.0 => value / priced_total_usd * 100.0,
        _ => 0.0,
    };
    let TokenHolding { token, balance, usd_price, .. } = holding;
    let supply_share = token
        .total_supply
        .filter(|supply| !supply.is_zero())
        .map(|supply| f64::from(balance) / f64::from(supply) * 100.0);
    TokenBalance {
        token_address: Some(token.address),
        balance_formatted: format_units(balance, token.decimals),
        total_supply_formatted: token.total_supply.map(|supply| format_units(supply, token.decimals)),
        symbol: token.symbol,
        name: token.name,
        logo: token.logo,
        thumbnail: token.thumbnail,
        decimals: token.decimals,
        balance,
        possible_spam: token.possible_spam,
        verified_contract: Some(token.verified_contract),
        usd_price,
        usd_price_24hr_percent_change: percent_change,
        usd_price_24hr_usd_change: change,
        usd_value,
        usd_value_24hr_usd_change: change.map(|c| c * whole),
        native_token: token.native,
        portfolio_percentage,
        total_supply: token.total_supply,
        percentage_relative_to_total_supply: supply_share,
        security_score: None,
    }
}

/// An NFT a wallet holds, written as `view` asks.
pub(crate) fn nft(holding: NftHolding, view: NftView) -> Nft {
    let NftHolding { collection, rarity, .. } = holding;
    Nft {
        token_address: collection.address,
        token_id: view.format.write(holding.token_id),
        contract_type: collection.contract_type,
        owner_of: holding.owner,
        block_number: holding.block_number,
        block_number_minted: holding.block_number_minted,
        token_uri: holding.token_uri,
        metadata: holding.metadata,
        normalized_metadata: holding.normalized_metadata.filter(|_| view.normalize_metadata),
        media: holding.media.filter(|_| view.media_items),
        amount: Some(holding.amount),
        name: collection.name,
        symbol: collection.symbol,
        token_hash: holding.token_hash,
        rarity_rank: rarity.as_ref().map(|r| r.rank),
        rarity_percentage: rarity.as_ref().map(|r| r.percentage),
        rarity_label: rarity.map(|r| r.label),
        last_token_uri_sync: holding.last_token_uri_sync,
        last_metadata_sync: holding.last_metadata_sync,
        possible_spam: Some(collection.possible_spam),
        verified_collection: Some(collection.verified),
        prices: holding.prices,
    }
}

/// A collection a wallet holds tokens of; its token count when asked.
pub(crate) fn collection(holding: CollectionHolding, token_counts: bool) -> NftCollection {
    let CollectionHolding { collection, token_count, prices } = holding;
    NftCollection {
        token_address: collection.address,
        contract_type: collection.contract_type,
        name: collection.name,
        symbol: collection.symbol,
        possible_spam: Some(collection.possible_spam),
        verified_collection: Some(collection.verified),
        count: token_counts.then_some(token_count),
        collection_logo: collection.logo,
        collection_banner_image: collection.banner,
        prices,
    }
}

#[cfg(test)]
mod tests {
    use w3api_source::{CollectionInfo, NftRarity, TokenInfo};
    use w3api_types::{Address, ContractType, NATIVE_TOKEN_ADDRESS, U256};

    use super::*;

    fn holding(decimals: u8, balance: u64, price: Option<f64>, before: Option<f64>) -> TokenHolding {
        TokenHolding {
            token: TokenInfo {
                address: Address::repeat_byte(7),
                native: false,
                name: "Token".into(),
                symbol: "TKN".into(),
                logo: None,
                thumbnail: None,
                decimals,
                possible_spam: false,
                verified_contract: true,
                total_supply: Some(U256::from(balance * 4)),
            },
            balance: U256::from(balance),
            usd_price: price,
            usd_price_day_before: before,
        }
    }

    #[test]
    fn token_values_changes_and_shares_follow_from_balance_and_prices() {
        let balance = token_balance(holding(6, 1_500_000, Some(2.0), Some(1.6)), 12.0);
        assert_eq!(balance.balance_formatted, "1.5");
        assert_eq!(balance.total_supply_formatted.as_deref(), Some("6"));
        assert_eq!(balance.usd_value, Some(3.0));
        assert!((balance.usd_price_24hr_usd_change.unwrap() - 0.4).abs() < 1e-12);
        assert!((balance.usd_price_24hr_percent_change.unwrap() - 25.0).abs() < 1e-9);
        assert!((balance.usd_value_24hr_usd_change.unwrap() - 0.6).abs() < 1e-12);
        assert_eq!(balance.portfolio_percentage, 25.0);
        assert_eq!(balance.percentage_relative_to_total_supply, Some(25.0));
    }

    #[test]
    fn unpriced_tokens_have_no_value_and_no_share() {
        let balance = token_balance(holding(0, 42, None, Some(1.0)), 100.0);
        assert_eq!(balance.balance_formatted, "42");
        assert_eq!((balance.usd_value, balance.usd_price_24hr_usd_change), (None, None));
        assert_eq!(balance.portfolio_percentage, 0.0);
        let alone = token_balance(holding(0, 42, Some(0.0), Some(0.0)), 0.0);
        assert_eq!(alone.portfolio_percentage, 0.0, "a zero total gives no share rather than NaN");
        assert_eq!(alone.usd_price_24hr_percent_change, None, "no percent change from a zero price");
    }

    #[test]
    fn the_native_currency_keeps_its_address_and_has_no_supply() {
        let mut native = holding(18, 10, Some(1.0), None);
        native.token.address = NATIVE_TOKEN_ADDRESS;
        native.token.native = true;
        native.token.total_supply = None;
        let balance = token_balance(native, 1.0);
        assert!(balance.native_token);
        assert_eq!(balance.token_address, Some(NATIVE_TOKEN_ADDRESS));
        assert_eq!((balance.total_supply, balance.percentage_relative_to_total_supply), (None, None));
    }

    fn nft_holding() -> NftHolding {
        NftHolding {
            collection: CollectionInfo {
                address: Address::repeat_byte(9),
                contract_type: ContractType::Erc721,
                name: "Things".into(),
                symbol: "THG".into(),
                possible_spam: true,
                verified: false,
                logo: None,
                banner: None,
            },
            token_id: U256::from(255),
            owner: Address::repeat_byte(1),
            amount: U256::from(1),
            block_number: 5,
            block_number_minted: 3,
            token_uri: Some("https://example.org/255.json".into()),
            metadata: Some("{}".into()),
            normalized_metadata: Some(Default::default()),
            media: Some(w3api_types::NftMedia {
                status: Some("success".into()),
                category: None,
                original_media_url: None,
                updated_at: None,
                mimetype: None,
                parent_hash: None,
                media_collection: None,
            }),
            token_hash: "ab".into(),
            rarity: Some(NftRarity { rank: 2, percentage: 1.5, label: "Top 5%".into() }),
            last_token_uri_sync: None,
            last_metadata_sync: None,
            prices: None,
        }
    }

    #[test]
    fn nfts_are_written_as_the_view_asks() {
        let plain = NftView { format: TokenIdFormat::Decimal, normalize_metadata: false, media_items: false };
        let written = nft(nft_holding(), plain);
        assert_eq!(written.token_id, "255");
        assert!(written.normalized_metadata.is_none() && written.media.is_none());
        assert_eq!((written.rarity_rank, written.rarity_label.as_deref()), (Some(2), Some("Top 5%")));
        assert_eq!((written.possible_spam, written.verified_collection), (Some(true), Some(false)));
        let full = NftView { format: TokenIdFormat::Hex, normalize_metadata: true, media_items: true };
        let written = nft(nft_holding(), full);
        assert_eq!(written.token_id, "0xff");
        assert!(written.normalized_metadata.is_some() && written.media.is_some());
    }

    #[test]
    fn collections_count_tokens_only_when_asked() {
        let holding = || CollectionHolding { collection: nft_holding().collection, token_count: 3, prices: None };
        assert_eq!(collection(holding(), true).count, Some(3));
        assert_eq!(collection(holding(), false).count, None);
    }
}
