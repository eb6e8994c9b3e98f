//! What a dApp sends to execute contract code and read contract state
//! (`eth_call`, `eth_estimateGas`, `eth_createAccessList`, `eth_getProof`),
//! and the filters it polls (`eth_newFilter` and its kin).

use std::collections::BTreeMap;

use alloy_primitives::{Address, B256, Bytes, U256};
#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_with::serde_as;

use super::{AccessListItem, Log};
use crate::wire::Hex;

/// A transaction to execute without sending it: every field may be left
/// out, and the node fills in what it needs (a zero sender, the block's gas
/// limit, no fees).
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct TransactionRequest {
    /// The transaction type (`0x0` legacy, `0x1`, `0x2`, `0x3`, `0x4`).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, rename = "type", skip_serializing_if = "Option::is_none")]
    pub tx_type: Option<u8>,
    /// Sender.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<Address>,
    /// Recipient; absent to create a contract.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<Address>,
    /// Gas limit.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas: Option<u64>,
    /// Gas price (legacy and EIP-2930).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gas_price: Option<u128>,
    /// Fee cap per gas (EIP-1559 and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_fee_per_gas: Option<u128>,
    /// Tip cap per gas (EIP-1559 and later).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_priority_fee_per_gas: Option<u128>,
    /// Fee cap per blob gas (EIP-4844).
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_fee_per_blob_gas: Option<u128>,
    /// Wei sent.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<U256>,
    /// Call data or contract code.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Bytes>,
    /// The older name of `input`, which clients still send.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Bytes>,
    /// Sender's nonce.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<u64>,
    /// Chain id the transaction is for.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub chain_id: Option<u64>,
    /// Accounts and slots declared in advance (EIP-2930).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access_list: Option<Vec<AccessListItem>>,
    /// Blob hashes (EIP-4844).
    #[serde_as(as = "Option<Vec<Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blob_versioned_hashes: Option<Vec<B256>>,
    /// Authorizations of a set-code transaction (EIP-7702).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_list: Option<Vec<super::Authorization>>,
}

/// State to assume for one account during an `eth_call` or
/// `eth_estimateGas`, where the node takes overrides.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountOverride {
    /// Balance in wei.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub balance: Option<U256>,
    /// Nonce.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nonce: Option<u64>,
    /// Code.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<Bytes>,
    /// The whole storage, replaced: slot to value.
    #[serde_as(as = "Option<BTreeMap<Hex, Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<BTreeMap<B256, B256>>,
    /// Some slots, changed: slot to value.
    #[serde_as(as = "Option<BTreeMap<Hex, Hex>>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_diff: Option<BTreeMap<B256, B256>>,
    /// Where the precompile at this address moves to (`eth_simulateV1`):
    /// its address then runs the code assumed for it, if any.
    #[serde_as(as = "Option<Hex>")]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub move_precompile_to_address: Option<Address>,
}

/// State overrides: account to the state assumed for it. Each account's
/// override is an object, as geth takes it: a list (which serde would read
/// field by field) is refused, naming the account.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct StateOverrides(#[serde_as(as = "BTreeMap<Hex, _>")] pub BTreeMap<Address, AccountOverride>);

impl<'de> Deserialize<'de> for StateOverrides {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        #[serde_as]
        #[derive(Deserialize)]
        #[serde(transparent)]
        struct Accounts(#[serde_as(as = "BTreeMap<Hex, _>")] BTreeMap<Address, serde_json::Value>);
        let Accounts(accounts) = Accounts::deserialize(deserializer)?;
        let read = |(address, value): (Address, serde_json::Value)| {
            if !value.is_object() {
                return Err(D::Error::custom(format!(
                    "the override of {address:#x} is not an object of balance, nonce, code, state and stateDiff"
                )));
            }
            let account = AccountOverride::deserialize(value)
                .map_err(|e| D::Error::custom(format!("the override of {address:#x}: {e}")))?;
            Ok((address, account))
        };
        accounts.into_iter().map(read).collect::<Result<_, _>>().map(StateOverrides)
    }
}

