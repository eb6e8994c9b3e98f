//! proptest strategies for every type of `w3api-types`.
//!
//! Values are drawn from the whole range the spec allows (full-range
//! integers and floats, arbitrary Unicode text where the spec sets no
//! pattern) so that round trips and schema checks meet the edges. Where the
//! spec constrains a field (a pattern, a range, fields required per
//! transaction type), the strategy keeps to it, because every generated
//! value must validate.

use chrono::{DateTime, TimeZone, Utc};
use proptest::collection::{btree_map, vec};
use proptest::option::of as maybe;
use proptest::prelude::*;
use proptest::sample::select;
use w3api_types::rpc::{
    AccessListItem, AccessListResult, AccountOverride, AccountProof, Authorization, Block, BlockNumberOrTag,
    BlockTransactions, FilterChanges, NativePrice, StateOverrides, StorageKey, StorageProof, TokenPrice,
    TokenPriceInclude, TokenPriceParams, Transaction, TransactionIndex, TransactionRequest, Withdrawal,
};
use w3api_types::*;

// ---------------------------------------------------------------- primitives

/// Any address.
pub fn address() -> impl Strategy<Value = Address> {
    any::<[u8; 20]>().prop_map(Address::from)
}

/// Any 32-byte hash.
pub fn b256() -> impl Strategy<Value = B256> {
    any::<[u8; 32]>().prop_map(B256::from)
}

/// Any 256-bit integer, small ones as likely as large ones.
pub fn u256() -> impl Strategy<Value = U256> {
    prop_oneof![any::<u64>().prop_map(U256::from), any::<[u8; 32]>().prop_map(U256::from_be_bytes)]
}

/// Any bytes, up to 64.
pub fn bytes() -> impl Strategy<Value = Bytes> {
    vec(any::<u8>(), 0..64).prop_map(Bytes::from)
}

/// Any 256-byte bloom.
pub fn bloom() -> impl Strategy<Value = Bloom> {
    vec(any::<u8>(), 256).prop_map(|b| Bloom::from_slice(&b))
}

/// Any finite float: everyday magnitudes and the full range.
pub fn finite_f64() -> impl Strategy<Value = f64> {
    prop_oneof![-1.0e9..1.0e9f64, any::<f64>().prop_filter("finite", |v| v.is_finite())]
}

/// A percentage, 0 to 100.
pub fn percentage() -> impl Strategy<Value = f64> {
    0.0..=100.0f64
}

/// Any text.
pub fn text() -> impl Strategy<Value = String> {
    any::<String>()
}

/// An absolute URL.
pub fn url() -> impl Strategy<Value = String> {
    "https://[a-z]{1,12}\\.example/[a-z0-9/._-]{0,16}"
}

/// A timestamp with millisecond precision, 1970 to 2100.
pub fn timestamp() -> impl Strategy<Value = DateTime<Utc>> {
    (0i64..4_102_444_800_000).prop_map(|ms| Utc.timestamp_millis_opt(ms).unwrap())
}

/// A chain outside the table, by hex id or by a name no chain of the table has.
pub fn other_chain() -> impl Strategy<Value = Chain> {
    let by_id = (1u64..).prop_filter("not an id of the table", |id| Chain::from_id(*id).is_none());
    let by_name = "[a-z][a-z0-9 _-]{0,29}[a-z0-9_-]".prop_filter("not a name or slug of the table", |name| {
        Chain::all().all(|chain| !chain.accepted_forms().contains(name))
    });
    prop_oneof![by_id.prop_map(|id| format!("{id:#x}")), by_name]
        .prop_map(|text| text.parse().expect("a well-formed chain parses"))
}

/// Text that is none of the values an open enum knows (`known`), to stand
/// for a value production adds later.
pub fn unknown_value(known: Vec<String>) -> impl Strategy<Value = String> {
    text().prop_filter("not a known value", move |t| !known.contains(t))
}

/// A chain the wallet-data API serves (what its `chain` schema allows).
pub fn data_api_chain() -> impl Strategy<Value = Chain> {
    select(Chain::data_api().collect::<Vec<_>>())
}

/// Any chain.
pub fn chain() -> impl Strategy<Value = Chain> {
    select(Chain::all().collect::<Vec<_>>())
}

fn base58() -> impl Strategy<Value = String> {
    "[1-9A-HJ-NP-Za-km-z]{32,44}"
}

fn json_leaf() -> impl Strategy<Value = serde_json::Value> {
    prop_oneof![
        text().prop_map(serde_json::Value::from),
        any::<i64>().prop_map(serde_json::Value::from),
        any::<bool>().prop_map(serde_json::Value::from),
    ]
}

