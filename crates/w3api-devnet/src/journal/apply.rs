//! Making one change of a chain: the one place every change is made, when
//! it is first asked for and when the journal is replayed.

use w3api_source::SourceError;
use w3api_types::Chain;

use super::change::{Answer, Change};
use crate::Devnet;
use crate::control::decode_signed;
use crate::generate::{BlockPlan, ChainData, StateEdit};
use crate::live::LiveChain;

impl Devnet {
    /// Makes `change` on `live`, the chain `chain`, holding it as long as
    /// the change takes. Runs off the async runtime's threads.
    pub(crate) fn apply(&self, chain: Chain, live: &LiveChain, change: &Change) -> Result<Answer, SourceError> {
        live.check(chain).or_else(|damaged| match change {
            // A reset is how a damaged chain starts over.
            Change::Reset => Ok(()),
            _ => Err(damaged),
        })?;
        match change {
            Change::Snapshot => Ok(Answer::Number(live.snapshot())),
            Change::Revert { id } => Ok(Answer::Flag(live.revert(*id))),
            Change::Reset => {
                live.reset(self.generate(chain));
                Ok(Answer::Done)
            }
            Change::Load { changes } => self.load_now(chain, live, changes).map(|()| Answer::Done),
            other => self.apply_to_data(&mut live.write(), other),
        }
    }

    fn apply_to_data(&self, data: &mut ChainData, change: &Change) -> Result<Answer, SourceError> {
        let edit =
            |data: &mut ChainData, edit: StateEdit| self.append(data, BlockPlan::edit(edit)).map(|_| Answer::Done);
        match change.clone() {
            Change::SendRawTransaction { raw, automine } => {
                let signed = decode_signed(&raw)?;
                let hash = *signed.envelope.tx_hash();
                self.submit(data, signed, automine)?;
                Ok(Answer::Hash(hash))
            }
            Change::SendTransaction { request, gas, automine } => {
                let signed = data.dev_transaction(&request, gas)?;
                let hash = *signed.envelope.tx_hash();
                self.submit(data, signed, automine)?;
                Ok(Answer::Hash(hash))
            }
            Change::Mine { blocks, interval, activity } => {
                let plan = BlockPlan { interval, activity, ..BlockPlan::default() };
                self.mine_now(data, blocks, plan).map(Answer::Number)
            }
            Change::IncreaseTime { seconds } => data.increase_time(seconds).map(Answer::Number),
            Change::SetNextBlockTimestamp { timestamp } => data.set_next_timestamp(timestamp).map(|()| Answer::Done),
            Change::SetBalance { address, balance } => {
                self.set_balance_now(data, address, balance).map(|()| Answer::Done)
            }
            Change::SetCode { address, code } => edit(data, StateEdit::Code(address, code)),
            Change::SetStorageAt { address, slot, value } => {
                edit(data, StateEdit::Storage(address, slot, value.into()))
            }
            Change::SetNonce { address, nonce } => edit(data, StateEdit::Nonce(address, nonce)),
            Change::Impersonate { address, on } => {
                if on {
                    data.producer.impersonated.insert(address);
                } else {
                    data.producer.impersonated.remove(&address);
                }
                Ok(Answer::Done)
            }
            Change::SetAutomine { on } => {
                data.producer.automine = Some(on);
                if on {
                    data.producer.interval = None;
                }
                Ok(Answer::Done)
            }
            Change::SetIntervalMining { seconds } => {
                data.producer.automine = Some(false);
                data.producer.interval = (seconds > 0).then_some(seconds);
                if seconds > 0 {
                    self.start_interval_mining();
                }
                Ok(Answer::Done)
            }
            Change::IntervalBlock { seconds } if data.producer.interval == Some(seconds) => {
                self.mine_now(data, 1, BlockPlan::empty().after(seconds)).map(Answer::Number)
            }
            Change::IntervalBlock { .. } => Ok(Answer::Number(data.latest())),
            Change::DropTransaction { hash } => Ok(Answer::Flag(data.producer.pool.drop_transaction(&hash))),
            Change::DropAllTransactions => {
                data.producer.pool.drop_all();
                Ok(Answer::Done)
            }
            Change::CreateWallet { native } => self.create_wallet_now(data, native).map(Answer::Wallet),
            Change::CreateToken { token } => self.deploy_token(data, token).map(Answer::Address),
            Change::CreateCollection { collection } => self.deploy_collection(data, collection).map(Answer::Address),
            Change::MintToken { token, to, amount } => {
                self.mint_token_now(data, token, to, amount).map(|()| Answer::Done)
            }
            Change::MintNft { collection, to, amount, metadata } => {
                self.mint_nft_now(data, collection, to, amount, metadata).map(Answer::TokenId)
            }
            Change::Transfer { from, to, moved } => self.transfer_now(data, from, to, moved).map(|()| Answer::Done),
            Change::SetPrice { token, usd } => self.set_price_now(data, token, usd).map(Answer::Price),
            // Made on the live chain, by `apply`.
            Change::Snapshot | Change::Revert { .. } | Change::Reset | Change::Load { .. } => {
                Err(SourceError::Unavailable(format!("{} reached the chain's data (a bug)", change.what())))
            }
        }
    }
}
