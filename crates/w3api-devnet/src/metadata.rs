//! NFT metadata documents and rarity from trait frequencies.

use alloy_primitives::Address;
use serde_json::json;
use std::borrow::Cow;
use w3api_types::Chain;

use crate::seed;
use crate::world::MEDIA_HOST;

/// The metadata document of one token id.
#[derive(Clone, Debug, PartialEq)]
pub struct NftMetadata {
    /// Token name.
    pub name: String,
    /// Description.
    pub description: String,
    /// Image URL.
    pub image: String,
    /// External page.
    pub external_url: String,
    /// Traits: (type, value); the generated ones are the devnet's own
    /// words, those of NFTs a test mints its own.
    pub attributes: Vec<Trait>,
    /// Where the document is served.
    pub token_uri: String,
}

impl NftMetadata {
    /// The document as the token URI serves it.
    pub fn to_json(&self) -> String {
        let attributes: Vec<_> = self
            .attributes
            .iter()
            .map(|(trait_type, value)| json!({"trait_type": trait_type, "value": value}))
            .collect();
        json!({
            "name": self.name,
            "description": self.description,
            "image": self.image,
            "external_url": self.external_url,
            "attributes": attributes,
        })
        .to_string()
    }
}

/// Where a token id stands in its collection by rarity.
#[derive(Clone, Debug, PartialEq)]
pub struct Rarity {
    /// 1 is the rarest.
    pub rank: u32,
    /// Rank as a percentile of the collection (0 to 100; lower is rarer).
    pub percentage: f64,
    /// Bucket label, such as "Top 5%".
    pub label: &'static str,
}

/// Trait types with their values, common ones first; the weight of a value
/// halves down the list, so later values are rarer.
const TRAITS: &[(&str, &[&str])] = &[
    ("Background", &["Slate", "Sand", "Mint", "Dusk", "Aurora", "Gold"]),
    ("Body", &["Stone", "Bronze", "Jade", "Glass", "Obsidian"]),
    ("Eyes", &["Calm", "Wide", "Sleepy", "Laser", "Cosmic"]),
    ("Headwear", &["None", "Cap", "Crown of Thorns", "Halo", "Diadem"]),
    ("Aura", &["None", "Spark", "Frost", "Inferno"]),
];

/// Where a collection's contract says token `id`'s document is: its base
/// and the id, which an ERC1155's `uri` template gives as 64 hex digits
/// (the standard's `{id}`), an ERC721's `tokenURI` in decimal.
pub(crate) fn token_uri(base: &str, id: u32, erc1155: bool) -> String {
    if erc1155 { format!("{base}/{id:064x}.json") } else { format!("{base}/{id}.json") }
}

/// Metadata for token ids 1..=ids of a collection.
pub(crate) fn collection(
    seed: u64,
    chain: Chain,
    address: Address,
    name: &str,
    ids: u32,
    erc1155: bool,
) -> Vec<NftMetadata> {
    let mut rng = seed::rng(seed, &[b"nft-metadata", &crate::chain_id(chain).to_be_bytes(), address.as_slice()]);
    let base = format!("{MEDIA_HOST}/nft/{}/{address:#x}", crate::chain_id(chain));
    (1..=ids)
        .map(|id| NftMetadata {
            name: format!("{name} #{id}"),
            description: format!("Token {id} of {name}, a collection of the w3api devnet."),
            image: format!("{base}/{id}.png"),
            external_url: format!("{base}/{id}"),
            attributes: TRAITS
                .iter()
                .map(|(trait_type, values)| (Cow::Borrowed(*trait_type), Cow::Borrowed(weighted(&mut rng, values))))
                .collect(),
            token_uri: token_uri(&base, id, erc1155),
        })
        .collect()
}

fn weighted(rng: &mut fastrand::Rng, values: &'static [&'static str]) -> &'static str {
    // Weights 2^(n-1), ..., 2, 1 for n values.
    let total = (1u32 << values.len()) - 1;
    let mut pick = rng.u32(..total);
    for (i, value) in values.iter().enumerate() {
        let weight = 1u32 << (values.len() - 1 - i);
        if pick < weight {
            return value;
        }
        pick -= weight;
    }
    values[values.len() - 1]
}

/// A trait of an NFT: (type, value).
pub type Trait = (Cow<'static, str>, Cow<'static, str>);

/// How many token ids of a collection have each (trait type, value).
pub(crate) type TraitCounts = std::collections::HashMap<Trait, u32>;

/// Counts each trait value across the collection.
pub(crate) fn trait_counts(metadata: &[NftMetadata]) -> TraitCounts {
    let mut counts = TraitCounts::new();
    for token in metadata {
        for attribute in &token.attributes {
            *counts.entry(attribute.clone()).or_default() += 1;
        }
    }
    counts
}

/// Rarity of every token id: the score of a token is the sum, over its
/// traits, of the inverse frequency of its value in the collection; the
/// highest score ranks first (ties by lower id).
pub(crate) fn rarity(metadata: &[NftMetadata], frequency: &TraitCounts) -> Vec<Rarity> {
    let count = metadata.len();
    if count == 0 {
        return Vec::new();
    }
    let scores: Vec<f64> = metadata
        .iter()
        .map(|token| token.attributes.iter().map(|a| count as f64 / f64::from(frequency[a])).sum())
        .collect();
    let mut order: Vec<usize> = (0..count).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]).then(a.cmp(&b)));
    let mut ranks = vec![0u32; count];
    for (position, &token) in order.iter().enumerate() {
        ranks[token] = position as u32 + 1;
    }
    ranks
        .into_iter()
        .map(|rank| {
            let percentage = f64::from(rank) / count as f64 * 100.0;
            Rarity { rank, percentage, label: label(percentage) }
        })
        .collect()
}

fn label(percentage: f64) -> &'static str {
    match percentage {
        p if p <= 1.0 => "Top 1%",
        p if p <= 5.0 => "Top 5%",
        p if p <= 10.0 => "Top 10%",
        p if p <= 25.0 => "Top 25%",
        p if p <= 50.0 => "Top 50%",
        _ => "Common",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rarer_traits_rank_higher() {
        let metadata = collection(7, Chain::Eth, Address::repeat_byte(1), "Test", 200, false);
        let rarity = rarity(&metadata, &trait_counts(&metadata));
        let mut ranks: Vec<u32> = rarity.iter().map(|r| r.rank).collect();
        ranks.sort_unstable();
        assert_eq!(ranks, (1..=200).collect::<Vec<_>>(), "each rank once");
        let rarest = rarity.iter().position(|r| r.rank == 1).unwrap();
        let commonest = rarity.iter().position(|r| r.rank == 200).unwrap();
        let rare_values = |i: usize| {
            metadata[i]
                .attributes
                .iter()
                .filter(|(t, v)| {
                    let values = TRAITS.iter().find(|(name, _)| name == t).unwrap().1;
                    values.iter().position(|x| x == v).unwrap() >= 2
                })
                .count()
        };
        assert!(rare_values(rarest) > rare_values(commonest));
        assert_eq!(rarity[rarest].label, "Top 1%");
    }

    #[test]
    fn an_erc1155_uri_names_the_id_in_64_hex_digits_as_its_template_says() {
        assert_eq!(token_uri("https://x/nft", 26, false), "https://x/nft/26.json");
        assert_eq!(token_uri("https://x/nft", 26, true), format!("https://x/nft/{}1a.json", "0".repeat(62)));
    }
}
