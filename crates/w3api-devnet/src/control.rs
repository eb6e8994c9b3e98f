//! Changing the devnet's chains: new blocks, snapshots, time and balances,
//! as the cheat methods of development nodes ask. Each change is made of
//! real signed transactions in new blocks, so every answer stays coherent
//! with every other. Block making runs off the async runtime's threads.

use std::time::Duration;

use w3api_chain::trace::Tracer;
use w3api_source::{
    BlockRef, ChainControl, ChangeFilter, CreatedWallet, Moved, NewCollection, NewNftMetadata, NewToken, SourceError,
    Tracing,
};
use w3api_types::rpc::{
    AccessListResult, AccountProof, BlockTraceResult, BuiltPayload, Bytes, DEFAULT_TRACE_TIMEOUT, FilterChanges,
    FilterId, GethTrace, Hash32, LocalizedTrace, Log, LogFilter, PayloadAttributes, SimulatePayload, SimulatedBlock,
    StateOverrides, StorageKey, TraceConfig, TraceFilter, TraceResults, TraceTarget, TraceType, TransactionRequest,
    TxpoolContent, TypedData,
};
use w3api_types::{Address, Chain, U256};

use crate::Devnet;
use crate::dev_accounts::dev_addresses;
use crate::generate::{BlockPlan, ChainData, SignedTransaction};
use crate::journal::Change;
use crate::live::SharedState;
use crate::query::Prepared;
use crate::query::parity_traces::{self, calls_tracer};
use crate::query::traces::{self, BlockReplay, TracedTx, tracer_of};
use alloy_consensus::transaction::SignerRecoverable;
use alloy_consensus::{Signed, TxEip4844Variant, TxEnvelope};
use alloy_eips::eip2718::Decodable2718;
use alloy_primitives::B256;

/// Most blocks one call may mine: each is a real block, made one by one.
pub const MAX_MINED_BLOCKS: u64 = 100_000;

impl Devnet {
    /// Mines `blocks` blocks as `plan` says (its interval, and whether they
    /// carry ordinary activity); returns the newest block's number.
    pub async fn mine_blocks(&self, chain: Chain, blocks: u64, plan: BlockPlan) -> Result<u64, SourceError> {
        if blocks > MAX_MINED_BLOCKS {
            return Err(SourceError::InvalidChange(format!(
                "{blocks} blocks is more than one call mines; at most {MAX_MINED_BLOCKS}"
            )));
        }
        let change = Change::Mine { blocks, interval: plan.interval, activity: plan.activity };
        self.commit(chain, change).await?.number()
    }

    /// Adds a block of ordinary activity (transfers, swaps, mints, sales)
    /// to every chain generated so far, every `every`, timestamped that much
    /// later (in whole seconds, at least one); runs until dropped. Without
    /// it, blocks come only from the chain controls.
    pub async fn produce_blocks(self, every: Duration) {
        let seconds = every.as_secs() + u64::from(every.subsec_nanos() > 0);
        let plan = BlockPlan::activity().after(seconds.max(1));
        let mut ticks = tokio::time::interval(every);
        // A block that could not be made in time is not made twice.
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            for chain in self.generated_chains() {
                if !self.leads_live_blocks(chain, every).await {
                    continue;
                }
                if let Err(error) = self.mine_blocks(chain, 1, plan.clone()).await {
                    tracing::error!(%chain, %error, "a live block could not be made");
                }
            }
        }
    }

    /// Makes one block as `plan` says, on a chain held for writing.
    pub(crate) fn append(&self, data: &mut ChainData, plan: BlockPlan) -> Result<u64, SourceError> {
        data.append_block(self.seed(), &self.scale(), self.accounts(), plan)
    }

    /// Makes `blocks` blocks as `plan` says, on a chain held for writing;
    /// returns the newest block's number.
    pub(crate) fn mine_now(&self, data: &mut ChainData, blocks: u64, plan: BlockPlan) -> Result<u64, SourceError> {
        data.check_blocks_fit(blocks, plan.interval)?;
        let mut latest = data.latest();
        for _ in 0..blocks {
            latest = self.append(data, plan.clone())?;
        }
        Ok(latest)
    }
}

