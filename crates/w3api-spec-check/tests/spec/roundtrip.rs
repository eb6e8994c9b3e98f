//! For every type: value -> JSON -> value is the identity, the JSON validates
//! against the type's schema in the spec, and the forms production is known to
//! send (numbers and booleans as strings) decode to the same value; request
//! bodies, decoded strictly, refuse them.

use proptest::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use w3api_spec_check::spec::Document;
use w3api_spec_check::strategies as s;
use w3api_types::rpc::{
    AccessListItem, AccessListResult, AccountProof, Block, BlockNumberOrTag, BlockTransactions, FilterChanges,
    NativePrice, StateOverrides, TokenPrice, TokenPriceInclude, TokenPriceParams, Transaction, TransactionIndex,
    TransactionRequest, Withdrawal,
};
use w3api_types::*;

/// Schemas whose JSON type is part of the value (`"false"` is text, `false`
/// a boolean), so production's stringified forms do not apply.
const TYPED_BY_JSON_TYPE: [&str; 1] = ["TraitValue"];

/// Request bodies: the server holds clients to the spec's JSON types, so a
/// number sent as a string is refused rather than guessed at.
const STRICT_REQUEST_BODIES: [&str; 2] = ["SolanaChallengeRequest", "SolanaVerifyRequest"];

/// Encodes, decodes from the text, and checks the value and the spec.
fn check<T>(value: &T, document: Document, component: &str) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + PartialEq + std::fmt::Debug,
{
    let text = serde_json::to_string(value).map_err(|e| TestCaseError::fail(format!("encode: {e}")))?;
    let back: T = serde_json::from_str(&text).map_err(|e| TestCaseError::fail(format!("decode {text}: {e}")))?;
    prop_assert_eq!(&back, value, "round trip through {}", text);
    let json: Value = serde_json::from_str(&text).unwrap();
    document.validate_component(component, &json).map_err(TestCaseError::fail)?;
    if TYPED_BY_JSON_TYPE.contains(&component) {
        return Ok(());
    }
    let production_style = stringify_scalars(&json);
    if STRICT_REQUEST_BODIES.contains(&component) {
        let refused = production_style == json || serde_json::from_value::<T>(production_style.clone()).is_err();
        prop_assert!(refused, "a request body with stringified scalars decoded: {}", production_style);
        return Ok(());
    }
    let lenient: T = serde_json::from_value(production_style.clone())
        .map_err(|e| TestCaseError::fail(format!("decode {production_style}: {e}")))?;
    prop_assert_eq!(&lenient, value, "lenient decoding of {}", production_style);
    Ok(())
}

/// Writes numbers and booleans as strings, as production sometimes does.
/// Free-form JSON (error details, stream filters) and trait values, whose
/// type is told by the JSON type, keep their form.
fn stringify_scalars(json: &Value) -> Value {
    const FREE_FORM: [&str; 3] = ["details", "filter", "value"];
    match json {
        Value::Number(n) => Value::String(n.to_string()),
        Value::Bool(b) => Value::String(b.to_string()),
        Value::Array(items) => Value::Array(items.iter().map(stringify_scalars).collect()),
        Value::Object(map) => Value::Object(
            map.iter()
                .map(|(k, v)| {
                    let v = if FREE_FORM.contains(&k.as_str()) && !v.is_string() {
                        v.clone()
                    } else {
                        stringify_scalars(v)
                    };
                    (k.clone(), v)
                })
                .collect(),
        ),
        other => other.clone(),
    }
}

macro_rules! roundtrip {
    ($($test:ident: $ty:ty = $strategy:expr => $document:ident $component:literal;)*) => {
        proptest! {
            $(
                #[test]
                fn $test(value in $strategy) {
                    check::<$ty>(&value, Document::$document, $component)?;
                }
            )*
        }
    };
}

