//! Sending one transaction on the embedded chain: the EVM runs it over the
//! block in progress, and when it is included its receipt, its logs and
//! the balances it moved are kept.
//!
//! The generator sends as a wallet does: it runs the call first with room
//! to spare, then signs it with the gas it used and a margin. The devnet's
//! contracts do not depend on the gas they are given, so the run is the
//! transaction's outcome and is not repeated.

use alloy_consensus::{
    Eip658Value, Receipt, ReceiptEnvelope, ReceiptWithBloom, Transaction, TxEip1559, TxEnvelope, TxLegacy, TxType,
};
use alloy_primitives::{Address, B256, Bytes, TxKind, U256};
use w3api_chain::revm::context::TxEnv;
use w3api_chain::revm::context::result::{EVMError, ExecutionResult, InvalidTransaction};
use w3api_chain::revm::context_interface::either::Either;
use w3api_chain::revm::state::EvmState;
use w3api_chain::{BlockSpec, Checks, InnerTransfer, describe};
use w3api_ledger::{Asset, Holder, Place, events};

use super::calls::Call;
use super::found::Known;
use super::sealing::Unsigned;
use super::simulation::{BLOBS, SignedTransaction, Simulation};
use crate::accounts::Role;
use crate::console;

/// Gas every transaction costs at least.
const BASE_GAS: u64 = 21_000;

/// Why a transaction was not included.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum NotSent {
    /// The sender cannot pay for its value and gas.
    Unaffordable,
    /// The block in progress has no room left for it.
    BlockFull,
    /// The EVM refuses it (a user's transaction): why, in geth's words.
    Refused(String),
}