impl Devnet {
    /// Runs a call in an execution slot: `prepare` reads it off the chain
    /// under a short hold, with the gas cap; `run` runs it over the state
    /// after its block, read value by value while blocks are added.
    async fn execute<T: Send + 'static>(
        &self,
        chain: Chain,
        prepare: impl FnOnce(&ChainData, u64) -> Result<Prepared, SourceError>,
        run: impl FnOnce(&Prepared, &SharedState, &dyn Fn() -> bool) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        let prepare = |data: &ChainData, cap| prepare(data, cap).map(|call| (call.block(), call));
        self.execute_at(chain, prepare, move |call, state, stop| run(&call, state, stop)).await
    }

    /// Runs a call as [`Devnet::execute`] does, but first right here, for
    /// as long as [`crate::executions::Executions::run_quick`] allows: most
    /// calls end well within it, and would spend more on the hop to a
    /// slot's thread than on the EVM.
    async fn execute_quick<T: Send + 'static>(
        &self,
        chain: Chain,
        prepare: impl FnOnce(&ChainData, u64) -> Result<Prepared, SourceError>,
        run: impl Fn(&Prepared, &SharedState, &dyn Fn() -> bool) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        let prepare = |data: &ChainData, cap| prepare(data, cap).map(|call| (call.block(), call));
        let (call, state) = self.prepared(chain, prepare).await?;
        self.inner.executions.run_quick(move |stop| run(&call, &state, stop)).await
    }

    /// Runs work in an execution slot: `prepare` reads what it needs off
    /// the chain under a short hold (with the gas cap), and names the block
    /// after which `run` reads the state, value by value while blocks are
    /// added.
    async fn execute_at<P: Send + 'static, T: Send + 'static>(
        &self,
        chain: Chain,
        prepare: impl FnOnce(&ChainData, u64) -> Result<(u64, P), SourceError>,
        run: impl FnOnce(P, &SharedState, &dyn Fn() -> bool) -> Result<T, SourceError> + Send + 'static,
    ) -> Result<T, SourceError> {
        let (prepared, state) = self.prepared(chain, prepare).await?;
        self.inner.executions.run(move |stop| run(prepared, &state, stop)).await?
    }

    /// What `prepare` reads off the chain under a short hold (with the gas
    /// cap), and the state after the block it names.
    async fn prepared<P>(
        &self,
        chain: Chain,
        prepare: impl FnOnce(&ChainData, u64) -> Result<(u64, P), SourceError>,
    ) -> Result<(P, SharedState), SourceError> {
        let live = self.ready_live(chain).await?;
        live.check(chain)?;
        let (block, prepared) = prepare(&live.read(), self.inner.executions.limits().gas_cap)?;
        Ok((prepared, live.shared_state(block)))
    }
}

/// Balances, nonces, code, storage and proofs are read from the chain's
/// state after the block.
impl w3api_source::State for Devnet {
    async fn balance(&self, chain: Chain, address: Address, block: BlockRef) -> Result<U256, SourceError> {
        self.ready(chain).await?.native_balance(&address, block)
    }

    async fn transaction_count(&self, chain: Chain, address: Address, block: BlockRef) -> Result<u64, SourceError> {
        self.ready(chain).await?.nonce(&address, block)
    }

    async fn code(&self, chain: Chain, address: Address, block: BlockRef) -> Result<Bytes, SourceError> {
        self.ready(chain).await?.code(address, block)
    }

    async fn storage_at(
        &self,
        chain: Chain,
        address: Address,
        slot: U256,
        block: BlockRef,
    ) -> Result<Hash32, SourceError> {
        self.ready(chain).await?.storage_at(address, slot, block)
    }

    async fn proof(
        &self,
        chain: Chain,
        address: Address,
        keys: Vec<StorageKey>,
        block: BlockRef,
    ) -> Result<AccountProof, SourceError> {
        self.ready(chain).await?.proof(address, &keys, block)
    }
}

/// Calls, estimates and access lists are the EVM's over the chain's state
/// after the block: at once when they are quick, else in an execution slot.
impl w3api_source::Calls for Devnet {
    async fn call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> Result<Bytes, SourceError> {
        let prepare = |data: &ChainData, cap| data.prepare(&request, block, overrides.as_ref(), cap);
        self.execute_quick(chain, prepare, |call, state, stop| call.call(state, stop)).await
    }

    async fn estimate_gas(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        overrides: Option<StateOverrides>,
    ) -> Result<U256, SourceError> {
        let prepare = |data: &ChainData, cap| data.prepare(&request, block, overrides.as_ref(), cap);
        self.execute_quick(chain, prepare, |call, state, stop| call.estimate_gas(state, stop)).await
    }

