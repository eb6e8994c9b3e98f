//! What happens on a chain, block by block: setup (deployments, pairs and
//! their liquidity, hand-outs), then wallets and traders sending, swapping,
//! minting, trading NFTs and receiving spam. Each transaction is built,
//! applied to the ledger, and given its receipt; signing and sealing come
//! after (`sealing`).

use std::collections::{HashMap, VecDeque};

use alloy_consensus::{EMPTY_ROOT_HASH, Eip658Value, Header, Receipt, ReceiptEnvelope, TxEip1559, TxLegacy};
use alloy_eips::eip1559::{BaseFeeParams, calc_next_block_base_fee};
use alloy_primitives::{Address, Bloom, Bytes, Log, TxKind, U256};
use alloy_sol_types::{SolCall, SolEvent, SolValue};
use w3api_types::{Chain, ContractType};

use super::model::{BLOCK_TIME, GAS_LIMIT, GENESIS_TIMESTAMP, ReceiptRecord, SaleRecord};
use super::sealing::{PendingBlock, Unsigned};
use crate::abi::{IDex, IERC20, IERC721, IERC1155, IMarketplace};
use crate::accounts::{Accounts, Role, Signers};
use crate::scale::Scale;
use crate::seed;
use crate::world::{TokenKind, World, log_uniform};
use w3api_ledger::{Asset, Holder, Ledger, events};

const GENESIS_BASE_FEE: u64 = 1_000_000_000;
/// USD worth of each token a trader is handed.
const TRADER_HANDOUT_USD: f64 = 200_000.0;
/// USD worth of each token the showcase wallet is handed.
const SHOWCASE_HANDOUT_USD: f64 = 5_000.0;
/// Leading bytes of every contract-creation input; the constructor arguments follow.
const INIT_CODE_PREFIX: [u8; 5] = [0x60, 0x80, 0x60, 0x40, 0x52];

/// Gas each kind of transaction uses.
mod gas {
    pub(super) const NATIVE_TRANSFER: u64 = 21_000;
    pub(super) const ERC20_TRANSFER: u64 = 51_683;
    pub(super) const ERC20_MINT: u64 = 68_951;
    pub(super) const PAIR_SYNC: u64 = 43_117;
    pub(super) const PAIR_BURN: u64 = 104_260;
    pub(super) const DEPOSIT: u64 = 45_038;
    pub(super) const DEPLOY_TOKEN: u64 = 1_154_212;
    pub(super) const DEPLOY_COLLECTION: u64 = 2_310_455;
    pub(super) const DEPLOY_DEX: u64 = 2_950_873;
    pub(super) const CREATE_PAIR: u64 = 2_012_301;
    pub(super) const PAIR_MINT: u64 = 112_419;
    pub(super) const SWAP: u64 = 127_046;
    pub(super) const MINT_721: u64 = 93_012;
    pub(super) const MINT_1155: u64 = 61_337;
    pub(super) const TRANSFER_721: u64 = 57_164;
    pub(super) const TRANSFER_1155: u64 = 54_290;
    pub(super) const DEPLOY_MARKETPLACE: u64 = 3_402_117;
    pub(super) const SALE_NATIVE: u64 = 98_735;
    pub(super) const SALE_ERC20: u64 = 121_906;
}

/// USD a collection's tokens sell for at least, before a sale's premium.
const FLOOR_USD: (f64, f64) = (25.0, 25_000.0);

/// What a transaction does, decided before it is built.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    DeployToken(Asset),
    DeployCollection(u16),
    DeployFactory(usize),
    DeployRouter(usize),
    CreatePair(usize),
    Wrap {
        amount: u128,
    },
    Erc20Transfer {
        from: u32,
        asset: Asset,
        to: Address,
        amount: u128,
    },
    PairMint(usize),
    NativeTransfer {
        from: u32,
        to: Address,
        amount: u128,
    },
    Swap {
        trader: u32,
        pair: usize,
        asset_in: Asset,
        amount_in: u128,
    },
    Mint721 {
        sender: u32,
        to: Address,
        collection: u16,
        id: u32,
    },
    Mint1155 {
        sender: u32,
        to: Address,
        collection: u16,
        id: u32,
        amount: u64,
    },
    Transfer721 {
        from: u32,
        to: Address,
        collection: u16,
        id: u32,
    },
    Transfer1155 {
        from: u32,
        to: Address,
        collection: u16,
        id: u32,
        amount: u64,
    },
    /// New units of an ERC20, minted by its owner.
    Erc20Mint {
        asset: Asset,
        to: Address,
        amount: u128,
    },
    /// A pair's reserves set to its balances (`sync()`), after a donation.
    PairSync(usize),
    /// Liquidity taken out of a pair by the deployer: these raw amounts of
    /// its token0 and token1 (`burn(to)`).
    PairBurn {
        pair: usize,
        amount0: u128,
        amount1: u128,
    },
    DeployMarketplace,
    Sale {
        buyer: u32,
        seller: u32,
        collection: u16,
        id: u32,
        payment: Asset,
        price: u128,
    },
}

/// A transaction ready to be built: target, value, calldata, gas and logs.
/// The ledger learns what it moves from its logs, as an indexer would,
/// besides value, fees and what the called contract forwards.
struct Call {
    sender: u32,
    to: TxKind,
    value: u128,
    input: Vec<u8>,
    gas: u64,
    logs: Vec<Log>,
    /// Native currency the called contract passes on (a marketplace paying
    /// the seller): to whom, and how much.
    forwarded: Option<(Address, u128)>,
}