/// `eth_getStorageValues`' request: account to the slots to read of it.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct StorageRequests(#[serde_as(as = "BTreeMap<Hex, serde_with::Same>")] pub BTreeMap<Address, Vec<StorageKey>>);

/// `eth_getStorageValues`' answer: account to the values of the slots asked
/// for, in the order asked.
#[serde_as]
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct StorageValues(#[serde_as(as = "BTreeMap<Hex, Vec<Hex>>")] pub BTreeMap<Address, Vec<B256>>);

/// `eth_createAccessList`: the accounts and slots a transaction touches,
/// and the gas it uses with them declared.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccessListResult {
    /// The accounts and slots.
    pub access_list: Vec<AccessListItem>,
    /// Gas used.
    #[serde_as(as = "Hex")]
    pub gas_used: U256,
    /// Why execution failed, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `eth_getProof`: an account and some of its storage, with Merkle proofs
/// against the block's state root.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct AccountProof {
    /// The account.
    #[serde_as(as = "Hex")]
    pub address: Address,
    /// Trie nodes from the state root to the account.
    #[serde_as(as = "Vec<Hex>")]
    pub account_proof: Vec<Bytes>,
    /// Balance in wei.
    #[serde_as(as = "Hex")]
    pub balance: U256,
    /// Hash of the account's code.
    #[serde_as(as = "Hex")]
    pub code_hash: B256,
    /// Nonce.
    #[serde_as(as = "Hex")]
    pub nonce: u64,
    /// Root of the account's storage trie.
    #[serde_as(as = "Hex")]
    pub storage_hash: B256,
    /// One proof per slot asked for, in order.
    pub storage_proof: Vec<StorageProof>,
}

/// One storage slot's value with its proof.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct StorageProof {
    /// The slot, as asked for.
    pub key: StorageKey,
    /// Its value.
    #[serde_as(as = "Hex")]
    pub value: U256,
    /// Trie nodes from the storage root to the slot.
    #[serde_as(as = "Vec<Hex>")]
    pub proof: Vec<Bytes>,
}

/// A storage slot as `eth_getProof` takes it: 0x and up to 64 hex digits,
/// left-padded to 32 bytes, as geth reads it. Written back as it came: a
/// whole key as 64 digits, a shorter one as a quantity (geth's answer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StorageKey {
    /// The slot, padded.
    pub slot: B256,
    /// Whether it was given as all 32 bytes.
    pub whole: bool,
}

impl StorageKey {
    /// A slot given whole.
    pub fn whole(slot: B256) -> StorageKey {
        StorageKey { slot, whole: true }
    }
}

impl std::str::FromStr for StorageKey {
    type Err = String;

    fn from_str(text: &str) -> Result<StorageKey, String> {
        let digits = text.strip_prefix("0x").ok_or_else(|| format!("storage key {text:?} does not start with 0x"))?;
        if digits.is_empty() || digits.len() > 64 {
            return Err(format!("storage key {text:?} has {} hex digits; from 1 to 64", digits.len()));
        }
        let padded = format!("{digits:0>64}");
        let slot = padded.parse::<B256>().map_err(|e| format!("storage key {text:?} is not hex: {e}"))?;
        Ok(StorageKey { slot, whole: digits.len() == 64 })
    }
}

impl std::fmt::Display for StorageKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.whole {
            true => write!(f, "{:#x}", self.slot),
            false => write!(f, "{:#x}", U256::from_be_bytes(self.slot.0)),
        }
    }
}

crate::wire::text_form!(StorageKey);

#[cfg(feature = "schema")]
impl JsonSchema for StorageKey {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "StorageKey".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({ "type": "string", "pattern": "^0x[0-9a-fA-F]{1,64}$" })
    }
}

/// A filter's id, as the node that keeps it wrote it: hex, passed back
/// unchanged (some nodes give leading zeros, which a number would lose).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct FilterId(#[cfg_attr(feature = "schema", schemars(regex(pattern = r"^0x[0-9a-fA-F]{1,64}$")))] pub String);

/// What a filter has seen since it was last polled: block hashes for a
/// block filter, logs for a log filter.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum FilterChanges {
    /// New blocks' hashes (also an empty answer of either kind).
    Hashes(#[serde_as(as = "Vec<Hex>")] Vec<B256>),
    /// New logs.
    Logs(Vec<Log>),
}

