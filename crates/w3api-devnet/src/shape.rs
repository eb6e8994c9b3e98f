//! What a test asks of a chain's world: wallets, tokens, NFTs, transfers
//! and prices. Each change is real signed transactions mined into a new
//! block, so balances equal transfers, NFTs come from mints and prices from
//! DEX reserves, and every answer agrees with every other.

use std::borrow::Cow;

use alloy_primitives::{Address, U256};
use alloy_signer_local::PrivateKeySigner;
use w3api_source::{CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken, SourceError};
use w3api_types::{ContractType, NATIVE_TOKEN_ADDRESS};

use crate::accounts::{self, Accounts, Signers};
use crate::generate::{Action, BlockPlan, ChainData, StateEdit};
use crate::metadata::NftMetadata;
use crate::world::{Collection, Token, TokenKind, World};
use crate::{Devnet, MEDIA_HOST};
use w3api_ledger::Asset;
use w3api_ledger::pricing::PriceFilter;

const DEFAULT_LIQUIDITY_USD: f64 = 1_000_000.0;
const DEFAULT_SUPPLY_WHOLE: u128 = 1_000_000_000;
const MAX_DECIMALS: u8 = 30;

fn invalid(message: String) -> SourceError {
    SourceError::InvalidChange(message)
}

impl Devnet {
    /// A new wallet whose key the devnet holds, funded with `native` wei by
    /// the faucet (a block) when more than zero.
    pub(crate) fn create_wallet_now(&self, data: &mut ChainData, native: U256) -> Result<CreatedWallet, SourceError> {
        let index = (self.accounts().len() + data.producer.created.len()) as u32;
        let signer: PrivateKeySigner = accounts::signer(self.seed(), index);
        let wallet = CreatedWallet { address: signer.address(), private_key: signer.to_bytes() };
        let amount = raw(native, "the balance")?;
        data.producer.created.push(signer);
        if amount > 0
            && let Err(error) = self.append(data, BlockPlan::funding(wallet.address, amount))
        {
            data.producer.created.pop();
            return Err(error);
        }
        Ok(wallet)
    }

    /// Sets the native balance of `address` to `balance`, any 256-bit
    /// amount, as Anvil does: at the start of a new block, outside any
    /// transaction. The balance it has already mines nothing.
    pub(crate) fn set_balance_now(
        &self,
        data: &mut ChainData,
        address: Address,
        balance: U256,
    ) -> Result<(), SourceError> {
        if data.state.archive().latest_account(address).balance == balance {
            return Ok(());
        }
        self.append(data, BlockPlan::edit(StateEdit::Balance(address, balance))).map(drop)
    }

    /// Mints `amount` raw units of the ERC20 at `token` to `to` (the wrapped
    /// native token by a deposit of the faucet's, then a transfer).
    pub(crate) fn mint_token_now(
        &self,
        data: &mut ChainData,
        token: Address,
        to: Address,
        amount: U256,
    ) -> Result<(), SourceError> {
        let asset = devnet_token(&data.world, token)?;
        let amount = raw(amount, "the amount")?;
        self.append(data, BlockPlan::with(mint(asset, to, amount))).map(drop)
    }

    /// Moves what `moved` says from `from`, an account whose key the devnet
    /// holds (its own, or a wallet a test created), to `to`.
    pub(crate) fn transfer_now(
        &self,
        data: &mut ChainData,
        from: Address,
        to: Address,
        moved: Moved,
    ) -> Result<(), SourceError> {
        let action = transfer_action(data, self.accounts(), from, to, moved)?;
        self.append(data, BlockPlan::with(vec![action])).map(drop)
    }