pub(super) struct Simulation<'a> {
    pub(super) seed: u64,
    pub(super) chain_id: u64,
    scale: Scale,
    pub(super) world: &'a World,
    accounts: Signers<'a>,
    pub(super) ledger: Ledger,
    rng: fastrand::Rng,
    nonces: Vec<u64>,
    setup: VecDeque<Action>,
    next_721: HashMap<u16, u32>,
    minted_721: Vec<(u16, u32)>,
    holdings_1155: Vec<(u32, u16, u32)>,
    pub(super) unsigned: Vec<Unsigned>,
    pub(super) pending: Vec<PendingBlock>,
    executed: u64,
    /// Where this run's transactions and logs start in the chain's (0 for
    /// a chain generated from genesis).
    tx_base: u32,
    pub(super) log_base: u32,
    /// Gas used and base fee of the block before the one in progress.
    pub(super) parent: (u64, u64),
    // Per block in progress.
    block: u32,
    pub(super) timestamp: u64,
    pub(super) first_tx: u32,
    pub(super) base_fee: u64,
    pub(super) gas_used: u64,
    pub(super) block_receipts: Vec<ReceiptEnvelope>,
    // Kept for the whole chain.
    pub(super) receipts: Vec<ReceiptRecord>,
    pub(super) logs: Vec<Log>,
    pub(super) sales: Vec<SaleRecord>,
}

impl<'a> Simulation<'a> {
    pub(super) fn new(chain: Chain, seed: u64, scale: &Scale, accounts: &'a Accounts, world: &'a World) -> Self {
        let mut ledger = Ledger::new();
        for address in accounts.addresses() {
            ledger.holder(*address);
        }
        let memory = Memory {
            rng: seed::rng(seed, &[b"activity", &crate::chain_id(chain).to_be_bytes()]),
            nonces: vec![0; accounts.len()],
            next_721: HashMap::new(),
            minted_721: Vec::new(),
            holdings_1155: Vec::new(),
        };
        // What genesis follows: its base fee and its timestamp.
        let before_genesis =
            Header { base_fee_per_gas: Some(GENESIS_BASE_FEE), timestamp: GENESIS_TIMESTAMP, ..Header::default() };
        let signers = Signers::new(accounts, &[]);
        let mut simulation =
            Simulation::resume(chain, seed, scale, signers, world, ledger, memory, (0, 0), &before_genesis);
        simulation.plan_setup();
        simulation
    }

    fn address(&self, account: u32) -> Address {
        self.accounts.address(account)
    }

    /// The ledger's holder of an account or created wallet.
    fn holder_of(&mut self, account: u32) -> Holder {
        if (account as usize) < self.accounts.len() {
            account_holder(account)
        } else {
            self.ledger.holder(self.address(account))
        }
    }

    /// Genesis balances: plenty for the deployer, the spammer and the traders,
    /// a log-uniform spread for the wallets.
    fn genesis(&mut self) {
        let unit = 10u128.pow(18);
        // The deployer wraps what the pairs and traders need, and pays gas for all of setup.
        let wrapped = (self.wrapped_for_liquidity() + self.wrapped_for_handouts()) as f64 / unit as f64;
        for account in 0..self.accounts.len() as u32 {
            let whole = match self.accounts.role(account) {
                Role::Deployer => 2.0 * wrapped + 1_000_000_000.0,
                Role::Spammer => 1_000_000.0,
                Role::Trader => 100_000.0,
                // The showcase wallet can afford what it collects.
                Role::Wallet if Some(account) == self.accounts.wallets().next() => 10_000.0,
                Role::Wallet => log_uniform(&mut self.rng, 1.0, 1_000.0),
            };
            let amount = (whole * unit as f64) as u128;
            self.move_native(Holder::NOBODY, account_holder(account), amount);
        }
        let header = self.header(0, GENESIS_BASE_FEE, 0, EMPTY_ROOT_HASH, Bloom::ZERO);
        self.pending.push(PendingBlock { header, first_tx: 0, tx_count: 0 });
    }

    /// Deployments, pairs and their liquidity, and the first hand-outs, in
    /// the deployer nonce order `World::plan` assumed for addresses.
    fn plan_setup(&mut self) {
        let world = self.world;
        let (spam, owned): (Vec<_>, Vec<_>) =
            world.assets().skip(1).partition(|a| world.token(*a).is_some_and(|t| t.kind == TokenKind::Spam));
        self.setup.extend(owned.into_iter().map(Action::DeployToken));
        self.setup.extend((0..world.collections.len() as u16).map(Action::DeployCollection));
        self.setup.extend((0..world.exchanges.len()).map(Action::DeployFactory));
        self.setup.extend((0..world.exchanges.len()).map(Action::DeployRouter));
        self.setup.push_back(Action::DeployMarketplace);
        self.setup.extend(spam.into_iter().map(Action::DeployToken));
        self.setup.extend((0..world.pairs.len()).map(Action::CreatePair));
        let wrapped_needed = self.wrapped_for_liquidity() + self.wrapped_for_handouts();
        self.setup.push_back(Action::Wrap { amount: wrapped_needed });
        for (index, pair) in world.pairs.iter().enumerate() {
            for asset in [pair.token0, pair.token1] {
                let amount = self.units_worth(asset, pair.launch_liquidity_usd / 2.0);
                let to = pair.address;
                self.setup.push_back(Action::Erc20Transfer { from: self.owner_of(asset), asset, to, amount });
            }
            self.setup.push_back(Action::PairMint(index));
        }
        self.plan_handouts();
    }

    fn owner_of(&self, asset: Asset) -> u32 {
        self.world.token(asset).map_or(Accounts::DEPLOYER, |t| t.owner)
    }

    /// Raw units of `asset` worth `usd` at its launch price.
    fn units_worth(&self, asset: Asset, usd: f64) -> u128 {
        let token = self.world.token(asset).expect("only tokens are handed out");
        (usd / token.launch_usd * 10f64.powi(i32::from(token.decimals))) as u128
    }

    fn wrapped_for_liquidity(&self) -> u128 {
        let world = self.world;
        world
            .pairs
            .iter()
            .filter(|p| p.token0 == Asset::WRAPPED || p.token1 == Asset::WRAPPED)
            .map(|p| self.units_worth(Asset::WRAPPED, p.launch_liquidity_usd / 2.0))
            .sum()
    }

    /// Wrapped tokens handed out: to each trader, and to the showcase wallet.
    fn wrapped_for_handouts(&self) -> u128 {
        self.units_worth(Asset::WRAPPED, TRADER_HANDOUT_USD) * u128::from(self.scale.traders)
            + self.units_worth(Asset::WRAPPED, SHOWCASE_HANDOUT_USD)
    }

