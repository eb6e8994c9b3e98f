//! Changing a source's chains, as a test asks: the cheat methods of
//! development nodes (`evm_mine`, `evm_snapshot`, `anvil_setBalance`…).
//!
//! Every change is made of blocks, so a source that changes a chain keeps
//! every answer coherent with every other. A source whose chains are not its
//! own (a real node's) keeps the default of each method: a refusal.

use std::future::{Future, ready};

use w3api_types::rpc::{Bytes, Hash32};
use w3api_types::{Address, Chain, U256};

use crate::SourceError;

/// Changes to a source's chains. Every method has a default that refuses,
/// naming what was asked.
pub trait ChainControl: Send + Sync + 'static {
    /// Mines `blocks` blocks (each `interval` seconds after the one
    /// before, when given), without transactions unless the source makes
    /// live activity; returns the newest block's number.
    fn mine(
        &self,
        chain: Chain,
        blocks: u64,
        interval: Option<u64>,
    ) -> impl Future<Output = Result<u64, SourceError>> + Send {
        let _ = (blocks, interval);
        ready(Err(refused(chain, "mine blocks")))
    }

    /// Keeps the chain as it is now; returns the snapshot's id.
    fn snapshot(&self, chain: Chain) -> impl Future<Output = Result<u64, SourceError>> + Send {
        ready(Err(refused(chain, "take snapshots")))
    }

    /// Puts the chain back as snapshot `id` found it, using up that
    /// snapshot and every later one; `false` when there is no such snapshot.
    fn revert(&self, chain: Chain, id: u64) -> impl Future<Output = Result<bool, SourceError>> + Send {
        let _ = id;
        ready(Err(refused(chain, "revert to snapshots")))
    }

    /// Starts the chain over as it first was, forgetting every snapshot.
    fn reset(&self, chain: Chain) -> impl Future<Output = Result<(), SourceError>> + Send {
        ready(Err(refused(chain, "reset")))
    }

    /// Everything done to the chain beyond how it first was, as bytes that
    /// [`ChainControl::load_state`] takes back, here or on another server
    /// started alike.
    fn dump_state(&self, chain: Chain) -> impl Future<Output = Result<Vec<u8>, SourceError>> + Send {
        ready(Err(refused(chain, "dump its state")))
    }

    /// Makes the chain the one `state` (from [`ChainControl::dump_state`])
    /// describes; a state it cannot make leaves the chain as it was.
    fn load_state(&self, chain: Chain, state: Vec<u8>) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = state;
        ready(Err(refused(chain, "load a state")))
    }

    /// Makes the next block come `seconds` later than it would; returns the
    /// seconds added so far, in all, for the next block.
    fn increase_time(&self, chain: Chain, seconds: u64) -> impl Future<Output = Result<u64, SourceError>> + Send {
        let _ = seconds;
        ready(Err(refused(chain, "move time on")))
    }

    /// Sets the next block's timestamp, which must come after the newest block's.
    fn set_next_block_timestamp(
        &self,
        chain: Chain,
        timestamp: u64,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = timestamp;
        ready(Err(refused(chain, "set block timestamps")))
    }

    /// Gives `address` a balance of `balance` wei of the native currency,
    /// by a transaction mined at once.
    fn set_balance(
        &self,
        chain: Chain,
        address: Address,
        balance: U256,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, balance);
        ready(Err(refused(chain, "set balances")))
    }

    /// A new wallet whose key the source holds, given `native` wei when more than zero.
    fn create_wallet(
        &self,
        chain: Chain,
        native: U256,
    ) -> impl Future<Output = Result<CreatedWallet, SourceError>> + Send {
        let _ = native;
        ready(Err(refused(chain, "create wallets")))
    }

    /// Deploys an ERC20 (with a priced pair when it has a price); returns its address.
    fn create_token(&self, chain: Chain, token: NewToken) -> impl Future<Output = Result<Address, SourceError>> + Send {
        let _ = token;
        ready(Err(refused(chain, "deploy tokens")))
    }

    /// Deploys an NFT collection, with no tokens yet; returns its address.
    fn create_collection(
        &self,
        chain: Chain,
        collection: NewCollection,
    ) -> impl Future<Output = Result<Address, SourceError>> + Send {
        let _ = collection;
        ready(Err(refused(chain, "deploy collections")))
    }

    /// Mints `amount` raw units of the ERC20 at `token` to `to`.
    fn mint_token(
        &self,
        chain: Chain,
        token: Address,
        to: Address,
        amount: U256,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (token, to, amount);
        ready(Err(refused(chain, "mint tokens")))
    }

    /// Mints an NFT of `collection` to `to`; returns its token id.
    fn mint_nft(
        &self,
        chain: Chain,
        collection: Address,
        to: Address,
        amount: u64,
        metadata: Option<NewNftMetadata>,
    ) -> impl Future<Output = Result<U256, SourceError>> + Send {
        let _ = (collection, to, amount, metadata);
        ready(Err(refused(chain, "mint NFTs")))
    }

    /// Moves `moved` from `from`, an account whose key the source holds, to `to`.
    fn transfer(
        &self,
        chain: Chain,
        from: Address,
        to: Address,
        moved: Moved,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (from, to, moved);
        ready(Err(refused(chain, "send transfers")))
    }

    /// Sets a token's USD price through its DEX pair's reserves; returns
    /// the price then read.
    fn set_price(
        &self,
        chain: Chain,
        token: Address,
        usd: f64,
    ) -> impl Future<Output = Result<f64, SourceError>> + Send {
        let _ = (token, usd);
        ready(Err(refused(chain, "set prices")))
    }

    /// Replaces the code of `address`, in a new block.
    fn set_code(
        &self,
        chain: Chain,
        address: Address,
        code: Bytes,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, code);
        ready(Err(refused(chain, "set code")))
    }

    /// Writes one storage slot of `address`, in a new block.
    fn set_storage_at(
        &self,
        chain: Chain,
        address: Address,
        slot: U256,
        value: Hash32,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, slot, value);
        ready(Err(refused(chain, "set storage")))
    }

    /// Sets the nonce of `address`, in a new block.
    fn set_nonce(
        &self,
        chain: Chain,
        address: Address,
        nonce: u64,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, nonce);
        ready(Err(refused(chain, "set nonces")))
    }

    /// Lets `eth_sendTransaction` send for `address` without its key (or
    /// stops letting it).
    fn impersonate(
        &self,
        chain: Chain,
        address: Address,
        on: bool,
    ) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = (address, on);
        ready(Err(refused(chain, "impersonate accounts")))
    }

    /// Whether each sent transaction is mined at once into a block of its
    /// own (else it waits for the next block made).
    fn automine(&self, chain: Chain) -> impl Future<Output = Result<bool, SourceError>> + Send {
        ready(Err(refused(chain, "mine")))
    }

    /// Turns automine on or off.
    fn set_automine(&self, chain: Chain, on: bool) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = on;
        ready(Err(refused(chain, "mine")))
    }

    /// Makes a block every `seconds` (none for zero), with automine off.
    fn set_interval_mining(&self, chain: Chain, seconds: u64) -> impl Future<Output = Result<(), SourceError>> + Send {
        let _ = seconds;
        ready(Err(refused(chain, "mine")))
    }

    /// Removes a transaction from the pending pool; whether it was there.
    fn drop_transaction(&self, chain: Chain, hash: Hash32) -> impl Future<Output = Result<bool, SourceError>> + Send {
        let _ = hash;
        ready(Err(refused(chain, "drop pending transactions")))
    }

    /// Empties the pending pool.
    fn drop_all_transactions(&self, chain: Chain) -> impl Future<Output = Result<(), SourceError>> + Send {
        ready(Err(refused(chain, "drop pending transactions")))
    }
}

