//! The follower: hears of each chain's new heads, builds the payload of
//! every active stream of the chain for the new blocks (unconfirmed) and
//! for the blocks that became deep enough (confirmed), and queues them.
//! Two servers following the same chain queue a block once: the store
//! keeps one delivery per stream, block hash and confirmation.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use alloy_primitives::{Address, B256};
use chrono::Utc;
use uuid::Uuid;
use w3api_source::{BlockRef, DataSource, HeadWatch, SourceError, Wake, value_transfers};
use w3api_store::{NewDelivery, Records, StoredStream};
use w3api_types::rpc::CallFrame;
use w3api_types::{Chain, StreamNativeBalance, StreamWebhook};

use crate::engine::Inner;
use crate::error::StreamsError;
use crate::payload::{self, BlockData, InternalTransfer};
use crate::records::kept_of;
use crate::settings::StreamSpec;

/// Blocks one head may catch up at most: a jump of more (a mined batch)
/// queues the newest ones.
const MAX_CATCH_UP: u64 = 1_000;

/// Follows heads until the task is aborted.
pub(crate) async fn run<S: DataSource>(inner: Arc<Inner<S>>) {
    let mut follower = Follower { inner, handled: HashMap::new() };
    let mut watch = HeadWatch::new(follower.inner.source.heads(), follower.inner.config.poll);
    loop {
        let outcome = match watch.next().await {
            Wake::Head(head) => follower.on_head(head.chain, head.number).await,
            Wake::Missed(missed) => {
                tracing::warn!(missed, "the stream follower fell behind the heads; it reads them again");
                follower.check_chains().await
            }
            Wake::Tick => follower.check_chains().await,
        };
        if let Err(error) = outcome {
            tracing::error!(%error, "stream deliveries could not be queued; the follower tries again");
        }
    }
}

struct Follower<S> {
    inner: Arc<Inner<S>>,
    /// The newest block handled, by chain.
    handled: HashMap<Chain, u64>,
}

/// An active stream, read for matching.
struct Active {
    id: Uuid,
    spec: StreamSpec,
    watched: HashSet<Address>,
    webhook_url: String,
    /// By chain, the newest block when the chain was added to the stream:
    /// it gets the blocks after it.
    starts: HashMap<Chain, u64>,
}

impl<S: DataSource> Follower<S> {
    /// Reads the head of every chain an active stream watches (for sources
    /// that do not announce heads, and chains not yet followed).
    async fn check_chains(&mut self) -> Result<(), StreamsError> {
        let active = self.active().await?;
        let chains: HashSet<Chain> = active.iter().flat_map(|a| a.starts.keys().copied()).collect();
        for chain in chains {
            let head = match self.inner.source.latest_block(chain).await {
                Ok(head) => head,
                Err(SourceError::ChainNotServed(_)) => continue,
                Err(error) => return Err(error.into()),
            };
            self.handle(chain, head, &active).await?;
        }
        Ok(())
    }

    async fn on_head(&mut self, chain: Chain, head: u64) -> Result<(), StreamsError> {
        let active = self.active().await?;
        self.handle(chain, head, &active).await
    }

    async fn active(&self) -> Result<Vec<Active>, StreamsError> {
        let store = self.inner.store.get().await?;
        let mut active = Vec::new();
        for (stored, addresses) in store.active_streams().await? {
            match read_active(&stored, addresses) {
                Ok(stream) => active.push(stream),
                Err(error) => {
                    tracing::error!(stream = %stored.id, %error, "a stored stream does not read; it is skipped");
                }
            }
        }
        Ok(active)
    }

    async fn handle(&mut self, chain: Chain, head: u64, active: &[Active]) -> Result<(), StreamsError> {
        let streams: Vec<&Active> = active.iter().filter(|a| a.starts.contains_key(&chain)).collect();
        // A chain not followed yet starts where its earliest stream does.
        let earliest = streams.iter().filter_map(|s| s.starts.get(&chain)).min().copied();
        let Some(previous) = self.handled.insert(chain, head).or(earliest) else { return Ok(()) };
        if streams.is_empty() || head <= previous {
            // Nothing watches the chain, or it went back (a revert): its
            // next blocks are new ones, delivered as they come.
            return Ok(());
        }
        let depth = self.inner.config.confirmations(chain);
        let start = (previous + 1).max(head.saturating_sub(MAX_CATCH_UP - 1));
        for number in start..=head {
            self.queue_block(chain, number, false, &streams).await?;
            if let Some(deep) = number.checked_sub(depth) {
                self.queue_block(chain, deep, true, &streams).await?;
            }
        }
        Ok(())
    }