    async fn create_access_list(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
    ) -> Result<AccessListResult, SourceError> {
        let prepare = |data: &ChainData, cap| data.prepare(&request, block, None, cap);
        self.execute_quick(chain, prepare, |call, state, stop| call.access_list(state, stop)).await
    }

    /// Simulated in an execution slot under a hold of the chain for
    /// reading: blocks wait for it, for at most its time budget.
    async fn simulate(
        &self,
        chain: Chain,
        payload: SimulatePayload,
        block: BlockRef,
    ) -> Result<Vec<SimulatedBlock>, SourceError> {
        let live = self.ready_live(chain).await?;
        live.check(chain)?;
        let gas_cap = self.inner.executions.limits().gas_cap;
        self.inner.executions.run(move |stop| live.read().simulate(payload, block, gas_cap, stop)).await?
    }

    /// Built in an execution slot under a hold of the chain for reading,
    /// as a simulation is.
    async fn build_block(
        &self,
        chain: Chain,
        parent: Hash32,
        attributes: PayloadAttributes,
        transactions: Option<Vec<Bytes>>,
        extra_data: Option<Bytes>,
    ) -> Result<BuiltPayload, SourceError> {
        let live = self.ready_live(chain).await?;
        live.check(chain)?;
        let build = move |stop: &dyn Fn() -> bool| {
            live.read().build_payload(parent, attributes, transactions, extra_data, stop)
        };
        self.inner.executions.run(build).await?
    }
}

/// A sent transaction is mined at once or waits in the pool, as the
/// chain mines.
impl w3api_source::Sending for Devnet {
    fn pending_transactions(&self) -> Option<tokio::sync::broadcast::Receiver<w3api_source::PendingTransaction>> {
        Some(self.inner.pending.subscribe())
    }

    /// Mined at once into a block of its own, as Anvil and Hardhat automine.
    async fn send_raw_transaction(&self, chain: Chain, transaction: Bytes) -> Result<Hash32, SourceError> {
        // Refused before the chain's journal is taken when it cannot be
        // decoded; the signer is recovered once, as the change is made.
        decode_envelope(&transaction)?;
        let change = Change::SendRawTransaction { raw: transaction, automine: self.inner.automine };
        let hash = self.commit(chain, change).await?.hash()?;
        self.announce_pending(chain, hash);
        Ok(hash)
    }

    async fn pool_content(&self, chain: Chain) -> Result<TxpoolContent, SourceError> {
        Ok(self.ready(chain).await?.pool_content())
    }
}

impl w3api_source::Filters for Devnet {
    async fn new_filter(&self, chain: Chain, owner: String, filter: LogFilter) -> Result<FilterId, SourceError> {
        self.inner.filters.install(&*self.ready(chain).await?, &owner, Some(filter))
    }

    async fn new_change_filter(
        &self,
        chain: Chain,
        owner: String,
        kind: ChangeFilter,
    ) -> Result<FilterId, SourceError> {
        let data = self.ready(chain).await?;
        match kind {
            ChangeFilter::Blocks => self.inner.filters.install(&data, &owner, None),
            ChangeFilter::PendingTransactions => self.inner.filters.install_pending(&data, &owner),
        }
    }

    async fn filter_changes(&self, chain: Chain, id: FilterId) -> Result<FilterChanges, SourceError> {
        self.inner.filters.changes(&*self.ready(chain).await?, &id)
    }

    async fn filter_logs(&self, chain: Chain, id: FilterId) -> Result<Vec<Log>, SourceError> {
        self.inner.filters.logs(&*self.ready(chain).await?, &id)
    }

    async fn uninstall_filter(&self, chain: Chain, id: FilterId) -> Result<bool, SourceError> {
        self.ready(chain).await?;
        Ok(self.inner.filters.uninstall(chain, &id))
    }
}

impl w3api_source::Signing for Devnet {
    async fn signing_accounts(&self, _chain: Chain) -> Result<Vec<Address>, SourceError> {
        Ok(dev_addresses().collect())
    }

