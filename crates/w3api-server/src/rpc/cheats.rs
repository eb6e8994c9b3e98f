//! The chain-control methods of `spec/openrpc-cheats.json` on a chain's
//! gateway: each calls the source's `ChainControl`, or, on a server that
//! turned them off, refuses, saying so.

use std::sync::Arc;

use crate::Backend;
use jsonrpsee::core::{RpcResult, async_trait};
use w3api_rpc::cheats::CheatApiServer;
use w3api_rpc::cheats::ErrorCode as CheatError;
use w3api_rpc::cheats::limits;
use w3api_source::{Moved, NewCollection, NewNftMetadata, NewToken};
use w3api_types::params::Operation;
use w3api_types::rpc::{
    Address, Bytes, CreatedWallet, Hash32, NftMetadataParams, NftStandard, Quantity, ResetOptions, Uint,
};
use w3api_types::{Chain, NATIVE_TOKEN_ADDRESS, U256};

use super::{invalid_params, rpc_error_code, source_error};
use crate::faults::{FaultRule, FaultRules, RuleId, RuleTarget, injection_of};

/// Chain control for one chain, and the server's fault rules.
pub(super) struct Cheats<S> {
    chain: Chain,
    source: Arc<S>,
    enabled: bool,
    faults: FaultRules,
}

impl<S: Backend> Cheats<S> {
    pub(super) fn new(chain: Chain, source: Arc<S>, enabled: bool, faults: FaultRules) -> Cheats<S> {
        Cheats { chain, source, enabled, faults }
    }

    fn allowed(&self) -> RpcResult<()> {
        if self.enabled {
            return Ok(());
        }
        Err(rpc_error_code(
            CheatError::MethodNotSupported.code(),
            "chain changes are turned off on this server (it was started with --no-cheats)",
        ))
    }

    async fn mine(&self, blocks: Option<Quantity>, interval: Option<Quantity>) -> RpcResult<()> {
        self.allowed()?;
        let blocks = blocks.map_or(1, |b| b.0);
        if blocks > 0 {
            self.source.mine(self.chain, blocks, interval.map(|i| i.0)).await.map_err(source_error)?;
        }
        Ok(())
    }

    async fn set_balance(&self, address: Address, balance: Uint) -> RpcResult<()> {
        self.allowed()?;
        self.source.set_balance(self.chain, address, balance).await.map_err(source_error)
    }

    async fn set_code(&self, address: Address, code: Bytes) -> RpcResult<()> {
        self.allowed()?;
        self.source.set_code(self.chain, address, code).await.map_err(source_error)
    }

    async fn set_storage_at(&self, address: Address, slot: Uint, value: Hash32) -> RpcResult<bool> {
        self.allowed()?;
        self.source.set_storage_at(self.chain, address, slot, value).await.map_err(source_error)?;
        Ok(true)
    }

    async fn set_nonce(&self, address: Address, nonce: Uint) -> RpcResult<()> {
        self.allowed()?;
        let nonce = u64::try_from(nonce).map_err(|_| invalid_params(format!("nonce: {nonce} is not below 2^64")))?;
        self.source.set_nonce(self.chain, address, nonce).await.map_err(source_error)
    }

    async fn interval_mining(&self, seconds: u64, max: usize) -> RpcResult<()> {
        self.allowed()?;
        if seconds > max as u64 {
            return Err(invalid_params(format!("seconds: {seconds} is more than a day, {max}")));
        }
        self.source.set_interval_mining(self.chain, seconds).await.map_err(source_error)
    }

    async fn drop_transaction(&self, hash: Hash32) -> RpcResult<bool> {
        self.allowed()?;
        self.source.drop_transaction(self.chain, hash).await.map_err(source_error)
    }

    async fn impersonate(&self, address: Address, on: bool) -> RpcResult<()> {
        self.allowed()?;
        self.source.impersonate(self.chain, address, on).await.map_err(source_error)
    }

    /// A reset, unless `options` ask for a fork: the devnet's chains are its own.
    async fn reset(&self, options: Option<ResetOptions>) -> RpcResult<()> {
        self.allowed()?;
        let forking = options.and_then(|options| options.forking).unwrap_or_default();
        if let Some(url) = forking.json_rpc_url {
            return Err(invalid_params(format!(
                "forking.jsonRpcUrl: {url:?}: the devnet does not fork a node, its chains are its own (w3api serve \
                 --upstream serves a node's chain); send no forking to start the chain over"
            )));
        }
        if let Some(block) = forking.block_number {
            return Err(invalid_params(format!(
                "forking.blockNumber: {}: there is no fork to reset to a block of; send no forking to start the \
                 chain over, or evm_snapshot and evm_revert to go back to a block",
                block.0
            )));
        }
        self.source.reset(self.chain).await.map_err(source_error)
    }

    async fn automine(&self) -> RpcResult<bool> {
        self.allowed()?;
        self.source.automine(self.chain).await.map_err(source_error)
    }
}