    /// Queues the payload of every stream that gets something from a block.
    async fn queue_block(
        &self,
        chain: Chain,
        number: u64,
        confirmed: bool,
        streams: &[&Active],
    ) -> Result<(), StreamsError> {
        let due: Vec<&&Active> =
            streams.iter().filter(|s| s.starts.get(&chain).is_some_and(|start| number > *start)).collect();
        if due.is_empty() {
            return Ok(());
        }
        let source = self.inner.source.as_ref();
        let internal = due.iter().any(|stream| StreamSpec::flag(stream.spec.api.include_internal_txs));
        let Some(data) = block_data(source, chain, number, internal).await? else { return Ok(()) };
        let mut deliveries = Vec::new();
        for stream in due {
            let webhook =
                payload(source, &stream.spec, &stream.id.to_string(), &stream.watched, &data, confirmed).await?;
            if webhook.is_empty() {
                continue;
            }
            deliveries.push(NewDelivery {
                id: Uuid::new_v4(),
                stream_id: stream.id,
                chain_id: webhook.chain_id.clone(),
                block_number: number,
                block_hash: webhook.block.hash.clone(),
                confirmed,
                records: Records {
                    logs: webhook.logs.len() as u64,
                    txs: webhook.txs.len() as u64,
                    txs_internal: webhook.txs_internal.len() as u64,
                },
                transactions: carried_transactions(&webhook),
                payload: serde_json::to_string(&webhook).expect("a payload encodes"),
                webhook_url: stream.webhook_url.clone(),
                tag: webhook.tag,
                created_at: Utc::now(),
            });
        }
        if !deliveries.is_empty() {
            self.inner.store.get().await?.enqueue(&deliveries).await?;
            self.inner.wake.notify_one();
        }
        Ok(())
    }
}

fn read_active(stored: &StoredStream, addresses: Vec<Address>) -> Result<Active, StreamsError> {
    let kept = kept_of(stored)?;
    let webhook_url = kept.api.webhook_url.clone();
    let spec = StreamSpec::parse(kept.api)?;
    let starts = spec
        .chains
        .iter()
        .zip(&spec.api.chain_ids)
        .filter_map(|(chain, id)| kept.starts.get(&id.to_lowercase()).map(|start| (*chain, *start)))
        .collect();
    Ok(Active { id: stored.id, spec, watched: addresses.into_iter().collect(), webhook_url, starts })
}

/// A block with its receipts and the contracts of its logs, and with
/// `internal` the value its transactions moved inside (from the source's
/// trace of the block: none on a node that cannot trace); `None` when the
/// chain has no such block.
pub(crate) async fn block_data<S: DataSource>(
    source: &S,
    chain: Chain,
    number: u64,
    internal: bool,
) -> Result<Option<BlockData>, StreamsError> {
    let Some(block) = source.block(chain, BlockRef::Number(number), true).await? else { return Ok(None) };
    let Some(receipts) = source.block_receipts(chain, BlockRef::Number(number)).await? else { return Ok(None) };
    let addresses = BlockData::log_addresses(&receipts);
    let contracts = source.contracts(chain, addresses).await?;
    let contracts = contracts
        .into_iter()
        .map(|contract| {
            let address = match &contract {
                w3api_source::Contract::Token(token) => token.address,
                w3api_source::Contract::Collection(collection) => collection.address,
            };
            (address, contract)
        })
        .collect();
    let internal = match internal {
        true => internal_transfers(source.call_trees(chain, block.hash).await?.unwrap_or_default()),
        false => Vec::new(),
    };
    Ok(Some(BlockData { chain, block, receipts, contracts, internal }))
}

/// The value each transaction's calls moved, in order.
fn internal_transfers(trees: Vec<(B256, CallFrame)>) -> Vec<InternalTransfer> {
    let mut moved = Vec::new();
    for (transaction_hash, top) in &trees {
        moved.extend(value_transfers(top).into_iter().map(|frame| InternalTransfer {
            transaction_hash: *transaction_hash,
            from: frame.from,
            to: frame.to.unwrap_or_default(),
            value: frame.value.unwrap_or_default(),
            gas: frame.gas,
        }));
    }
    moved
}

/// A stream's payload for a block, native balances read.
pub(crate) async fn payload<S: DataSource>(
    source: &S,
    spec: &StreamSpec,
    stream_id: &str,
    watched: &HashSet<Address>,
    data: &BlockData,
    confirmed: bool,
) -> Result<StreamWebhook, StreamsError> {
    let matched = payload::build(spec, stream_id, watched, data, confirmed);
    let mut webhook = matched.webhook;
    if webhook.is_empty() {
        return Ok(webhook);
    }
    if let Some(triggers) = &spec.api.triggers {
        crate::triggers::attach(source, triggers, data, &mut webhook).await?;
    }
    for address in matched.balances_of {
        let balance = source.balance(data.chain, address, BlockRef::Number(data.block.number)).await?;
        webhook
            .native_balances
            .push(StreamNativeBalance { address: format!("{address:#x}"), balance: balance.to_string() });
    }
    Ok(webhook)
}

/// The hashes of the transactions `webhook` carries (its transactions, and
/// those its logs and internal transactions come from), lowercase, each
/// once: what the history is filtered by.
fn carried_transactions(webhook: &StreamWebhook) -> Vec<String> {
    let txs = webhook.txs.iter().map(|tx| &tx.hash);
    let logs = webhook.logs.iter().map(|log| &log.transaction_hash);
    let internal = webhook.txs_internal.iter().map(|tx| &tx.transaction_hash);
    let hashes: BTreeSet<String> = txs.chain(logs).chain(internal).map(|hash| hash.to_ascii_lowercase()).collect();
    hashes.into_iter().collect()
}