fn json_object() -> impl Strategy<Value = serde_json::Map<String, serde_json::Value>> {
    btree_map("[a-z]{1,8}", json_leaf(), 0..4).prop_map(|m| m.into_iter().collect())
}

// ---------------------------------------------------------------- errors

/// Any error body.
pub fn error() -> impl Strategy<Value = Error> {
    let message = prop_oneof![text().prop_map(ErrorMessage::One), vec(text(), 0..4).prop_map(ErrorMessage::Many)];
    // A null `details` reads as absent, so it is not a distinct value.
    let details = maybe(prop_oneof![json_leaf(), json_object().prop_map(serde_json::Value::Object)]);
    (message, details).prop_map(|(message, details)| Error { message, details })
}

// ---------------------------------------------------------------- sign-in

/// Any Solana network.
pub fn solana_network() -> impl Strategy<Value = SolanaNetwork> {
    select(SolanaNetwork::KNOWN.to_vec())
}

/// A challenge request the spec accepts.
pub fn solana_challenge_request() -> impl Strategy<Value = SolanaChallengeRequest> {
    (
        "[a-z0-9]{1,10}(\\.[a-z]{2,6}){1,2}(:[1-9][0-9]{1,3})?",
        url(),
        base58(),
        solana_network(),
        15u32..=120,
        maybe("[ -~]{0,40}"),
        maybe(timestamp()),
        maybe(timestamp()),
        maybe(vec(url(), 0..3)),
    )
        .prop_map(|(domain, uri, address, network, timeout, statement, expiration_time, not_before, resources)| {
            SolanaChallengeRequest {
                domain,
                uri,
                address,
                network,
                timeout,
                statement,
                expiration_time,
                not_before,
                resources,
            }
        })
}

/// Any issued challenge.
pub fn solana_challenge_response() -> impl Strategy<Value = SolanaChallengeResponse> {
    ("[a-zA-Z0-9]{8,64}", text(), "0x[0-9a-f]{64}").prop_map(|(id, message, profile_id)| SolanaChallengeResponse {
        id,
        message,
        profile_id,
    })
}

/// Any verify request the spec accepts.
pub fn solana_verify_request() -> impl Strategy<Value = SolanaVerifyRequest> {
    (text().prop_filter("non-empty", |m| !m.is_empty()), "[1-9A-HJ-NP-Za-km-z]{1,88}")
        .prop_map(|(message, signature)| SolanaVerifyRequest { message, signature })
}

/// Any verified challenge (with the network the spec requires).
pub fn solana_verified_challenge() -> impl Strategy<Value = SolanaVerifiedChallenge> {
    (
        (text(), text(), solana_network(), base58(), maybe(text()), text()),
        (maybe(timestamp()), maybe(timestamp()), maybe(vec(text(), 0..3)), text(), text(), text()),
    )
        .prop_map(
            |(
                (id, domain, network, address, statement, uri),
                (expiration_time, not_before, resources, version, nonce, profile_id),
            )| SolanaVerifiedChallenge {
                id,
                domain,
                network: Some(network),
                address,
                statement,
                uri,
                expiration_time,
                not_before,
                resources,
                version,
                nonce,
                profile_id,
            },
        )
}

// ---------------------------------------------------------------- wallet tokens

/// Any token balance item.
pub fn token_balance() -> impl Strategy<Value = TokenBalance> {
    (
        (maybe(address()), text(), text(), maybe(url()), maybe(url()), any::<u8>(), u256(), any::<bool>()),
        (maybe(any::<bool>()), "[0-9]{1,20}(\\.[0-9]{1,18})?", any::<bool>(), percentage()),
        (maybe(finite_f64()), maybe(finite_f64()), maybe(finite_f64()), maybe(finite_f64()), maybe(finite_f64())),
        (maybe(u256()), maybe(text()), maybe(finite_f64()), maybe(percentage())),
    )
        .prop_map(
            |(
                (token_address, symbol, name, logo, thumbnail, decimals, balance, possible_spam),
                (verified_contract, balance_formatted, native_token, portfolio_percentage),
                (
                    usd_price,
                    usd_price_24hr_percent_change,
                    usd_price_24hr_usd_change,
                    usd_value,
                    usd_value_24hr_usd_change,
                ),
                (total_supply, total_supply_formatted, percentage_relative_to_total_supply, security_score),
            )| TokenBalance {
                token_address,
                symbol,
                name,
                logo,
                thumbnail,
                decimals,
                balance,
                possible_spam,
                verified_contract,
                balance_formatted,
                usd_price,
                usd_price_24hr_percent_change,
                usd_price_24hr_usd_change,
                usd_value,
                usd_value_24hr_usd_change,
                native_token,
                portfolio_percentage,
                total_supply,
                total_supply_formatted,
                percentage_relative_to_total_supply,
                security_score,
            },
        )
}

