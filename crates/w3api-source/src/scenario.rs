//! A scenario: the world a test wants, as steps in the vocabulary of the
//! chain controls (wallets, tokens, collections, mints, transfers, prices,
//! blocks, time). It is read from YAML (`w3api serve --scenario`) or built
//! in Rust (the test kit), and applied step by step through
//! [`ChainControl`]. A name given to a wallet, a token or a collection
//! stands for its address in the steps after it.
//!
//! ```yaml
//! chain: eth
//! steps:
//!   - wallet: { name: alice, balance: 10 }
//!   - token: { symbol: GOOD, name: Good Token, decimals: 6, price: 2.5 }
//!   - mint: { token: GOOD, to: alice, amount: 1500 }
//! ```

use std::collections::BTreeMap;

use serde::Deserialize;
use w3api_types::{Address, Chain, NATIVE_TOKEN_ADDRESS, U256};

use crate::{ChainControl, Moved, NewCollection, NewNftMetadata, NewToken, SourceError};

/// Decimals of the native currency, in which wallet balances are written.
const NATIVE_DECIMALS: u8 = 18;

/// The steps, in order, on one chain.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The chain (default `eth`).
    #[serde(default = "default_chain")]
    pub chain: Chain,
    /// What to do.
    pub steps: Vec<Step>,
    /// The line each step starts on, when read from a file.
    #[serde(skip)]
    lines: Vec<usize>,
}

fn default_chain() -> Chain {
    Chain::Eth
}

fn one() -> u64 {
    1
}

fn eighteen() -> u8 {
    NATIVE_DECIMALS
}

/// One step: a map with one key, the step's kind. Amounts are whole units
/// (`1500.25`), written as numbers or strings; references are names given
/// earlier or `0x` addresses.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(try_from = "StepEntry")]
pub enum Step {
    /// A wallet whose key the chain holds, named, with a native balance.
    Wallet(WalletStep),
    /// An ERC20, named by its symbol.
    Token(TokenStep),
    /// An NFT collection, named by its name.
    Collection(CollectionStep),
    /// New units of a token for someone.
    Mint(MintStep),
    /// An NFT of a collection for someone, with its metadata.
    Nft(NftStep),
    /// A transfer from a wallet of the scenario (or an account the chain holds the key of).
    Transfer(TransferStep),
    /// A token's USD price, set through its DEX pair's reserves.
    Price(PriceStep),
    /// An account's native balance, raised to this many whole units.
    Balance(BalanceStep),
    /// Empty blocks.
    Mine(MineStep),
    /// Time added before the next block.
    IncreaseTime(IncreaseTimeStep),
}

/// A wallet whose key the chain holds, named, with a native balance.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WalletStep {
    /// Its name in later steps.
    pub name: String,
    /// Whole units of the native currency it starts with.
    #[serde(default)]
    pub balance: Option<Amount>,
}

/// An ERC20, named by its symbol.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TokenStep {
    /// Symbol, and its name in later steps.
    pub symbol: String,
    /// Name.
    pub name: String,
    /// Decimals (default 18).
    #[serde(default = "eighteen")]
    pub decimals: u8,
    /// Logo URL.
    #[serde(default)]
    pub logo: Option<String>,
    /// Airdropped spam.
    #[serde(default)]
    pub spam: bool,
    /// Verified (default: unless spam).
    #[serde(default)]
    pub verified: Option<bool>,
    /// USD price: the token gets a DEX pair priced so.
    #[serde(default)]
    pub price: Option<f64>,
    /// USD in that pair, both sides.
    #[serde(default)]
    pub liquidity: Option<f64>,
}

/// An NFT collection, named by its name.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollectionStep {
    /// Name, and its name in later steps.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// `ERC721` (the default) or `ERC1155`.
    #[serde(default)]
    pub standard: Standard,
    /// Airdropped spam.
    #[serde(default)]
    pub spam: bool,
    /// Verified (default: unless spam).
    #[serde(default)]
    pub verified: Option<bool>,
}