roundtrip! {
    error: Error = s::error() => OpenApi "Error";
    address_rest: Address = s::address() => OpenApi "Address";
    data_api_chain: Chain = s::data_api_chain() => OpenApi "Chain";
    token_id_format: TokenIdFormat = s::token_id_format() => OpenApi "TokenIdFormat";
    solana_network: SolanaNetwork = s::solana_network() => OpenApi "SolanaNetwork";
    solana_challenge_request: SolanaChallengeRequest = s::solana_challenge_request() => OpenApi "SolanaChallengeRequest";
    solana_challenge_response: SolanaChallengeResponse = s::solana_challenge_response() => OpenApi "SolanaChallengeResponse";
    solana_verify_request: SolanaVerifyRequest = s::solana_verify_request() => OpenApi "SolanaVerifyRequest";
    solana_verified_challenge: SolanaVerifiedChallenge = s::solana_verified_challenge() => OpenApi "SolanaVerifiedChallenge";
    token_balance_page: TokenBalancePage = s::token_balance_page() => OpenApi "TokenBalancePage";
    token_balance: TokenBalance = s::token_balance() => OpenApi "TokenBalance";
    sync_status: SyncStatus = s::sync_status() => OpenApi "SyncStatus";
    contract_type: ContractType = s::contract_type() => OpenApi "ContractType";
    nft_page: NftPage = s::nft_page() => OpenApi "NftPage";
    nft: Nft = s::nft() => OpenApi "Nft";
    normalized_metadata: NormalizedMetadata = s::normalized_metadata() => OpenApi "NormalizedMetadata";
    nft_attribute: NftAttribute = s::nft_attribute() => OpenApi "NftAttribute";
    trait_value: TraitValue = s::trait_value() => OpenApi "TraitValue";
    nft_last_sale: NftLastSale = s::nft_last_sale() => OpenApi "NftLastSale";
    nft_payment_token: NftPaymentToken = s::nft_payment_token() => OpenApi "NftPaymentToken";
    nft_media: NftMedia = s::nft_media() => OpenApi "NftMedia";
    nft_media_collection: NftMediaCollection = s::nft_media_collection() => OpenApi "NftMediaCollection";
    nft_media_item: NftMediaItem = s::nft_media_item() => OpenApi "NftMediaItem";
    nft_collection_page: NftCollectionPage = s::nft_collection_page() => OpenApi "NftCollectionPage";
    nft_collection: NftCollection = s::nft_collection() => OpenApi "NftCollection";
    stream_status: StreamStatus = s::stream_status() => OpenApi "StreamStatus";
    stream_trigger_type: StreamTriggerType = s::stream_trigger_type() => OpenApi "StreamTriggerType";
    stream_native_balance_type: StreamNativeBalanceType = s::stream_native_balance_type() => OpenApi "StreamNativeBalanceType";
    evm_stream: EvmStream = s::evm_stream() => OpenApi "EvmStream";
    stream_native_balances: StreamNativeBalances = s::stream_native_balances() => OpenApi "StreamNativeBalances";
    stream_advanced_option: StreamAdvancedOption = s::stream_advanced_option() => OpenApi "StreamAdvancedOption";
    stream_trigger: StreamTrigger = s::stream_trigger() => OpenApi "StreamTrigger";
    abi_item: AbiItem = s::abi_item() => OpenApi "AbiItem";
    abi_parameter: AbiParameter = s::abi_parameter() => OpenApi "AbiParameter";

    address_rpc: Address = s::address() => OpenRpc "Address";
    hash32: B256 = s::b256() => OpenRpc "Hash32";
    bytes_data: Bytes = s::bytes() => OpenRpc "Bytes";
    bytes8: B64 = any::<[u8; 8]>().prop_map(B64::from) => OpenRpc "Bytes8";
    bloom_filter: Bloom = s::bloom() => OpenRpc "Bloom";
    uint: U256 = s::u256() => OpenRpc "Uint";
    block_number_or_tag: BlockNumberOrTag = s::block_number_or_tag() => OpenRpc "BlockNumberOrTag";
    transaction_index_param: TransactionIndex = s::transaction_index() => OpenRpc "TransactionIndex";
    token_price_include_param: TokenPriceInclude = s::token_price_include() => OpenRpc "TokenPriceInclude";
    token_price_params: TokenPriceParams = s::token_price_params() => OpenRpc "TokenPriceParams";
    native_price_result: NativePrice = s::native_price() => OpenRpc "NativePrice";
    token_price_result: TokenPrice = s::token_price() => OpenRpc "TokenPrice";
    block_result: Block = s::block() => OpenRpc "Block";
    block_transactions_list: BlockTransactions = s::block_transactions() => OpenRpc "BlockTransactions";
    withdrawal_item: Withdrawal = s::withdrawal() => OpenRpc "Withdrawal";
    access_list_entry: AccessListItem = s::access_list_item() => OpenRpc "AccessListItem";
    transaction_result: Transaction = s::transaction() => OpenRpc "Transaction";
    call_object: TransactionRequest = s::transaction_request() => OpenRpc "TransactionRequest";
    state_overrides_param: StateOverrides = s::state_overrides() => OpenRpc "StateOverrides";
    access_list_answer: AccessListResult = s::access_list_result() => OpenRpc "AccessListResult";
    account_proof_answer: AccountProof = s::account_proof() => OpenRpc "AccountProof";
    block_filter_changes: FilterChanges = s::filter_changes() => OpenRpc "FilterChanges";
}