    /// Sets the USD price of the token at `token` (the native currency at
    /// its wrapped token's or the native address) by moving the reserves of
    /// the pair that prices it: a donation to one side, then `sync()`.
    /// Returns the price the chain then reads.
    pub(crate) fn set_price_now(&self, data: &mut ChainData, token: Address, usd: f64) -> Result<f64, SourceError> {
        let asset = if token == NATIVE_TOKEN_ADDRESS { Asset::WRAPPED } else { devnet_token(&data.world, token)? };
        let deployer = self.accounts().address(Accounts::DEPLOYER);
        let actions = price_actions(data, deployer, asset, usd)?;
        let latest = self.append(data, BlockPlan::with(actions))?;
        data.usd_price(asset, latest, PriceFilter::default())
            .ok_or_else(|| invalid(format!("{token} has no price after the change")))
    }

    /// Deploys an ERC20 (and, with a price, its pair, with liquidity) in a
    /// new block; returns its address.
    pub(crate) fn deploy_token(&self, data: &mut ChainData, token: NewToken) -> Result<Address, SourceError> {
        check_token(&token)?;
        let owner = if token.spam { Accounts::SPAMMER } else { Accounts::DEPLOYER };
        let address = data.next_contract_of(self.accounts().address(owner));
        let unit = 10f64.powi(i32::from(token.decimals));
        let supply = match token.supply {
            Some(supply) => raw(supply, "the supply")?,
            None => DEFAULT_SUPPLY_WHOLE.saturating_mul(10u128.pow(u32::from(token.decimals))),
        };
        let liquidity = token.liquidity_usd.unwrap_or(DEFAULT_LIQUIDITY_USD);
        // Raw units of each side of the token's pair, when it has a price.
        let sides = match token.usd_price {
            Some(usd) => {
                let native_usd = data.usd_price(Asset::NATIVE, data.latest(), PriceFilter::default()).unwrap_or(1.0);
                let token_side = (liquidity / 2.0 / usd * unit) as u128;
                let wrapped_side = (liquidity / 2.0 / native_usd * 1e18) as u128;
                if token_side == 0 || token_side > supply || wrapped_side == 0 {
                    return Err(invalid(format!(
                        "a pair with {liquidity} USD of liquidity at {usd} USD a token needs {token_side} raw \
                         units; the supply is {supply}"
                    )));
                }
                Some((token_side, wrapped_side))
            }
            None => None,
        };
        let world_before = data.world.clone();
        let asset = data.world.add_token(Token {
            address,
            name: token.name,
            symbol: token.symbol,
            decimals: token.decimals,
            kind: if token.spam { TokenKind::Spam } else { TokenKind::Regular },
            verified: token.verified,
            thumbnail: token.logo.clone(),
            logo: token.logo,
            launch_usd: token.usd_price.unwrap_or(0.0),
            supply,
            owner,
        });
        let mut actions = vec![Action::DeployToken(asset)];
        if let Some((token_side, wrapped_side)) = sides {
            let pair = data.world.add_pair(0, asset, Asset::WRAPPED, liquidity);
            let pair_address = data.world.pairs[pair].address;
            actions.extend([
                Action::CreatePair(pair),
                Action::Erc20Transfer { from: owner, asset, to: pair_address, amount: token_side },
            ]);
            actions.extend(mint(Asset::WRAPPED, pair_address, wrapped_side));
            actions.push(Action::PairMint(pair));
        }
        self.append_or_restore(data, world_before, BlockPlan::with(actions))?;
        Ok(address)
    }

    /// Deploys an NFT collection with no tokens yet, in a new block; returns
    /// its address.
    pub(crate) fn deploy_collection(
        &self,
        data: &mut ChainData,
        collection: NewCollection,
    ) -> Result<Address, SourceError> {
        if collection.name.trim().is_empty() || collection.symbol.trim().is_empty() {
            return Err(invalid("a collection needs a name and a symbol".into()));
        }
        let address = data.next_contract_of(self.accounts().address(Accounts::DEPLOYER));
        let world_before = data.world.clone();
        let index = data.world.add_collection(Collection {
            address,
            name: collection.name,
            symbol: collection.symbol,
            kind: if collection.erc1155 { ContractType::Erc1155 } else { ContractType::Erc721 },
            verified: collection.verified,
            spam: collection.spam,
            logo: collection.logo,
            banner: None,
            user: false,
            metadata: Vec::new(),
            rarity: Vec::new(),
            trait_counts: Default::default(),
        });
        self.append_or_restore(data, world_before, BlockPlan::with(vec![Action::DeployCollection(index)]))?;
        Ok(address)
    }