    /// Traders get the quote tokens and every ordinary token; each wallet
    /// gets a few ordinary tokens (and maybe the stablecoin).
    fn plan_handouts(&mut self) {
        let regular: Vec<Asset> = self
            .world
            .assets()
            .filter(|a| self.world.token(*a).is_some_and(|t| t.kind == TokenKind::Regular))
            .collect();
        for trader in self.accounts.traders() {
            let to = self.address(trader);
            for asset in [Asset::WRAPPED, Asset::STABLE].into_iter().chain(regular.iter().copied()) {
                let amount = self.units_worth(asset, TRADER_HANDOUT_USD);
                self.setup.push_back(Action::Erc20Transfer { from: Accounts::DEPLOYER, asset, to, amount });
            }
        }
        // The first wallet holds every token: a showcase, and the heavy case for benchmarks.
        if let Some(showcase) = self.accounts.wallets().next() {
            let to = self.address(showcase);
            for asset in [Asset::WRAPPED, Asset::STABLE].into_iter().chain(regular.iter().copied()) {
                let amount = self.units_worth(asset, SHOWCASE_HANDOUT_USD);
                self.setup.push_back(Action::Erc20Transfer { from: Accounts::DEPLOYER, asset, to, amount });
            }
        }
        for wallet in self.accounts.wallets().skip(1) {
            let to = self.address(wallet);
            let count = 1 + self.rng.usize(..4.min(regular.len()).max(1));
            let mut picks: Vec<Asset> = (0..count).map(|_| regular[self.rng.usize(..regular.len())]).collect();
            if self.rng.u8(..3) == 0 {
                picks.push(Asset::STABLE);
            }
            picks.sort();
            picks.dedup();
            for asset in picks {
                let usd = log_uniform(&mut self.rng, 10.0, 20_000.0);
                let amount = self.units_worth(asset, usd).max(1);
                self.setup.push_back(Action::Erc20Transfer { from: Accounts::DEPLOYER, asset, to, amount });
            }
        }
    }

    /// What the next block needs besides the ledger and the chain's last header.
    pub(super) fn memory(&self) -> Memory {
        Memory {
            rng: self.rng.clone(),
            nonces: self.nonces.clone(),
            next_721: self.next_721.clone(),
            minted_721: self.minted_721.clone(),
            holdings_1155: self.holdings_1155.clone(),
        }
    }

    /// Goes on from a chain's state: its ledger, its memory, where its
    /// transactions and logs end, and its last header.
    #[expect(clippy::too_many_arguments, reason = "the parts of a chain a simulation resumes from")]
    pub(super) fn resume(
        chain: Chain,
        seed: u64,
        scale: &Scale,
        accounts: Signers<'a>,
        world: &'a World,
        ledger: Ledger,
        memory: Memory,
        (tx_base, log_base): (u32, u32),
        parent: &Header,
    ) -> Self {
        let Memory { rng, nonces, next_721, minted_721, holdings_1155 } = memory;
        Simulation {
            seed,
            chain_id: crate::chain_id(chain),
            scale: *scale,
            world,
            accounts,
            ledger,
            rng,
            nonces,
            setup: VecDeque::new(),
            next_721,
            minted_721,
            holdings_1155,
            unsigned: Vec::new(),
            pending: Vec::new(),
            executed: 0,
            tx_base,
            log_base,
            parent: (parent.gas_used, parent.base_fee_per_gas.unwrap_or(GENESIS_BASE_FEE)),
            block: 0,
            timestamp: parent.timestamp,
            first_tx: 0,
            base_fee: GENESIS_BASE_FEE,
            gas_used: 0,
            block_receipts: Vec::new(),
            receipts: Vec::new(),
            logs: Vec::new(),
            sales: Vec::new(),
        }
    }

    /// Block `number` at `timestamp`: the `planned` transactions, then,
    /// with `activity`, random ones as the generated blocks have. Fails,
    /// naming it, when a planned transaction's sender cannot pay for it
    /// (that one changes nothing; those before it have been applied).
    pub(super) fn live_block(
        &mut self,
        number: u32,
        timestamp: u64,
        planned: Vec<Action>,
        activity: bool,
    ) -> Result<(), String> {
        self.open_block(number, timestamp);
        for action in planned {
            let described = format!("{action:?}");
            if !self.execute(action) {
                return Err(format!("the sender cannot pay for {described}"));
            }
        }
        if activity {
            for _ in 0..self.live_quota() {
                let Some(action) = self.random_action() else { continue };
                if !self.fits(&action) {
                    break;
                }
                self.execute(action);
            }
        }
        self.close_block(number);
        Ok(())
    }

    /// Random transactions for a live block: the generated chain's mean,
    /// and at least two, so that a live chain visibly moves.
    fn live_quota(&mut self) -> u64 {
        let mean = (self.scale.transactions as f64 / self.scale.blocks.max(1) as f64).max(2.0);
        self.draw_around(mean)
    }

    pub(super) fn run(&mut self) {
        self.genesis();
        for number in 1..=self.scale.blocks {
            self.run_block(number as u32);
        }
    }

    fn run_block(&mut self, number: u32) {
        self.open_block(number, GENESIS_TIMESTAMP + BLOCK_TIME * u64::from(number));
        while let Some(action) = self.setup.front().cloned() {
            if !self.fits(&action) {
                break;
            }
            self.setup.pop_front();
            let done = self.execute(action);
            assert!(done, "setup actions always succeed");
        }
        if self.setup.is_empty() {
            for _ in 0..self.quota(number) {
                let Some(action) = self.random_action() else { continue };
                if !self.fits(&action) {
                    break;
                }
                self.execute(action);
            }
        }
        self.close_block(number);
    }

    fn open_block(&mut self, number: u32, timestamp: u64) {
        let (parent_gas_used, parent_base_fee) = self.parent;
        self.base_fee =
            calc_next_block_base_fee(parent_gas_used, GAS_LIMIT, parent_base_fee, BaseFeeParams::ethereum());
        self.block = number;
        self.timestamp = timestamp;
        self.gas_used = 0;
        self.first_tx = self.unsigned.len() as u32;
    }

