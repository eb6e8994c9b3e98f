//! What exists on a devnet chain: its native currency, ERC20 tokens, NFT
//! collections, exchanges and pairs, with the addresses their deployment
//! transactions give them.

use std::collections::HashMap;

use alloy_primitives::{Address, keccak256};
use alloy_sol_types::SolValue;
use w3api_ledger::{Asset, Contracts};
use w3api_types::{Chain, ContractType};

use crate::accounts::Accounts;
use crate::metadata::{self, NftMetadata, Rarity, TraitCounts};
use crate::scale::Scale;
use crate::seed;

/// What kind of ERC20 a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// Wraps the native currency one for one (minted by deposits).
    Wrapped,
    /// Pegged to one US dollar; the anchor of every USD price.
    Stable,
    /// An ordinary token.
    Regular,
    /// Worthless, airdropped to many wallets.
    Spam,
    /// Deployed by a user's transaction and found by its logs: what it
    /// says of itself was read from it, and the devnet's traffic leaves it
    /// alone (its code is the user's).
    User,
}

/// An ERC20 token.
#[derive(Clone, Debug)]
pub struct Token {
    /// Contract address.
    pub address: Address,
    /// Token name.
    pub name: String,
    /// Token symbol.
    pub symbol: String,
    /// Decimals.
    pub decimals: u8,
    /// What kind of token it is.
    pub kind: TokenKind,
    /// Whether its source is verified.
    pub verified: bool,
    /// Logo URL.
    pub logo: Option<String>,
    /// Thumbnail URL.
    pub thumbnail: Option<String>,
    /// USD price at launch, which sizes liquidity and hand-outs.
    pub launch_usd: f64,
    /// Raw supply minted to the owner at deployment (0 for the wrapped token).
    pub supply: u128,
    /// Which account deployed it (and received the supply).
    pub owner: u32,
}

/// An NFT collection.
#[derive(Clone, Debug)]
pub struct Collection {
    /// Contract address.
    pub address: Address,
    /// Collection name.
    pub name: String,
    /// Collection symbol.
    pub symbol: String,
    /// Token standard.
    pub kind: ContractType,
    /// Whether the collection is verified.
    pub verified: bool,
    /// Whether it is spam (airdropped by the spammer).
    pub spam: bool,
    /// Whether a user's transaction deployed it (found by its logs): its
    /// tokens have no metadata of the devnet's, and its traffic is the user's.
    pub user: bool,
    /// Logo URL.
    pub logo: Option<String>,
    /// Banner URL.
    pub banner: Option<String>,
    /// Metadata of token ids 1..=n (index id - 1).
    pub metadata: Vec<NftMetadata>,
    /// Rarity of token ids 1..=n, from trait frequencies.
    pub rarity: Vec<Rarity>,
    /// How many token ids have each trait value.
    pub trait_counts: TraitCounts,
}

impl Collection {
    /// Number of token ids.
    pub fn ids(&self) -> u32 {
        self.metadata.len() as u32
    }
}

/// A DEX: a factory that creates pairs and a router that swaps through them.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// Display name.
    pub name: String,
    /// Factory address (identifies the exchange).
    pub factory: Address,
    /// Router address (the target of swap transactions).
    pub router: Address,
}

/// A constant-product pair; its reserves are its token balances.
#[derive(Clone, Debug)]
pub struct Pair {
    /// The exchange that created it.
    pub exchange: usize,
    /// Pair address (CREATE2 from the factory).
    pub address: Address,
    /// The token with the lower address.
    pub token0: Asset,
    /// The other token.
    pub token1: Asset,
    /// USD value of the liquidity it starts with.
    pub launch_liquidity_usd: f64,
}

impl Pair {
    /// The other side of the pair.
    pub fn other(&self, asset: Asset) -> Asset {
        if asset == self.token0 { self.token1 } else { self.token0 }
    }
}

/// The native currency of a chain.
#[derive(Clone, Debug)]
pub struct NativeCurrency {
    /// Name, such as "Ether".
    pub name: &'static str,
    /// Symbol, such as "ETH".
    pub symbol: &'static str,
    /// USD price at genesis.
    pub launch_usd: f64,
    /// URL of its logo.
    pub logo: String,
    /// URL of its logo's thumbnail.
    pub thumbnail: String,
}