proptest! {
    /// Every chain survives a round trip, in every form it is accepted in.
    #[test]
    fn every_chain_round_trips_in_every_form(chain in s::chain()) {
        let json = serde_json::to_value(chain).unwrap();
        prop_assert_eq!(serde_json::from_value::<Chain>(json).unwrap(), chain);
        for form in chain.accepted_forms() {
            prop_assert_eq!(form.parse::<Chain>().unwrap(), chain, "form {}", form);
        }
    }

    /// A chain outside the table decodes as `Other`, keeps its text and
    /// writes it back unchanged; its canonical text parses to the same chain.
    #[test]
    fn chains_outside_the_table_round_trip(chain in s::other_chain()) {
        prop_assert!(matches!(chain, Chain::Other(_)) && !chain.is_known());
        let json = serde_json::to_value(chain).unwrap();
        prop_assert_eq!(json.as_str(), Some(chain.as_str()));
        prop_assert_eq!(serde_json::from_value::<Chain>(json).unwrap(), chain);
        prop_assert_eq!(chain.to_string().parse::<Chain>().unwrap(), chain);
        // The data-API schema lists the chains this server serves; another chain fails it, as the server refuses it.
        prop_assert!(Document::OpenApi.validate_component("Chain", &serde_json::to_value(chain).unwrap()).is_err());
    }
}

/// Decodes `value` of an open enum from text no known value has: it is kept
/// as `Unknown`, written back as it came, and a page around it decodes.
fn check_unknown<T>(text: &str, wrap: impl Fn(Value) -> Value) -> Result<(), TestCaseError>
where
    T: Serialize + DeserializeOwned + std::fmt::Display + std::fmt::Debug,
{
    let json = Value::String(text.to_string());
    let value: T =
        serde_json::from_value(json.clone()).map_err(|e| TestCaseError::fail(format!("decode {json}: {e}")))?;
    prop_assert_eq!(value.to_string(), text, "{:?} keeps its text", value);
    prop_assert_eq!(serde_json::to_value(&value).unwrap(), json.clone(), "re-encoded unchanged");
    let page = wrap(json);
    let reencoded = reencode_as_page(&page)?;
    prop_assert_eq!(reencoded, page, "a page holding the unknown value decodes and re-encodes unchanged");
    Ok(())
}

/// Round-trips a JSON document through whichever page type its `kind` names.
fn reencode_as_page(page: &Value) -> Result<Value, TestCaseError> {
    fn through<T: Serialize + DeserializeOwned>(json: &Value) -> Result<Value, TestCaseError> {
        let value: T =
            serde_json::from_value(json.clone()).map_err(|e| TestCaseError::fail(format!("decode {json}: {e}")))?;
        Ok(serde_json::to_value(value).unwrap())
    }
    if page.get("webhookUrl").is_some() {
        through::<EvmStream>(page)
    } else if page.get("nonce").is_some() {
        through::<SolanaVerifiedChallenge>(page)
    } else if page["result"].get(0).is_some_and(|item| item.get("token_id").is_some()) {
        through::<NftPage>(page)
    } else {
        through::<NftCollectionPage>(page)
    }
}

fn names<T: ToString>(known: &[T]) -> Vec<String> {
    known.iter().map(T::to_string).collect()
}

