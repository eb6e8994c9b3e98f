//! The chain-control methods of `spec/openrpc-cheats.json` on a chain's
//! gateway: each calls the source's `ChainControl`, or, on a server that
//! turned them off, refuses, saying so.

use std::sync::Arc;

use jsonrpsee::core::{RpcResult, async_trait};
use w3api_rpc::cheats::CheatApiServer;
use w3api_rpc::cheats::ErrorCode as CheatError;
use w3api_source::DataSource;
use w3api_types::rpc::{Address, Quantity, Uint};
use w3api_types::{Chain, U256};

use super::{rpc_error_code, source_error};

/// Chain control for one chain.
pub(super) struct Cheats<S> {
    chain: Chain,
    source: Arc<S>,
    enabled: bool,
}

impl<S: DataSource> Cheats<S> {
    pub(super) fn new(chain: Chain, source: Arc<S>, enabled: bool) -> Cheats<S> {
        Cheats { chain, source, enabled }
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
}

#[async_trait]
impl<S: DataSource> CheatApiServer for Cheats<S> {
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

    async fn anvil_reset(&self) -> RpcResult<()> {
        self.allowed()?;
        self.source.reset(self.chain).await.map_err(source_error)
    }
}