    async fn send_transaction(&self, chain: Chain, request: TransactionRequest) -> Result<Hash32, SourceError> {
        crate::query::sending::check_sendable(&request)?;
        // Estimated before the chain is taken, as any call runs: an estimate
        // may run for long, and nothing waits behind it.
        let gas = match request.gas {
            Some(gas) => gas,
            None => {
                let prepare = |data: &ChainData, cap| data.prepare(&request, BlockRef::Latest, None, cap);
                let estimate = self.execute(chain, prepare, |call, state, stop| call.estimate_gas(state, stop));
                estimate.await?.saturating_to()
            }
        };
        // Filled in and mined under one hold of the chain, so that two sends
        // from one account never take the same nonce.
        let change = Change::SendTransaction { request: Box::new(request), gas, automine: self.inner.automine };
        let hash = self.commit(chain, change).await?.hash()?;
        self.announce_pending(chain, hash);
        Ok(hash)
    }

    async fn sign(&self, chain: Chain, address: Address, message: Bytes) -> Result<Bytes, SourceError> {
        self.ready(chain).await?;
        crate::dev_accounts::sign_message(address, &message)
    }

    async fn sign_typed_data(&self, chain: Chain, address: Address, typed: TypedData) -> Result<Bytes, SourceError> {
        self.ready(chain).await?;
        crate::dev_accounts::sign_typed_data(address, &typed.0)
    }
}

/// A trace runs again what the chain holds, in an execution slot over the
/// state before the block (see `query::traces`).
impl Tracing for Devnet {
    async fn trace_transaction(
        &self,
        chain: Chain,
        hash: Hash32,
        config: TraceConfig,
    ) -> Result<GethTrace, SourceError> {
        let tracer = tracing_of(&config, TraceTarget::Mined)?;
        let traced = self.trace_mined(chain, hash, tracer).await?.ok_or_else(transaction_not_found)?;
        match traced.tx.geth()? {
            BlockTraceResult { result: Some(trace), .. } => Ok(trace),
            BlockTraceResult { error, .. } => Err(SourceError::Untraced(error.unwrap_or_default())),
        }
    }

    async fn trace_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        config: TraceConfig,
    ) -> Result<GethTrace, SourceError> {
        let (tracer, timeout) = tracing_of(&config, TraceTarget::Call)?;
        traces::check_call_overrides(config.block_overrides.as_ref())?;
        let prepare = |data: &ChainData, cap| data.prepare(&request, block, config.state_overrides.as_ref(), cap);
        let overrides = config.block_overrides.clone();
        let run = move |call: &Prepared, state: &SharedState, stop: &dyn Fn() -> bool| {
            traces::answer(call.trace(state, overrides.as_ref(), (&tracer, timeout), stop)?, 0)
        };
        self.execute(chain, prepare, run).await
    }

    async fn trace_block(
        &self,
        chain: Chain,
        block: BlockRef,
        config: TraceConfig,
    ) -> Result<Vec<BlockTraceResult>, SourceError> {
        let tracer = tracing_of(&config, TraceTarget::Mined)?;
        let (_, traced) = self.trace_blocks(chain, |data| Ok(vec![data.block_replay(block)?]), tracer).await?.remove(0);
        traced.into_iter().map(TracedTx::geth).collect()
    }

    async fn parity_transaction(&self, chain: Chain, hash: Hash32) -> Result<Option<Vec<LocalizedTrace>>, SourceError> {
        let Some(traced) = self.trace_mined(chain, hash, (calls_tracer(), DEFAULT_TRACE_TIMEOUT)).await? else {
            return Ok(None);
        };
        let block = traced.block;
        traced.tx.localized(block).map(Some)
    }

    async fn parity_block(&self, chain: Chain, block: BlockRef) -> Result<Option<Vec<LocalizedTrace>>, SourceError> {
        // A block after the latest is null, the genesis (no transactions) an empty list.
        let known = std::sync::atomic::AtomicBool::new(true);
        let replays = |data: &ChainData| match data.existing_block(block) {
            Err(_) => {
                known.store(false, std::sync::atomic::Ordering::Relaxed);
                Ok(Vec::new())
            }
            Ok(0) => Ok(Vec::new()),
            Ok(_) => Ok(vec![data.block_replay(block)?]),
        };
        let traced = self.trace_blocks(chain, replays, (calls_tracer(), DEFAULT_TRACE_TIMEOUT)).await?;
        if !known.into_inner() {
            return Ok(None);
        }
        match traced.into_iter().next() {
            Some((block, traced)) => parity_traces::localized(traced, block).map(Some),
            None => Ok(Some(Vec::new())),
        }
    }

    async fn parity_filter(&self, chain: Chain, filter: TraceFilter) -> Result<Vec<LocalizedTrace>, SourceError> {
        let replays = |data: &ChainData| data.filter_replays(&filter);
        let traced = self.trace_blocks(chain, replays, (calls_tracer(), DEFAULT_TRACE_TIMEOUT)).await?;
        let mut calls = Vec::new();
        for (block, traced) in traced {
            calls.extend(parity_traces::localized(traced, block)?);
        }
        Ok(parity_traces::filtered(calls, &filter))
    }

    async fn parity_call(
        &self,
        chain: Chain,
        request: TransactionRequest,
        block: BlockRef,
        types: Vec<TraceType>,
    ) -> Result<TraceResults, SourceError> {
        let tracer = parity_traces::parity_tracer(&types);
        let prepare = |data: &ChainData, cap| data.prepare(&request, block, None, cap);
        let run = move |call: &Prepared, state: &SharedState, stop: &dyn Fn() -> bool| {
            parity_traces::results(call.trace(state, None, (&tracer, DEFAULT_TRACE_TIMEOUT), stop)?)
        };
        self.execute(chain, prepare, run).await
    }

    async fn parity_replay(
        &self,
        chain: Chain,
        hash: Hash32,
        types: Vec<TraceType>,
    ) -> Result<TraceResults, SourceError> {
        let tracer = (parity_traces::parity_tracer(&types), DEFAULT_TRACE_TIMEOUT);
        let traced = self.trace_mined(chain, hash, tracer).await?.ok_or_else(transaction_not_found)?;
        parity_traces::results(traced.tx.trace.map_err(SourceError::Untraced)?)
    }
}

