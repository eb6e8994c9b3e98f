//! What happens on a chain, block by block: setup (deployments, pairs and
//! their liquidity, hand-outs), then wallets and traders sending, swapping,
//! minting, trading NFTs and receiving spam. The simulation decides what
//! happens; each action's transactions (`calls`) are executed by the EVM
//! (`execution`), whose receipts and logs the ledger reads. Signing and
//! sealing come after (`sealing`).

use std::collections::{HashMap, VecDeque};

use alloy_consensus::{Header, ReceiptEnvelope};
use alloy_eips::eip1559::{BaseFeeParams, calc_next_block_base_fee};
use alloy_eips::eip7840::BlobParams;
use alloy_primitives::{Address, B256, Log, U256};
use w3api_chain::{Account, ChainState};
use w3api_types::{Chain, ContractType};

use super::execution::NotSent;
use super::extend::StateEdit;
use super::found::Found;
use super::model::{BLOCK_TIME, GENESIS_TIMESTAMP, ReceiptRecord, SaleRecord};
use super::sealing::{PendingBlock, Unsigned};
use crate::accounts::{Accounts, Role, Signers};
use crate::dev_accounts::DEV_BALANCE;
use crate::scale::Scale;
use crate::seed;
use crate::world::{TokenKind, World, log_uniform};
use w3api_ledger::{Asset, Holder, Ledger, Place};
use w3api_source::SourceError;

const GENESIS_BASE_FEE: u64 = 1_000_000_000;
/// USD worth of each token a trader is handed.
const TRADER_HANDOUT_USD: f64 = 200_000.0;
/// USD worth of each token the showcase wallet is handed.
const SHOWCASE_HANDOUT_USD: f64 = 5_000.0;

/// USD a collection's tokens sell for at least, before a sale's premium.
const FLOOR_USD: (f64, f64) = (25.0, 25_000.0);

/// What a transaction does, decided before it is built.
#[derive(Clone, Debug)]
pub(crate) enum Action {
    DeployToken(Asset),
    DeployCollection(u16),
    DeployFactory,
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
    /// What was donated to one side of a pair, swapped in by the
    /// deployer (`swap`, paid out to it).
    PairSwap {
        pair: usize,
        asset_in: Asset,
    },
    /// Liquidity taken out of a pair by the deployer, of both sides alike,
    /// until the product of its reserves is `product` (the LP tokens sent
    /// back, then `burn(to)`).
    PairBurn {
        pair: usize,
        product: f64,
    },
    DeployMarketplace,
    /// A transaction a user signed, sent as it is.
    Signed(Box<SignedTransaction>),
    /// A transaction that waited for this block (automine off): one the
    /// chain no longer takes is left out, said in the log.
    Pending(Box<SignedTransaction>),
    Sale {
        buyer: u32,
        seller: u32,
        collection: u16,
        id: u32,
        payment: Asset,
        price: u128,
    },
}

impl Action {
    /// What the transaction is, in words, for an error about it.
    fn what(&self) -> &'static str {
        match self {
            Action::DeployToken(_) | Action::DeployCollection(_) | Action::DeployMarketplace => "a deployment",
            Action::DeployFactory | Action::DeployRouter(_) | Action::CreatePair(_) => "a DEX deployment",
            Action::Wrap { .. } => "wrapping the native currency",
            Action::Erc20Transfer { .. } => "an ERC20 transfer",
            Action::Erc20Mint { .. } => "an ERC20 mint",
            Action::NativeTransfer { .. } => "a native transfer",
            Action::PairMint(_) | Action::PairSync(_) | Action::PairSwap { .. } | Action::PairBurn { .. } => {
                "a change of a pair's reserves"
            }
            Action::Swap { .. } => "a swap",
            Action::Mint721 { .. } | Action::Mint1155 { .. } => "an NFT mint",
            Action::Transfer721 { .. } | Action::Transfer1155 { .. } => "an NFT transfer",
            Action::Signed(_) | Action::Pending(_) => "a sent transaction",
            Action::Sale { .. } => "an NFT sale",
        }
    }
}

/// A signed transaction and its sender, recovered from the signature (or,
/// for an impersonated account, named: its signature is a stand-in).
#[derive(Clone, Debug)]
pub(crate) struct SignedTransaction {
    pub(crate) envelope: alloy_consensus::TxEnvelope,
    pub(crate) sender: Address,
    pub(crate) impersonated: bool,
}

/// The blob parameters of the blocks the devnet makes: Prague's, the fork
/// its EVM runs.
pub(crate) const BLOBS: BlobParams = BlobParams::prague();

