//! EVM stream configurations: a handful, with ids stable for a seed.

use chrono::{DateTime, Utc};
use uuid::Uuid;
use w3api_types::{
    AbiItem, AbiParameter, Chain, EvmStream, StreamAdvancedOption, StreamNativeBalanceType, StreamNativeBalances,
    StreamStatus, StreamTrigger, StreamTriggerType, TriggerInput,
};

use crate::generate::GENESIS_TIMESTAMP;
use crate::seed;

/// `Transfer(address,address,uint256)`, the ERC20 and ERC721 transfer event.
const TRANSFER_TOPIC: &str = "0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef";

/// The streams of the devnet for `seed`.
pub(crate) fn streams(seed: u64) -> Vec<EvmStream> {
    let id = |i: u8| {
        let bytes = seed::derive(seed, &[b"stream", &[i]]);
        uuid::Builder::from_random_bytes(bytes[..16].try_into().expect("16 bytes")).into_uuid()
    };
    let updated = |days: i64| DateTime::<Utc>::from_timestamp(GENESIS_TIMESTAMP as i64 + days * 86_400, 0);
    let hex = |chains: &[Chain]| chains.iter().filter_map(|c| c.hex_id()).collect::<Vec<_>>();
    vec![
        EvmStream {
            id: id(0),
            webhook_url: "https://hooks.devnet.w3api.example/erc20-transfers".into(),
            description: "Every ERC20 transfer of the watched wallets".into(),
            tag: "erc20-transfers".into(),
            topic0: Some(vec!["Transfer(address,address,uint256)".into()]),
            all_addresses: Some(false),
            include_native_txs: Some(false),
            include_contract_logs: Some(true),
            include_internal_txs: Some(false),
            include_all_tx_logs: Some(false),
            get_native_balances: Some(vec![StreamNativeBalances {
                selectors: vec!["$fromAddress".into(), "$toAddress".into()],
                kind: StreamNativeBalanceType::Tx,
            }]),
            abi: Some(vec![transfer_event("value")]),
            advanced_options: Some(vec![StreamAdvancedOption {
                topic0: "Transfer(address,address,uint256)".into(),
                filter: serde_json::json!({"gt": ["value", "1000000"]}).as_object().cloned(),
                include_native_txs: Some(false),
            }]),
            chain_ids: hex(&[Chain::Eth, Chain::Base, Chain::Polygon]),
            demo: Some(false),
            triggers: Some(vec![StreamTrigger {
                kind: StreamTriggerType::Erc20transfer,
                contract_address: "$contract".into(),
                inputs: Some(vec![TriggerInput::One("$to".into())]),
                function_abi: balance_of(),
                topic0: None,
                call_from: None,
            }]),
            filter_possible_spam_addresses: Some(true),
            status: StreamStatus::Active,
            status_message: "Stream is active".into(),
            updated_at: updated(0),
            amount_of_addresses: Some(25),
        },
        EvmStream {
            id: id(1),
            webhook_url: "https://hooks.devnet.w3api.example/nft-activity".into(),
            description: "Mints and transfers of the devnet collections".into(),
            tag: "nft-activity".into(),
            topic0: Some(vec![TRANSFER_TOPIC.into()]),
            all_addresses: Some(true),
            include_native_txs: Some(false),
            include_contract_logs: Some(true),
            include_internal_txs: Some(false),
            include_all_tx_logs: Some(true),
            get_native_balances: None,
            abi: Some(vec![transfer_event("tokenId")]),
            advanced_options: None,
            chain_ids: hex(&[Chain::Eth, Chain::Sepolia]),
            demo: Some(false),
            triggers: None,
            filter_possible_spam_addresses: Some(false),
            status: StreamStatus::Paused,
            status_message: "Paused by the owner".into(),
            updated_at: updated(1),
            amount_of_addresses: Some(0),
        },
        EvmStream {
            id: id(2),
            webhook_url: "https://hooks.devnet.w3api.example/native".into(),
            description: "Native transfers over 1 unit".into(),
            tag: "whale-watch".into(),
            topic0: None,
            all_addresses: Some(false),
            include_native_txs: Some(true),
            include_contract_logs: Some(false),
            include_internal_txs: Some(true),
            include_all_tx_logs: Some(false),
            get_native_balances: None,
            abi: None,
            advanced_options: None,
            chain_ids: hex(&[Chain::Arbitrum, Chain::Optimism]),
            demo: Some(true),
            triggers: None,
            filter_possible_spam_addresses: None,
            status: StreamStatus::Error,
            status_message: "Webhook answered 500 five times in a row".into(),
            updated_at: updated(1),
            amount_of_addresses: Some(3),
        },
        EvmStream {
            id: id(3),
            webhook_url: "https://hooks.devnet.w3api.example/retired".into(),
            description: "A stream that was shut down".into(),
            tag: "retired".into(),
            topic0: Some(Vec::new()),
            all_addresses: Some(false),
            include_native_txs: Some(false),
            include_contract_logs: Some(false),
            include_internal_txs: Some(false),
            include_all_tx_logs: Some(false),
            get_native_balances: None,
            abi: Some(Vec::new()),
            advanced_options: Some(Vec::new()),
            chain_ids: hex(&[Chain::Bsc]),
            demo: Some(false),
            triggers: Some(Vec::new()),
            filter_possible_spam_addresses: Some(false),
            status: StreamStatus::Terminated,
            status_message: "Terminated by the owner".into(),
            updated_at: updated(-30),
            amount_of_addresses: None,
        },
    ]
}

/// The stream with `id`.
pub(crate) fn stream(streams: &[EvmStream], id: Uuid) -> Option<EvmStream> {
    streams.iter().find(|s| s.id == id).cloned()
}

fn parameter(name: &str, kind: &str, indexed: Option<bool>) -> AbiParameter {
    AbiParameter { name: name.into(), kind: kind.into(), indexed, components: None, internal_type: Some(kind.into()) }
}

fn transfer_event(last: &str) -> AbiItem {
    AbiItem {
        anonymous: Some(false),
        inputs: Some(vec![
            parameter("from", "address", Some(true)),
            parameter("to", "address", Some(true)),
            parameter(last, "uint256", Some(last == "tokenId")),
        ]),
        name: Some("Transfer".into()),
        kind: Some("event".into()),
        ..AbiItem::default()
    }
}

fn balance_of() -> AbiItem {
    AbiItem {
        constant: Some(true),
        inputs: Some(vec![parameter("owner", "address", None)]),
        name: Some("balanceOf".into()),
        outputs: Some(vec![parameter("", "uint256", None)]),
        state_mutability: Some("view".into()),
        kind: Some("function".into()),
        ..AbiItem::default()
    }
}