/// New units of a token for someone.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MintStep {
    /// The token.
    pub token: String,
    /// Who gets them.
    pub to: String,
    /// Whole units.
    pub amount: Amount,
}

/// An NFT of a collection for someone, with its metadata.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NftStep {
    /// The collection.
    pub collection: String,
    /// Who gets it.
    pub to: String,
    /// How many (ERC1155; 1 for an ERC721).
    #[serde(default = "one")]
    pub amount: u64,
    /// Its name.
    #[serde(default)]
    pub name: Option<String>,
    /// Its description.
    #[serde(default)]
    pub description: Option<String>,
    /// Its image URL.
    #[serde(default)]
    pub image: Option<String>,
    /// Its traits, type to value.
    #[serde(default)]
    pub attributes: BTreeMap<String, String>,
}

/// A transfer from a wallet of the scenario (or an account the chain holds the key of).
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TransferStep {
    /// The sender.
    pub from: String,
    /// The recipient.
    pub to: String,
    /// The token or collection; the native currency when absent.
    #[serde(default)]
    pub token: Option<String>,
    /// Whole units (NFTs: how many).
    pub amount: Amount,
    /// The NFT's id, for a collection.
    #[serde(default)]
    pub token_id: Option<u64>,
}

/// A token's USD price, set through its DEX pair's reserves.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceStep {
    /// The token (`native` for the native currency).
    pub token: String,
    /// USD per whole token.
    pub usd: f64,
}

/// An account's native balance, raised to this many whole units.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BalanceStep {
    /// The account.
    pub address: String,
    /// Whole units of the native currency.
    pub amount: Amount,
}

/// Empty blocks.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MineStep {
    /// How many (default 1).
    #[serde(default = "one")]
    pub blocks: u64,
    /// Seconds between them (default 12).
    #[serde(default)]
    pub interval: Option<u64>,
}

/// Time added before the next block.
#[derive(Clone, Debug, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IncreaseTimeStep {
    /// Seconds.
    pub seconds: u64,
}

/// A step as written: one of these keys.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepEntry {
    #[serde(default)]
    wallet: Option<WalletStep>,
    #[serde(default)]
    token: Option<TokenStep>,
    #[serde(default)]
    collection: Option<CollectionStep>,
    #[serde(default)]
    mint: Option<MintStep>,
    #[serde(default)]
    nft: Option<NftStep>,
    #[serde(default)]
    transfer: Option<TransferStep>,
    #[serde(default)]
    price: Option<PriceStep>,
    #[serde(default)]
    balance: Option<BalanceStep>,
    #[serde(default)]
    mine: Option<MineStep>,
    #[serde(default)]
    increase_time: Option<IncreaseTimeStep>,
}

impl TryFrom<StepEntry> for Step {
    type Error = String;

    fn try_from(entry: StepEntry) -> Result<Step, String> {
        let given: Vec<Step> = [
            entry.wallet.map(Step::Wallet),
            entry.token.map(Step::Token),
            entry.collection.map(Step::Collection),
            entry.mint.map(Step::Mint),
            entry.nft.map(Step::Nft),
            entry.transfer.map(Step::Transfer),
            entry.price.map(Step::Price),
            entry.balance.map(Step::Balance),
            entry.mine.map(Step::Mine),
            entry.increase_time.map(Step::IncreaseTime),
        ]
        .into_iter()
        .flatten()
        .collect();
        match <[Step; 1]>::try_from(given) {
            Ok([step]) => Ok(step),
            Err(given) => {
                Err(format!("a step has one key, its kind ({}); this one has {}", STEP_KINDS.join(", "), given.len()))
            }
        }
    }
}

/// The kinds of step, as written.
const STEP_KINDS: [&str; 10] =
    ["wallet", "token", "collection", "mint", "nft", "transfer", "price", "balance", "mine", "increase_time"];

