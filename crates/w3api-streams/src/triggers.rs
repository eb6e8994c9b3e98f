//! `triggers`: read calls whose results ride on the records of a payload,
//! answered by the source at the delivered block. A source offers no
//! general `eth_call`, so the ERC20 reads are answered from what it knows:
//! `balanceOf(address)` from the holder's balances at the block, and
//! `decimals()`, `name()`, `symbol()` and `totalSupply()` from the token.

use alloy_json_abi::Function;
use alloy_primitives::Address;
use serde_json::Value;
use w3api_source::{Contract, DataSource, PageRequest, WalletTokensQuery};
use w3api_types::{StreamTrigger, StreamTriggerOutput, StreamTriggerType, StreamWebhook, TriggerInput};

use crate::error::StreamsError;
use crate::payload::BlockData;

/// The reads a trigger may make here.
pub(crate) const ANSWERED: [&str; 5] = ["balanceOf(address)", "decimals()", "name()", "symbol()", "totalSupply()"];

/// The problem with a trigger's function, if it is not one answered here.
pub(crate) fn check(trigger: &StreamTrigger) -> Result<(), String> {
    let function = serde_json::to_value(&trigger.function_abi)
        .and_then(serde_json::from_value::<Function>)
        .map_err(|e| format!("not a function ABI entry ({e})"))?;
    let signature = function.signature();
    if !ANSWERED.contains(&signature.as_str()) {
        return Err(format!("{signature} is not a read answered here (these are: {})", ANSWERED.join(", ")));
    }
    let inputs = trigger.inputs.as_deref().unwrap_or_default();
    if inputs.len() != function.inputs.len() {
        return Err(format!("{signature} takes {} inputs, {} are given", function.inputs.len(), inputs.len()));
    }
    Ok(())
}

/// Attaches the results of the stream's triggers to the records they are for.
pub(crate) async fn attach<S: DataSource>(
    source: &S,
    triggers: &[StreamTrigger],
    data: &BlockData,
    webhook: &mut StreamWebhook,
) -> Result<(), StreamsError> {
    for trigger in triggers {
        match trigger.kind {
            StreamTriggerType::Erc20transfer => {
                for transfer in &mut webhook.erc20_transfers {
                    let fields = [("$contract", &transfer.contract), ("$from", &transfer.from), ("$to", &transfer.to)];
                    let output = run(source, trigger, data, &fields).await?;
                    transfer.triggers.get_or_insert_with(Vec::new).push(output);
                }
            }
            StreamTriggerType::Erc20approval => {
                for approval in &mut webhook.erc20_approvals {
                    let fields = [
                        ("$contract", &approval.contract),
                        ("$owner", &approval.owner),
                        ("$spender", &approval.spender),
                    ];
                    let output = run(source, trigger, data, &fields).await?;
                    approval.triggers.get_or_insert_with(Vec::new).push(output);
                }
            }
            StreamTriggerType::Tx => {
                for tx in &mut webhook.txs {
                    let to = tx.to_address.clone().unwrap_or_default();
                    let fields = [("$fromAddress", &tx.from_address), ("$toAddress", &to)];
                    let output = run(source, trigger, data, &fields).await?;
                    tx.triggers.get_or_insert_with(Vec::new).push(output);
                }
            }
            StreamTriggerType::Log => {
                for log in &mut webhook.logs {
                    let fields = [("$address", &log.address)];
                    let output = run(source, trigger, data, &fields).await?;
                    log.triggers.get_or_insert_with(Vec::new).push(output);
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// A selector's value among a record's fields, or the literal itself.
fn resolve<'a>(value: &'a str, fields: &[(&str, &'a String)]) -> &'a str {
    fields.iter().find(|(name, _)| *name == value).map_or(value, |(_, field)| field.as_str())
}

async fn run<S: DataSource>(
    source: &S,
    trigger: &StreamTrigger,
    data: &BlockData,
    fields: &[(&str, &String)],
) -> Result<StreamTriggerOutput, StreamsError> {
    let name = trigger.function_abi.name.clone().unwrap_or_default();
    let contract = resolve(&trigger.contract_address, fields).parse::<Address>().ok();
    let argument = match trigger.inputs.as_deref() {
        Some([TriggerInput::One(input)]) => resolve(input, fields).parse::<Address>().ok(),
        _ => None,
    };
    let value = match contract {
        Some(contract) => read(source, data, contract, &name, argument).await?,
        None => Value::Null,
    };
    Ok(StreamTriggerOutput { name, value })
}

/// One read of `contract` at the block; `null` when the contract is not a
/// token the source knows (as a call that reverts).
async fn read<S: DataSource>(
    source: &S,
    data: &BlockData,
    contract: Address,
    function: &str,
    holder: Option<Address>,
) -> Result<Value, StreamsError> {
    let Some(Contract::Token(token)) = source.contracts(data.chain, vec![contract]).await?.into_iter().next() else {
        return Ok(Value::Null);
    };
    Ok(match function {
        "decimals" => Value::from(token.decimals.to_string()),
        "name" => Value::from(token.name),
        "symbol" => Value::from(token.symbol),
        "totalSupply" => token.total_supply.map_or(Value::Null, |supply| Value::from(supply.to_string())),
        "balanceOf" => match holder {
            Some(holder) => {
                let query = WalletTokensQuery {
                    to_block: Some(data.block.number),
                    token_addresses: vec![contract],
                    exclude_native: true,
                    ..WalletTokensQuery::new(data.chain, holder)
                };
                let page = source.wallet_tokens(query, PageRequest::first(1)).await?;
                let balance = page.holdings.items.first().map(|holding| holding.balance).unwrap_or_default();
                Value::from(balance.to_string())
            }
            None => Value::Null,
        },
        _ => Value::Null,
    })
}