fn refused(chain: Chain, what: &str) -> SourceError {
    SourceError::NoChanges(format!("this data source cannot {what} on chain {chain}: its chains are not its own"))
}

/// A wallet a test created: its address, and its key, which the devnet
/// signs its transfers with (and a test may too).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CreatedWallet {
    /// The address.
    pub address: Address,
    /// The secp256k1 private key.
    pub private_key: Hash32,
}

/// An ERC20 a test deploys.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct NewToken {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// Decimals (at most 30).
    pub decimals: u8,
    /// Logo URL.
    pub logo: Option<String>,
    /// Airdropped spam (deployed by the devnet's spammer): wallet answers mark it `possible_spam`.
    pub spam: bool,
    /// Whether its source is verified.
    pub verified: bool,
    /// A USD price: the token gets a pair with the wrapped native token,
    /// with `liquidity_usd` in it, priced so. Without one it has no price.
    pub usd_price: Option<f64>,
    /// USD value of the pair's liquidity, both sides (default 1,000,000).
    pub liquidity_usd: Option<f64>,
    /// Raw units minted to the deployer (default a billion whole tokens).
    pub supply: Option<U256>,
}

/// What a transfer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Moved {
    /// Wei of the native currency.
    Native(U256),
    /// Raw units of the ERC20 at this address.
    Token(Address, U256),
    /// An NFT: collection, token id, and amount (1 for ERC721).
    Nft(Address, U256, u64),
}

/// Metadata of an NFT a test mints.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewNftMetadata {
    /// Name (default: the collection's name and the id).
    pub name: Option<String>,
    /// Description.
    pub description: Option<String>,
    /// Image URL.
    pub image: Option<String>,
    /// Traits: (type, value).
    pub attributes: Vec<(String, String)>,
}

/// An NFT collection a test deploys.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct NewCollection {
    /// Name.
    pub name: String,
    /// Symbol.
    pub symbol: String,
    /// ERC1155 (amounts per token id) rather than ERC721 (one owner each).
    pub erc1155: bool,
    /// Airdropped spam: wallet answers mark it `possible_spam`.
    pub spam: bool,
    /// Whether it is verified.
    pub verified: bool,
    /// Logo URL.
    pub logo: Option<String>,
}