    /// Random transactions for this block: the remaining target spread over
    /// the remaining blocks, varying around the mean.
    fn quota(&mut self, number: u32) -> u64 {
        let blocks_left = self.scale.blocks - u64::from(number) + 1;
        let left = self.scale.transactions.saturating_sub(self.executed);
        self.draw_around(left as f64 / blocks_left as f64)
    }

    /// A count drawn evenly between 0 and twice `mean`, whose average is `mean`.
    fn draw_around(&mut self, mean: f64) -> u64 {
        let drawn = self.rng.f64() * 2.0 * mean;
        let whole = drawn.floor() as u64;
        whole + u64::from(self.rng.f64() < drawn - whole as f64)
    }

    /// Blocks are filled up to the EIP-1559 gas target, half the limit: above
    /// it the base fee grows an eighth per block, and a long run of full
    /// blocks would price every account out.
    fn fits(&self, action: &Action) -> bool {
        let transactions = self.unsigned.len() as u32 - self.first_tx;
        self.gas_used + gas_of(action) <= GAS_LIMIT / 2 && transactions < self.scale.max_block_transactions
    }

    /// Builds the call for `action` and commits it; `false` when the sender
    /// cannot afford it (random actions only).
    fn execute(&mut self, action: Action) -> bool {
        let sale = match action {
            Action::Sale { buyer, seller, collection, id, payment, price } => Some(SaleRecord {
                block: self.block,
                tx: self.tx_base + self.unsigned.len() as u32,
                collection,
                id,
                buyer: self.address(buyer),
                seller: self.address(seller),
                payment,
                price,
            }),
            _ => None,
        };
        let call = self.call_for(action);
        let done = self.commit(call);
        if done && let Some(sale) = sale {
            self.sales.push(sale);
        }
        done
    }

    fn call_for(&mut self, action: Action) -> Call {
        let world = self.world;
        let deployer = Accounts::DEPLOYER;
        match action {
            Action::DeployToken(asset) => {
                let token = world.token(asset).expect("deployed assets are tokens");
                let args =
                    (token.name.clone(), token.symbol.clone(), U256::from(token.decimals), U256::from(token.supply));
                let mut logs = Vec::new();
                if token.supply > 0 {
                    let owner = self.address(token.owner);
                    let event = IERC20::Transfer { from: Address::ZERO, to: owner, value: U256::from(token.supply) };
                    logs.push(log(token.address, &event));
                }
                creation(token.owner, &args.abi_encode_params(), gas::DEPLOY_TOKEN, logs)
            }
            Action::DeployCollection(index) => {
                let collection = &world.collections[usize::from(index)];
                let args = (collection.name.clone(), collection.symbol.clone(), U256::from(collection.ids()));
                creation(deployer, &args.abi_encode_params(), gas::DEPLOY_COLLECTION, Vec::new())
            }
            Action::DeployFactory(index) | Action::DeployRouter(index) => {
                let args = (world.exchanges[index].name.clone(), U256::from(index));
                creation(deployer, &args.abi_encode_params(), gas::DEPLOY_DEX, Vec::new())
            }
            Action::DeployMarketplace => {
                let args = ("DevMarket".to_string(),);
                creation(deployer, &args.abi_encode_params(), gas::DEPLOY_MARKETPLACE, Vec::new())
            }
            Action::Sale { buyer, seller, collection, id, payment, price } => {
                self.sale(buyer, seller, collection, id, payment, price)
            }
            Action::CreatePair(index) => {
                let pair = &world.pairs[index];
                let (a, b) = (self.token_address(pair.token0), self.token_address(pair.token1));
                let factory = world.exchanges[pair.exchange].factory;
                let event = IDex::PairCreated { token0: a, token1: b, pair: pair.address, index: U256::from(index) };
                let input = IDex::createPairCall { tokenA: a, tokenB: b }.abi_encode();
                call(deployer, factory, 0, input, gas::CREATE_PAIR, vec![log(factory, &event)])
            }
            Action::Wrap { amount } => {
                let wrapped = self.token_address(Asset::WRAPPED);
                let to = self.address(deployer);
                let event = IERC20::Deposit { dst: to, wad: U256::from(amount) };
                call(
                    deployer,
                    wrapped,
                    amount,
                    IERC20::depositCall {}.abi_encode(),
                    gas::DEPOSIT,
                    vec![log(wrapped, &event)],
                )
            }
            Action::Erc20Transfer { from, asset, to, amount } => self.erc20_transfer(from, asset, to, amount),
            Action::Erc20Mint { asset, to, amount } => {
                let token = world.token(asset).expect("minted assets are tokens");
                let event = IERC20::Transfer { from: Address::ZERO, to, value: U256::from(amount) };
                let input = IERC20::mintCall { to, amount: U256::from(amount) }.abi_encode();
                call(token.owner, token.address, 0, input, gas::ERC20_MINT, vec![log(token.address, &event)])
            }
            Action::PairBurn { pair: index, amount0, amount1 } => {
                let pair = &world.pairs[index];
                let to = self.address(deployer);
                let holder = self.ledger.holder(pair.address);
                let (r0, r1) = (self.ledger.balance(holder, pair.token0), self.ledger.balance(holder, pair.token1));
                let (t0, t1) = (self.token_address(pair.token0), self.token_address(pair.token1));
                let logs = vec![
                    log(t0, &IERC20::Transfer { from: pair.address, to, value: U256::from(amount0) }),
                    log(t1, &IERC20::Transfer { from: pair.address, to, value: U256::from(amount1) }),
                    log(
                        pair.address,
                        &IDex::Sync { reserve0: clamp_u112(r0 - amount0), reserve1: clamp_u112(r1 - amount1) },
                    ),
                    log(
                        pair.address,
                        &IDex::Burn { sender: to, amount0: U256::from(amount0), amount1: U256::from(amount1), to },
                    ),
                ];
                let input = IDex::burnCall { to }.abi_encode();
                call(deployer, pair.address, 0, input, gas::PAIR_BURN, logs)
            }
            Action::PairSync(index) => {
                let pair = &world.pairs[index];
                let holder = self.ledger.holder(pair.address);
                let (r0, r1) = (self.ledger.balance(holder, pair.token0), self.ledger.balance(holder, pair.token1));
                let event = IDex::Sync { reserve0: clamp_u112(r0), reserve1: clamp_u112(r1) };
                let input = IDex::syncCall {}.abi_encode();
                call(deployer, pair.address, 0, input, gas::PAIR_SYNC, vec![log(pair.address, &event)])
            }
            Action::PairMint(index) => {
                let pair = &world.pairs[index];
                let holder = self.ledger.holder(pair.address);
                let (r0, r1) = (self.ledger.balance(holder, pair.token0), self.ledger.balance(holder, pair.token1));
                let event = IDex::Sync { reserve0: clamp_u112(r0), reserve1: clamp_u112(r1) };
                let input = IDex::mintCall { to: self.address(deployer) }.abi_encode();
                call(deployer, pair.address, 0, input, gas::PAIR_MINT, vec![log(pair.address, &event)])
            }
            Action::NativeTransfer { from, to, amount } => {
                call(from, to, amount, Vec::new(), gas::NATIVE_TRANSFER, Vec::new())
            }
            Action::Swap { trader, pair, asset_in, amount_in } => self.swap(trader, pair, asset_in, amount_in),
            Action::Mint721 { sender, to, collection, id } => {
                let contract = world.collections[usize::from(collection)].address;
                let event = IERC721::Transfer { from: Address::ZERO, to, tokenId: U256::from(id) };
                let input = IERC721::safeMintCall { to, tokenId: U256::from(id) }.abi_encode();
                call(sender, contract, 0, input, gas::MINT_721, vec![log(contract, &event)])
            }
            Action::Mint1155 { sender, to, collection, id, amount } => {
                let contract = world.collections[usize::from(collection)].address;
                let operator = self.address(sender);
                let event = IERC1155::TransferSingle {
                    operator,
                    from: Address::ZERO,
                    to,
                    id: U256::from(id),
                    value: U256::from(amount),
                };
                let input =
                    IERC1155::mintCall { to, id: U256::from(id), amount: U256::from(amount), data: Bytes::new() }
                        .abi_encode();
                call(sender, contract, 0, input, gas::MINT_1155, vec![log(contract, &event)])
            }
            Action::Transfer721 { from, to, collection, id } => {
                let contract = world.collections[usize::from(collection)].address;
                let from_address = self.address(from);
                let event = IERC721::Transfer { from: from_address, to, tokenId: U256::from(id) };
                let input = IERC721::transferFromCall { from: from_address, to, tokenId: U256::from(id) }.abi_encode();
                call(from, contract, 0, input, gas::TRANSFER_721, vec![log(contract, &event)])
            }
            Action::Transfer1155 { from, to, collection, id, amount } => {
                let contract = world.collections[usize::from(collection)].address;
                let from_address = self.address(from);
                let event = IERC1155::TransferSingle {
                    operator: from_address,
                    from: from_address,
                    to,
                    id: U256::from(id),
                    value: U256::from(amount),
                };
                let input = IERC1155::safeTransferFromCall {
                    from: from_address,
                    to,
                    id: U256::from(id),
                    amount: U256::from(amount),
                    data: Bytes::new(),
                }
                .abi_encode();
                call(from, contract, 0, input, gas::TRANSFER_1155, vec![log(contract, &event)])
            }
        }
    }