    /// Mints an NFT of the collection at `collection` to `to` (`amount` of
    /// it for an ERC1155), with `metadata` when given; returns its token id.
    pub(crate) fn mint_nft_now(
        &self,
        data: &mut ChainData,
        collection: Address,
        to: Address,
        amount: u64,
        metadata: Option<NewNftMetadata>,
    ) -> Result<U256, SourceError> {
        let index = data.world.collection_at(collection).ok_or_else(|| {
            let known: Vec<String> =
                data.world.collections.iter().map(|c| format!("{} ({:#x})", c.name, c.address)).collect();
            invalid(format!("no NFT collection at {collection}; the chain's are {}", known.join(", ")))
        })?;
        if data.world.collections[usize::from(index)].user {
            return Err(invalid(format!(
                "{collection} was deployed by a user's transaction: the devnet holds no key that mints it; \
                 mint through the contract itself"
            )));
        }
        let erc721 = data.world.collections[usize::from(index)].kind == ContractType::Erc721;
        if amount == 0 || (erc721 && amount != 1) {
            return Err(invalid(format!("amount {amount}: an ERC721 mints 1, an ERC1155 at least 1")));
        }
        let ids = data.world.collections[usize::from(index)].ids();
        let id = match (erc721, &metadata) {
            (true, _) => data.producer.memory.take_721_id(index).min(ids + 1),
            (false, Some(_)) => ids + 1,
            (false, None) => 1,
        };
        let world_before = data.world.clone();
        if id > ids || metadata.is_some() {
            let document = nft_metadata(data, index, id, metadata.unwrap_or_default());
            data.world.set_nft_metadata(index, id, document);
        }
        let action = if erc721 {
            Action::Mint721 { sender: Accounts::DEPLOYER, to, collection: index, id }
        } else {
            Action::Mint1155 { sender: Accounts::DEPLOYER, to, collection: index, id, amount }
        };
        self.append_or_restore(data, world_before, BlockPlan::with(vec![action]))?;
        Ok(U256::from(id))
    }

    /// Makes the block of a step that changed the world; when the block
    /// cannot be made, the world goes back to `before`, as it was.
    fn append_or_restore(&self, data: &mut ChainData, before: World, plan: BlockPlan) -> Result<u64, SourceError> {
        let made = self.append(data, plan);
        if made.is_err() {
            data.world = before;
        }
        made
    }
}

/// How much goes into a constant-product pool with a 0.3% fee, whose
/// reserves are `r_in` and `r_out`, for it to hold `ratio` units of the
/// out side per unit of the in side after the swap:
/// (1000 r_in + 997 x)(r_in + x) = 1000 r_in r_out / ratio.
fn swap_in_for_ratio(r_in: f64, r_out: f64, ratio: f64) -> f64 {
    let (a, b, c) = (997.0, 1997.0 * r_in, 1000.0 * r_in * (r_in - r_out / ratio));
    ((b * b - 4.0 * a * c).max(0.0).sqrt() - b) / (2.0 * a)
}

/// The raw amount as the ledger keeps it.
fn raw(amount: U256, what: &str) -> Result<u128, SourceError> {
    u128::try_from(amount).map_err(|_| invalid(format!("{what} {amount} is more than 2^128 raw units")))
}

fn token_asset(world: &World, token: Address) -> Result<Asset, SourceError> {
    world.asset_at(token).ok_or_else(|| invalid(format!("no ERC20 token at {token} on chain {}", world.chain)))
}