/// Any page of token balances.
pub fn token_balance_page() -> impl Strategy<Value = TokenBalancePage> {
    (maybe(text()), any::<u64>(), any::<u64>(), maybe(any::<u64>()), vec(token_balance(), 0..3)).prop_map(
        |(cursor, page, page_size, block_number, result)| TokenBalancePage {
            cursor,
            page,
            page_size,
            block_number,
            result,
        },
    )
}

// ---------------------------------------------------------------- NFTs

/// Any sync status.
pub fn sync_status() -> impl Strategy<Value = SyncStatus> {
    select(SyncStatus::KNOWN.to_vec())
}

/// Any contract type.
pub fn contract_type() -> impl Strategy<Value = ContractType> {
    select(ContractType::KNOWN.to_vec())
}

/// Any token id format.
pub fn token_id_format() -> impl Strategy<Value = TokenIdFormat> {
    select(vec![TokenIdFormat::Decimal, TokenIdFormat::Hex])
}

/// Any trait value; lists and objects are the `Json` case (a scalar there
/// would decode as its own variant).
pub fn trait_value() -> impl Strategy<Value = TraitValue> {
    prop_oneof![
        any::<bool>().prop_map(TraitValue::Bool),
        finite_f64().prop_map(TraitValue::Number),
        text().prop_map(TraitValue::Text),
        vec(json_leaf(), 0..3).prop_map(|items| TraitValue::Json(serde_json::Value::Array(items))),
        json_object().prop_map(|object| TraitValue::Json(serde_json::Value::Object(object))),
    ]
}

/// Any NFT trait.
pub fn nft_attribute() -> impl Strategy<Value = NftAttribute> {
    (maybe(text()), maybe(trait_value()), maybe(text()), maybe(finite_f64()), maybe(any::<u64>()), maybe(any::<u64>()))
        .prop_map(|(trait_type, value, display_type, max_value, trait_count, order)| NftAttribute {
            trait_type,
            value,
            display_type,
            max_value,
            trait_count,
            order,
        })
}

/// Any normalized metadata.
pub fn normalized_metadata() -> impl Strategy<Value = NormalizedMetadata> {
    let links = (maybe(url()), maybe(url()), maybe(url()));
    (maybe(text()), maybe(text()), maybe(url()), links, maybe(vec(nft_attribute(), 0..3))).prop_map(
        |(name, description, image, (external_link, external_url, animation_url), attributes)| NormalizedMetadata {
            name,
            description,
            image,
            external_link,
            external_url,
            animation_url,
            attributes,
        },
    )
}

/// Any preview image.
pub fn nft_media_item() -> impl Strategy<Value = NftMediaItem> {
    (any::<u32>(), any::<u32>(), url()).prop_map(|(height, width, url)| NftMediaItem { height, width, url })
}

/// Any set of previews.
pub fn nft_media_collection() -> impl Strategy<Value = NftMediaCollection> {
    (nft_media_item(), nft_media_item(), nft_media_item()).prop_map(|(low, medium, high)| NftMediaCollection {
        low,
        medium,
        high,
    })
}

/// Any preview media.
pub fn nft_media() -> impl Strategy<Value = NftMedia> {
    let described = (maybe(text()), maybe(prop_oneof![Just("image"), Just("audio"), Just("video")]));
    (described, maybe(url()), maybe(timestamp()), maybe(text()), maybe(text()), maybe(nft_media_collection())).prop_map(
        |((status, category), original_media_url, updated_at, mimetype, parent_hash, media_collection)| NftMedia {
            status,
            category: category.map(str::to_owned),
            original_media_url,
            updated_at,
            mimetype,
            parent_hash,
            media_collection,
        },
    )
}

/// Any token a sale was paid in.
pub fn nft_payment_token() -> impl Strategy<Value = NftPaymentToken> {
    (text(), text(), maybe(url()), any::<u8>(), address()).prop_map(
        |(token_name, token_symbol, token_logo, token_decimals, token_address)| NftPaymentToken {
            token_name,
            token_symbol,
            token_logo,
            token_decimals,
            token_address,
        },
    )
}