    /// The buyer pays the seller through the marketplace, which hands the
    /// token over: native payments travel as the call's value and are
    /// forwarded, ERC20 payments move straight from buyer to seller.
    fn sale(&self, buyer: u32, seller: u32, collection: u16, id: u32, payment: Asset, price: u128) -> Call {
        let world = self.world;
        let contract = world.collections[usize::from(collection)].address;
        let (sender, buyer, seller) = (buyer, self.address(buyer), self.address(seller));
        let payment_token = world.token(payment).map_or(Address::ZERO, |t| t.address);
        let input = IMarketplace::buyCall {
            collection: contract,
            tokenId: U256::from(id),
            seller,
            paymentToken: payment_token,
            price: U256::from(price),
        }
        .abi_encode();
        let mut logs = Vec::new();
        if payment != Asset::NATIVE {
            logs.push(log(payment_token, &IERC20::Transfer { from: buyer, to: seller, value: U256::from(price) }));
        }
        logs.push(log(contract, &IERC721::Transfer { from: seller, to: buyer, tokenId: U256::from(id) }));
        let sale = IMarketplace::Sale {
            collection: contract,
            tokenId: U256::from(id),
            buyer,
            seller,
            paymentToken: payment_token,
            price: U256::from(price),
        };
        logs.push(log(world.marketplace, &sale));
        let (value, gas) = if payment == Asset::NATIVE { (price, gas::SALE_NATIVE) } else { (0, gas::SALE_ERC20) };
        let forwarded = (payment == Asset::NATIVE).then_some((seller, price));
        Call { forwarded, ..call(sender, world.marketplace, value, input, gas, logs) }
    }

    fn token_address(&self, asset: Asset) -> Address {
        self.world.token(asset).expect("a token").address
    }

    fn erc20_transfer(&mut self, from: u32, asset: Asset, to: Address, amount: u128) -> Call {
        let contract = self.token_address(asset);
        let sender = self.address(from);
        let event = IERC20::Transfer { from: sender, to, value: U256::from(amount) };
        let input = IERC20::transferCall { to, amount: U256::from(amount) }.abi_encode();
        call(from, contract, 0, input, gas::ERC20_TRANSFER, vec![log(contract, &event)])
    }