/// A token the devnet deployed (it holds the key that mints it, and its
/// code is the devnet's).
fn devnet_token(world: &World, token: Address) -> Result<Asset, SourceError> {
    let asset = token_asset(world, token)?;
    if world.token(asset).is_some_and(|t| t.kind == TokenKind::User) {
        return Err(invalid(format!(
            "{token} was deployed by a user's transaction: the devnet holds no key that mints it, and its code \
             is the user's; send its transactions yourself"
        )));
    }
    Ok(asset)
}

fn check_token(token: &NewToken) -> Result<(), SourceError> {
    if token.name.trim().is_empty() || token.symbol.trim().is_empty() {
        return Err(invalid("a token needs a name and a symbol".into()));
    }
    if token.decimals > MAX_DECIMALS {
        return Err(invalid(format!("decimals {}: at most {MAX_DECIMALS}", token.decimals)));
    }
    for (what, value) in [("usdPrice", token.usd_price), ("liquidityUsd", token.liquidity_usd)] {
        if value.is_some_and(|v| !v.is_finite() || v <= 0.0) {
            return Err(invalid(format!("{what} {}: a positive number", value.unwrap_or_default())));
        }
    }
    Ok(())
}

/// `amount` of `asset` given to a pair by the deployer: from what it holds
/// (liquidity taken out before comes back this way), else new units.
fn donate(data: &ChainData, deployer: Address, asset: Asset, pair: Address, amount: u128) -> Vec<Action> {
    let held = data.ledger.find(deployer).map_or(0, |h| data.ledger.balance(h, asset));
    if held >= amount {
        vec![Action::Erc20Transfer { from: Accounts::DEPLOYER, asset, to: pair, amount }]
    } else {
        mint(asset, pair, amount)
    }
}

/// New units of `asset` for `to`: minted by the token's owner, or for the
/// wrapped native token deposited by the faucet and passed on.
fn mint(asset: Asset, to: Address, amount: u128) -> Vec<Action> {
    if asset == Asset::WRAPPED {
        let transfer = Action::Erc20Transfer { from: Accounts::DEPLOYER, asset, to, amount };
        vec![Action::Wrap { amount }, transfer]
    } else {
        vec![Action::Erc20Mint { asset, to, amount }]
    }
}

fn transfer_action(
    data: &ChainData,
    accounts: &Accounts,
    from: Address,
    to: Address,
    moved: Moved,
) -> Result<Action, SourceError> {
    let sender = Signers::new(accounts, &data.producer.created).index_of(from).ok_or_else(|| {
        invalid(format!(
            "the devnet holds no key for {from}: transfers are sent from its accounts or wallets made by \
             w3api_createWallet"
        ))
    })?;
    let holder = data.ledger.find(from);
    let short = |what: String, held: String| invalid(format!("{from} holds {held} of {what}, less than asked"));
    match moved {
        Moved::Native(amount) => {
            let amount = raw(amount, "the amount")?;
            let held = holder.map_or(0, |h| data.ledger.balance(h, Asset::NATIVE));
            if held < amount {
                return Err(short("the native currency".into(), held.to_string()));
            }
            Ok(Action::NativeTransfer { from: sender, to, amount })
        }
        Moved::Token(token, amount) => {
            let asset = token_asset(&data.world, token)?;
            let amount = raw(amount, "the amount")?;
            let held = holder.map_or(0, |h| data.ledger.balance(h, asset));
            if held < amount {
                return Err(short(format!("{token}"), held.to_string()));
            }
            Ok(Action::Erc20Transfer { from: sender, asset, to, amount })
        }
        Moved::Nft(collection_address, id, amount) => {
            let collection = data
                .world
                .collection_at(collection_address)
                .ok_or_else(|| invalid(format!("no NFT collection at {collection_address}")))?;
            let id = u32::try_from(id).map_err(|_| invalid(format!("no token {id} in {collection_address}")))?;
            let what = format!("token {id} of {collection_address}");
            if data.world.collections[usize::from(collection)].kind == ContractType::Erc721 {
                if holder.is_none() || data.ledger.erc721_owner(collection, id) != holder {
                    return Err(invalid(format!("{from} does not own {what}")));
                }
                return Ok(Action::Transfer721 { from: sender, to, collection, id });
            }
            let held = holder.map_or(0, |h| data.ledger.erc1155_amount(h, collection, id));
            if held < amount || amount == 0 {
                return Err(short(what, held.to_string()));
            }
            Ok(Action::Transfer1155 { from: sender, to, collection, id, amount })
        }
    }
}