impl Simulation<'_> {
    /// What the block in progress tells its transactions.
    pub(super) fn block_spec(&self) -> BlockSpec {
        BlockSpec {
            number: u64::from(self.block),
            timestamp: self.timestamp,
            beneficiary: self.world.miner,
            base_fee: self.base_fee,
            gas_limit: self.world.gas_limit,
            prevrandao: self.prevrandao(u64::from(self.block)),
            excess_blob_gas: self.excess_blob_gas,
            blob_base_fee: BLOBS.calc_blob_fee(self.excess_blob_gas),
        }
    }

    /// Runs `call` and includes it in the block in progress; whether it
    /// succeeded (a revert is included too, as on any chain).
    pub(super) fn send(&mut self, call: Call) -> Result<bool, NotSent> {
        let transactions = self.unsigned.len() as u32 - self.first_tx;
        if transactions >= self.scale.max_block_transactions {
            return Err(NotSent::BlockFull);
        }
        let sender = self.address(call.sender);
        let tip = self.rng.u64(100_000_000..2_000_000_000);
        let legacy = self.accounts.role(call.sender) == Role::Wallet && self.rng.u8(..10) < 3;
        let max_fee = u128::from(self.base_fee) * 2 + u128::from(tip);
        let price = if legacy { u128::from(self.base_fee) + u128::from(tip) } else { max_fee };
        let block = u64::from(self.block);
        let account = self.chain.archive().account(sender, block);
        let balance = account.balance.saturating_to::<u128>();
        let room = self.world.gas_limit / 2 - self.gas_used;
        let affordable = u64::try_from(balance.saturating_sub(call.value) / price).unwrap_or(u64::MAX);
        if balance < call.value || affordable < BASE_GAS {
            return Err(NotSent::Unaffordable);
        }
        if room < BASE_GAS {
            return Err(NotSent::BlockFull);
        }
        let limit = call.cap().min(room).min(affordable);
        let nonce = account.nonce;
        let tx = TxEnv {
            tx_type: if legacy { 0 } else { 2 },
            caller: sender,
            gas_limit: limit,
            gas_price: price,
            kind: call.to,
            value: U256::from(call.value),
            data: Bytes::from(call.input.clone()),
            nonce,
            chain_id: Some(self.chain_id),
            gas_priority_fee: (!legacy).then_some(u128::from(tip)),
            ..TxEnv::default()
        };
        let short = if limit == room { NotSent::BlockFull } else { NotSent::Unaffordable };
        let (outcome, inside) = match self.chain.transact_moving(block, &self.block_spec(), tx, Checks::Block) {
            Ok(ran) => ran,
            // Its calldata alone costs more than the gas left to it (the
            // block's room, or what its sender can pay for): like a
            // failure short of its allowance, it waits, or is not sent.
            Err(EVMError::Transaction(
                InvalidTransaction::CallGasCostMoreThanGasLimit { .. }
                | InvalidTransaction::GasFloorMoreThanGasLimit { .. },
            )) if limit < call.cap() => return Err(short),
            Err(refused) => panic!("the generator sent what the EVM refuses: {refused}"),
        };
        // Short of its full allowance, a failure may only mean too little
        // gas (a sub-call or creation runs out and reverts): it waits for
        // a block with room, or is not sent.
        if !outcome.result.is_success() && limit < call.cap() {
            return Err(short);
        }
        // Signed with what it used and a fifth more, as an estimate would give.
        let spent = outcome.result.gas().total_gas_spent();
        let gas_limit = (spent + spent / 5).min(affordable).max(spent);
        self.include(outcome.state, (&outcome.result, &inside.transfers), false);
        self.record(call, nonce, gas_limit, (legacy, tip, max_fee), &outcome.result);
        Ok(outcome.result.is_success())
    }

    /// Keeps what a transaction changed: the EVM's state, the native
    /// balances it moved (and the value its inner calls moved, for the
    /// history), and the movements its logs tell the ledger. A
    /// user's transaction may reveal contracts of theirs (`found`), and its
    /// logs are the user's code speaking: a movement the ledger refuses
    /// (a token breaking its standard) is left out, as an indexer leaves it.
    fn include(&mut self, state: EvmState, (result, inner): (&ExecutionResult, &[InnerTransfer]), user: bool) {
        let block = self.block;
        let value = self.next_transaction();
        for (address, account) in &state {
            self.follow_native_balance(value, *address, account.info.balance);
        }
        self.chain.commit(u64::from(block), state);
        if result.is_success() {
            self.follow_inside(result.logs(), inner, user);
        }
    }

    /// Where the next transaction of the block in progress is: its receipt
    /// follows the block's receipts so far.
    pub(super) fn next_transaction(&self) -> Place {
        Place { block: self.block, transaction: Some(self.block_receipts.len() as u32), log: None }
    }

    /// What the next transaction of the block in progress, which
    /// succeeded, moved inside the EVM and told in its logs.
    pub(super) fn follow_inside(&mut self, logs: &[alloy_primitives::Log], inner: &[InnerTransfer], user: bool) {
        let block = self.block;
        let transaction = self.block_receipts.len() as u32;
        let first_log: usize = self.block_receipts.iter().map(|r| r.logs().len()).sum();
        for moved in inner {
            self.ledger.record_inner_transfer((block, transaction), moved.from, moved.to, moved.value);
        }
        for (position, log) in logs.iter().enumerate() {
            let Some(event) = events::decode(log.topics(), &log.data.data) else { continue };
            let at = Place::log(block, transaction, (first_log + position) as u32);
            if user {
                self.discover(log, &event);
            }
            let known = Known { world: self.world, found: &self.found };
            match self.ledger.apply_event(at, log.address, &event, &known) {
                Ok(()) => {}
                Err(refused) if user => tracing::warn!(%refused, contract = %log.address, "a log left out"),
                Err(refused) => panic!("the EVM logged a movement the ledger refuses: {refused}"),
            }
        }
    }

    /// Runs a transaction a user signed and includes it as it was sent;
    /// whether it succeeded. Refused (changing nothing) when the EVM will
    /// not run it: its nonce, funds, fees or chain id.
    pub(super) fn send_signed(&mut self, signed: SignedTransaction) -> Result<bool, NotSent> {
        let SignedTransaction { envelope, sender, impersonated } = signed;
        let blob_gas = envelope.blob_gas_used().unwrap_or_default();
        if self.blob_gas_used + blob_gas > BLOBS.max_blob_gas_per_block() {
            return Err(NotSent::BlockFull);
        }
        let tx = signed_tx_env(&envelope, sender);
        let block = u64::from(self.block);
        let checks = if impersonated { Checks::Impersonated } else { Checks::Block };
        let ran = self.chain.transact_moving(block, &self.block_spec(), tx, checks);
        let (outcome, inside) = ran.map_err(|refused| NotSent::Refused(describe(&refused)))?;
        self.include(outcome.state, (&outcome.result, &inside.transfers), true);
        self.blob_gas_used += blob_gas;
        console::print(envelope.tx_hash(), &inside.console);
        let (tx_type, to) = (envelope.tx_type(), envelope.kind());
        self.unsigned.push(Unsigned::Signed(Box::new(envelope), sender));
        self.keep_receipt(tx_type, (sender, to), &outcome.result);
        Ok(outcome.result.is_success())
    }

    /// The transaction to sign, and its receipt.
    fn record(&mut self, call: Call, nonce: u64, gas_limit: u64, fees: (bool, u64, u128), result: &ExecutionResult) {
        let (legacy, tip, max_fee) = fees;
        let input = Bytes::from(call.input);
        let value = U256::from(call.value);
        let chain_id = self.chain_id;
        let parties = (self.address(call.sender), call.to);
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
        self.keep_receipt(if legacy { TxType::Legacy } else { TxType::Eip1559 }, parties, result);
    }

    /// The receipt of the transaction just included (sent by `from` to
    /// `to`): what the EVM did. The ledger lists it for its two parties.
    fn keep_receipt(&mut self, tx_type: TxType, parties: (Address, TxKind), result: &ExecutionResult) {
        let logs = if result.is_success() { result.logs().to_vec() } else { Vec::new() };
        let status = Eip658Value::Eip658(result.is_success());
        let cumulative_gas_used = self.gas_used + result.tx_gas_used();
        let receipt = Receipt { status, cumulative_gas_used, logs }.with_bloom();
        self.keep(parties, receipt_envelope(tx_type, receipt));
    }

    /// Keeps the receipt of the transaction just included, which `from`
    /// sent to `to`; the ledger lists it for its two parties.
    pub(super) fn keep(&mut self, (from, to): (Address, TxKind), receipt: ReceiptEnvelope) {
        let index = self.block_receipts.len() as u32;
        self.ledger.record_transaction(self.block, index, from, to.to().copied());
        self.gas_used = receipt.cumulative_gas_used();
        self.block_receipts.push(receipt);
        self.executed += 1;
    }

    /// Moves the ledger's native balance of `address` to what the EVM now
    /// holds, `after` (the ledger counts up to 2^128 - 1 of it).
    pub(super) fn follow_native_balance(&mut self, at: Place, address: Address, after: U256) {
        let before = self.chain.archive().account(address, u64::from(at.block)).balance;
        self.follow_native_change(at, address, (before, after));
    }

    /// Moves the ledger's native balance of `address` as the EVM moved it,
    /// from `before` to `after` (the ledger counts up to 2^128 - 1 of it).
    pub(super) fn follow_native_change(&mut self, at: Place, address: Address, (before, after): (U256, U256)) {
        let (before, after) = (before.saturating_to::<u128>(), after.saturating_to::<u128>());
        if before != after {
            let holder = self.ledger.holder(address);
            let (from, to) = if after > before { (Holder::NOBODY, holder) } else { (holder, Holder::NOBODY) };
            self.move_native(at, from, to, after.abs_diff(before));
        }
    }

    /// Moves native currency, as the EVM did.
    pub(super) fn move_native(&mut self, at: Place, from: Holder, to: Holder, amount: u128) {
        let moved = self.ledger.move_fungible(at, Asset::NATIVE, from, to, amount);
        moved.unwrap_or_else(|refused| panic!("the ledger disagrees with the EVM's balances: {refused}"));
    }
}