    /// A constant-product swap with a 0.3% fee, through the exchange's router.
    fn swap(&mut self, trader: u32, pair_index: usize, asset_in: Asset, amount_in: u128) -> Call {
        let pair = &self.world.pairs[pair_index];
        let asset_out = pair.other(asset_in);
        let holder = self.ledger.holder(pair.address);
        let reserve_in = self.ledger.balance(holder, asset_in);
        let reserve_out = self.ledger.balance(holder, asset_out);
        let amount_out = swap_output(amount_in, reserve_in, reserve_out);
        let trader_address = self.address(trader);
        let (token_in, token_out) = (self.token_address(asset_in), self.token_address(asset_out));
        let (in0, out0) = if asset_in == pair.token0 { (amount_in, 0) } else { (0, amount_out) };
        let (in1, out1) = if asset_in == pair.token0 { (0, amount_out) } else { (amount_in, 0) };
        let (new0, new1) = if asset_in == pair.token0 {
            (reserve_in + amount_in, reserve_out - amount_out)
        } else {
            (reserve_out - amount_out, reserve_in + amount_in)
        };
        let logs = vec![
            log(token_in, &IERC20::Transfer { from: trader_address, to: pair.address, value: U256::from(amount_in) }),
            log(token_out, &IERC20::Transfer { from: pair.address, to: trader_address, value: U256::from(amount_out) }),
            log(pair.address, &IDex::Sync { reserve0: clamp_u112(new0), reserve1: clamp_u112(new1) }),
            log(
                pair.address,
                &IDex::Swap {
                    sender: self.world.exchanges[pair.exchange].router,
                    amount0In: U256::from(in0),
                    amount1In: U256::from(in1),
                    amount0Out: U256::from(out0),
                    amount1Out: U256::from(out1),
                    to: trader_address,
                },
            ),
        ];
        let input = IDex::swapExactTokensForTokensCall {
            amountIn: U256::from(amount_in),
            amountOutMin: U256::from(amount_out - amount_out / 100),
            path: vec![token_in, token_out],
            to: trader_address,
            deadline: U256::from(self.timestamp + 1_200),
        }
        .abi_encode();
        let router = self.world.exchanges[pair.exchange].router;
        call(trader, router, 0, input, gas::SWAP, logs)
    }

    /// Builds, applies and records a transaction. Fails (changing nothing)
    /// when the sender cannot pay value plus the most the gas may cost.
    fn commit(&mut self, call: Call) -> bool {
        let sender = self.holder_of(call.sender);
        if self.nonces.len() <= call.sender as usize {
            self.nonces.resize(call.sender as usize + 1, 0);
        }
        let tip = self.rng.u64(100_000_000..2_000_000_000);
        let legacy = self.accounts.role(call.sender) == Role::Wallet && self.rng.u8(..10) < 3;
        let max_fee = u128::from(self.base_fee) * 2 + u128::from(tip);
        let gas_limit = call.gas + call.gas / 5;
        let worst_case = call.value + u128::from(gas_limit) * max_fee;
        if self.ledger.balance(sender, Asset::NATIVE) < worst_case {
            return false;
        }
        let block = self.block;
        let nonce = self.nonces[call.sender as usize];
        self.nonces[call.sender as usize] += 1;
        let to_address = match call.to {
            TxKind::Call(address) => address,
            TxKind::Create => self.address(call.sender).create(nonce),
        };
        let to_holder = self.ledger.holder(to_address);
        self.move_native(sender, to_holder, call.value);
        if let Some((recipient, amount)) = call.forwarded {
            let recipient = self.ledger.holder(recipient);
            self.move_native(to_holder, recipient, amount);
        }
        for log in &call.logs {
            if let Some(event) = events::decode(log.topics(), &log.data.data) {
                let applied = self.ledger.apply_event(block, log.address, &event, self.world);
                applied
                    .unwrap_or_else(|refused| panic!("the generator logged a movement the ledger refuses: {refused}"));
            }
        }
        let burned = u128::from(call.gas) * u128::from(self.base_fee);
        let tipped = u128::from(call.gas) * u128::from(tip);
        self.move_native(sender, Holder::NOBODY, burned);
        let miner = self.ledger.holder(self.world.miner);
        self.move_native(sender, miner, tipped);
        let input = Bytes::from(call.input);
        let value = U256::from(call.value);
        let chain_id = self.chain_id;
        self.unsigned.push(if legacy {
            let gas_price = u128::from(self.base_fee) + u128::from(tip);
            let tx = TxLegacy { chain_id: Some(chain_id), nonce, gas_price, gas_limit, to: call.to, value, input };
            Unsigned::Legacy(tx, call.sender)
        } else {
            let tx = TxEip1559 {
                chain_id,
                nonce,
                gas_limit,
                max_fee_per_gas: max_fee,
                max_priority_fee_per_gas: u128::from(tip),
                to: call.to,
                value,
                access_list: Default::default(),
                input,
            };
            Unsigned::Eip1559(tx, call.sender)
        });
        self.gas_used += call.gas;
        let receipt =
            Receipt { status: Eip658Value::Eip658(true), cumulative_gas_used: self.gas_used, logs: call.logs }
                .with_bloom();
        self.block_receipts.push(if legacy {
            ReceiptEnvelope::Legacy(receipt)
        } else {
            ReceiptEnvelope::Eip1559(receipt)
        });
        self.executed += 1;
        true
    }

    /// Moves native currency in the block in progress; the generator only
    /// plans what senders can pay, so a refusal is a bug there.
    fn move_native(&mut self, from: Holder, to: Holder, amount: u128) {
        let moved = self.ledger.move_fungible(self.block, Asset::NATIVE, from, to, amount);
        moved.unwrap_or_else(|refused| panic!("the generator planned a payment it cannot make: {refused}"));
    }

    fn random_wallet(&mut self) -> u32 {
        let wallets = self.accounts.wallets();
        self.rng.u32(wallets)
    }

    /// Another wallet than `not`.
    fn other_wallet(&mut self, not: u32) -> u32 {
        loop {
            let wallet = self.random_wallet();
            if wallet != not || self.accounts.wallets().len() < 2 {
                return wallet;
            }
        }
    }

    /// A random activity transaction, or `None` when the one drawn is not
    /// possible right now (the block simply gets one fewer).
    fn random_action(&mut self) -> Option<Action> {
        match self.rng.u32(..100) {
            0..24 => self.random_native_transfer(),
            24..58 => self.random_erc20_transfer(),
            58..73 => self.random_swap(),
            73..81 => self.random_mint_721(),
            81..85 => self.random_mint_1155(),
            85..88 => self.random_transfer_721(),
            88..92 => self.random_sale(),
            92..95 => self.random_transfer_1155(),
            95..98 => self.random_spam_airdrop(),
            _ => self.random_spam_nft(),
        }
    }