/// Any marketplace sale.
pub fn nft_last_sale() -> impl Strategy<Value = NftLastSale> {
    (
        (b256(), timestamp(), address(), address(), u256(), "[0-9]{1,20}(\\.[0-9]{1,18})?"),
        (maybe("[0-9]{1,9}\\.[0-9]{2}"), maybe("[0-9]{1,9}\\.[0-9]{2}"), address(), "[0-9]{1,40}", nft_payment_token()),
    )
        .prop_map(
            |(
                (transaction_hash, block_timestamp, buyer_address, seller_address, price, price_formatted),
                (usd_price_at_sale, current_usd_value, token_address, token_id, payment_token),
            )| NftLastSale {
                transaction_hash,
                block_timestamp,
                buyer_address,
                seller_address,
                price,
                price_formatted,
                usd_price_at_sale,
                current_usd_value,
                token_address,
                token_id,
                payment_token,
            },
        )
}

/// Any set of `include_prices` fields.
pub fn nft_prices() -> impl Strategy<Value = NftPrices> {
    (maybe("[0-9]{1,6}(\\.[0-9]{1,4})?"), maybe("[0-9]{1,6}\\.[0-9]{2}"), maybe("[a-z]{3}"), maybe(nft_last_sale()))
        .prop_map(|(floor_price, floor_price_usd, floor_price_currency, last_sale)| NftPrices {
            floor_price,
            floor_price_usd,
            floor_price_currency,
            last_sale,
        })
}

/// Any NFT.
pub fn nft() -> impl Strategy<Value = Nft> {
    (
        (address(), "([0-9]{1,40}|0x[0-9a-f]{1,32})", contract_type(), maybe(address()), any::<u64>(), any::<u64>()),
        (maybe(url()), maybe(text()), maybe(normalized_metadata()), maybe(nft_media()), maybe(u256())),
        (text(), text(), text(), maybe(1u64..), maybe(text()), maybe(percentage())),
        (maybe(timestamp()), maybe(timestamp()), any::<bool>(), maybe(any::<bool>()), maybe(nft_prices())),
    )
        .prop_map(
            |(
                (token_address, token_id, contract_type, owner_of, block_number, block_number_minted),
                (token_uri, metadata, normalized_metadata, media, amount),
                (name, symbol, token_hash, rarity_rank, rarity_label, rarity_percentage),
                (last_token_uri_sync, last_metadata_sync, possible_spam, verified_collection, prices),
            )| Nft {
                token_address,
                token_id,
                contract_type,
                owner_of,
                block_number,
                block_number_minted,
                token_uri,
                metadata,
                normalized_metadata,
                media,
                amount,
                name,
                symbol,
                token_hash,
                rarity_rank,
                rarity_label,
                rarity_percentage,
                last_token_uri_sync,
                last_metadata_sync,
                possible_spam: Some(possible_spam),
                verified_collection,
                prices,
            },
        )
}

/// Any page of NFTs.
pub fn nft_page() -> impl Strategy<Value = NftPage> {
    (sync_status(), maybe(any::<u64>()), any::<u64>(), any::<u64>(), maybe(text()), vec(nft(), 0..3)).prop_map(
        |(status, total, page, page_size, cursor, result)| NftPage {
            status: Some(status),
            total,
            page,
            page_size,
            cursor,
            result,
        },
    )
}

/// Any collection (with the flags the spec requires).
pub fn nft_collection() -> impl Strategy<Value = NftCollection> {
    (
        address(),
        contract_type(),
        text(),
        text(),
        any::<bool>(),
        any::<bool>(),
        maybe(any::<u64>()),
        maybe(url()),
        maybe(url()),
        maybe(nft_prices()),
    )
        .prop_map(
            |(
                token_address,
                contract_type,
                name,
                symbol,
                possible_spam,
                verified_collection,
                count,
                logo,
                banner,
                prices,
            )| {
                NftCollection {
                    token_address,
                    contract_type,
                    name,
                    symbol,
                    possible_spam: Some(possible_spam),
                    verified_collection: Some(verified_collection),
                    count,
                    collection_logo: logo,
                    collection_banner_image: banner,
                    prices,
                }
            },
        )
}

/// Any page of collections.
pub fn nft_collection_page() -> impl Strategy<Value = NftCollectionPage> {
    (sync_status(), any::<u64>(), any::<u64>(), maybe(text()), vec(nft_collection(), 0..3)).prop_map(
        |(status, page, page_size, cursor, result)| NftCollectionPage {
            status: Some(status),
            page,
            page_size,
            cursor,
            result,
        },
    )
}

// ---------------------------------------------------------------- streams

/// Any stream status.
pub fn stream_status() -> impl Strategy<Value = StreamStatus> {
    select(StreamStatus::KNOWN.to_vec())
}