/// Everything that exists on one chain.
#[derive(Clone, Debug)]
pub struct World {
    /// The chain.
    pub chain: Chain,
    /// Its native currency.
    pub native: NativeCurrency,
    /// ERC20 tokens; token `i` is asset `i + 1`.
    pub tokens: Vec<Token>,
    /// NFT collections.
    pub collections: Vec<Collection>,
    /// DEXes.
    pub exchanges: Vec<Exchange>,
    /// Pairs of the DEXes.
    pub pairs: Vec<Pair>,
    /// Fee recipient of every block.
    pub miner: Address,
    /// The NFT marketplace contract.
    pub marketplace: Address,
    /// Every block's gas limit.
    pub gas_limit: u64,
    token_by_address: HashMap<Address, Asset>,
    collection_by_address: HashMap<Address, u16>,
}

const TOKEN_WORDS: &[&str] = &[
    "Aurora", "Basalt", "Cinder", "Drift", "Ember", "Fjord", "Glacier", "Harbor", "Indigo", "Juniper", "Kestrel",
    "Lumen", "Mosaic", "Nimbus", "Onyx", "Prism", "Quartz", "Ripple", "Sable", "Tundra", "Umber", "Vesper", "Willow",
    "Xenon", "Yarrow", "Zephyr",
];
const TOKEN_SUFFIXES: &[&str] = &["Token", "Coin", "Finance", "Protocol", "Network", "Credits", "Share", "Cash"];
const COLLECTION_WORDS: &[&str] =
    &["Pixel", "Glyph", "Voxel", "Astral", "Lunar", "Neon", "Feral", "Mecha", "Cosmic", "Velvet", "Rune", "Solar"];
const COLLECTION_SUFFIXES: &[&str] = &["Punks", "Apes", "Sprites", "Relics", "Badges", "Keys", "Beasts", "Wardens"];
const EXCHANGE_NAMES: [&str; 2] = ["DevSwap v2", "LeafSwap v2"];
const DECIMALS: &[u8] = &[18, 18, 18, 18, 6, 8, 9, 12, 0, 2, 4, 10, 15, 16];

/// Host of every URL the devnet makes up (logos, metadata, images).
pub(crate) const MEDIA_HOST: &str = "https://devnet.w3api.example";