/// A mined transaction traced, with the block it is in.
struct MinedTrace {
    block: (u64, B256),
    tx: TracedTx,
}

impl Devnet {
    /// The mined transaction `hash` traced with `tracer`, at its place in
    /// its block; `None` when no block holds it.
    async fn trace_mined(
        &self,
        chain: Chain,
        hash: Hash32,
        (tracer, timeout): (Tracer, Duration),
    ) -> Result<Option<MinedTrace>, SourceError> {
        let prepare = |data: &ChainData, _| match data.transaction_replay(hash) {
            Ok((replay, index)) => Ok((replay.parent(), Some((replay, index)))),
            Err(_) if data.transaction_position(&hash).is_none() => Ok((data.latest(), None)),
            Err(e) => Err(e),
        };
        let run = move |found: Option<(BlockReplay, usize)>, state: &SharedState, stop: &dyn Fn() -> bool| {
            let Some((replay, index)) = found else { return Ok(None) };
            let block = replay.block;
            let mut traced = replay.trace(state, index..index + 1, (&tracer, timeout), stop)?;
            let tx =
                traced.pop().ok_or_else(|| SourceError::Unavailable("a transaction's trace came back empty".into()))?;
            Ok(Some(MinedTrace { block, tx }))
        };
        self.execute_at(chain, prepare, run).await
    }

    /// Every transaction of the blocks `replays` reads traced with
    /// `tracer`, each block over the state before it, in one execution slot.
    async fn trace_blocks(
        &self,
        chain: Chain,
        replays: impl FnOnce(&ChainData) -> Result<Vec<BlockReplay>, SourceError>,
        (tracer, timeout): (Tracer, Duration),
    ) -> Result<Vec<((u64, B256), Vec<TracedTx>)>, SourceError> {
        let prepare = |data: &ChainData, _| Ok((data.latest(), replays(data)?));
        let run = move |replays: Vec<BlockReplay>, state: &SharedState, stop: &dyn Fn() -> bool| {
            let mut traced = Vec::with_capacity(replays.len());
            for replay in replays {
                let (block, every) = (replay.block, 0..replay.len());
                let before = state.at(replay.parent());
                traced.push((block, replay.trace(&before, every, (&tracer, timeout), stop)?));
            }
            Ok(traced)
        };
        self.execute_at(chain, prepare, run).await
    }
}

fn transaction_not_found() -> SourceError {
    SourceError::Untraced("transaction not found".into())
}

/// The tracer and timeout `config` names for a trace of `target`.
fn tracing_of(config: &TraceConfig, target: TraceTarget) -> Result<(Tracer, Duration), SourceError> {
    let kind = config.tracer_kind(target).map_err(SourceError::InvalidRequest)?;
    let timeout = config.timeout().map_err(SourceError::InvalidRequest)?;
    Ok((tracer_of(config, kind), timeout))
}

