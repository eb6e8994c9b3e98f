//! A user's own contracts, found by the logs of the transactions users
//! send: a contract whose logs are an ERC20's, ERC721's or ERC1155's
//! transfers becomes a token or a collection of the chain, named by what
//! it answers to `name()`, `symbol()` and `decimals()` in the block that
//! revealed it; a pair one of the devnet's factories creates for a user
//! prices its tokens. They wait here until the block is appended, when the
//! world takes them ([`Found::into_world`]).

use alloy_primitives::{Address, Bytes, Log, TxKind};
use w3api_chain::Checks;
use w3api_chain::revm::context::TxEnv;
use w3api_ledger::discovery::{self, CollectionMeta, Discovery, TokenMeta};
use w3api_ledger::events::Event;
use w3api_ledger::{Asset, Contracts};
use w3api_types::ContractType;

use super::calls::CALL_CAP;
use super::simulation::Simulation;
use crate::accounts::Accounts;
use crate::world::{Collection, Pair, Token, TokenKind, World};

/// Assets the ledger's indexes hold, the native currency included.
const MAX_ASSETS: usize = u16::MAX as usize;

/// Contracts found in the blocks of one simulation run.
#[derive(Clone, Debug, Default)]
pub(super) struct Found {
    tokens: Vec<Token>,
    collections: Vec<Collection>,
    pairs: Vec<Pair>,
}

/// The world's contracts and those found since, as the ledger asks for them.
pub(super) struct Known<'a> {
    pub(super) world: &'a World,
    pub(super) found: &'a Found,
}

impl Known<'_> {
    fn is_known(&self, discovery: Discovery) -> bool {
        match discovery {
            Discovery::Token(address) => self.asset(address).is_some(),
            Discovery::Collection { address, .. } => self.collection(address).is_some(),
        }
    }
}

impl Contracts for Known<'_> {
    fn asset(&self, contract: Address) -> Option<Asset> {
        self.world.asset_at(contract).or_else(|| {
            let position = self.found.tokens.iter().position(|t| t.address == contract)?;
            Some(Asset((self.world.tokens.len() + 1 + position) as u16))
        })
    }

    fn collection(&self, contract: Address) -> Option<u16> {
        self.world.collection_at(contract).or_else(|| {
            let position = self.found.collections.iter().position(|c| c.address == contract)?;
            Some((self.world.collections.len() + position) as u16)
        })
    }
}

impl Found {
    /// Hands what was found to the world, in the order the ledger numbered it.
    pub(super) fn into_world(self, world: &mut World) {
        for token in self.tokens {
            world.add_token(token);
        }
        for collection in self.collections {
            world.add_collection(collection);
        }
        for pair in self.pairs {
            world.add_found_pair(pair);
        }
    }
}

impl Simulation<'_> {
    /// Registers what a user transaction's `log` reveals: the contracts it
    /// names that the chain does not know yet, and a pair created on one of
    /// the devnet's factories.
    pub(super) fn discover(&mut self, log: &Log, event: &Event) {
        let wrapped = self.world.token(Asset::WRAPPED).map(|t| t.address);
        for discovery in discovery::named_by(log.address, event, wrapped) {
            if (Known { world: self.world, found: &self.found }).is_known(discovery) {
                continue;
            }
            if self.world.tokens.len() + self.found.tokens.len() + 1 >= MAX_ASSETS
                || self.world.collections.len() + self.found.collections.len() >= usize::from(u16::MAX)
            {
                tracing::warn!(?discovery, "the chain holds as many contracts as its indexes number; not indexed");
                continue;
            }
            match discovery {
                Discovery::Token(address) => {
                    let token = self.read_token(address);
                    self.found.tokens.push(token);
                }
                Discovery::Collection { address, erc1155 } => {
                    let collection = self.read_collection(address, erc1155);
                    self.found.collections.push(collection);
                }
            }
        }
        if let Event::PairCreated { token0, token1, pair } = *event {
            self.found_pair(log.address, token0, token1, pair);
        }
    }

    fn found_pair(&mut self, factory: Address, token0: Address, token1: Address, pair: Address) {
        let Some(exchange) = self.world.exchanges.iter().position(|e| e.factory == factory) else { return };
        let known = Known { world: self.world, found: &self.found };
        let (Some(token0), Some(token1)) = (known.asset(token0), known.asset(token1)) else { return };
        self.found.pairs.push(Pair { exchange, address: pair, token0, token1, launch_liquidity_usd: 0.0 });
    }

    fn read_token(&self, address: Address) -> Token {
        let name = self.view_raw(address, discovery::name_call());
        let symbol = self.view_raw(address, discovery::symbol_call());
        let decimals = self.view_raw(address, discovery::decimals_call());
        let TokenMeta { name, symbol, decimals } = TokenMeta::read(name, symbol, decimals);
        Token {
            address,
            name,
            symbol,
            decimals,
            kind: TokenKind::User,
            verified: false,
            logo: None,
            thumbnail: None,
            launch_usd: 0.0,
            supply: 0,
            // The devnet holds no key of the user's: nothing it sends
            // names this owner (its traffic leaves user tokens alone).
            owner: Accounts::DEPLOYER,
        }
    }

    fn read_collection(&self, address: Address, erc1155: bool) -> Collection {
        let name = self.view_raw(address, discovery::name_call());
        let symbol = self.view_raw(address, discovery::symbol_call());
        let CollectionMeta { name, symbol, .. } = CollectionMeta::read(name, symbol, erc1155);
        Collection {
            address,
            name,
            symbol,
            kind: if erc1155 { ContractType::Erc1155 } else { ContractType::Erc721 },
            verified: false,
            spam: false,
            user: true,
            logo: None,
            banner: None,
            metadata: Vec::new(),
            rarity: Vec::new(),
            trait_counts: Default::default(),
        }
    }

    /// What a call returns in the block in progress; `None` when it
    /// reverts or halts.
    pub(super) fn view_raw(&self, to: Address, input: Bytes) -> Option<Bytes> {
        let tx = TxEnv {
            caller: Address::ZERO,
            kind: TxKind::Call(to),
            data: input,
            gas_limit: CALL_CAP,
            ..TxEnv::default()
        };
        let outcome =
            self.chain.transact(u64::from(self.block), &self.block_spec(), tx, Checks::Call { priced: false });
        let result = outcome.ok()?.result;
        if result.is_success() { result.into_output() } else { None }
    }
}