impl World {
    /// Plans the chain: names, prices, and the addresses deployments will give.
    pub fn plan(chain: Chain, seed: u64, scale: &Scale, accounts: &Accounts) -> World {
        let mut rng = seed::rng(seed, &[b"world", &crate::chain_id(chain).to_be_bytes()]);
        let native = native_currency(chain);
        let deployer = accounts.address(Accounts::DEPLOYER);
        let spammer = accounts.address(Accounts::SPAMMER);
        // Deployer nonces in deployment order: tokens, collections, factories, routers, the marketplace.
        let mut nonce = 0u64;
        let mut next_address = || {
            let address = deployer.create(nonce);
            nonce += 1;
            address
        };
        let mut tokens = Vec::new();
        tokens.push(wrapped_token(&native, next_address(), chain));
        tokens.push(stable_token(next_address(), chain));
        let mut names = Names::default();
        for _ in 0..scale.tokens {
            let (name, symbol) = names.token(&mut rng);
            let decimals = DECIMALS[rng.usize(..DECIMALS.len())];
            let launch_usd = log_uniform(&mut rng, 0.001, 2_000.0);
            let address = next_address();
            let verified = rng.u8(..10) < 8;
            let (logo, thumbnail) = token_images(chain, address, rng.u8(..10) < 9);
            tokens.push(Token {
                address,
                name,
                symbol,
                decimals,
                kind: TokenKind::Regular,
                verified,
                logo,
                thumbnail,
                launch_usd,
                supply: 0,
                owner: Accounts::DEPLOYER,
            });
        }
        let collections = plan_collections(chain, seed, scale, &mut rng, &mut names, &mut next_address);
        let factories: Vec<Address> = EXCHANGE_NAMES.iter().map(|_| next_address()).collect();
        let routers: Vec<Address> = EXCHANGE_NAMES.iter().map(|_| next_address()).collect();
        let marketplace = next_address();
        for i in 0..scale.spam_tokens {
            let (name, symbol) = names.spam_token(&mut rng);
            tokens.push(Token {
                address: spammer.create(u64::from(i)),
                name,
                symbol,
                decimals: 18,
                kind: TokenKind::Spam,
                verified: false,
                logo: None,
                thumbnail: None,
                launch_usd: 0.000_01,
                supply: 1_000_000_000_000 * 10u128.pow(18),
                owner: Accounts::SPAMMER,
            });
        }
        let exchanges = EXCHANGE_NAMES
            .iter()
            .zip(factories.iter().zip(&routers))
            .map(|(name, (factory, router))| Exchange { name: name.to_string(), factory: *factory, router: *router })
            .collect::<Vec<_>>();
        let pairs = plan_pairs(&mut rng, &tokens, &exchanges);
        size_supplies(&mut tokens, &pairs, scale);
        let miner = Address::from_slice(&seed::derive(seed, &[b"miner", &crate::chain_id(chain).to_be_bytes()])[12..]);
        let token_by_address = tokens.iter().enumerate().map(|(i, t)| (t.address, Asset(i as u16 + 1))).collect();
        let collection_by_address = collections.iter().enumerate().map(|(i, c)| (c.address, i as u16)).collect();
        World {
            chain,
            native,
            tokens,
            collections,
            exchanges,
            pairs,
            miner,
            marketplace,
            gas_limit: crate::GAS_LIMIT,
            token_by_address,
            collection_by_address,
        }
    }

    /// The world of a chain from a genesis (`--init`): nothing deployed,
    /// blocks mined by `miner` with `gas_limit` gas.
    ///
    /// The wrapped native token and the stablecoin keep their assets (1 and
    /// 2), which the prices are built on, so that a token a user deploys is
    /// never taken for them; neither has an address here (no contract
    /// answers to them), so no query finds them, and without their pairs
    /// nothing has a price.
    pub(crate) fn bare(chain: Chain, miner: Address, gas_limit: u64) -> World {
        let native = native_currency(chain);
        let tokens = vec![wrapped_token(&native, Address::ZERO, chain), stable_token(Address::ZERO, chain)];
        World {
            chain,
            native,
            tokens,
            collections: Vec::new(),
            exchanges: Vec::new(),
            pairs: Vec::new(),
            miner,
            marketplace: Address::ZERO,
            gas_limit,
            token_by_address: HashMap::new(),
            collection_by_address: HashMap::new(),
        }
    }

    /// The token of an asset; `None` for the native currency.
    pub fn token(&self, asset: Asset) -> Option<&Token> {
        asset.0.checked_sub(1).map(|i| &self.tokens[usize::from(i)])
    }

    /// The asset of a token contract.
    pub fn asset_at(&self, address: Address) -> Option<Asset> {
        self.token_by_address.get(&address).copied()
    }

    /// The collection at a contract address.
    pub fn collection_at(&self, address: Address) -> Option<u16> {
        self.collection_by_address.get(&address).copied()
    }

    /// Every asset, the native currency first.
    pub fn assets(&self) -> impl Iterator<Item = Asset> {
        (0..=self.tokens.len() as u16).map(Asset)
    }

    /// Decimals of an asset.
    pub fn decimals(&self, asset: Asset) -> u8 {
        self.token(asset).map_or(18, |t| t.decimals)
    }

    /// Adds a token a test deploys; returns its asset.
    pub(crate) fn add_token(&mut self, token: Token) -> Asset {
        let asset = Asset(self.tokens.len() as u16 + 1);
        self.token_by_address.insert(token.address, asset);
        self.tokens.push(token);
        asset
    }

    /// Adds a collection a test deploys; returns its index.
    pub(crate) fn add_collection(&mut self, collection: Collection) -> u16 {
        let index = self.collections.len() as u16;
        self.collection_by_address.insert(collection.address, index);
        self.collections.push(collection);
        index
    }