/// An NFT collection's standard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
pub enum Standard {
    /// One owner per token id.
    #[default]
    #[serde(rename = "ERC721")]
    Erc721,
    /// Amounts per token id.
    #[serde(rename = "ERC1155")]
    Erc1155,
}

/// An amount in whole units, as a number or a string (`1500.25`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Amount(String);

impl<'de> Deserialize<'de> for Amount {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Integer(u64),
            Number(f64),
            Text(String),
        }
        let text = match Written::deserialize(deserializer) {
            Ok(Written::Integer(n)) => n.to_string(),
            Ok(Written::Number(n)) => n.to_string(),
            Ok(Written::Text(text)) => text,
            Err(_) => return Err(serde::de::Error::custom("an amount is a number of whole units, such as 1500.25")),
        };
        // Checked as it is read, so that a file's error names its line.
        whole_and_fraction(&text).map_err(serde::de::Error::custom)?;
        Ok(Amount(text))
    }
}

impl From<&str> for Amount {
    fn from(text: &str) -> Self {
        Amount(text.to_string())
    }
}

impl From<u64> for Amount {
    fn from(whole: u64) -> Self {
        Amount(whole.to_string())
    }
}

impl Amount {
    /// Raw units at `decimals`.
    fn raw(&self, decimals: u8) -> Result<U256, String> {
        let text = self.0.trim();
        let (whole, fraction) = whole_and_fraction(text)?;
        if fraction.len() > usize::from(decimals) {
            return Err(format!("amount {text} has more than {decimals} decimals"));
        }
        let digits = format!("{whole}{fraction:0<width$}", width = usize::from(decimals));
        U256::from_str_radix(&digits, 10).map_err(|_| format!("amount {text} is too large"))
    }
}