    fn random_native_transfer(&mut self) -> Option<Action> {
        let from = self.random_wallet();
        let to = self.other_wallet(from);
        let balance = self.ledger.balance(account_holder(from), Asset::NATIVE);
        let amount = balance / 100 * u128::from(self.rng.u8(1..10));
        (amount > 0).then_some(Action::NativeTransfer { from, to: self.address(to), amount })
    }

    fn random_erc20_transfer(&mut self) -> Option<Action> {
        let from = self.random_wallet();
        let holder = account_holder(from);
        let held: Vec<Asset> = self
            .ledger
            .holdings_of(holder)
            .filter(|(asset, history)| *asset != Asset::NATIVE && history.last().is_some_and(|b| b > 0))
            .map(|(asset, _)| asset)
            .collect();
        let asset = *held.get(self.rng.usize(..held.len().max(1)))?;
        let balance = self.ledger.balance(holder, asset);
        let amount = (balance / 100 * u128::from(self.rng.u8(5..60))).max(1).min(balance);
        let to = self.other_wallet(from);
        Some(Action::Erc20Transfer { from, asset, to: self.address(to), amount })
    }

    fn random_swap(&mut self) -> Option<Action> {
        let trader = self.rng.u32(self.accounts.traders());
        let pair = self.rng.usize(..self.world.pairs.len());
        let (token0, token1) = (self.world.pairs[pair].token0, self.world.pairs[pair].token1);
        let asset_in = if self.rng.bool() { token0 } else { token1 };
        let balance = self.ledger.balance(account_holder(trader), asset_in);
        let amount_in = balance / 1000 * u128::from(self.rng.u8(1..40));
        let pair_holder = self.ledger.holder(self.world.pairs[pair].address);
        let reserve_in = self.ledger.balance(pair_holder, asset_in);
        let reserve_out = self.ledger.balance(pair_holder, self.world.pairs[pair].other(asset_in));
        // Keep a swap within a tenth of the pool so prices move but stay sane.
        let amount_in = amount_in.min(reserve_in / 10);
        (amount_in > 0 && swap_output(amount_in, reserve_in, reserve_out) > 0).then_some(Action::Swap {
            trader,
            pair,
            asset_in,
            amount_in,
        })
    }

    fn collections_of(&self, kind: ContractType, spam: bool) -> Vec<u16> {
        let world = self.world;
        (0..world.collections.len() as u16)
            .filter(|i| {
                world.collections[usize::from(*i)].kind == kind && world.collections[usize::from(*i)].spam == spam
            })
            .collect()
    }

    fn random_mint_721(&mut self) -> Option<Action> {
        let collections = self.collections_of(ContractType::Erc721, false);
        let collection = *collections.get(self.rng.usize(..collections.len().max(1)))?;
        let next = self.next_721.entry(collection).or_insert(1);
        if *next > self.world.collections[usize::from(collection)].ids() {
            return None;
        }
        let id = *next;
        *next += 1;
        self.minted_721.push((collection, id));
        let minter = self.random_wallet();
        Some(Action::Mint721 { sender: minter, to: self.address(minter), collection, id })
    }

    fn random_mint_1155(&mut self) -> Option<Action> {
        let collections = self.collections_of(ContractType::Erc1155, false);
        let collection = *collections.get(self.rng.usize(..collections.len().max(1)))?;
        let id = self.rng.u32(1..=self.world.collections[usize::from(collection)].ids());
        let minter = self.random_wallet();
        self.holdings_1155.push((minter, collection, id));
        Some(Action::Mint1155 { sender: minter, to: self.address(minter), collection, id, amount: self.rng.u64(1..=5) })
    }

    fn random_spam_nft(&mut self) -> Option<Action> {
        let collections = self.collections_of(ContractType::Erc1155, true);
        let collection = *collections.get(self.rng.usize(..collections.len().max(1)))?;
        let id = self.rng.u32(1..=self.world.collections[usize::from(collection)].ids());
        let to = self.random_wallet();
        self.holdings_1155.push((to, collection, id));
        Some(Action::Mint1155 { sender: Accounts::SPAMMER, to: self.address(to), collection, id, amount: 1 })
    }

    fn random_transfer_721(&mut self) -> Option<Action> {
        let (collection, id) = *self.minted_721.get(self.rng.usize(..self.minted_721.len().max(1)))?;
        let owner = self.ledger.erc721_owner(collection, id)?;
        // Minted tokens only ever go to wallets, whose holder is account + 1.
        let from = owner.0.checked_sub(1)?;
        let to = self.other_wallet(from);
        Some(Action::Transfer721 { from, to: self.address(to), collection, id })
    }

    /// A minted ERC721 token sold by its owner to another wallet, at the
    /// collection's floor or above, paid in the native currency, the wrapped
    /// token or the stablecoin (the native currency when the buyer holds too
    /// little of the token drawn).
    fn random_sale(&mut self) -> Option<Action> {
        let (collection, id) = *self.minted_721.get(self.rng.usize(..self.minted_721.len().max(1)))?;
        // Minted tokens only ever go to wallets, whose holder is account + 1.
        let seller = self.ledger.erc721_owner(collection, id)?.0.checked_sub(1)?;
        // The showcase wallet collects: it buys a quarter of what is sold.
        let showcase = self.accounts.wallets().next()?;
        let buyer = if seller != showcase && self.rng.u8(..4) == 0 { showcase } else { self.other_wallet(seller) };
        let usd = self.floor_usd(collection) * (1.0 + 1.5 * self.rng.f64());
        let drawn = match self.rng.u8(..20) {
            0..12 => Asset::NATIVE,
            12..17 => Asset::WRAPPED,
            _ => Asset::STABLE,
        };
        let affordable = |asset: Asset, sim: &Self| {
            let price = sim.units_at_launch(asset, usd);
            (asset == Asset::NATIVE || sim.ledger.balance(account_holder(buyer), asset) >= price)
                .then_some((asset, price))
        };
        let (payment, price) = affordable(drawn, self).or_else(|| affordable(Asset::NATIVE, self))?;
        (price > 0).then_some(Action::Sale { buyer, seller, collection, id, payment, price })
    }