    /// Adds a pair of `a` and `b` on `exchange`, at the address its factory
    /// gives it; returns its index.
    pub(crate) fn add_pair(&mut self, exchange: usize, a: Asset, b: Asset, liquidity_usd: f64) -> usize {
        let address_of = |asset: Asset| self.token(asset).expect("pairs are of tokens").address;
        let pair = new_pair(&self.exchanges, exchange, (a, address_of(a)), (b, address_of(b)), liquidity_usd);
        self.pairs.push(pair);
        self.pairs.len() - 1
    }

    /// Adds a pair a user's transaction had one of the exchanges' factories
    /// create (found by its `PairCreated`); returns its index.
    pub(crate) fn add_found_pair(&mut self, pair: Pair) -> usize {
        self.pairs.push(pair);
        self.pairs.len() - 1
    }

    /// Sets the metadata of token id `id` of a collection (one past its
    /// last id adds one), and counts its traits again.
    pub(crate) fn set_nft_metadata(&mut self, collection: u16, id: u32, metadata: NftMetadata) {
        let collection = &mut self.collections[usize::from(collection)];
        let index = id as usize - 1;
        if index == collection.metadata.len() {
            collection.metadata.push(metadata);
        } else {
            collection.metadata[index] = metadata;
        }
        collection.trait_counts = metadata::trait_counts(&collection.metadata);
        collection.rarity = metadata::rarity(&collection.metadata, &collection.trait_counts);
    }

    /// The pairs an asset is a side of.
    pub fn pairs_of(&self, asset: Asset) -> impl Iterator<Item = (usize, &Pair)> {
        self.pairs.iter().enumerate().filter(move |(_, p)| p.token0 == asset || p.token1 == asset)
    }
}

fn native_currency(chain: Chain) -> NativeCurrency {
    let (name, symbol) = chain.native_currency();
    let launch_usd = match chain {
        Chain::Polygon | Chain::PolygonAmoy => 0.45,
        Chain::Bsc | Chain::BscTestnet | Chain::OpBnb => 610.0,
        Chain::Avalanche => 28.0,
        Chain::Fantom => 0.7,
        Chain::Palm => 0.01,
        Chain::Cronos => 0.12,
        Chain::Gnosis | Chain::GnosisTestnet => 1.0,
        Chain::Chiliz | Chain::ChilizTestnet => 0.08,
        Chain::Moonbeam => 0.25,
        Chain::Moonriver => 9.0,
        Chain::Moonbase => 0.01,
        Chain::Mantle | Chain::MantleSepolia => 0.9,
        Chain::Zetachain | Chain::ZetachainTestnet => 0.6,
        Chain::Flow | Chain::FlowTestnet => 0.5,
        Chain::Ronin | Chain::RoninTestnet => 1.2,
        Chain::Pulse => 0.00004,
        Chain::Sei | Chain::SeiTestnet => 0.3,
        Chain::Monad => 0.05,
        _ => 3_000.0,
    };
    let base = format!("{MEDIA_HOST}/tokens/{}/native", crate::chain_id(chain));
    NativeCurrency { name, symbol, launch_usd, logo: format!("{base}.png"), thumbnail: format!("{base}_thumb.png") }
}

fn wrapped_token(native: &NativeCurrency, address: Address, chain: Chain) -> Token {
    let (logo, thumbnail) = token_images(chain, address, true);
    Token {
        address,
        name: format!("Wrapped {}", native.name),
        symbol: format!("W{}", native.symbol),
        decimals: 18,
        kind: TokenKind::Wrapped,
        verified: true,
        logo,
        thumbnail,
        launch_usd: native.launch_usd,
        supply: 0,
        owner: Accounts::DEPLOYER,
    }
}

fn stable_token(address: Address, chain: Chain) -> Token {
    let (logo, thumbnail) = token_images(chain, address, true);
    Token {
        address,
        name: "Devnet USD".into(),
        symbol: "DUSD".into(),
        decimals: 6,
        kind: TokenKind::Stable,
        verified: true,
        logo,
        thumbnail,
        launch_usd: 1.0,
        supply: 0,
        owner: Accounts::DEPLOYER,
    }
}