impl FilterChanges {
    /// The blocks the changes belong to, where the answer names them (logs).
    pub fn log_blocks(&self) -> impl Iterator<Item = (u64, B256)> + '_ {
        let logs = match self {
            FilterChanges::Logs(logs) => logs.as_slice(),
            FilterChanges::Hashes(_) => &[],
        };
        logs.iter().filter_map(|log| log.block_number.zip(log.block_hash))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_object_keeps_what_it_was_given_and_leaves_out_the_rest() {
        let text = r#"{"from":"0x00000000000000000000000000000000000000aa","to":"0x00000000000000000000000000000000000000bb","data":"0x70a08231","value":"0x0"}"#;
        let request: TransactionRequest = serde_json::from_str(text).unwrap();
        assert_eq!(request.value, Some(U256::ZERO));
        assert_eq!(request.data.as_ref().map(|d| d.len()), Some(4));
        assert_eq!(request.input, None);
        let again = serde_json::to_value(&request).unwrap();
        assert_eq!(again, serde_json::from_str::<serde_json::Value>(text).unwrap());
    }

    #[test]
    fn overrides_are_keyed_by_account_and_slot() {
        let text = r#"{"0x00000000000000000000000000000000000000aa":{"balance":"0xde0b6b3a7640000","stateDiff":{"0x0000000000000000000000000000000000000000000000000000000000000001":"0x00000000000000000000000000000000000000000000000000000000000000ff"}}}"#;
        let overrides: StateOverrides = serde_json::from_str(text).unwrap();
        let account = &overrides.0[&Address::with_last_byte(0xaa)];
        assert_eq!(account.balance, Some(U256::from(10u64.pow(18))));
        assert_eq!(account.state_diff.as_ref().unwrap()[&B256::with_last_byte(1)], B256::with_last_byte(0xff));
        assert!(serde_json::from_str::<StateOverrides>(r#"{"not an address":{}}"#).is_err());
        let listed = r#"{"0x00000000000000000000000000000000000000aa":["0x1","0x2"]}"#;
        for (given, slot, back) in [("0x1", 1u8, "0x1"), ("0x00ff", 0xff, "0xff"), ("0x0", 0, "0x0")] {
            let key: StorageKey = serde_json::from_value(serde_json::json!(given)).unwrap();
            assert_eq!((key.slot, key.whole), (B256::with_last_byte(slot), false), "{given}");
            assert_eq!(serde_json::to_value(key).unwrap(), back);
        }
        let whole = format!("{:#x}", B256::with_last_byte(3));
        let key: StorageKey = serde_json::from_value(serde_json::json!(whole)).unwrap();
        assert_eq!(serde_json::to_value(key).unwrap(), whole.as_str());
        for bad in ["0x", "1", "0xzz", &format!("0x{}", "1".repeat(65))] {
            assert!(serde_json::from_value::<StorageKey>(serde_json::json!(bad)).is_err(), "{bad}");
        }
        let refused = serde_json::from_str::<StateOverrides>(listed).unwrap_err().to_string();
        assert!(refused.contains("0x00000000000000000000000000000000000000aa is not an object"), "{refused}");
    }

    #[test]
    fn filter_changes_are_hashes_or_logs() {
        let hashes: FilterChanges =
            serde_json::from_str(r#"["0x0000000000000000000000000000000000000000000000000000000000000001"]"#).unwrap();
        assert!(matches!(hashes, FilterChanges::Hashes(ref h) if h.len() == 1));
        assert_eq!(hashes.log_blocks().count(), 0);
        let empty: FilterChanges = serde_json::from_str("[]").unwrap();
        assert_eq!(serde_json::to_string(&empty).unwrap(), "[]");
    }
}

/// EIP-712 typed data to sign (`eth_signTypedData_v4`): the object, or the
/// same object as JSON text, as wallets and libraries send it (viem and
/// ethers send text). Kept as given; the signer reads it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(transparent)]
pub struct TypedData(pub serde_json::Value);