/// The digits of an amount before and after its decimal point.
fn whole_and_fraction(text: &str) -> Result<(&str, &str), String> {
    let text = text.trim();
    let (whole, fraction) = text.split_once('.').unwrap_or((text, ""));
    let digits = |s: &str| s.chars().all(|c| c.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(fraction) {
        return Err(format!("amount {text:?} is not a number of whole units, such as 1500.25"));
    }
    Ok((whole, fraction))
}

/// Why a scenario could not be read or applied: the step and the line it
/// starts on, and what was wrong.
#[derive(Debug)]
pub struct ScenarioError {
    /// The step (from 1), when the error is in one.
    pub step: Option<usize>,
    /// The line, when known.
    pub line: Option<usize>,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.step, self.line) {
            (Some(step), Some(line)) => write!(f, "step {step} (line {line}): ")?,
            (Some(step), None) => write!(f, "step {step}: ")?,
            (None, Some(line)) => write!(f, "line {line}: ")?,
            (None, None) => {}
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// What applying a scenario made: the address of each name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Applied {
    names: BTreeMap<String, Named>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Named {
    address: Address,
    /// Decimals, for tokens.
    decimals: Option<u8>,
}

impl Applied {
    /// The address given the name `name`.
    pub fn address(&self, name: &str) -> Option<Address> {
        self.names.get(name).map(|named| named.address)
    }

    /// Every name and its address.
    pub fn names(&self) -> impl Iterator<Item = (&str, Address)> {
        self.names.iter().map(|(name, named)| (name.as_str(), named.address))
    }

    fn resolve(&self, reference: &str) -> Result<Address, String> {
        if let Some(named) = self.names.get(reference) {
            return Ok(named.address);
        }
        if reference.starts_with("0x") {
            return reference.parse().map_err(|_| format!("{reference:?} is not an address"));
        }
        let known: Vec<&str> = self.names.keys().map(String::as_str).collect();
        Err(format!("no wallet, token or collection is named {reference:?} (named so far: {})", known.join(", ")))
    }

    /// A token and its decimals: amounts of it are written in whole units.
    fn token(&self, reference: &str) -> Result<(Address, u8), String> {
        match self.names.get(reference) {
            Some(Named { address, decimals: Some(decimals) }) => Ok((*address, *decimals)),
            Some(_) => Err(format!("{reference:?} is not a token of the scenario")),
            None => Err(format!(
                "no token of the scenario is named {reference:?}: amounts are whole units, so tokens are ones \
                 the scenario made"
            )),
        }
    }

    fn name(&mut self, name: &str, address: Address, decimals: Option<u8>) -> Result<(), String> {
        match self.names.insert(name.to_string(), Named { address, decimals }) {
            Some(_) => Err(format!("the name {name:?} is given twice")),
            None => Ok(()),
        }
    }
}

impl Scenario {
    /// An empty scenario on `chain`, for the builder methods below.
    pub fn on(chain: Chain) -> Scenario {
        Scenario { chain, steps: Vec::new(), lines: Vec::new() }
    }

    /// Reads a scenario from YAML; an error names the line and the field.
    pub fn from_yaml(text: &str) -> Result<Scenario, ScenarioError> {
        let deserializer = serde_norway::Deserializer::from_str(text);
        let mut scenario: Scenario = serde_path_to_error::deserialize(deserializer).map_err(|error| {
            let field = error.path().to_string();
            let inner = error.into_inner();
            let line = inner.location().map(|l| l.line());
            let message = inner.to_string();
            // serde_norway ends its messages with the location, said apart
            // here, and may start them with a shorter path than the field's.
            let message = message.split(" at line ").next().unwrap_or(&message);
            let message = match message.split_once(": ") {
                Some((path, rest)) if !path.contains(' ') => rest,
                _ => message,
            };
            let message = if field == "." { message.to_string() } else { format!("{field}: {message}") };
            ScenarioError { step: None, line, message }
        })?;
        if scenario.chain.id().is_none() {
            let line = text.lines().position(|l| l.starts_with("chain:")).map(|i| i + 1);
            let message = format!("chain: {} is not a chain with a chain id", scenario.chain);
            return Err(ScenarioError { step: None, line, message });
        }
        scenario.lines = step_lines(text);
        Ok(scenario)
    }

    /// The scenario with one more step.
    pub fn step(mut self, step: Step) -> Scenario {
        self.steps.push(step);
        self
    }

    /// A wallet named `name` with `balance` whole units of the native currency.
    pub fn wallet(self, name: &str, balance: impl Into<Amount>) -> Scenario {
        self.step(Step::Wallet(WalletStep { name: name.into(), balance: Some(balance.into()) }))
    }

    /// A token named by `symbol`, priced at `usd_price` when given.
    pub fn token(self, symbol: &str, name: &str, decimals: u8, usd_price: Option<f64>) -> Scenario {
        self.step(Step::Token(TokenStep {
            symbol: symbol.into(),
            name: name.into(),
            decimals,
            logo: None,
            spam: false,
            verified: None,
            price: usd_price,
            liquidity: None,
        }))
    }

    /// A spam token named by `symbol`, without a price.
    pub fn spam_token(self, symbol: &str, name: &str) -> Scenario {
        self.step(Step::Token(TokenStep {
            symbol: symbol.into(),
            name: name.into(),
            decimals: NATIVE_DECIMALS,
            logo: None,
            spam: true,
            verified: None,
            price: None,
            liquidity: None,
        }))
    }

    /// An ERC721 collection named `name`.
    pub fn collection(self, name: &str, symbol: &str) -> Scenario {
        self.step(Step::Collection(CollectionStep {
            name: name.into(),
            symbol: symbol.into(),
            standard: Standard::Erc721,
            spam: false,
            verified: None,
        }))
    }

    /// `amount` whole units of `token` for `to`.
    pub fn mint(self, token: &str, to: &str, amount: impl Into<Amount>) -> Scenario {
        self.step(Step::Mint(MintStep { token: token.into(), to: to.into(), amount: amount.into() }))
    }

    /// An NFT of `collection` named `name` for `to`.
    pub fn nft(self, collection: &str, to: &str, name: &str) -> Scenario {
        self.step(Step::Nft(NftStep {
            collection: collection.into(),
            to: to.into(),
            amount: 1,
            name: Some(name.into()),
            description: None,
            image: None,
            attributes: BTreeMap::new(),
        }))
    }

    /// `token`'s USD price.
    pub fn price(self, token: &str, usd: f64) -> Scenario {
        self.step(Step::Price(PriceStep { token: token.into(), usd }))
    }

    /// `blocks` empty blocks.
    pub fn mine(self, blocks: u64) -> Scenario {
        self.step(Step::Mine(MineStep { blocks, interval: None }))
    }

    /// Applies every step, in order, through `source`; stops at the first
    /// that fails, naming it.
    pub async fn apply(&self, source: &impl ChainControl) -> Result<Applied, ScenarioError> {
        let mut applied = Applied::default();
        for (index, step) in self.steps.iter().enumerate() {
            let failed = |message: String| ScenarioError {
                step: Some(index + 1),
                line: self.lines.get(index).copied(),
                message: format!("{}: {message}", step.kind()),
            };
            self.apply_step(source, step, &mut applied).await.map_err(failed)?;
        }
        Ok(applied)
    }

    async fn apply_step(&self, source: &impl ChainControl, step: &Step, applied: &mut Applied) -> Result<(), String> {
        let chain = self.chain;
        let change = |error: SourceError| error.to_string();
        match step {
            Step::Wallet(WalletStep { name, balance }) => {
                let native = balance.as_ref().map_or(Ok(U256::ZERO), |b| b.raw(NATIVE_DECIMALS))?;
                let wallet = source.create_wallet(chain, native).await.map_err(change)?;
                applied.name(name, wallet.address, None)
            }
            Step::Token(TokenStep { symbol, name, decimals, logo, spam, verified, price, liquidity }) => {
                let token = NewToken {
                    name: name.clone(),
                    symbol: symbol.clone(),
                    decimals: *decimals,
                    logo: logo.clone(),
                    spam: *spam,
                    verified: verified.unwrap_or(!spam),
                    usd_price: *price,
                    liquidity_usd: *liquidity,
                    supply: None,
                };
                let address = source.create_token(chain, token).await.map_err(change)?;
                applied.name(symbol, address, Some(*decimals))
            }
            Step::Collection(CollectionStep { name, symbol, standard, spam, verified }) => {
                let collection = NewCollection {
                    name: name.clone(),
                    symbol: symbol.clone(),
                    erc1155: *standard == Standard::Erc1155,
                    spam: *spam,
                    verified: verified.unwrap_or(!spam),
                    logo: None,
                };
                let address = source.create_collection(chain, collection).await.map_err(change)?;
                applied.name(name, address, None)
            }
            Step::Mint(MintStep { token, to, amount }) => {
                let (token, decimals) = applied.token(token)?;
                let to = applied.resolve(to)?;
                source.mint_token(chain, token, to, amount.raw(decimals)?).await.map_err(change)
            }
            Step::Nft(NftStep { collection, to, amount, name, description, image, attributes }) => {
                let metadata = NewNftMetadata {
                    name: name.clone(),
                    description: description.clone(),
                    image: image.clone(),
                    attributes: attributes.iter().map(|(k, v)| (k.clone(), v.clone())).collect(),
                };
                let (collection, to) = (applied.resolve(collection)?, applied.resolve(to)?);
                source.mint_nft(chain, collection, to, *amount, Some(metadata)).await.map(drop).map_err(change)
            }
            Step::Transfer(TransferStep { from, to, token, amount, token_id }) => {
                let (from, to) = (applied.resolve(from)?, applied.resolve(to)?);
                let moved = match (token, token_id) {
                    (None, _) => Moved::Native(amount.raw(NATIVE_DECIMALS)?),
                    (Some(collection), Some(id)) => {
                        let count = u64::try_from(amount.raw(0)?).map_err(|_| "too many NFTs".to_string())?;
                        Moved::Nft(applied.resolve(collection)?, U256::from(*id), count)
                    }
                    (Some(token), None) => {
                        let (token, decimals) = applied.token(token)?;
                        Moved::Token(token, amount.raw(decimals)?)
                    }
                };
                source.transfer(chain, from, to, moved).await.map_err(change)
            }
            Step::Price(PriceStep { token, usd }) => {
                let token = if token == "native" { NATIVE_TOKEN_ADDRESS } else { applied.resolve(token)? };
                source.set_price(chain, token, *usd).await.map(drop).map_err(change)
            }
            Step::Balance(BalanceStep { address, amount }) => {
                let address = applied.resolve(address)?;
                source.set_balance(chain, address, amount.raw(NATIVE_DECIMALS)?).await.map_err(change)
            }
            Step::Mine(MineStep { blocks, interval }) => {
                source.mine(chain, *blocks, *interval).await.map(drop).map_err(change)
            }
            Step::IncreaseTime(IncreaseTimeStep { seconds }) => {
                source.increase_time(chain, *seconds).await.map(drop).map_err(change)
            }
        }
    }
}

impl Step {
    fn kind(&self) -> &'static str {
        match self {
            Step::Wallet(_) => "wallet",
            Step::Token(_) => "token",
            Step::Collection(_) => "collection",
            Step::Mint(_) => "mint",
            Step::Nft(_) => "nft",
            Step::Transfer(_) => "transfer",
            Step::Price(_) => "price",
            Step::Balance(_) => "balance",
            Step::Mine(_) => "mine",
            Step::IncreaseTime(_) => "increase_time",
        }
    }
}

/// The line (from 1) each item of the top-level `steps:` list starts on.
fn step_lines(text: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut indent: Option<usize> = None;
    let mut in_steps = false;
    for (number, line) in text.lines().enumerate() {
        let trimmed = line.trim_start();
        if trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let depth = line.len() - trimmed.len();
        if depth == 0 {
            in_steps = trimmed.starts_with("steps:");
            continue;
        }
        if in_steps && trimmed.starts_with("- ") && indent.is_none_or(|i| i == depth) {
            indent = Some(depth);
            lines.push(number + 1);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn amounts_are_whole_units() {
        assert_eq!(Amount::from("1500.25").raw(6), Ok(U256::from(1_500_250_000u64)));
        assert_eq!(Amount::from(3).raw(18), Ok(U256::from(3_000_000_000_000_000_000u128)));
        assert!(Amount::from("1.0000001").raw(6).unwrap_err().contains("more than 6 decimals"));
        assert!(Amount::from("ten").raw(6).unwrap_err().contains("not a number"));
    }

    #[test]
    fn a_bad_file_names_the_line_and_the_field() {
        let text = "chain: eth\nsteps:\n  - wallet: { name: alice }\n  - mint:\n      token: GOOD\n      too: alice\n";
        let error = Scenario::from_yaml(text).unwrap_err();
        assert_eq!(error.line, Some(6), "{error}");
        assert!(error.to_string().starts_with("line 6: steps[1].mint.too: unknown field `too`"), "{error}");
        let error = Scenario::from_yaml("steps:\n  - wallet: { name: alice, balance: lots }\n").unwrap_err();
        assert!(error.to_string().contains("steps[0].wallet.balance"), "{error}");
        let error = Scenario::from_yaml("chain: mars\nsteps: []\n").unwrap_err();
        assert!(error.to_string().starts_with("line 1: chain:"), "{error}");
    }

    #[test]
    fn steps_know_their_lines() {
        let text =
            "# a world\nchain: eth\nsteps:\n  - wallet: { name: a }\n\n  - mine:\n      blocks: 2\n  - mine: {}\n";
        let scenario = Scenario::from_yaml(text).unwrap();
        assert_eq!(scenario.lines, [4, 6, 8]);
        assert_eq!(scenario.steps[1], Step::Mine(MineStep { blocks: 2, interval: None }));
    }
}