fn token_images(chain: Chain, address: Address, has_images: bool) -> (Option<String>, Option<String>) {
    if !has_images {
        return (None, None);
    }
    let base = format!("{MEDIA_HOST}/tokens/{}/{address:#x}", crate::chain_id(chain));
    (Some(format!("{base}.png")), Some(format!("{base}_thumb.png")))
}

fn plan_collections(
    chain: Chain,
    seed: u64,
    scale: &Scale,
    rng: &mut fastrand::Rng,
    names: &mut Names,
    next_address: &mut impl FnMut() -> Address,
) -> Vec<Collection> {
    let kinds = std::iter::repeat_n(ContractType::Erc721, usize::from(scale.erc721_collections))
        .chain(std::iter::repeat_n(ContractType::Erc1155, usize::from(scale.erc1155_collections)));
    let mut collections = Vec::new();
    for (index, kind) in kinds.enumerate() {
        let address = next_address();
        // The last ERC1155 collection is the spammer's airdrop.
        let spam = kind == ContractType::Erc1155
            && index + 1 == usize::from(scale.erc721_collections + scale.erc1155_collections);
        let (name, symbol) = names.collection(rng, spam);
        let ids = if kind == ContractType::Erc721 { scale.erc721_supply } else { scale.erc1155_ids };
        let metadata = metadata::collection(seed, chain, address, &name, ids, kind == ContractType::Erc1155);
        let trait_counts = metadata::trait_counts(&metadata);
        let rarity = metadata::rarity(&metadata, &trait_counts);
        let base = format!("{MEDIA_HOST}/collections/{}/{address:#x}", crate::chain_id(chain));
        collections.push(Collection {
            address,
            symbol,
            kind,
            verified: !spam && rng.u8(..10) < 7,
            spam,
            logo: (!spam).then(|| format!("{base}/logo.png")),
            banner: (!spam && rng.bool()).then(|| format!("{base}/banner.png")),
            user: false,
            metadata,
            rarity,
            trait_counts,
            name,
        });
    }
    collections
}

fn plan_pairs(rng: &mut fastrand::Rng, tokens: &[Token], exchanges: &[Exchange]) -> Vec<Pair> {
    let mut pairs = Vec::new();
    let mut add = |exchange: usize, a: Asset, b: Asset, liquidity: f64| {
        let address_of = |asset: Asset| tokens[usize::from(asset.0 - 1)].address;
        pairs.push(new_pair(exchanges, exchange, (a, address_of(a)), (b, address_of(b)), liquidity));
    };
    add(0, Asset::WRAPPED, Asset::STABLE, 20_000_000.0);
    add(1, Asset::WRAPPED, Asset::STABLE, 5_000_000.0);
    let mut spam_paired = false;
    for (i, token) in tokens.iter().enumerate() {
        let asset = Asset(i as u16 + 1);
        match token.kind {
            TokenKind::Regular => {
                add(i % 2, asset, Asset::WRAPPED, log_uniform(rng, 50_000.0, 5_000_000.0));
                if i % 3 == 0 {
                    add((i + 1) % 2, asset, Asset::STABLE, log_uniform(rng, 10_000.0, 1_000_000.0));
                }
            }
            // One spam token gets a pair so thin that liquidity filters drop its price.
            TokenKind::Spam if !spam_paired => {
                spam_paired = true;
                add(0, asset, Asset::WRAPPED, 50.0);
            }
            _ => {}
        }
    }
    pairs
}

/// The pair of two tokens (with their addresses) on `exchange`, at the
/// address its factory gives it (CREATE2 of the sorted addresses).
fn new_pair(exchanges: &[Exchange], exchange: usize, a: (Asset, Address), b: (Asset, Address), liquidity: f64) -> Pair {
    let ((token0, low), (token1, high)) = if a.1 < b.1 { (a, b) } else { (b, a) };
    // The factory creates each pair with CREATE2, salted with the tokens,
    // from the pair's creation code and its constructor arguments.
    let salt = keccak256([low.as_slice(), high.as_slice()].concat());
    let init_code = [w3api_contracts::Pair::BYTECODE.as_ref(), &(low, high).abi_encode_params()].concat();
    let address = exchanges[exchange].factory.create2(salt, keccak256(init_code));
    Pair { exchange, address, token0, token1, launch_liquidity_usd: liquidity }
}