/// A receipt in the envelope of its transaction's type.
pub(crate) fn receipt_envelope(tx_type: TxType, receipt: ReceiptWithBloom) -> ReceiptEnvelope {
    match tx_type {
        TxType::Legacy => ReceiptEnvelope::Legacy(receipt),
        TxType::Eip2930 => ReceiptEnvelope::Eip2930(receipt),
        TxType::Eip1559 => ReceiptEnvelope::Eip1559(receipt),
        TxType::Eip4844 => ReceiptEnvelope::Eip4844(receipt),
        TxType::Eip7702 => ReceiptEnvelope::Eip7702(receipt),
    }
}

/// The EVM's transaction for one signed by (or sent for) `sender`: a
/// user's as it was sent, and any the chain holds when a block runs again.
pub(crate) fn signed_tx_env(envelope: &TxEnvelope, sender: Address) -> TxEnv {
    TxEnv {
        tx_type: envelope.tx_type() as u8,
        caller: sender,
        gas_limit: envelope.gas_limit(),
        gas_price: envelope.max_fee_per_gas(),
        gas_priority_fee: envelope.max_priority_fee_per_gas(),
        kind: envelope.kind(),
        value: envelope.value(),
        data: envelope.input().clone(),
        nonce: envelope.nonce(),
        chain_id: envelope.chain_id(),
        access_list: envelope.access_list().cloned().unwrap_or_default(),
        blob_hashes: envelope.blob_versioned_hashes().map(<[B256]>::to_vec).unwrap_or_default(),
        max_fee_per_blob_gas: envelope.max_fee_per_blob_gas().unwrap_or_default(),
        authorization_list: envelope
            .authorization_list()
            .map(|list| list.iter().cloned().map(Either::Left).collect())
            .unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{Address, U256};
    use w3api_chain::Account;
    use w3api_source::SourceError;
    use w3api_types::Chain;

    use super::super::model::GAS_LIMIT;
    use super::super::simulation::{Action, Simulation};
    use crate::world::World;
    use crate::{Accounts, Scale};

    /// The large scale's case, which once stopped the generator: a wallet
    /// whose funds pay for the 21,000 gas every transaction costs but not
    /// for its calldata. The transaction is not sent, and the chain goes on.
    #[test]
    fn a_call_whose_calldata_costs_more_than_its_sender_can_pay_is_not_sent() {
        let scale = Scale::TINY;
        let accounts = Accounts::generate(1, scale.traders, scale.wallets);
        let world = World::plan(Chain::Eth, 1, &scale, &accounts);
        let mut simulation = Simulation::new(Chain::Eth, 1, &scale, &accounts, &world);
        simulation.run();
        // A base fee so high that the random tip hardly moves the price.
        let base_fee = 1_000_000_000_000u128;
        simulation.parent = (GAS_LIMIT / 2, base_fee as u64);
        let latest = scale.blocks;
        let asset = world.assets().nth(1).unwrap();
        // Funds for 21,100 gas at an EIP-1559 transaction's price; the
        // draw makes some of them legacy ones, which can pay for more.
        let poor = Account { balance: U256::from(21_100 * (2 * base_fee + 2_000_000_000)), ..Account::default() };
        for wallet in accounts.wallets().skip(1).take(6) {
            simulation.chain.archive_mut().set_account(latest, accounts.address(wallet), poor);
            let transfer = Action::Erc20Transfer { from: wallet, asset, to: Address::repeat_byte(9), amount: 1 };
            let timestamp = simulation.timestamp + 12;
            let made = simulation.live_block(latest as u32 + 1, timestamp, Vec::new(), vec![transfer], false);
            assert!(matches!(&made, Err(SourceError::InvalidChange(m)) if m.contains("cannot pay")), "{made:?}");
        }
    }
}
