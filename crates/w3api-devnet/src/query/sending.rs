//! A transaction a dev account sends (`eth_sendTransaction`): what the
//! request leaves out is filled in as Anvil fills it, then it is signed
//! with the account's key and sent as any signed transaction is.

use alloy_consensus::{SignableTransaction, TxEip1559, TxEip2930, TxEip7702, TxEnvelope, TxLegacy, TypedTransaction};
use alloy_primitives::{Signature, TxKind, U256};
use alloy_signer::SignerSync;
use w3api_source::SourceError;
use w3api_types::rpc::TransactionRequest;

use super::execution::{evm_access_list, input_of, signed_authorization};
use crate::dev_accounts::dev_signer;
use crate::generate::{ChainData, SignedTransaction};

fn invalid(message: String) -> SourceError {
    SourceError::InvalidRequest(message)
}

/// Refuses what `eth_sendTransaction` cannot sign, before anything runs:
/// a blob transaction, whose blobs a request does not carry, and a
/// set-code transaction priced as a legacy one.
pub(crate) fn check_sendable(request: &TransactionRequest) -> Result<(), SourceError> {
    if request.blob_versioned_hashes.as_ref().is_some_and(|hashes| !hashes.is_empty()) {
        return Err(invalid(
            "blobVersionedHashes: eth_sendTransaction does not send blob transactions, whose blobs it has not; sign one \
             with its sidecar and send it with eth_sendRawTransaction"
                .into(),
        ));
    }
    if request.authorization_list.is_some() && request.gas_price.is_some() {
        return Err(invalid("authorizationList with gasPrice: a set-code transaction pays by maxFeePerGas".into()));
    }
    Ok(())
}

impl ChainData {
    /// `request` filled in after the newest block and signed by its
    /// sender, a dev account, or sent for an impersonated account (its
    /// signature a stand-in, as Anvil's is).
    /// `gas` is the request's own, or the estimate its sender made for it
    /// before taking the chain (an estimate runs in an execution slot).
    pub(crate) fn dev_transaction(
        &self,
        request: &TransactionRequest,
        gas: u64,
    ) -> Result<SignedTransaction, SourceError> {
        let from = request.from.ok_or_else(|| invalid("from: the sending dev account is required".into()))?;
        let impersonated = self.producer.impersonated.contains(&from);
        let tx = self.fill(request, gas)?;
        let signature = if impersonated {
            Signature::new(U256::from(1), U256::from(1), false)
        } else {
            dev_signer(from)?.sign_hash_sync(&tx.signature_hash()).map_err(|e| invalid(e.to_string()))?
        };
        let envelope: TxEnvelope = match tx {
            TypedTransaction::Legacy(tx) => tx.into_signed(signature).into(),
            TypedTransaction::Eip2930(tx) => tx.into_signed(signature).into(),
            TypedTransaction::Eip1559(tx) => tx.into_signed(signature).into(),
            TypedTransaction::Eip7702(tx) => tx.into_signed(signature).into(),
            // `fill` makes none: blobs come with their sender's sidecar.
            TypedTransaction::Eip4844(_) => {
                return Err(invalid("blob transactions are sent signed, with eth_sendRawTransaction".into()));
            }
        };
        Ok(SignedTransaction { envelope, sender: from, impersonated })
    }

    /// The transaction `request` names, with `gas`: its nonce the sender's
    /// next, and its fees twice the next base fee plus the suggested tip,
    /// where it names none.
    fn fill(&self, request: &TransactionRequest, gas_limit: u64) -> Result<TypedTransaction, SourceError> {
        let from = request.from.unwrap_or_default();
        let input = input_of(request)?;
        let chain_id = self.checked_chain_id(request)?;
        let nonce = request.nonce.unwrap_or_else(|| self.pending_nonce(from));
        let to = request.to.map_or(TxKind::Create, TxKind::Call);
        let value = request.value.unwrap_or_default();
        let fees = self.fee_suggestion();
        check_sendable(request)?;
        if let Some(gas_price) = request.gas_price {
            if request.max_fee_per_gas.is_some() || request.max_priority_fee_per_gas.is_some() {
                return Err(invalid(
                    "both gasPrice and maxFeePerGas or maxPriorityFeePerGas are given; send one kind".into(),
                ));
            }
            return Ok(match request.access_list.clone() {
                Some(list) => TypedTransaction::Eip2930(TxEip2930 {
                    chain_id,
                    nonce,
                    gas_price,
                    gas_limit,
                    to,
                    value,
                    access_list: evm_access_list(&list),
                    input,
                }),
                None => TypedTransaction::Legacy(TxLegacy {
                    chain_id: Some(chain_id),
                    nonce,
                    gas_price,
                    gas_limit,
                    to,
                    value,
                    input,
                }),
            });
        }
        let max_priority_fee_per_gas = request.max_priority_fee_per_gas.unwrap_or(fees.tip);
        let max_fee_per_gas = request.max_fee_per_gas.unwrap_or(fees.next_base_fee * 2 + max_priority_fee_per_gas);
        if let Some(list) = &request.authorization_list {
            let to = request
                .to
                .ok_or_else(|| invalid("to: a set-code transaction calls an account; it creates none".into()))?;
            return Ok(TypedTransaction::Eip7702(TxEip7702 {
                chain_id,
                nonce,
                gas_limit,
                max_fee_per_gas,
                max_priority_fee_per_gas,
                to,
                value,
                access_list: evm_access_list(request.access_list.as_deref().unwrap_or_default()),
                authorization_list: list.iter().map(signed_authorization).collect(),
                input,
            }));
        }
        Ok(TypedTransaction::Eip1559(TxEip1559 {
            chain_id,
            nonce,
            gas_limit,
            max_fee_per_gas,
            max_priority_fee_per_gas,
            to,
            value,
            access_list: evm_access_list(request.access_list.as_deref().unwrap_or_default()),
            input,
        }))
    }
}