/// Any trigger type.
pub fn stream_trigger_type() -> impl Strategy<Value = StreamTriggerType> {
    select(StreamTriggerType::KNOWN.to_vec())
}

/// Any ABI parameter, tuples nested up to three deep.
pub fn abi_parameter() -> impl Strategy<Value = AbiParameter> {
    let leaf =
        (text(), text(), maybe(any::<bool>()), maybe(text())).prop_map(|(name, kind, indexed, internal_type)| {
            AbiParameter { name, kind, indexed, components: None, internal_type }
        });
    leaf.prop_recursive(3, 8, 3, |inner| {
        (text(), maybe(any::<bool>()), vec(inner, 0..3), maybe(text())).prop_map(
            |(name, indexed, components, internal_type)| AbiParameter {
                name,
                kind: "tuple".into(),
                indexed,
                components: Some(components),
                internal_type,
            },
        )
    })
}

/// Any ABI entry.
pub fn abi_item() -> impl Strategy<Value = AbiItem> {
    (
        (maybe(any::<bool>()), maybe(any::<bool>()), maybe(vec(abi_parameter(), 0..3)), maybe(text())),
        (maybe(vec(abi_parameter(), 0..3)), maybe(any::<bool>()), maybe(text()), maybe(text()), maybe(any::<u64>())),
    )
        .prop_map(|((anonymous, constant, inputs, name), (outputs, payable, state_mutability, kind, gas))| {
            AbiItem { anonymous, constant, inputs, name, outputs, payable, state_mutability, kind, gas }
        })
}

/// Any native-balance selector type.
pub fn stream_native_balance_type() -> impl Strategy<Value = StreamNativeBalanceType> {
    select(StreamNativeBalanceType::KNOWN.to_vec())
}

/// Any native-balance selector.
pub fn stream_native_balances() -> impl Strategy<Value = StreamNativeBalances> {
    (vec(text(), 0..3), stream_native_balance_type())
        .prop_map(|(selectors, kind)| StreamNativeBalances { selectors, kind })
}

/// Any trigger argument.
pub fn trigger_input() -> impl Strategy<Value = TriggerInput> {
    prop_oneof![
        text().prop_map(TriggerInput::One),
        vec(text().prop_map(serde_json::Value::from), 0..3).prop_map(TriggerInput::Many)
    ]
}

/// Any advanced option.
pub fn stream_advanced_option() -> impl Strategy<Value = StreamAdvancedOption> {
    (text(), maybe(json_object()), maybe(any::<bool>()))
        .prop_map(|(topic0, filter, include_native_txs)| StreamAdvancedOption { topic0, filter, include_native_txs })
}

/// Any trigger.
pub fn stream_trigger() -> impl Strategy<Value = StreamTrigger> {
    (stream_trigger_type(), text(), maybe(vec(trigger_input(), 0..3)), abi_item(), maybe(text()), maybe(text()))
        .prop_map(|(kind, contract_address, inputs, function_abi, topic0, call_from)| StreamTrigger {
            kind,
            contract_address,
            inputs,
            function_abi,
            topic0,
            call_from,
        })
}

/// Any stream.
pub fn evm_stream() -> impl Strategy<Value = EvmStream> {
    let flags =
        (maybe(any::<bool>()), maybe(any::<bool>()), maybe(any::<bool>()), maybe(any::<bool>()), maybe(any::<bool>()));
    (
        (any::<u128>(), url(), text(), text(), maybe(vec(text(), 0..3)), flags),
        (
            maybe(vec(stream_native_balances(), 0..2)),
            maybe(vec(abi_item(), 0..2)),
            maybe(vec(stream_advanced_option(), 0..2)),
        ),
        (
            vec("0x[1-9a-f][0-9a-f]{0,7}", 0..3),
            maybe(any::<bool>()),
            maybe(vec(stream_trigger(), 0..2)),
            maybe(any::<bool>()),
        ),
        (stream_status(), text(), maybe(timestamp()), maybe(any::<u64>())),
    )
        .prop_map(
            |(
                (id, webhook_url, description, tag, topic0, (all, native, logs, internal, all_logs)),
                (get_native_balances, abi, advanced_options),
                (chain_ids, demo, triggers, filter_possible_spam_addresses),
                (status, status_message, updated_at, amount_of_addresses),
            )| EvmStream {
                id: uuid::Uuid::from_u128(id),
                webhook_url,
                description,
                tag,
                topic0,
                all_addresses: all,
                include_native_txs: native,
                include_contract_logs: logs,
                include_internal_txs: internal,
                include_all_tx_logs: all_logs,
                get_native_balances,
                abi,
                advanced_options,
                chain_ids,
                demo,
                triggers,
                filter_possible_spam_addresses,
                status,
                status_message,
                updated_at,
                amount_of_addresses,
            },
        )
}

