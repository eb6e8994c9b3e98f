//! What each planned action sends: the transactions, built with the
//! bindings of the devnet's own contracts. An action may need several (a
//! sale is listed before it is bought, a token approved before it is
//! swapped); which ones is read from the chain's state, so an approval
//! already given is not given twice.

use alloy_primitives::{Address, Bytes, TxKind, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use w3api_contracts::{Collectible, Factory, Marketplace, MultiToken, Pair, Router, Token, WrappedNative};
use w3api_types::ContractType;

use super::simulation::{Action, Simulation};
use crate::accounts::Accounts;
use crate::world::{MEDIA_HOST, TokenKind};
use w3api_ledger::Asset;

/// Most gas a call of the devnet's own is given to run (a factory's call
/// creates a pair); what it is signed with is what it used and a margin,
/// as a wallet's estimate gives.
pub(super) const CALL_CAP: u64 = 5_000_000;
/// Most gas a deployment is given.
pub(super) const CREATE_CAP: u64 = 10_000_000;

/// One transaction to send.
#[derive(Clone, Debug)]
pub(super) struct Call {
    pub(super) sender: u32,
    pub(super) to: TxKind,
    pub(super) value: u128,
    pub(super) input: Vec<u8>,
}

impl Call {
    fn to(sender: u32, to: Address, input: impl SolCall) -> Call {
        Call { sender, to: TxKind::Call(to), value: 0, input: input.abi_encode() }
    }

    fn create(sender: u32, code: &Bytes, arguments: Vec<u8>) -> Call {
        Call { sender, to: TxKind::Create, value: 0, input: [code.as_ref(), &arguments].concat() }
    }

    /// Gas the EVM may use for it.
    pub(super) fn cap(&self) -> u64 {
        if self.to.is_create() { CREATE_CAP } else { CALL_CAP }
    }
}

impl Simulation<'_> {
    /// The transactions `action` sends, in order.
    pub(super) fn calls_for(&self, action: &Action) -> Vec<Call> {
        let world = self.world;
        let deployer = Accounts::DEPLOYER;
        match *action {
            Action::DeployToken(asset) => vec![self.deploy_token(asset)],
            Action::DeployCollection(index) => vec![self.deploy_collection(index)],
            Action::DeployFactory => vec![Call::create(deployer, &Factory::BYTECODE, Vec::new())],
            Action::DeployRouter(index) => {
                let arguments = Router::constructorCall { factory_: world.exchanges[index].factory }.abi_encode();
                vec![Call::create(deployer, &Router::BYTECODE, arguments)]
            }
            Action::DeployMarketplace => vec![Call::create(deployer, &Marketplace::BYTECODE, Vec::new())],
            Action::CreatePair(index) => {
                let pair = &world.pairs[index];
                let (a, b) = (self.token_address(pair.token0), self.token_address(pair.token1));
                let factory = world.exchanges[pair.exchange].factory;
                vec![Call::to(deployer, factory, Factory::createPairCall { tokenA: a, tokenB: b })]
            }
            Action::Wrap { amount } => {
                let wrapped = self.token_address(Asset::WRAPPED);
                vec![Call { value: amount, ..Call::to(deployer, wrapped, WrappedNative::depositCall {}) }]
            }
            Action::Erc20Transfer { from, asset, to, amount } => {
                let transfer = Token::transferCall { to, amount: U256::from(amount) };
                vec![Call::to(from, self.token_address(asset), transfer)]
            }
            Action::Erc20Mint { asset, to, amount } => {
                let token = world.token(asset).expect("minted assets are tokens");
                vec![Call::to(token.owner, token.address, Token::mintCall { to, amount: U256::from(amount) })]
            }
            Action::PairMint(index) => {
                let to = self.address(deployer);
                vec![Call::to(deployer, world.pairs[index].address, Pair::mintCall { to })]
            }
            Action::PairSync(index) => vec![Call::to(deployer, world.pairs[index].address, Pair::syncCall {})],
            Action::PairSwap { pair, asset_in } => self.pair_swap(pair, asset_in),
            Action::PairBurn { pair, product } => self.pair_burn(pair, product),
            Action::NativeTransfer { from, to, amount } => {
                vec![Call { sender: from, to: TxKind::Call(to), value: amount, input: Vec::new() }]
            }
            Action::Swap { trader, pair, asset_in, amount_in } => self.swap(trader, pair, asset_in, amount_in),
            Action::Mint721 { sender, to, collection, id } => {
                let contract = world.collections[usize::from(collection)].address;
                vec![Call::to(sender, contract, Collectible::safeMintCall { to, tokenId: U256::from(id) })]
            }
            Action::Mint1155 { sender, to, collection, id, amount } => {
                let contract = world.collections[usize::from(collection)].address;
                let mint =
                    MultiToken::mintCall { to, id: U256::from(id), amount: U256::from(amount), data: Bytes::new() };
                vec![Call::to(sender, contract, mint)]
            }
            Action::Transfer721 { from, to, collection, id } => {
                let contract = world.collections[usize::from(collection)].address;
                let transfer = Collectible::transferFromCall { from: self.address(from), to, tokenId: U256::from(id) };
                vec![Call::to(from, contract, transfer)]
            }
            Action::Transfer1155 { from, to, collection, id, amount } => {
                let contract = world.collections[usize::from(collection)].address;
                let transfer = MultiToken::safeTransferFromCall {
                    from: self.address(from),
                    to,
                    id: U256::from(id),
                    amount: U256::from(amount),
                    data: Bytes::new(),
                };
                vec![Call::to(from, contract, transfer)]
            }
            Action::Sale { buyer, seller, collection, id, payment, price } => {
                self.sale(buyer, seller, collection, id, payment, price)
            }
            // Sent as signed, never built here.
            Action::Signed(_) | Action::Pending(_) => Vec::new(),
        }
    }

    fn deploy_token(&self, asset: Asset) -> Call {
        let token = self.world.token(asset).expect("deployed assets are tokens");
        if token.kind == TokenKind::Wrapped {
            let arguments = WrappedNative::constructorCall { name_: token.name.clone(), symbol_: token.symbol.clone() }
                .abi_encode();
            return Call::create(token.owner, &WrappedNative::BYTECODE, arguments);
        }
        let arguments = Token::constructorCall {
            name_: token.name.clone(),
            symbol_: token.symbol.clone(),
            decimals_: token.decimals,
            owner_: self.address(token.owner),
            initialSupply: U256::from(token.supply),
        }
        .abi_encode();
        Call::create(token.owner, &Token::BYTECODE, arguments)
    }

    /// A collection's URIs are where the devnet serves its documents.
    fn deploy_collection(&self, index: u16) -> Call {
        let collection = &self.world.collections[usize::from(index)];
        let base = format!("{MEDIA_HOST}/nft/{}/{:#x}/", self.chain_id, collection.address);
        let owner = self.address(Accounts::DEPLOYER);
        let (name, symbol) = (collection.name.clone(), collection.symbol.clone());
        if collection.kind == ContractType::Erc1155 {
            let template = format!("{base}{{id}}.json");
            let arguments =
                MultiToken::constructorCall { name_: name, symbol_: symbol, template_: template, owner_: owner };
            return Call::create(Accounts::DEPLOYER, &MultiToken::BYTECODE, arguments.abi_encode());
        }
        let arguments = Collectible::constructorCall { name_: name, symbol_: symbol, baseURI_: base, owner_: owner };
        Call::create(Accounts::DEPLOYER, &Collectible::BYTECODE, arguments.abi_encode())
    }

    /// The swap of what was donated to a pair, straight on the pair: as
    /// much out as the constant product with its fee allows.
    fn pair_swap(&self, index: usize, asset_in: Asset) -> Vec<Call> {
        let pair = &self.world.pairs[index];
        let Some((r0, r1, _)) = self.view(pair.address, Pair::getReservesCall {}).map(|r| (r._0, r._1, r._2)) else {
            return Vec::new();
        };
        let (r0, r1) = (U256::from(r0), U256::from(r1));
        let zero_in = asset_in == pair.token0;
        let (reserve_in, reserve_out) = if zero_in { (r0, r1) } else { (r1, r0) };
        let held = self.view(self.token_address(asset_in), Token::balanceOfCall::new((pair.address,)));
        let amount_in = held.unwrap_or_default().saturating_sub(reserve_in);
        let with_fee = amount_in * U256::from(997);
        let out = with_fee * reserve_out / (reserve_in * U256::from(1000) + with_fee);
        if out.is_zero() {
            return Vec::new();
        }
        let (out0, out1) = if zero_in { (U256::ZERO, out) } else { (out, U256::ZERO) };
        let to = self.address(Accounts::DEPLOYER);
        let swap = Pair::swapCall { amount0Out: out0, amount1Out: out1, to, data: Bytes::new() };
        vec![Call::to(Accounts::DEPLOYER, pair.address, swap)]
    }

    /// Liquidity out of a pair, both sides alike, until the product of its
    /// reserves is `product`: the deployer's LP tokens go back to the pair,
    /// which burns them and pays out.
    fn pair_burn(&self, index: usize, product: f64) -> Vec<Call> {
        let pair = &self.world.pairs[index];
        let deployer = self.address(Accounts::DEPLOYER);
        let Some(reserves) = self.view(pair.address, Pair::getReservesCall {}) else { return Vec::new() };
        let now = f64::from(reserves._0) * f64::from(reserves._1);
        let share = 1.0 - (product / now).sqrt();
        let supply = self.view(pair.address, Pair::totalSupplyCall {}).unwrap_or_default();
        let owned = self.view(pair.address, Pair::balanceOfCall::new((deployer,))).unwrap_or_default();
        // Nothing to take out (and a NaN share from empty reserves neither).
        if share.is_nan() || share <= 0.0 {
            return Vec::new();
        }
        let liquidity = U256::from((f64::from(supply) * share) as u128).min(owned);
        if liquidity.is_zero() {
            return Vec::new();
        }
        vec![
            Call::to(Accounts::DEPLOYER, pair.address, Pair::transferCall { to: pair.address, amount: liquidity }),
            Call::to(Accounts::DEPLOYER, pair.address, Pair::burnCall { to: deployer }),
        ]
    }

    /// A swap through the exchange's router, approved first when the
    /// trader has not yet let the router take the token.
    fn swap(&self, trader: u32, index: usize, asset_in: Asset, amount_in: u128) -> Vec<Call> {
        let pair = &self.world.pairs[index];
        let router = self.world.exchanges[pair.exchange].router;
        let (token_in, token_out) = (self.token_address(asset_in), self.token_address(pair.other(asset_in)));
        let trader_address = self.address(trader);
        let path = vec![token_in, token_out];
        let quoted =
            self.view(router, Router::getAmountsOutCall { amountIn: U256::from(amount_in), path: path.clone() });
        let Some(out) = quoted.and_then(|amounts| amounts.last().copied()) else { return Vec::new() };
        let mut calls = self.allow(trader, token_in, router, U256::from(amount_in));
        let swap = Router::swapExactTokensForTokensCall {
            amountIn: U256::from(amount_in),
            amountOutMin: out - out / U256::from(100),
            path,
            to: trader_address,
            deadline: U256::from(self.timestamp + 1_200),
        };
        calls.push(Call::to(trader, router, swap));
        calls
    }

    /// A sale on the marketplace: the seller lets it move the collection's
    /// tokens (once) and lists the token at the price; the buyer lets it
    /// take an ERC20 payment (once) and buys.
    fn sale(&self, buyer: u32, seller: u32, collection: u16, id: u32, payment: Asset, price: u128) -> Vec<Call> {
        let market = self.world.marketplace;
        let contract = self.world.collections[usize::from(collection)].address;
        let payment_token = self.world.token(payment).map_or(Address::ZERO, |t| t.address);
        let seller_address = self.address(seller);
        let mut calls = Vec::new();
        let approved = Collectible::isApprovedForAllCall::new((seller_address, market));
        if self.view(contract, approved) != Some(true) {
            calls.push(Call::to(
                seller,
                contract,
                Collectible::setApprovalForAllCall { operator: market, approved: true },
            ));
        }
        let (token_id, price) = (U256::from(id), U256::from(price));
        let list =
            Marketplace::listCall { collection: contract, tokenId: token_id, paymentToken: payment_token, price };
        calls.push(Call::to(seller, market, list));
        if payment_token != Address::ZERO {
            calls.extend(self.allow(buyer, payment_token, market, price));
        }
        let buy = Marketplace::buyCall {
            collection: contract,
            tokenId: token_id,
            seller: seller_address,
            paymentToken: payment_token,
            price,
        };
        let value = if payment_token == Address::ZERO { price.to::<u128>() } else { 0 };
        calls.push(Call { value, ..Call::to(buyer, market, buy) });
        calls
    }

    /// An approval of `spender` for all of `owner`'s `token`, unless it may
    /// already take `amount`.
    fn allow(&self, owner: u32, token: Address, spender: Address, amount: U256) -> Vec<Call> {
        let allowance = self.view(token, Token::allowanceCall::new((self.address(owner), spender)));
        if allowance.is_some_and(|allowed| allowed >= amount) {
            return Vec::new();
        }
        vec![Call::to(owner, token, Token::approveCall { spender, amount: U256::MAX })]
    }

    fn token_address(&self, asset: Asset) -> Address {
        self.world.token(asset).expect("a token").address
    }

    /// What a view function answers in the block in progress; `None` when it reverts.
    pub(super) fn view<C: SolCall>(&self, to: Address, call: C) -> Option<C::Return> {
        let output = self.view_raw(to, call.abi_encode().into())?;
        C::abi_decode_returns(&output).ok()
    }
}