fn nft_page_with(status: Value, contract_type: Value) -> Value {
    serde_json::json!({
        "status": status, "total": null, "page": 1, "page_size": 100, "cursor": null,
        "result": [{
            "token_address": "0x057ec652a4f150f7ff94f089a38008f49a0df88e", "token_id": "1",
            "contract_type": contract_type, "owner_of": "0x057ec652a4f150f7ff94f089a38008f49a0df88e",
            "block_number": "1", "block_number_minted": "1", "token_uri": null, "metadata": null,
            "name": "N", "symbol": "S", "token_hash": "h", "last_token_uri_sync": null,
            "last_metadata_sync": null, "possible_spam": false
        }]
    })
}

fn stream_with(status: Value, native_balance_type: Value, trigger_type: Value) -> Value {
    serde_json::json!({
        "id": "3fa85f64-5717-4562-b3fc-2c963f66afa6", "webhookUrl": "https://h.example/", "description": "d",
        "tag": "t", "topic0": null, "abi": null, "advancedOptions": null, "chainIds": ["0x1"],
        "getNativeBalances": [{"selectors": ["$to"], "type": native_balance_type}],
        "triggers": [{"type": trigger_type, "contractAddress": "$contract", "functionAbi": {}}],
        "status": status, "statusMessage": "m"
    })
}

proptest! {
    #[test]
    fn unknown_sync_statuses_are_kept(text in s::unknown_value(names(SyncStatus::KNOWN))) {
        check_unknown::<SyncStatus>(&text, |v| nft_page_with(v, "ERC721".into()))?;
        let collections = serde_json::json!({"status": text, "page": 1, "page_size": 100, "cursor": null, "result": []});
        prop_assert_eq!(reencode_as_page(&collections)?, collections);
    }

    #[test]
    fn unknown_contract_types_are_kept(text in s::unknown_value(names(ContractType::KNOWN))) {
        check_unknown::<ContractType>(&text, |v| nft_page_with("SYNCED".into(), v))?;
    }

    #[test]
    fn unknown_stream_statuses_are_kept(text in s::unknown_value(names(StreamStatus::KNOWN))) {
        check_unknown::<StreamStatus>(&text, |v| stream_with(v, "tx".into(), "tx".into()))?;
    }

    #[test]
    fn unknown_trigger_types_are_kept(text in s::unknown_value(names(StreamTriggerType::KNOWN))) {
        check_unknown::<StreamTriggerType>(&text, |v| stream_with("active".into(), "tx".into(), v))?;
    }

    #[test]
    fn unknown_native_balance_types_are_kept(text in s::unknown_value(names(StreamNativeBalanceType::KNOWN))) {
        check_unknown::<StreamNativeBalanceType>(&text, |v| stream_with("active".into(), v, "tx".into()))?;
    }

    #[test]
    fn unknown_solana_networks_are_kept_in_answers_and_refused_in_requests(
        text in s::unknown_value(names(SolanaNetwork::KNOWN)),
    ) {
        check_unknown::<SolanaNetwork>(&text, |v| serde_json::json!({
            "id": "i", "domain": "a.example", "network": v, "address": "x", "uri": "https://a.example/",
            "version": "1", "nonce": "n", "profileId": "p"
        }))?;
        let request = serde_json::json!({
            "domain": "a.example", "uri": "https://a.example/", "address": "x", "network": text, "timeout": 15
        });
        let refused = serde_json::from_value::<SolanaChallengeRequest>(request).unwrap_err().to_string();
        prop_assert!(refused.contains("expected one of `mainnet`, `testnet`, `devnet`"), "{}", refused);
    }
}

/// The spec's `Chain` is the data API's list: chains only the RPC gateway
/// serves are written as their slug, which that schema rejects, just as the
/// server rejects them.
#[test]
fn chains_without_data_api_fail_the_data_api_schema() {
    let rpc_only: Vec<Chain> = Chain::all().filter(|c| c.data_api_name().is_none()).collect();
    assert!(!rpc_only.is_empty());
    for chain in rpc_only {
        let json = serde_json::to_value(chain).unwrap();
        assert!(Document::OpenApi.validate_component("Chain", &json).is_err(), "{chain} passed the data-API schema");
    }
}
