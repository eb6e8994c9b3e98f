//! What the journal keeps of one change: the change as asked (with what
//! it was decided on, such as the gas a send was estimated at), and what it
//! did, for replay to compare.

use serde::{Deserialize, Serialize};
use w3api_source::{CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken, SourceError};
use w3api_types::rpc::{Bytes, Hash32, TransactionRequest};
use w3api_types::{Address, U256};

/// A change of a devnet chain beyond its seed: every way a user, a
/// scenario or the live block producer changes a chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "do", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub(crate) enum Change {
    /// `eth_sendRawTransaction`. `automine` is the server's default when
    /// it was sent, which a chain that never set its own follows.
    SendRawTransaction { raw: Bytes, automine: bool },
    /// `eth_sendTransaction` from a dev or impersonated account, with the
    /// gas it was given or estimated at.
    SendTransaction { request: Box<TransactionRequest>, gas: u64, automine: bool },
    /// `evm_mine`, `anvil_mine`, `hardhat_mine`: empty blocks; live blocks
    /// (`--block-time`) of ordinary activity.
    Mine { blocks: u64, interval: Option<u64>, activity: bool },
    /// `evm_snapshot`.
    Snapshot,
    /// `evm_revert`.
    Revert { id: u64 },
    /// `hardhat_reset`, `anvil_reset`: the chain as its seed makes it.
    Reset,
    /// `evm_increaseTime`.
    IncreaseTime { seconds: u64 },
    /// `evm_setNextBlockTimestamp`.
    SetNextBlockTimestamp { timestamp: u64 },
    /// `anvil_setBalance`.
    SetBalance { address: Address, balance: U256 },
    /// `anvil_setCode`.
    SetCode { address: Address, code: Bytes },
    /// `anvil_setStorageAt`.
    SetStorageAt { address: Address, slot: U256, value: Hash32 },
    /// `anvil_setNonce`.
    SetNonce { address: Address, nonce: u64 },
    /// `anvil_impersonateAccount`, `anvil_stopImpersonatingAccount`.
    Impersonate { address: Address, on: bool },
    /// `evm_setAutomine`.
    SetAutomine { on: bool },
    /// `evm_setIntervalMining`, `anvil_setIntervalMining`: a block every
    /// `seconds` (zero: none), automine off.
    SetIntervalMining { seconds: u64 },
    /// A block of interval mining, made only if the chain still mines
    /// every `seconds` when its turn comes (a change of the setting may
    /// come first).
    IntervalBlock { seconds: u64 },
    /// `anvil_dropTransaction`, `hardhat_dropTransaction`.
    DropTransaction { hash: Hash32 },
    /// `anvil_dropAllTransactions`.
    DropAllTransactions,
    /// `w3api_createWallet`.
    CreateWallet { native: U256 },
    /// `w3api_createToken`.
    CreateToken { token: NewToken },
    /// `w3api_createCollection`.
    CreateCollection { collection: NewCollection },
    /// `w3api_mintToken`.
    MintToken { token: Address, to: Address, amount: U256 },
    /// `w3api_mintNft`.
    MintNft { collection: Address, to: Address, amount: u64, metadata: Option<NewNftMetadata> },
    /// `w3api_transfer`.
    Transfer { from: Address, to: Address, moved: Moved },
    /// `w3api_setPrice`.
    SetPrice { token: Address, usd: f64 },
    /// `anvil_loadState`: the chain as its seed makes it, then these
    /// changes (a dump's), each checked against what it did when dumped.
    Load { changes: Vec<Carried> },
}

/// A change with what it did, as a dump carries it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Carried {
    pub(crate) change: Change,
    pub(crate) outcome: Outcome,
}

