//! Several calls in one request.

use std::marker::PhantomData;

use jsonrpsee::core::ClientError;
use jsonrpsee::core::client::ClientT;
use jsonrpsee::core::params::{ArrayParams, BatchRequestBuilder};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{RpcClient, RpcError};

/// Calls collected to be sent in one JSON-RPC batch. Each call method
/// (`get_block_by_number`, ...; generated from the spec) returns a handle
/// that reads that call's result from the [`BatchResponse`].
pub struct Batch<'a> {
    client: &'a RpcClient,
    calls: Vec<(&'static str, Result<ArrayParams, serde_json::Error>)>,
}

/// Handle to the result of one call of a batch.
#[derive(Debug)]
pub struct BatchItem<T> {
    index: usize,
    method: &'static str,
    result: PhantomData<fn() -> T>,
}

/// The answers of a batch, in the order of the calls.
#[derive(Debug)]
pub struct BatchResponse {
    results: Vec<Result<Value, RpcError>>,
}

impl<'a> Batch<'a> {
    pub(crate) fn new(client: &'a RpcClient) -> Self {
        Batch { client, calls: Vec::new() }
    }

    /// Adds a call whose parameters `fill` inserts; used by the generated methods.
    pub(crate) fn push<T>(
        &mut self,
        method: &'static str,
        fill: impl FnOnce(&mut ArrayParams) -> Result<(), serde_json::Error>,
    ) -> BatchItem<T> {
        let mut params = ArrayParams::new();
        let params = fill(&mut params).map(|()| params);
        self.calls.push((method, params));
        BatchItem { index: self.calls.len() - 1, method, result: PhantomData }
    }

    /// Number of calls so far.
    pub fn len(&self) -> usize {
        self.calls.len()
    }

    /// Whether no call was added.
    pub fn is_empty(&self) -> bool {
        self.calls.is_empty()
    }

    /// Sends the calls in one request. A call that fails does not fail the
    /// others: its handle reads the error.
    pub async fn send(self) -> Result<BatchResponse, RpcError> {
        if self.calls.is_empty() {
            return Err(RpcError::Config("a batch needs at least one call".into()));
        }
        let client = self.client;
        let mut builder = BatchRequestBuilder::new();
        for (method, params) in self.calls {
            let params = params.map_err(|e| RpcError::Config(format!("parameters of {method}: {e}")))?;
            builder.insert(method, params).map_err(|e| RpcError::Config(format!("parameters of {method}: {e}")))?;
        }
        let response = client.transport().batch_request::<Value>(builder).await.map_err(|e| client.error(e))?;
        let results = response
            .into_iter()
            .map(|entry| entry.map_err(|object| client.error(ClientError::Call(object.into_owned()))))
            .collect();
        Ok(BatchResponse { results })
    }
}

impl BatchResponse {
    /// The result of the call behind `item`, decoded into its type.
    pub fn get<T: DeserializeOwned>(&self, item: &BatchItem<T>) -> Result<T, RpcError> {
        let result = self
            .results
            .get(item.index)
            .ok_or_else(|| RpcError::InvalidResponse(format!("no answer to call {} ({})", item.index, item.method)))?;
        let value = result.as_ref().map_err(Clone::clone)?;
        serde_json::from_value(value.clone())
            .map_err(|e| RpcError::InvalidResponse(format!("result of {}: {e}", item.method)))
    }

    /// Number of answers.
    pub fn len(&self) -> usize {
        self.results.len()
    }

    /// Whether there are no answers.
    pub fn is_empty(&self) -> bool {
        self.results.is_empty()
    }
}