/// A raw transaction as the chain takes it: decoded, and its sender
/// recovered.
pub(crate) fn decode_signed(raw: &[u8]) -> Result<SignedTransaction, SourceError> {
    let envelope = decode_envelope(raw)?;
    let sender =
        envelope.recover_signer().map_err(|e| SourceError::TransactionRefused(format!("invalid sender: {e}")))?;
    Ok(SignedTransaction { envelope, sender, impersonated: false })
}

/// A raw transaction decoded, its signer not yet recovered (the costly
/// part). A blob transaction comes in its network form, with its blobs,
/// whose proofs are checked; the chain keeps it without them.
fn decode_envelope(raw: &[u8]) -> Result<TxEnvelope, SourceError> {
    let refused = SourceError::TransactionRefused;
    let envelope = TxEnvelope::decode_2718_exact(raw).map_err(|e| refused(format!("rlp: {e}")))?;
    match envelope {
        TxEnvelope::Eip4844(signed) => without_blobs(signed).map(TxEnvelope::Eip4844),
        other => Ok(other),
    }
}

/// A blob transaction whose blobs match its versioned hashes, by their KZG
/// commitments and proofs (EIP-4844's or EIP-7594's cell proofs), without
/// them: a block holds the transaction alone, and the devnet keeps no blobs.
fn without_blobs(signed: Signed<TxEip4844Variant>) -> Result<Signed<TxEip4844Variant>, SourceError> {
    let refused = SourceError::TransactionRefused;
    let hash = *signed.hash();
    let (tx, signature, _) = signed.into_parts();
    let TxEip4844Variant::TxEip4844WithSidecar(with) = tx else {
        return Err(refused(
            "a blob transaction is sent with its blobs, commitments and proofs (its network form); this one has \
             none"
                .into(),
        ));
    };
    let settings = alloy_eips::eip4844::env_settings::EnvKzgSettings::Default;
    with.sidecar
        .validate(&with.tx.blob_versioned_hashes, settings.get())
        .map_err(|invalid| refused(format!("invalid blobs: {invalid}")))?;
    Ok(Signed::new_unchecked(TxEip4844Variant::TxEip4844(with.tx), signature, hash))
}

/// Every change is made and kept through the chain's journal ([`Devnet::commit`]).
impl ChainControl for Devnet {
    async fn set_code(&self, chain: Chain, address: Address, code: Bytes) -> Result<(), SourceError> {
        self.commit(chain, Change::SetCode { address, code }).await.map(drop)
    }

    async fn set_storage_at(
        &self,
        chain: Chain,
        address: Address,
        slot: U256,
        value: Hash32,
    ) -> Result<(), SourceError> {
        self.commit(chain, Change::SetStorageAt { address, slot, value }).await.map(drop)
    }

    async fn set_nonce(&self, chain: Chain, address: Address, nonce: u64) -> Result<(), SourceError> {
        self.commit(chain, Change::SetNonce { address, nonce }).await.map(drop)
    }

    async fn impersonate(&self, chain: Chain, address: Address, on: bool) -> Result<(), SourceError> {
        self.commit(chain, Change::Impersonate { address, on }).await.map(drop)
    }

    async fn automine(&self, chain: Chain) -> Result<bool, SourceError> {
        Ok(self.ready(chain).await?.automine(self.inner.automine))
    }

    async fn set_automine(&self, chain: Chain, on: bool) -> Result<(), SourceError> {
        self.commit(chain, Change::SetAutomine { on }).await.map(drop)
    }

    async fn set_interval_mining(&self, chain: Chain, seconds: u64) -> Result<(), SourceError> {
        self.commit(chain, Change::SetIntervalMining { seconds }).await.map(drop)
    }

    async fn drop_transaction(&self, chain: Chain, hash: Hash32) -> Result<bool, SourceError> {
        self.commit(chain, Change::DropTransaction { hash }).await?.flag()
    }

    async fn drop_all_transactions(&self, chain: Chain) -> Result<(), SourceError> {
        self.commit(chain, Change::DropAllTransactions).await.map(drop)
    }

    async fn mine(&self, chain: Chain, blocks: u64, interval: Option<u64>) -> Result<u64, SourceError> {
        // An interval of 0 is what tools send for "none" (viem's mine does).
        let plan = BlockPlan { interval: interval.filter(|seconds| *seconds > 0), ..BlockPlan::empty() };
        self.mine_blocks(chain, blocks, plan).await
    }