#[async_trait]
impl<S: Backend> CheatApiServer for Cheats<S> {
    async fn evm_snapshot(&self) -> RpcResult<Uint> {
        self.allowed()?;
        self.source.snapshot(self.chain).await.map(U256::from).map_err(source_error)
    }

    async fn evm_revert(&self, id: Uint) -> RpcResult<bool> {
        self.allowed()?;
        // No snapshot has an id past 64 bits.
        let Ok(id) = u64::try_from(id) else { return Ok(false) };
        self.source.revert(self.chain, id).await.map_err(source_error)
    }

    async fn evm_mine(&self, timestamp: Option<Quantity>) -> RpcResult<String> {
        self.allowed()?;
        if let Some(timestamp) = timestamp {
            self.source.set_next_block_timestamp(self.chain, timestamp.0).await.map_err(source_error)?;
        }
        self.mine(None, None).await?;
        Ok("0x0".to_string())
    }

    async fn anvil_mine(&self, blocks: Option<Quantity>, interval: Option<Quantity>) -> RpcResult<()> {
        self.mine(blocks, interval).await
    }

    async fn hardhat_mine(&self, blocks: Option<Quantity>, interval: Option<Quantity>) -> RpcResult<bool> {
        self.mine(blocks, interval).await.map(|()| true)
    }

    async fn evm_increase_time(&self, seconds: Quantity) -> RpcResult<u64> {
        self.allowed()?;
        self.source.increase_time(self.chain, seconds.0).await.map_err(source_error)
    }

    async fn evm_set_next_block_timestamp(&self, timestamp: Quantity) -> RpcResult<()> {
        self.allowed()?;
        self.source.set_next_block_timestamp(self.chain, timestamp.0).await.map_err(source_error)
    }

    async fn anvil_set_balance(&self, address: Address, balance: Uint) -> RpcResult<()> {
        self.set_balance(address, balance).await
    }

    async fn hardhat_set_balance(&self, address: Address, balance: Uint) -> RpcResult<bool> {
        self.set_balance(address, balance).await.map(|()| true)
    }

    async fn anvil_set_code(&self, address: Address, code: Bytes) -> RpcResult<()> {
        self.set_code(address, code).await
    }

    async fn hardhat_set_code(&self, address: Address, code: Bytes) -> RpcResult<bool> {
        self.set_code(address, code).await.map(|()| true)
    }

    async fn anvil_set_storage_at(&self, address: Address, slot: Uint, value: Hash32) -> RpcResult<bool> {
        self.set_storage_at(address, slot, value).await
    }

    async fn hardhat_set_storage_at(&self, address: Address, slot: Uint, value: Hash32) -> RpcResult<bool> {
        self.set_storage_at(address, slot, value).await
    }

    async fn anvil_set_nonce(&self, address: Address, nonce: Uint) -> RpcResult<()> {
        self.set_nonce(address, nonce).await
    }

    async fn hardhat_set_nonce(&self, address: Address, nonce: Uint) -> RpcResult<bool> {
        self.set_nonce(address, nonce).await.map(|()| true)
    }

    async fn anvil_impersonate_account(&self, address: Address) -> RpcResult<()> {
        self.impersonate(address, true).await
    }

    async fn hardhat_impersonate_account(&self, address: Address) -> RpcResult<bool> {
        self.impersonate(address, true).await.map(|()| true)
    }

    async fn anvil_stop_impersonating_account(&self, address: Address) -> RpcResult<()> {
        self.impersonate(address, false).await
    }

    async fn hardhat_stop_impersonating_account(&self, address: Address) -> RpcResult<bool> {
        self.impersonate(address, false).await.map(|()| true)
    }

    async fn anvil_get_automine(&self) -> RpcResult<bool> {
        self.automine().await
    }

    async fn hardhat_get_automine(&self) -> RpcResult<bool> {
        self.automine().await
    }

    async fn evm_set_interval_mining(&self, seconds: u64) -> RpcResult<()> {
        self.interval_mining(seconds, limits::EVM_SET_INTERVAL_MINING_SECONDS_MAX).await
    }

    async fn anvil_set_interval_mining(&self, seconds: u64) -> RpcResult<()> {
        self.interval_mining(seconds, limits::ANVIL_SET_INTERVAL_MINING_SECONDS_MAX).await
    }

    async fn anvil_drop_transaction(&self, hash: Hash32) -> RpcResult<Option<Hash32>> {
        Ok(self.drop_transaction(hash).await?.then_some(hash))
    }

    async fn hardhat_drop_transaction(&self, hash: Hash32) -> RpcResult<bool> {
        self.drop_transaction(hash).await
    }

    async fn anvil_drop_all_transactions(&self) -> RpcResult<()> {
        self.allowed()?;
        self.source.drop_all_transactions(self.chain).await.map_err(source_error)
    }

    async fn evm_set_automine(&self, enabled: bool) -> RpcResult<()> {
        self.allowed()?;
        self.source.set_automine(self.chain, enabled).await.map_err(source_error)
    }

    async fn anvil_reset(&self, options: Option<ResetOptions>) -> RpcResult<()> {
        self.reset(options).await
    }