pub(super) struct Simulation<'a> {
    pub(super) seed: u64,
    pub(super) chain_id: u64,
    pub(super) scale: Scale,
    pub(super) world: &'a World,
    pub(super) accounts: Signers<'a>,
    pub(super) ledger: Ledger,
    /// The EVM's state at every block.
    pub(super) chain: ChainState,
    pub(super) rng: fastrand::Rng,
    setup: VecDeque<Action>,
    next_721: HashMap<u16, u32>,
    minted_721: Vec<(u16, u32)>,
    holdings_1155: Vec<(u32, u16, u32)>,
    pub(super) unsigned: Vec<Unsigned>,
    pub(super) pending: Vec<PendingBlock>,
    pub(super) executed: u64,
    /// Where this run's transactions and logs start in the chain's (0 for
    /// a chain generated from genesis).
    pub(super) tx_base: u32,
    pub(super) log_base: u32,
    /// Gas used and base fee of the block before the one in progress.
    pub(super) parent: (u64, u64),
    /// Excess blob gas and blob gas used of the block before.
    pub(super) parent_blobs: (u64, u64),
    // Per block in progress.
    pub(super) block: u32,
    pub(super) timestamp: u64,
    pub(super) first_tx: u32,
    pub(super) base_fee: u64,
    pub(super) gas_used: u64,
    pub(super) excess_blob_gas: u64,
    pub(super) blob_gas_used: u64,
    pub(super) block_receipts: Vec<ReceiptEnvelope>,
    // Kept for the whole chain.
    pub(super) receipts: Vec<ReceiptRecord>,
    pub(super) logs: Vec<Log>,
    pub(super) sales: Vec<SaleRecord>,
    /// Users' contracts found in this run's blocks, for the world to take.
    pub(super) found: Found,
}

impl<'a> Simulation<'a> {
    pub(super) fn new(chain: Chain, seed: u64, scale: &Scale, accounts: &'a Accounts, world: &'a World) -> Self {
        let mut ledger = Ledger::new();
        for address in accounts.addresses() {
            ledger.holder(*address);
        }
        let memory = Memory::new(seed, chain);
        // What genesis follows: its base fee and its timestamp.
        let before_genesis =
            Header { base_fee_per_gas: Some(GENESIS_BASE_FEE), timestamp: GENESIS_TIMESTAMP, ..Header::default() };
        let signers = Signers::new(accounts, &[]);
        let state = ChainState::new(crate::chain_id(chain));
        let mut simulation =
            Simulation::resume(chain, seed, scale, signers, world, (ledger, state), memory, (0, 0), &before_genesis);
        simulation.plan_setup();
        simulation
    }