    async fn snapshot(&self, chain: Chain) -> Result<u64, SourceError> {
        self.commit(chain, Change::Snapshot).await?.number()
    }

    async fn revert(&self, chain: Chain, id: u64) -> Result<bool, SourceError> {
        self.commit(chain, Change::Revert { id }).await?.flag()
    }

    async fn reset(&self, chain: Chain) -> Result<(), SourceError> {
        self.commit(chain, Change::Reset).await.map(drop)
    }

    async fn dump_state(&self, chain: Chain) -> Result<Vec<u8>, SourceError> {
        self.dump(chain).await
    }

    async fn load_state(&self, chain: Chain, state: Vec<u8>) -> Result<(), SourceError> {
        self.load(chain, &state).await
    }

    async fn increase_time(&self, chain: Chain, seconds: u64) -> Result<u64, SourceError> {
        self.commit(chain, Change::IncreaseTime { seconds }).await?.number()
    }

    async fn set_next_block_timestamp(&self, chain: Chain, timestamp: u64) -> Result<(), SourceError> {
        self.commit(chain, Change::SetNextBlockTimestamp { timestamp }).await.map(drop)
    }

    async fn set_balance(&self, chain: Chain, address: Address, balance: U256) -> Result<(), SourceError> {
        self.commit(chain, Change::SetBalance { address, balance }).await.map(drop)
    }

    async fn create_wallet(&self, chain: Chain, native: U256) -> Result<CreatedWallet, SourceError> {
        self.commit(chain, Change::CreateWallet { native }).await?.wallet()
    }

    async fn create_token(&self, chain: Chain, token: NewToken) -> Result<Address, SourceError> {
        self.commit(chain, Change::CreateToken { token }).await?.address()
    }

    async fn create_collection(&self, chain: Chain, collection: NewCollection) -> Result<Address, SourceError> {
        self.commit(chain, Change::CreateCollection { collection }).await?.address()
    }

    async fn mint_token(&self, chain: Chain, token: Address, to: Address, amount: U256) -> Result<(), SourceError> {
        self.commit(chain, Change::MintToken { token, to, amount }).await.map(drop)
    }

    async fn mint_nft(
        &self,
        chain: Chain,
        collection: Address,
        to: Address,
        amount: u64,
        metadata: Option<NewNftMetadata>,
    ) -> Result<U256, SourceError> {
        self.commit(chain, Change::MintNft { collection, to, amount, metadata }).await?.token_id()
    }

    async fn transfer(&self, chain: Chain, from: Address, to: Address, moved: Moved) -> Result<(), SourceError> {
        self.commit(chain, Change::Transfer { from, to, moved }).await.map(drop)
    }

    async fn set_price(&self, chain: Chain, token: Address, usd: f64) -> Result<f64, SourceError> {
        self.commit(chain, Change::SetPrice { token, usd }).await?.price()
    }
}

#[cfg(test)]
mod tests {
    use w3api_source::Blocks;

    use super::*;
    use crate::Scale;

    #[tokio::test]
    async fn a_change_that_panics_leaves_the_chain_refusing_until_it_is_reset() {
        let devnet = Devnet::new(1, Scale::TINY);
        let latest = devnet.latest_block(Chain::Eth).await.unwrap();
        let live = devnet.ready_live(Chain::Eth).await.unwrap();
        let made = live.clone();
        let panicked = tokio::task::spawn_blocking(move || {
            let mut data = made.write();
            // A bug part-way through a block: the ledger is taken out, as making a block does.
            let _taken = std::mem::take(&mut data.ledger);
            panic!("a bug while making a block")
        });
        let failed = crate::journal::failed(Chain::Eth, &live, panicked.await.unwrap_err());
        assert!(matches!(failed, SourceError::Unavailable(_)), "{failed}");
        let refused = devnet.latest_block(Chain::Eth).await.unwrap_err();
        assert!(refused.to_string().contains("is damaged") && refused.to_string().contains("anvil_reset"), "{refused}");
        assert!(devnet.mine(Chain::Eth, 1, None).await.is_err(), "no change is made on a damaged chain");
        devnet.reset(Chain::Eth).await.unwrap();
        assert_eq!(devnet.latest_block(Chain::Eth).await.unwrap(), latest);
    }
}