// ---------------------------------------------------------------- RPC

/// Any block parameter.
pub fn block_number_or_tag() -> impl Strategy<Value = BlockNumberOrTag> {
    prop_oneof![
        Just(BlockNumberOrTag::Latest),
        Just(BlockNumberOrTag::Earliest),
        Just(BlockNumberOrTag::Pending),
        any::<u64>().prop_map(BlockNumberOrTag::Number),
    ]
}

/// Any transaction index.
pub fn transaction_index() -> impl Strategy<Value = TransactionIndex> {
    any::<u64>().prop_map(TransactionIndex)
}

/// Any `include` value.
pub fn token_price_include() -> impl Strategy<Value = TokenPriceInclude> {
    Just(TokenPriceInclude::PercentChange)
}

/// Any `eth_getTokenPrice` parameter.
pub fn token_price_params() -> impl Strategy<Value = TokenPriceParams> {
    (
        address(),
        maybe(text().prop_filter("non-empty", |s| !s.is_empty())),
        maybe(any::<u64>()),
        maybe(token_price_include()),
    )
        .prop_map(|(address, exchange, to_block, include)| TokenPriceParams {
            address,
            exchange,
            to_block,
            include,
        })
}

/// Any native price.
pub fn native_price() -> impl Strategy<Value = NativePrice> {
    (u256(), any::<u8>(), text(), text(), maybe(text()))
        .prop_map(|(value, decimals, name, symbol, address)| NativePrice { value, decimals, name, symbol, address })
}

/// Any token price.
pub fn token_price() -> impl Strategy<Value = TokenPrice> {
    (
        (maybe(text()), maybe(text()), maybe(url()), maybe(any::<u8>()), native_price(), finite_f64(), maybe(text())),
        (maybe(finite_f64()), address(), text(), maybe(address()), maybe(any::<u64>())),
        (maybe(any::<bool>()), maybe(any::<bool>()), maybe(address()), maybe(finite_f64())),
        (maybe(finite_f64()), maybe(finite_f64()), maybe(finite_f64()), maybe(finite_f64())),
    )
        .prop_map(
            |(
                (token_name, token_symbol, token_logo, token_decimals, native_price, usd_price, usd_price_formatted),
                (percent_change_24hr, exchange_address, exchange_name, token_address, to_block),
                (possible_spam, verified_contract, pair_address, pair_total_liquidity_usd),
                (usd_price_24h, usd_price_24hr_usd_change, usd_price_24hr_percent_change, security_score),
            )| TokenPrice {
                usd_price_24h,
                usd_price_24hr_usd_change,
                usd_price_24hr_percent_change,
                security_score,
                token_name,
                token_symbol,
                token_logo,
                token_decimals,
                native_price,
                usd_price,
                usd_price_formatted,
                percent_change_24hr,
                exchange_address,
                exchange_name,
                token_address,
                to_block,
                possible_spam,
                verified_contract,
                pair_address,
                pair_total_liquidity_usd,
            },
        )
}

/// Any access-list entry.
pub fn access_list_item() -> impl Strategy<Value = AccessListItem> {
    (address(), vec(b256(), 0..3)).prop_map(|(address, storage_keys)| AccessListItem { address, storage_keys })
}

/// Any withdrawal.
pub fn withdrawal() -> impl Strategy<Value = Withdrawal> {
    (any::<u64>(), any::<u64>(), address(), any::<u64>())
        .prop_map(|(index, validator_index, address, amount)| Withdrawal { index, validator_index, address, amount })
}

/// The fields only some transaction types have, for one type.
#[derive(Clone, Debug)]
struct TypedFields {
    tx_type: u8,
    to: Option<Address>,
    gas_price: Option<u128>,
    max_fee_per_gas: Option<u128>,
    max_priority_fee_per_gas: Option<u128>,
    max_fee_per_blob_gas: Option<u128>,
    access_list: Option<Vec<AccessListItem>>,
    chain_id: Option<u64>,
    blob_versioned_hashes: Option<Vec<B256>>,
    authorization_list: Option<Vec<Authorization>>,
    v: Option<U256>,
    y_parity: Option<u8>,
}

fn authorization() -> impl Strategy<Value = Authorization> {
    (u256(), address(), any::<u64>(), any::<bool>(), u256(), u256()).prop_map(
        |(chain_id, address, nonce, parity, r, s)| Authorization {
            chain_id,
            address,
            nonce,
            y_parity: u8::from(parity),
            r,
            s,
        },
    )
}

