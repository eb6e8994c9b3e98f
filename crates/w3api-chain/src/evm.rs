//! Running the EVM over the archive: a transaction in a block, to commit or
//! not, and calls that only read.

use std::convert::Infallible;

use alloy_primitives::{Address, B256, U256};
use revm::context::result::{EVMError, ExecResultAndState, ExecutionResult};
use revm::context::{BlockEnv, CfgEnv, Context, TxEnv};
use revm::database_interface::WrapDatabaseRef;
use revm::primitives::hardfork::SpecId;
use revm::state::EvmState;
use revm::{DatabaseRef, ExecuteEvm, InspectEvm, MainBuilder, MainContext};

use crate::watch::Watch;

/// The fork the chain runs: its blocks are Prague's.
pub const SPEC: SpecId = SpecId::PRAGUE;

/// What a block tells the transactions in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BlockSpec {
    /// Its number.
    pub number: u64,
    /// Unix seconds.
    pub timestamp: u64,
    /// Who is paid the priority fees.
    pub beneficiary: Address,
    /// Wei per gas burned.
    pub base_fee: u64,
    /// Most gas the block holds.
    pub gas_limit: u64,
    /// PREVRANDAO (the header's mix hash).
    pub prevrandao: B256,
    /// Its excess blob gas (EIP-4844).
    pub excess_blob_gas: u64,
    /// Wei per blob gas: what its excess gives by its fork's blob parameters.
    pub blob_base_fee: u128,
}

impl BlockSpec {
    pub(crate) fn env(&self) -> BlockEnv {
        BlockEnv {
            number: U256::from(self.number),
            beneficiary: self.beneficiary,
            timestamp: U256::from(self.timestamp),
            gas_limit: self.gas_limit,
            basefee: self.base_fee,
            prevrandao: Some(self.prevrandao),
            blob_excess_gas_and_price: Some(revm::context_interface::block::BlobExcessGasAndPrice {
                excess_blob_gas: self.excess_blob_gas,
                blob_gasprice: self.blob_base_fee,
            }),
            ..BlockEnv::default()
        }
    }
}

/// How strictly a transaction is checked before it runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checks {
    /// As a block includes it: nonce, balance, fees and chain id.
    Block,
    /// As a block includes a transaction sent for an impersonated account
    /// (`anvil_impersonateAccount`): the same, but the sender may have code.
    Impersonated,
    /// As `eth_call` runs it: any sender, nonce and fee, no base fee
    /// unless a gas price is given (geth's rules).
    Call {
        /// Whether the request named a gas price.
        priced: bool,
    },
}

/// The outcome of one transaction and the state it leaves, not yet committed.
pub type Outcome = ExecResultAndState<ExecutionResult, EvmState>;

/// Why the EVM refused to run a transaction (it is not included), over
/// state whose reads fail with `E` (the archive's never do).
pub type Refused<E = Infallible> = EVMError<E>;

/// Why a watched run has no outcome.
#[derive(Debug)]
pub enum Unfinished<E> {
    /// The EVM refused the transaction, or reading the state failed.
    Refused(Refused<E>),
    /// Its caller's `stop` said so before it ended.
    Stopped,
}

/// Why the EVM refused a transaction, in geth's words where it has them
/// (clients match on them: viem's and ethers' nonce and funds errors).
pub fn describe<E: std::fmt::Display>(refused: &Refused<E>) -> String {
    match refused {
        EVMError::Transaction(invalid) => describe_invalid(invalid),
        other => other.to_string(),
    }
}

/// Why a transaction is invalid, in geth's words where it has them.
pub fn describe_invalid(invalid: &revm::context::result::InvalidTransaction) -> String {
    use revm::context::result::InvalidTransaction as Invalid;
    match invalid {
        Invalid::NonceTooLow { tx, state } => format!("nonce too low: next nonce {state}, tx nonce {tx}"),
        Invalid::NonceTooHigh { tx, state } => format!("nonce too high: next nonce {state}, tx nonce {tx}"),
        Invalid::NonceOverflowInTransaction => "nonce has max value".into(),
        Invalid::LackOfFundForMaxFee { fee, balance } => {
            format!("insufficient funds for gas * price + value: have {balance} want {fee}")
        }
        Invalid::CallGasCostMoreThanGasLimit { initial_gas, gas_limit } => {
            format!("intrinsic gas too low: have {gas_limit}, want {initial_gas}")
        }
        Invalid::GasPriceLessThanBasefee => "transaction underpriced: max fee per gas less than block base fee".into(),
        Invalid::InvalidChainId => "invalid chain id for signer".into(),
        Invalid::PriorityFeeGreaterThanMaxFee => "max priority fee per gas higher than max fee per gas".into(),
        invalid => invalid.to_string(),
    }
}

/// Runs `tx` over `state` in `block`.
pub(crate) fn transact<D: DatabaseRef>(
    state: D,
    chain_id: u64,
    block: &BlockSpec,
    tx: TxEnv,
    checks: Checks,
) -> Result<Outcome, Refused<D::Error>> {
    context(state, chain_id, block, checks).build_mainnet().transact(tx)
}

/// The EVM's context for a transaction of `block` over `state`.
pub(crate) fn context<D: DatabaseRef>(
    state: D,
    chain_id: u64,
    block: &BlockSpec,
    checks: Checks,
) -> Context<BlockEnv, TxEnv, CfgEnv, WrapDatabaseRef<D>> {
    Context::mainnet().with_ref_db(state).with_cfg(config(chain_id, checks)).with_block(block_env(block, checks))
}

/// What a transaction run with `checks` sees of `block`: as geth runs a
/// call that names no price, BASEFEE reads 0 in it, the base fee it does
/// not pay.
pub(crate) fn block_env(block: &BlockSpec, checks: Checks) -> BlockEnv {
    let mut env = block.env();
    if checks == (Checks::Call { priced: false }) {
        env.basefee = 0;
    }
    env
}

/// Runs `tx` as [`transact`] does, asking `stop` as it goes (see
/// [`crate::watch`]) and ending early when it says yes.
pub(crate) fn transact_watched<D: DatabaseRef>(
    state: D,
    chain_id: u64,
    block: &BlockSpec,
    tx: TxEnv,
    checks: Checks,
    stop: &dyn Fn() -> bool,
) -> Result<Outcome, Unfinished<D::Error>> {
    let mut watch = Watch::new(stop);
    let run = context(state, chain_id, block, checks).build_mainnet_with_inspector(&mut watch).inspect_tx(tx);
    match run {
        _ if watch.stopped() => Err(Unfinished::Stopped),
        Ok(outcome) => Ok(outcome),
        Err(refused) => Err(Unfinished::Refused(refused)),
    }
}

pub(crate) fn config(chain_id: u64, checks: Checks) -> CfgEnv {
    let mut cfg = CfgEnv::new_with_spec(SPEC);
    cfg.chain_id = chain_id;
    match checks {
        Checks::Block => {}
        Checks::Impersonated => cfg.disable_eip3607 = true,
        Checks::Call { priced } => {
            cfg.disable_nonce_check = true;
            cfg.disable_base_fee = !priced;
            cfg.disable_balance_check = !priced;
            cfg.disable_block_gas_limit = true;
            // geth's eth_call takes any sender, a contract included.
            cfg.disable_eip3607 = true;
        }
    }
    cfg
}