    pub(super) fn address(&self, account: u32) -> Address {
        self.accounts.address(account)
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
            self.move_native(Place::block(0), Holder::NOBODY, account_holder(account), amount);
            let funded = Account { balance: U256::from(amount), ..Account::default() };
            let address = self.address(account);
            self.chain.archive_mut().set_account(0, address, funded);
        }
        for address in crate::dev_accounts::dev_addresses() {
            let holder = self.ledger.holder(address);
            self.move_native(Place::block(0), Holder::NOBODY, holder, DEV_BALANCE);
            let funded = Account { balance: U256::from(DEV_BALANCE), ..Account::default() };
            self.chain.archive_mut().set_account(0, address, funded);
        }
        self.close_block(0);
    }

    /// PREVRANDAO of block `number` (its header's mix hash): drawn from the seed.
    pub(super) fn prevrandao(&self, number: u64) -> B256 {
        seed::derive(self.seed, &[b"prevrandao", &self.chain_id.to_be_bytes(), &number.to_be_bytes()])
    }

    /// Deployments, pairs and their liquidity, and the first hand-outs, in
    /// the deployer nonce order `World::plan` assumed for addresses.
    fn plan_setup(&mut self) {
        let world = self.world;
        let (spam, owned): (Vec<_>, Vec<_>) =
            world.assets().skip(1).partition(|a| world.token(*a).is_some_and(|t| t.kind == TokenKind::Spam));
        self.setup.extend(owned.into_iter().map(Action::DeployToken));
        self.setup.extend((0..world.collections.len() as u16).map(Action::DeployCollection));
        self.setup.extend((0..world.exchanges.len()).map(|_| Action::DeployFactory));
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
        (ledger, state): (Ledger, ChainState),
        memory: Memory,
        (tx_base, log_base): (u32, u32),
        parent: &Header,
    ) -> Self {
        let Memory { rng, next_721, minted_721, holdings_1155 } = memory;
        Simulation {
            seed,
            chain_id: crate::chain_id(chain),
            scale: *scale,
            world,
            accounts,
            ledger,
            chain: state,
            rng,
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
            parent_blobs: (parent.excess_blob_gas.unwrap_or_default(), parent.blob_gas_used.unwrap_or_default()),
            block: 0,
            timestamp: parent.timestamp,
            first_tx: 0,
            base_fee: GENESIS_BASE_FEE,
            gas_used: 0,
            excess_blob_gas: 0,
            blob_gas_used: 0,
            block_receipts: Vec::new(),
            receipts: Vec::new(),
            logs: Vec::new(),
            sales: Vec::new(),
            found: Found::default(),
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
        edits: Vec<StateEdit>,
        planned: Vec<Action>,
        activity: bool,
    ) -> Result<(), SourceError> {
        self.open_block(number, timestamp);
        for edit in edits {
            // A balance set outside any transaction reaches the ledger as the EVM's do.
            if let StateEdit::Balance(address, balance) = &edit {
                self.follow_native_balance(Place::block(number), *address, *balance);
            }
            edit.apply(self.chain.archive_mut(), u64::from(number));
        }
        for action in planned {
            let what = action.what();
            match self.execute(action) {
                Ok(()) => {}
                Err(NotSent::Unaffordable) => {
                    return Err(SourceError::InvalidChange(format!("the sender cannot pay for {what}")));
                }
                Err(NotSent::BlockFull) => {
                    return Err(SourceError::InvalidChange(format!("{what} does not fit in one block")));
                }
                Err(NotSent::Refused(why)) => return Err(SourceError::TransactionRefused(why)),
            }
        }
        if activity {
            for _ in 0..self.live_quota() {
                let Some(action) = self.random_action() else { continue };
                if self.execute(action) == Err(NotSent::BlockFull) {
                    break;
                }
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
        while let Some(action) = self.setup.pop_front() {
            match self.execute(action.clone()) {
                Ok(()) => {}
                Err(NotSent::BlockFull) => {
                    self.setup.push_front(action);
                    break;
                }
                Err(NotSent::Unaffordable | NotSent::Refused(_)) => panic!("setup cannot send {action:?}"),
            }
        }
        if self.setup.is_empty() {
            for _ in 0..self.quota(number) {
                let Some(action) = self.random_action() else { continue };
                if self.execute(action) == Err(NotSent::BlockFull) {
                    break;
                }
            }
        }
        self.close_block(number);
    }

    pub(super) fn open_block(&mut self, number: u32, timestamp: u64) {
        let (parent_gas_used, parent_base_fee) = self.parent;
        self.base_fee =
            calc_next_block_base_fee(parent_gas_used, self.world.gas_limit, parent_base_fee, BaseFeeParams::ethereum());
        let (parent_excess, parent_blob_gas) = self.parent_blobs;
        self.excess_blob_gas = BLOBS.next_block_excess_blob_gas_osaka(parent_excess, parent_blob_gas, parent_base_fee);
        self.blob_gas_used = 0;
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

    /// Sends `action`'s transactions in the block in progress. `BlockFull`
    /// leaves the rest for the next block (those sent stay sent: an
    /// approval given is not given again); `Unaffordable` drops the rest.
    fn execute(&mut self, action: Action) -> Result<(), NotSent> {
        match action {
            Action::Signed(signed) => return self.send_signed(*signed).map(|_| ()),
            Action::Pending(signed) => {
                let hash = *signed.envelope.tx_hash();
                return match self.send_signed(*signed) {
                    Err(NotSent::Refused(why)) => {
                        tracing::warn!(%hash, why, "a pending transaction the chain no longer takes is left out");
                        Ok(())
                    }
                    other => other.map(|_| ()),
                };
            }
            _ => {}
        }
        let calls = self.calls_for(&action);
        let mut succeeded = !calls.is_empty();
        for call in calls {
            succeeded = self.send(call)?;
            if !succeeded {
                tracing::warn!(block = self.block, ?action, "a generated transaction reverted");
            }
        }
        // A sale's last transaction is the purchase.
        if let Action::Sale { buyer, seller, collection, id, payment, price } = action
            && succeeded
        {
            let tx = self.tx_base + self.unsigned.len() as u32 - 1;
            let (buyer, seller) = (self.address(buyer), self.address(seller));
            self.sales.push(SaleRecord { block: self.block, tx, collection, id, buyer, seller, payment, price });
        }
        Ok(())
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
            .filter(|asset| self.world.token(*asset).is_some_and(|t| t.kind != TokenKind::User))
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
        let user = |asset| self.world.token(asset).is_some_and(|t| t.kind == TokenKind::User);
        if user(token0) || user(token1) {
            return None;
        }
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
                let collection = &world.collections[usize::from(*i)];
                collection.kind == kind && collection.spam == spam && !collection.user
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
/// its ledger and state: the random draws, and which NFTs exist to trade.
#[derive(Clone, Debug)]
pub(crate) struct Memory {
    rng: fastrand::Rng,
    next_721: HashMap<u16, u32>,
    minted_721: Vec<(u16, u32)>,
    holdings_1155: Vec<(u32, u16, u32)>,
}

impl Memory {
    /// The memory of a chain before any activity: its draws seeded by
    /// `seed` and the chain's id.
    pub(crate) fn new(seed: u64, chain: Chain) -> Memory {
        Memory {
            rng: seed::rng(seed, &[b"activity", &crate::chain_id(chain).to_be_bytes()]),
            next_721: HashMap::new(),
            minted_721: Vec::new(),
            holdings_1155: Vec::new(),
        }
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

/// The ledger's holder of a world account.
fn account_holder(account: u32) -> Holder {
    // Accounts are added right after the zero address, in order.
    Holder(account + 1)
}