/// Sets each supply to cover its pairs' liquidity and its hand-outs, with room to spare.
fn size_supplies(tokens: &mut [Token], pairs: &[Pair], scale: &Scale) {
    let handout_usd = 20_000.0 * f64::from(scale.wallets + scale.traders);
    for (i, token) in tokens.iter_mut().enumerate() {
        if token.kind == TokenKind::Spam || token.kind == TokenKind::Wrapped {
            continue;
        }
        let asset = Asset(i as u16 + 1);
        let liquidity: f64 =
            pairs.iter().filter(|p| p.token0 == asset || p.token1 == asset).map(|p| p.launch_liquidity_usd / 2.0).sum();
        let whole_tokens = (liquidity + handout_usd) * 4.0 / token.launch_usd;
        token.supply = (whole_tokens * 10f64.powi(i32::from(token.decimals))) as u128;
    }
}

/// A number between `low` and `high`, evenly spread in orders of magnitude.
pub(crate) fn log_uniform(rng: &mut fastrand::Rng, low: f64, high: f64) -> f64 {
    (low.ln() + rng.f64() * (high.ln() - low.ln())).exp()
}

/// Hands out distinct names and symbols.
#[derive(Default)]
struct Names {
    used: std::collections::HashSet<String>,
}

impl Names {
    fn unique(
        &mut self,
        rng: &mut fastrand::Rng,
        make: impl Fn(&mut fastrand::Rng) -> (String, String),
    ) -> (String, String) {
        for attempt in 0u32.. {
            let (mut name, mut symbol) = make(rng);
            if attempt > 20 {
                name = format!("{name} {attempt}");
                symbol = format!("{symbol}{attempt}");
            }
            if self.used.insert(symbol.clone()) {
                return (name, symbol);
            }
        }
        unreachable!("the loop returns")
    }

    fn token(&mut self, rng: &mut fastrand::Rng) -> (String, String) {
        self.unique(rng, |rng| {
            let word = TOKEN_WORDS[rng.usize(..TOKEN_WORDS.len())];
            let suffix = TOKEN_SUFFIXES[rng.usize(..TOKEN_SUFFIXES.len())];
            let symbol: String = word.chars().take(3).chain(suffix.chars().take(1)).collect::<String>().to_uppercase();
            (format!("{word} {suffix}"), symbol)
        })
    }

    fn spam_token(&mut self, rng: &mut fastrand::Rng) -> (String, String) {
        self.unique(rng, |rng| {
            let word = TOKEN_WORDS[rng.usize(..TOKEN_WORDS.len())];
            (
                format!("Claim {word} Rewards at {}.example", word.to_lowercase()),
                format!("{}-AIRDROP", word.to_uppercase()),
            )
        })
    }

    fn collection(&mut self, rng: &mut fastrand::Rng, spam: bool) -> (String, String) {
        self.unique(rng, |rng| {
            let word = COLLECTION_WORDS[rng.usize(..COLLECTION_WORDS.len())];
            let suffix = COLLECTION_SUFFIXES[rng.usize(..COLLECTION_SUFFIXES.len())];
            let name = if spam { format!("Free {word} {suffix} Voucher") } else { format!("{word} {suffix}") };
            let symbol = format!("{}{}", &word[..2], &suffix[..2]).to_uppercase();
            (name, if spam { format!("{symbol}V") } else { symbol })
        })
    }
}

/// The devnet's blocks reach its ledger through their logs, as a node's
/// reach an indexer's: the world says which contracts are which.
impl Contracts for World {
    fn asset(&self, contract: Address) -> Option<Asset> {
        self.asset_at(contract)
    }

    fn collection(&self, contract: Address) -> Option<u16> {
        self.collection_at(contract)
    }
}