/// The donation (by `deployer`) to one side of the pair pricing `asset`,
/// swapped in so that the reserves price it at `usd`, and the liquidity
/// the swap's fee added taken out again.
fn price_actions(data: &ChainData, deployer: Address, asset: Asset, usd: f64) -> Result<Vec<Action>, SourceError> {
    if !usd.is_finite() || usd <= 0.0 {
        return Err(invalid(format!("a price of {usd} USD: a positive number")));
    }
    if asset == Asset::STABLE {
        return Err(invalid("the stablecoin is the USD anchor: it is worth 1 USD".into()));
    }
    let latest = data.latest();
    let price = data.price(asset, latest, PriceFilter::default()).ok_or_else(|| {
        invalid("the token has no DEX pair to price it; create it with a usdPrice to give it one".into())
    })?;
    let pair = &data.world.pairs[price.pair];
    let quote = pair.other(asset);
    let quote_usd = if quote == Asset::STABLE {
        1.0
    } else {
        data.usd_price(Asset::NATIVE, latest, PriceFilter::default()).unwrap_or(1.0)
    };
    let holder = data.ledger.find(pair.address).expect("a pair that prices holds reserves");
    let (reserve_token, reserve_quote) = (data.ledger.balance(holder, asset), data.ledger.balance(holder, quote));
    let (token_decimals, quote_decimals) = (data.world.decimals(asset), data.world.decimals(quote));
    // Raw quote units per raw token unit at the target.
    let target = usd / quote_usd * 10f64.powi(i32::from(quote_decimals)) / 10f64.powi(i32::from(token_decimals));
    let (r_token, r_quote) = (reserve_token as f64, reserve_quote as f64);
    // Quote goes in to raise the price, the token to lower it; `ratio` is
    // what the other side per unit of it must end at.
    let (side, r_in, r_out, ratio) = if r_quote / r_token < target {
        (quote, r_quote, r_token, 1.0 / target)
    } else {
        (asset, r_token, r_quote, target)
    };
    let amount = swap_in_for_ratio(r_in, r_out, ratio) as u128;
    if amount == 0 {
        return Ok(vec![Action::PairSync(price.pair)]);
    }
    // What an arbitrageur does: the donation is swapped in, moving the
    // price to the target; then the liquidity the swap's fee added comes
    // out, so that prices set again and again do not deepen the pool.
    let mut actions = donate(data, deployer, side, pair.address, amount);
    actions.push(Action::PairSwap { pair: price.pair, asset_in: side });
    actions.push(Action::PairBurn { pair: price.pair, product: r_token * r_quote });
    Ok(actions)
}

/// The document of token `id` of a collection, from what the test gave.
fn nft_metadata(data: &ChainData, collection: u16, id: u32, given: NewNftMetadata) -> NftMetadata {
    let collection = &data.world.collections[usize::from(collection)];
    let base = format!("{MEDIA_HOST}/nft/{}/{:#x}", crate::chain_id(data.chain), collection.address);
    NftMetadata {
        name: given.name.unwrap_or_else(|| format!("{} #{id}", collection.name)),
        description: given.description.unwrap_or_default(),
        image: given.image.unwrap_or_else(|| format!("{base}/{id}.png")),
        external_url: format!("{base}/{id}"),
        attributes: given.attributes.into_iter().map(|(kind, value)| (Cow::Owned(kind), Cow::Owned(value))).collect(),
        token_uri: crate::metadata::token_uri(&base, id, collection.kind == ContractType::Erc1155),
    }
}