    async fn hardhat_reset(&self, options: Option<ResetOptions>) -> RpcResult<bool> {
        self.reset(options).await.map(|()| true)
    }

    async fn anvil_dump_state(&self, _preserve_historical_states: Option<bool>) -> RpcResult<Bytes> {
        self.allowed()?;
        self.source.dump_state(self.chain).await.map(Bytes::from).map_err(source_error)
    }

    async fn anvil_load_state(&self, state: Bytes) -> RpcResult<bool> {
        self.allowed()?;
        self.source.load_state(self.chain, state.to_vec()).await.map_err(source_error)?;
        Ok(true)
    }

    async fn w3api_create_wallet(&self, balance: Option<Uint>) -> RpcResult<CreatedWallet> {
        self.allowed()?;
        let wallet = self.source.create_wallet(self.chain, balance.unwrap_or_default()).await.map_err(source_error)?;
        Ok(CreatedWallet { address: wallet.address, private_key: wallet.private_key })
    }

    async fn w3api_create_token(&self, token: w3api_types::rpc::NewToken) -> RpcResult<Address> {
        self.allowed()?;
        let token = NewToken {
            verified: token.verified.unwrap_or(!token.spam),
            name: token.name,
            symbol: token.symbol,
            decimals: token.decimals,
            logo: token.logo,
            spam: token.spam,
            usd_price: token.usd_price,
            liquidity_usd: token.liquidity_usd,
            supply: token.supply,
        };
        self.source.create_token(self.chain, token).await.map_err(source_error)
    }

    async fn w3api_create_collection(&self, collection: w3api_types::rpc::NewCollection) -> RpcResult<Address> {
        self.allowed()?;
        let collection = NewCollection {
            verified: collection.verified.unwrap_or(!collection.spam),
            erc1155: collection.standard == NftStandard::Erc1155,
            name: collection.name,
            symbol: collection.symbol,
            spam: collection.spam,
            logo: collection.logo,
        };
        self.source.create_collection(self.chain, collection).await.map_err(source_error)
    }

    async fn w3api_mint_token(&self, token: Address, to: Address, amount: Uint) -> RpcResult<()> {
        self.allowed()?;
        self.source.mint_token(self.chain, token, to, amount).await.map_err(source_error)
    }

    async fn w3api_mint_nft(
        &self,
        collection: Address,
        to: Address,
        amount: Option<Quantity>,
        metadata: Option<NftMetadataParams>,
    ) -> RpcResult<Uint> {
        self.allowed()?;
        let metadata = metadata.map(|given| NewNftMetadata {
            name: given.name,
            description: given.description,
            image: given.image,
            attributes: given.attributes.into_iter().map(|t| (t.trait_type, t.value)).collect(),
        });
        let amount = amount.map_or(1, |a| a.0);
        self.source.mint_nft(self.chain, collection, to, amount, metadata).await.map_err(source_error)
    }

    async fn w3api_transfer(
        &self,
        from: Address,
        to: Address,
        token: Address,
        amount: Uint,
        token_id: Option<Uint>,
    ) -> RpcResult<()> {
        self.allowed()?;
        let moved = match token_id {
            Some(id) => {
                let amount = u64::try_from(amount)
                    .map_err(|_| invalid_params(format!("amount {amount}: an NFT transfer moves fewer than 2^64")))?;
                Moved::Nft(token, id, amount)
            }
            None if token == NATIVE_TOKEN_ADDRESS => Moved::Native(amount),
            None => Moved::Token(token, amount),
        };
        self.source.transfer(self.chain, from, to, moved).await.map_err(source_error)
    }

    async fn w3api_add_fault_rule(
        &self,
        target: String,
        prefer: String,
        times: Option<Quantity>,
    ) -> RpcResult<Quantity> {
        self.allowed()?;
        let target = match target.as_str() {
            "*" => RuleTarget::Any,
            name if Operation::named(name).is_some() => RuleTarget::Operation(target),
            _ => RuleTarget::RpcMethod(target),
        };
        let injection = injection_of(&prefer)
            .map_err(invalid_params)?
            .ok_or_else(|| invalid_params(format!("prefer {prefer:?} asks for no code, delay or fault")))?;
        let times = times
            .map(|t| u32::try_from(t.0).map_err(|_| invalid_params(format!("times {}: at most 2^32 - 1", t.0))))
            .transpose()?;
        let id = self.faults.add(FaultRule { target, injection, times }).map_err(|e| invalid_params(e.to_string()))?;
        Ok(Quantity(id.number()))
    }

    async fn w3api_remove_fault_rule(&self, id: Quantity) -> RpcResult<bool> {
        self.allowed()?;
        Ok(self.faults.remove(RuleId::from_number(id.0)))
    }

    async fn w3api_clear_fault_rules(&self) -> RpcResult<()> {
        self.allowed()?;
        self.faults.clear();
        Ok(())
    }

    async fn w3api_set_price(&self, token: Address, usd_price: f64) -> RpcResult<f64> {
        self.allowed()?;
        self.source.set_price(self.chain, token, usd_price).await.map_err(source_error)
    }
}