    /// The lowest USD price a collection's tokens sell for, fixed per collection.
    fn floor_usd(&self, collection: u16) -> f64 {
        let chain = self.chain_id.to_be_bytes();
        let mut rng = seed::rng(self.seed, &[b"floor", &chain, &collection.to_be_bytes()]);
        log_uniform(&mut rng, FLOOR_USD.0, FLOOR_USD.1)
    }

    /// Raw units of `asset` worth `usd` at its launch price (the native
    /// currency at its own).
    fn units_at_launch(&self, asset: Asset, usd: f64) -> u128 {
        match self.world.token(asset) {
            Some(_) => self.units_worth(asset, usd),
            None => (usd / self.world.native.launch_usd * 1e18) as u128,
        }
    }

    fn random_transfer_1155(&mut self) -> Option<Action> {
        let index = self.rng.usize(..self.holdings_1155.len().max(1));
        let (from, collection, id) = *self.holdings_1155.get(index)?;
        let held = self.ledger.erc1155_amount(account_holder(from), collection, id);
        if held == 0 {
            return None;
        }
        let to = self.other_wallet(from);
        self.holdings_1155.push((to, collection, id));
        Some(Action::Transfer1155 { from, to: self.address(to), collection, id, amount: self.rng.u64(1..=held) })
    }

    fn random_spam_airdrop(&mut self) -> Option<Action> {
        let spam: Vec<Asset> =
            self.world.assets().filter(|a| self.world.token(*a).is_some_and(|t| t.kind == TokenKind::Spam)).collect();
        let asset = *spam.get(self.rng.usize(..spam.len().max(1)))?;
        let to = self.random_wallet();
        // Spam tokens a test made may have a smaller supply than the devnet's own.
        let held = self.ledger.balance(account_holder(Accounts::SPAMMER), asset);
        let amount = (10u128.pow(18) * u128::from(self.rng.u32(100..100_000))).min(held / 100);
        (amount > 0).then(|| Action::Erc20Transfer { from: Accounts::SPAMMER, asset, to: self.address(to), amount })
    }
}

/// What a chain's activity carries from one block to the next, besides
/// its ledger: the random draws, nonces, and which NFTs exist to trade.
#[derive(Clone, Debug)]
pub(crate) struct Memory {
    rng: fastrand::Rng,
    nonces: Vec<u64>,
    next_721: HashMap<u16, u32>,
    minted_721: Vec<(u16, u32)>,
    holdings_1155: Vec<(u32, u16, u32)>,
}

impl Memory {
    /// The nonce of the next transaction `account` sends.
    pub(crate) fn nonce(&self, account: u32) -> u64 {
        self.nonces.get(account as usize).copied().unwrap_or(0)
    }

    /// Takes the next unminted token id of an ERC721 collection for a test's
    /// mint. Random activity never trades it: it stays where the test put it.
    pub(crate) fn take_721_id(&mut self, collection: u16) -> u32 {
        let next = self.next_721.entry(collection).or_insert(1);
        let id = *next;
        *next += 1;
        id
    }
}

/// Output of a constant-product swap with a 0.3% fee.
pub fn swap_output(amount_in: u128, reserve_in: u128, reserve_out: u128) -> u128 {
    if reserve_in == 0 || reserve_out == 0 {
        return 0;
    }
    let amount_in = U256::from(amount_in) * U256::from(997);
    let out = amount_in * U256::from(reserve_out) / (U256::from(reserve_in) * U256::from(1000) + amount_in);
    out.to::<u128>()
}

fn gas_of(action: &Action) -> u64 {
    match action {
        Action::DeployToken(_) => gas::DEPLOY_TOKEN,
        Action::DeployCollection(_) => gas::DEPLOY_COLLECTION,
        Action::DeployFactory(_) | Action::DeployRouter(_) => gas::DEPLOY_DEX,
        Action::CreatePair(_) => gas::CREATE_PAIR,
        Action::Wrap { .. } => gas::DEPOSIT,
        Action::Erc20Transfer { .. } => gas::ERC20_TRANSFER,
        Action::PairMint(_) => gas::PAIR_MINT,
        Action::NativeTransfer { .. } => gas::NATIVE_TRANSFER,
        Action::Swap { .. } => gas::SWAP,
        Action::Mint721 { .. } => gas::MINT_721,
        Action::Erc20Mint { .. } => gas::ERC20_MINT,
        Action::PairSync(_) => gas::PAIR_SYNC,
        Action::PairBurn { .. } => gas::PAIR_BURN,
        Action::Mint1155 { .. } => gas::MINT_1155,
        Action::Transfer721 { .. } => gas::TRANSFER_721,
        Action::Transfer1155 { .. } => gas::TRANSFER_1155,
        Action::DeployMarketplace => gas::DEPLOY_MARKETPLACE,
        Action::Sale { payment: Asset::NATIVE, .. } => gas::SALE_NATIVE,
        Action::Sale { .. } => gas::SALE_ERC20,
    }
}

fn clamp_u112(value: u128) -> alloy_primitives::aliases::U112 {
    alloy_primitives::aliases::U112::saturating_from(value)
}

fn log<E: SolEvent>(address: Address, event: &E) -> Log {
    Log { address, data: event.encode_log_data() }
}

fn call(sender: u32, to: Address, value: u128, input: Vec<u8>, gas: u64, logs: Vec<Log>) -> Call {
    Call { sender, to: TxKind::Call(to), value, input, gas, logs, forwarded: None }
}

/// The ledger's holder of a world account.
fn account_holder(account: u32) -> Holder {
    // Accounts are added right after the zero address, in order.
    Holder(account + 1)
}

fn creation(sender: u32, constructor_args: &[u8], gas: u64, logs: Vec<Log>) -> Call {
    let input = [INIT_CODE_PREFIX.as_slice(), constructor_args].concat();
    Call { sender, to: TxKind::Create, value: 0, input, gas, logs, forwarded: None }
}