impl Change {
    /// The method that asked for it, for messages.
    pub(crate) fn what(&self) -> &'static str {
        match self {
            Change::SendRawTransaction { .. } => "eth_sendRawTransaction",
            Change::SendTransaction { .. } => "eth_sendTransaction",
            Change::Mine { activity: false, .. } => "evm_mine",
            Change::Mine { activity: true, .. } => "a live block (--block-time)",
            Change::Snapshot => "evm_snapshot",
            Change::Revert { .. } => "evm_revert",
            Change::Reset => "anvil_reset",
            Change::IncreaseTime { .. } => "evm_increaseTime",
            Change::SetNextBlockTimestamp { .. } => "evm_setNextBlockTimestamp",
            Change::SetBalance { .. } => "anvil_setBalance",
            Change::SetCode { .. } => "anvil_setCode",
            Change::SetStorageAt { .. } => "anvil_setStorageAt",
            Change::SetNonce { .. } => "anvil_setNonce",
            Change::Impersonate { .. } => "anvil_impersonateAccount",
            Change::SetAutomine { .. } => "evm_setAutomine",
            Change::SetIntervalMining { .. } => "evm_setIntervalMining",
            Change::IntervalBlock { .. } => "an interval block (evm_setIntervalMining)",
            Change::DropTransaction { .. } => "anvil_dropTransaction",
            Change::DropAllTransactions => "anvil_dropAllTransactions",
            Change::CreateWallet { .. } => "w3api_createWallet",
            Change::CreateToken { .. } => "w3api_createToken",
            Change::CreateCollection { .. } => "w3api_createCollection",
            Change::MintToken { .. } => "w3api_mintToken",
            Change::MintNft { .. } => "w3api_mintNft",
            Change::Transfer { .. } => "w3api_transfer",
            Change::SetPrice { .. } => "w3api_setPrice",
            Change::Load { .. } => "anvil_loadState",
        }
    }
}

/// What a change answered.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Answer {
    /// Nothing beyond success.
    Done,
    /// A block number, a snapshot id, seconds.
    Number(u64),
    /// Whether it happened (a revert).
    Flag(bool),
    /// A transaction's hash.
    Hash(Hash32),
    /// A deployed contract.
    Address(Address),
    /// A created wallet.
    Wallet(CreatedWallet),
    /// A price set.
    Price(f64),
    /// A minted NFT's token id.
    TokenId(U256),
}

/// A method of [`Answer`] for each kind of answer a caller expects.
macro_rules! answers {
    ($($name:ident: $variant:ident -> $kind:ty, $what:literal;)*) => {
        $(
            pub(crate) fn $name(self) -> Result<$kind, SourceError> {
                match self {
                    Answer::$variant(value) => Ok(value),
                    other => Err(other.unexpected($what)),
                }
            }
        )*
    };
}

impl Answer {
    fn unexpected(self, wanted: &str) -> SourceError {
        SourceError::Unavailable(format!("a chain change answered {self:?} where {wanted} was due (a bug)"))
    }

    answers! {
        number: Number -> u64, "a number";
        flag: Flag -> bool, "a flag";
        hash: Hash -> Hash32, "a hash";
        address: Address -> Address, "an address";
        wallet: Wallet -> CreatedWallet, "a wallet";
        token_id: TokenId -> U256, "a token id";
        price: Price -> f64, "a price";
    }
}

/// Where a chain stands: its newest block, and the last snapshot id given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Standing {
    pub(crate) number: u64,
    pub(crate) hash: Hash32,
    pub(crate) snapshots: u64,
}

/// What a change did: its answer (or the error of a change that failed
/// part-way, after making blocks), and where it left the chain.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Outcome {
    #[serde(flatten)]
    pub(crate) answer: Answered,
    pub(crate) after: Standing,
}

/// A change's answer or error, as kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) enum Answered {
    Answer(Answer),
    Error(String),
}

impl Answered {
    pub(crate) fn of(result: &Result<Answer, SourceError>) -> Answered {
        match result {
            Ok(answer) => Answered::Answer(answer.clone()),
            Err(error) => Answered::Error(error.to_string()),
        }
    }
}