fn typed_fields() -> impl Strategy<Value = TypedFields> {
    let fees = (any::<u128>(), any::<u128>(), any::<u128>(), maybe(any::<u128>()));
    let common = (maybe(address()), vec(access_list_item(), 0..2), any::<u64>(), any::<bool>());
    let lists = (vec(b256(), 1..3), vec(authorization(), 1..3));
    (0u8..=4, fees, common, lists, maybe(any::<u64>())).prop_map(
        |(
            tx_type,
            (fee_a, fee_b, blob_fee, effective_price),
            (to, access_list, chain_id, parity),
            (blobs, authorizations),
            legacy_chain,
        )| {
            let y_parity = u8::from(parity);
            // Legacy (0) and access-list (1) transactions pay a gas price,
            // dynamic-fee (2), blob (3) and set-code (4) ones a fee cap and a tip.
            let (legacy, fee_capped, blob, set_code) = (tx_type == 0, tx_type >= 2, tx_type == 3, tx_type == 4);
            TypedFields {
                tx_type,
                // Blob and set-code transactions cannot create a contract.
                to: if blob || set_code { Some(to.unwrap_or_default()) } else { to },
                gas_price: if fee_capped { effective_price } else { Some(fee_a) },
                max_fee_per_gas: fee_capped.then_some(fee_a),
                max_priority_fee_per_gas: fee_capped.then_some(fee_b),
                max_fee_per_blob_gas: blob.then_some(blob_fee),
                access_list: (!legacy).then_some(access_list),
                chain_id: if legacy { legacy_chain } else { Some(chain_id) },
                blob_versioned_hashes: blob.then_some(blobs),
                authorization_list: set_code.then_some(authorizations),
                // EIP-155 folds the chain id into v; earlier transactions have
                // v of 27 or 28, typed ones the y-parity.
                v: Some(match legacy_chain {
                    Some(id) if legacy => U256::from(id) * U256::from(2) + U256::from(35 + u64::from(y_parity)),
                    None if legacy => U256::from(27 + u64::from(y_parity)),
                    _ => U256::from(y_parity),
                }),
                y_parity: (!legacy).then_some(y_parity),
            }
        },
    )
}

/// Any transaction, with the fields its type requires.
pub fn transaction() -> impl Strategy<Value = Transaction> {
    (
        (maybe((b256(), any::<u64>(), any::<u64>())), maybe(any::<u64>()), address(), any::<u64>()),
        (b256(), bytes(), any::<u64>(), u256(), u256(), u256()),
        typed_fields(),
    )
        .prop_map(|((position, block_timestamp, from, gas), (hash, input, nonce, value, r, s), typed)| {
            Transaction {
                block_hash: position.map(|p| p.0),
                block_number: position.map(|p| p.1),
                block_timestamp,
                from,
                gas,
                gas_price: typed.gas_price,
                max_fee_per_gas: typed.max_fee_per_gas,
                max_priority_fee_per_gas: typed.max_priority_fee_per_gas,
                max_fee_per_blob_gas: typed.max_fee_per_blob_gas,
                hash,
                input: input.into(),
                nonce,
                to: typed.to,
                transaction_index: position.map(|p| p.2),
                value,
                tx_type: typed.tx_type,
                access_list: typed.access_list,
                chain_id: typed.chain_id,
                blob_versioned_hashes: typed.blob_versioned_hashes,
                authorization_list: typed.authorization_list,
                v: typed.v,
                r,
                s,
                y_parity: typed.y_parity,
            }
        })
}

/// Transactions of a block, as hashes or in full.
pub fn block_transactions() -> impl Strategy<Value = BlockTransactions> {
    prop_oneof![
        vec(b256(), 0..3).prop_map(BlockTransactions::Hashes),
        vec(transaction(), 1..3).prop_map(BlockTransactions::Full),
    ]
}

/// Any block.
pub fn block() -> impl Strategy<Value = Block> {
    (
        (maybe(any::<u64>()), maybe(any::<u64>()), u256(), maybe(any::<u64>()), bytes(), any::<u64>(), any::<u64>()),
        (b256(), bloom(), address(), maybe(b256()), maybe(any::<[u8; 8]>()), any::<u64>(), maybe(b256())),
        (b256(), b256(), maybe(b256()), b256(), maybe(any::<u64>()), b256(), any::<u64>()),
        (maybe(u256()), block_transactions(), b256(), vec(b256(), 0..2), maybe(vec(withdrawal(), 0..2)), maybe(b256())),
    )
        .prop_map(
            |(
                (base_fee_per_gas, blob_gas_used, difficulty, excess_blob_gas, extra_data, gas_limit, gas_used),
                (hash, logs_bloom, miner, mix_hash, nonce, number, parent_beacon_block_root),
                (parent_hash, receipts_root, requests_hash, sha3_uncles, size, state_root, timestamp),
                (total_difficulty, transactions, transactions_root, uncles, withdrawals, withdrawals_root),
            )| Block {
                base_fee_per_gas,
                blob_gas_used,
                difficulty,
                excess_blob_gas,
                extra_data,
                gas_limit,
                gas_used,
                hash,
                logs_bloom: logs_bloom.into(),
                miner,
                mix_hash,
                nonce: nonce.map(B64::from),
                number,
                parent_beacon_block_root,
                parent_hash,
                receipts_root,
                requests_hash,
                sha3_uncles,
                size,
                state_root,
                timestamp,
                total_difficulty,
                transactions,
                transactions_root,
                uncles,
                withdrawals,
                withdrawals_root,
            },
        )
}

/// Any call object, with any subset of its fields.
pub fn transaction_request() -> impl Strategy<Value = TransactionRequest> {
    let addresses = (maybe(address()), maybe(address()));
    let fees = (maybe(any::<u128>()), maybe(any::<u128>()), maybe(any::<u128>()), maybe(any::<u128>()));
    let body =
        (maybe(0u8..=4), maybe(any::<u64>()), maybe(u256()), maybe(bytes()), maybe(bytes()), maybe(any::<u64>()));
    let lists = (
        maybe(any::<u64>()),
        maybe(vec(access_list_item(), 0..2)),
        maybe(vec(b256(), 0..2)),
        maybe(vec(authorization(), 0..2)),
    );
    (addresses, fees, body, lists).prop_map(
        |(
            (from, to),
            (gas_price, max_fee_per_gas, max_priority_fee_per_gas, max_fee_per_blob_gas),
            (tx_type, gas, value, input, data, nonce),
            (chain_id, access_list, blob_versioned_hashes, authorization_list),
        )| TransactionRequest {
            tx_type,
            from,
            to,
            gas,
            gas_price,
            max_fee_per_gas,
            max_priority_fee_per_gas,
            max_fee_per_blob_gas,
            value,
            input,
            data,
            nonce,
            chain_id,
            access_list,
            blob_versioned_hashes,
            authorization_list,
        },
    )
}

/// Any state overrides, for one or two accounts.
pub fn state_overrides() -> impl Strategy<Value = StateOverrides> {
    let slots = || maybe(btree_map(b256(), b256(), 0..3));
    let account = (maybe(u256()), maybe(any::<u64>()), maybe(bytes()), slots(), slots(), maybe(address())).prop_map(
        |(balance, nonce, code, state, state_diff, move_precompile_to_address)| AccountOverride {
            balance,
            nonce,
            code,
            state,
            state_diff,
            move_precompile_to_address,
        },
    );
    btree_map(address(), account, 0..3).prop_map(StateOverrides)
}

/// Any access list answer.
pub fn access_list_result() -> impl Strategy<Value = AccessListResult> {
    (vec(access_list_item(), 0..3), u256(), maybe("[a-z ]{1,20}"))
        .prop_map(|(access_list, gas_used, error)| AccessListResult { access_list, gas_used, error })
}

/// Any account proof.
pub fn account_proof() -> impl Strategy<Value = AccountProof> {
    // A key given shorter than 64 digits is below 2^252: a larger one is whole.
    let key = (b256(), any::<bool>()).prop_map(|(slot, whole)| match whole {
        true => StorageKey::whole(slot),
        false => StorageKey { slot: B256::from(U256::from_be_bytes(slot.0) >> 4), whole: false },
    });
    let storage = (key, u256(), vec(bytes(), 0..3)).prop_map(|(key, value, proof)| StorageProof { key, value, proof });
    (address(), vec(bytes(), 0..3), u256(), b256(), any::<u64>(), b256(), vec(storage, 0..3)).prop_map(
        |(address, account_proof, balance, code_hash, nonce, storage_hash, storage_proof)| AccountProof {
            address,
            account_proof,
            balance,
            code_hash,
            nonce,
            storage_hash,
            storage_proof,
        },
    )
}

/// Any changes of a block filter (log filters' are logs, tested as such).
pub fn filter_changes() -> impl Strategy<Value = FilterChanges> {
    vec(b256(), 0..4).prop_map(FilterChanges::Hashes)
}
