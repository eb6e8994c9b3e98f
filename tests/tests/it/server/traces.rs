//! Traces on the devnet: `debug_trace*` run a transaction again at its
//! place in its block with geth's tracers, agree with what the block
//! recorded, see the value that moved inside it, and refuse bad requests
//! and traces past their bounds with clear JSON-RPC errors.

use alloy_primitives::{Address, U256};
use alloy_sol_types::{SolCall, SolConstructor};
use serde_json::{Value, json};
use w3api_contracts::WrappedNative;
use w3api_devnet::{Scale, dev_addresses};
use w3api_tests::local::{Local, Session, Setup};

mod internal;
mod otterscan;
mod parity;

/// Init code of a forwarder: its runtime calls the address in the first
/// 32 bytes of its call data with the rest of it and all the value sent,
/// and stops whether that call succeeded or not.
/// Less than 32 bytes of call data (ether paid to it) it takes and stops.
const FORWARDER_INIT: &str = "0x601c600a5f39601c5ff336602011601a57602036038060205f375f5f825f345f355af1005b00";
const FORWARDER_RUNTIME: &str = "0x36602011601a57602036038060205f375f5f825f345f355af1005b00";

fn server() -> Local {
    Setup::new().scale(Scale::TINY).start()
}

fn hex(value: U256) -> String {
    format!("{value:#x}")
}

/// The first dev account, which sends every transaction here.
fn sender() -> String {
    format!("{:#x}", dev_addresses().next().unwrap())
}

/// Sends a transaction from the sender and answers its mined receipt.
/// Its gas is named: an estimate finds the least gas with which the
/// forwarder succeeds, which is not enough for the call it forwards.
fn send(session: &Session<'_>, transaction: Value) -> Value {
    let mut transaction = transaction;
    transaction["from"] = json!(sender());
    transaction["gas"] = json!("0x200000");
    let hash = session.call("eth_sendTransaction", json!([transaction]));
    session.call("eth_getTransactionReceipt", json!([hash]))
}

fn deploy(session: &Session<'_>, init: String) -> String {
    let receipt = send(session, json!({"data": init}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    receipt["contractAddress"].as_str().unwrap().to_string()
}

fn deploy_weth(session: &Session<'_>) -> String {
    let arguments = WrappedNative::constructorCall { name_: "Wrapped".into(), symbol_: "W".into() }.abi_encode();
    deploy(session, format!("{}{}", WrappedNative::BYTECODE, alloy_primitives::hex::encode(arguments)))
}

fn trace(session: &Session<'_>, hash: &Value, config: Value) -> Value {
    session.call("debug_traceTransaction", json!([hash, config]))
}

/// The logs of a call frame and of the calls it made.
fn frame_logs<'a>(frame: &'a Value, logs: &mut Vec<&'a Value>) {
    logs.extend(frame["logs"].as_array().into_iter().flatten());
    for call in calls(frame) {
        frame_logs(call, logs);
    }
}

fn calls(frame: &Value) -> &[Value] {
    frame["calls"].as_array().map(Vec::as_slice).unwrap_or_default()
}

/// Deploys WETH and the forwarder, and has the forwarder withdraw a
/// quarter ether of what it deposited: three calls, one inside another.
struct Withdrawal {
    weth: String,
    forwarder: String,
    receipt: Value,
    paid: U256,
}

fn withdrawal(session: &Session<'_>) -> Withdrawal {
    let weth = deploy_weth(session);
    let forwarder = deploy(session, FORWARDER_INIT.into());
    let ether = U256::from(10).pow(U256::from(18));
    let through = |call: Vec<u8>| format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(call));
    let deposit = through(WrappedNative::depositCall {}.abi_encode());
    assert_eq!(send(session, json!({"to": forwarder, "value": hex(ether), "data": deposit}))["status"], "0x1");
    let paid = ether / U256::from(4);
    let withdraw = through(WrappedNative::withdrawCall { wad: paid }.abi_encode());
    let receipt = send(session, json!({"to": forwarder, "data": withdraw}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    Withdrawal { weth, forwarder, receipt, paid }
}

fn block_of(receipt: &Value) -> u64 {
    u64::from_str_radix(&receipt["blockNumber"].as_str().unwrap()[2..], 16).unwrap()
}

#[test]
fn every_generated_transaction_traces_as_its_receipt_says() {
    let local = server();
    let session = local.session();
    let latest = session.call("eth_blockNumber", json!([]));
    let latest = u64::from_str_radix(&latest.as_str().unwrap()[2..], 16).unwrap();
    let mut traced = 0;
    for number in 1..=latest {
        let block = format!("{number:#x}");
        let config = json!({"tracer": "callTracer", "tracerConfig": {"withLog": true}});
        let traces = session.call("debug_traceBlockByNumber", json!([block, config]));
        let receipts = session.call("eth_getBlockReceipts", json!([block]));
        let (traces, receipts) = (traces.as_array().unwrap(), receipts.as_array().unwrap());
        assert_eq!(traces.len(), receipts.len(), "block {number}");
        for (trace, receipt) in traces.iter().zip(receipts) {
            assert_eq!(trace["txHash"], receipt["transactionHash"]);
            let frame = &trace["result"];
            assert_eq!(frame["gasUsed"], receipt["gasUsed"], "{}", trace["txHash"]);
            assert_eq!(frame.get("error").is_none(), receipt["status"] == "0x1", "{trace}");
            assert_eq!(frame["from"], receipt["from"]);
            // Every log the receipt holds, in the frames that emitted it,
            // indexed in the block as the receipt indexes it.
            let mut logs = Vec::new();
            frame_logs(frame, &mut logs);
            logs.sort_by_key(|log| u64::from_str_radix(&log["index"].as_str().unwrap()[2..], 16).unwrap());
            let emitted: Vec<_> =
                receipt["logs"].as_array().unwrap().iter().map(|log| (&log["address"], &log["logIndex"])).collect();
            let seen: Vec<_> = logs.iter().map(|log| (&log["address"], &log["index"])).collect();
            assert_eq!(seen, emitted, "{}", trace["txHash"]);
            traced += 1;
        }
    }
    assert!(traced > 300, "only {traced} transactions traced");
    // The struct logger agrees on gas and failure too, by block hash.
    let block = session.call("eth_getBlockByNumber", json!(["0x2", false]));
    let traces = session.call("debug_traceBlockByHash", json!([block["hash"], {"disableStack": true}]));
    let receipts = session.call("eth_getBlockReceipts", json!(["0x2"]));
    for (trace, receipt) in traces.as_array().unwrap().iter().zip(receipts.as_array().unwrap()) {
        let logs = &trace["result"];
        assert_eq!(hex(U256::from(logs["gas"].as_u64().unwrap())), receipt["gasUsed"].as_str().unwrap());
        assert_eq!(logs["failed"], receipt["status"] == "0x0");
        assert!(logs["structLogs"][0].get("stack").is_none(), "disableStack: {}", logs["structLogs"][0]);
    }
}

#[test]
fn the_value_a_contract_sends_on_is_seen_inside_the_transaction() {
    let local = server();
    let session = local.session();
    let weth = deploy_weth(&session);
    let forwarder = deploy(&session, FORWARDER_INIT.into());
    assert_eq!(session.call("eth_getCode", json!([forwarder, "latest"])), FORWARDER_RUNTIME);
    let ether = U256::from(10).pow(U256::from(18));

    // A deposit through the forwarder: one inner call, carrying the value.
    let deposit = WrappedNative::depositCall {}.abi_encode();
    let input = format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(&deposit));
    let receipt = send(&session, json!({"to": forwarder, "value": hex(ether), "data": input}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    let top = trace(&session, &receipt["transactionHash"], json!({"tracer": "callTracer"}));
    let [inner] = calls(&top) else { panic!("one inner call: {top}") };
    assert_eq!((&inner["type"], &inner["from"], &inner["to"]), (&json!("CALL"), &json!(forwarder), &json!(weth)));
    assert_eq!(inner["value"], hex(ether));

    // A withdrawal: WETH sends the ether back to the sender, inside.
    let withdraw = WrappedNative::withdrawCall { wad: ether / U256::from(4) }.abi_encode();
    let input = format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(&withdraw));
    // The forwarder holds the wrapped ether, so it withdraws; WETH pays it.
    let receipt = send(&session, json!({"to": forwarder, "data": input}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    let hash = &receipt["transactionHash"];
    let top = trace(&session, hash, json!({"tracer": "callTracer", "tracerConfig": {"withLog": true}}));
    let [withdrawal] = calls(&top) else { panic!("one inner call: {top}") };
    let [payment] = calls(withdrawal) else { panic!("WETH pays once: {withdrawal}") };
    assert_eq!((&payment["from"], &payment["to"]), (&json!(weth), &json!(forwarder)));
    assert_eq!(payment["value"], hex(ether / U256::from(4)));
    // Logs sit in the frame that emitted them, indexed as the receipt indexes them.
    let logs = withdrawal["logs"].as_array().unwrap();
    let receipt_logs = receipt["logs"].as_array().unwrap();
    assert_eq!(logs.len(), receipt_logs.len());
    for (log, emitted) in logs.iter().zip(receipt_logs) {
        assert_eq!((&log["address"], &log["index"]), (&emitted["address"], &emitted["logIndex"]));
    }
    let only_top = trace(&session, hash, json!({"tracer": "callTracer", "tracerConfig": {"onlyTopCall": true}}));
    assert!(calls(&only_top).is_empty(), "{only_top}");

    // The prestate tracer's diff: WETH's ether went down by what it paid.
    let diff = trace(&session, hash, json!({"tracer": "prestateTracer", "tracerConfig": {"diffMode": true}}));
    let balance = |side: &str| U256::from_str_radix(&diff[side][&weth]["balance"].as_str().unwrap()[2..], 16);
    assert_eq!(balance("pre").unwrap() - balance("post").unwrap(), ether / U256::from(4), "{diff}");
    let counted = trace(&session, hash, json!({"tracer": "4byteTracer"}));
    assert_eq!(counted["0x2e1a7d4d-32"], 1, "withdraw(uint256) called once with 32 bytes: {counted}");
    assert_eq!(trace(&session, hash, json!({"tracer": "noopTracer"})), json!({}));

    // A revert inside: withdrawing more than the forwarder holds fails in
    // WETH, and the forwarder goes on.
    let withdraw = WrappedNative::withdrawCall { wad: ether * U256::from(2) }.abi_encode();
    let input = format!("0x{:0>64}{}", &weth[2..], alloy_primitives::hex::encode(&withdraw));
    let receipt = send(&session, json!({"to": forwarder, "data": input}));
    assert_eq!(receipt["status"], "0x1", "{receipt}");
    let top = trace(&session, &receipt["transactionHash"], json!({"tracer": "callTracer"}));
    assert!(top.get("error").is_none(), "{top}");
    let [failed] = calls(&top) else { panic!("one inner call: {top}") };
    assert_eq!(failed["error"], "execution reverted", "{failed}");
    let logs = trace(&session, &receipt["transactionHash"], json!({}));
    assert!(logs["structLogs"].as_array().unwrap().iter().any(|step| step["op"] == "REVERT" && step["depth"] == 2));
}

#[test]
fn a_call_is_traced_over_the_state_and_block_it_is_given() {
    let local = server();
    let session = local.session();
    let (contract, payee) = ("0x00000000000000000000000000000000000000c0", format!("{:#x}", Address::repeat_byte(7)));
    // The forwarder's runtime, given to an address that has none.
    let overrides = json!({contract: {"code": FORWARDER_RUNTIME}});
    let input = format!("0x{:0>64}", &payee[2..]);
    let request = json!({"from": sender(), "to": contract, "value": "0x5", "data": input});
    let config = json!({"tracer": "callTracer", "stateOverrides": overrides, "blockOverrides": {"number": "0x1234"}});
    let top = session.call("debug_traceCall", json!([request, "latest", config]));
    let [inner] = calls(&top) else { panic!("the overridden code ran: {top}") };
    assert_eq!((&inner["to"], &inner["value"]), (&json!(payee), &json!("0x5")));
    // NUMBER reads the overridden block.
    let number_code = json!({contract: {"code": "0x435f5260205ff3"}});
    let config = json!({"stateOverrides": number_code, "blockOverrides": {"number": "0x1234"}});
    let logs = session.call("debug_traceCall", json!([{"to": contract}, "latest", config]));
    assert_eq!(logs["returnValue"], format!("0x{:0>64}", "1234"), "{logs}");
}

#[test]
fn bad_trace_requests_get_clear_errors() {
    let local = server();
    let session = local.session();
    let receipt = send(&session, json!({"to": format!("{:#x}", Address::repeat_byte(9)), "value": "0x1"}));
    let hash = &receipt["transactionHash"];
    let error = |method: &str, params: Value| session.call_error(method, params);
    let unknown = error("debug_traceTransaction", json!([hash, {"tracer": "jsTracer"}]));
    assert_eq!(unknown["code"], -32602);
    assert!(unknown["message"].as_str().unwrap().contains("tracer not found: \"jsTracer\""), "{unknown}");
    let misplaced = error("debug_traceTransaction", json!([hash, {"tracer": "callTracer", "enableMemory": true}]));
    assert!(misplaced["message"].as_str().unwrap().contains("enableMemory"), "{misplaced}");
    let config = json!({"tracer": "prestateTracer", "tracerConfig": {"onlyTopCall": true}});
    let wrong_option = error("debug_traceTransaction", json!([hash, config]));
    assert!(wrong_option["message"].as_str().unwrap().contains("onlyTopCall"), "{wrong_option}");
    let typo = error("debug_traceTransaction", json!([hash, {"tracerr": "callTracer"}]));
    assert_eq!(typo["code"], -32602, "{typo}");
    let timeout = error("debug_traceTransaction", json!([hash, {"timeout": "five seconds"}]));
    assert!(timeout["message"].as_str().unwrap().contains("timeout"), "{timeout}");
    let overrides = error("debug_traceTransaction", json!([hash, {"stateOverrides": {}}]));
    assert!(overrides["message"].as_str().unwrap().contains("debug_traceCall only"), "{overrides}");
    let nothing = format!("{:#066x}", 1);
    assert_eq!(
        error("debug_traceTransaction", json!([nothing])),
        json!({"code": -32000, "message": "transaction not found"})
    );
    let genesis = error("debug_traceBlockByNumber", json!(["0x0"]));
    assert_eq!(genesis, json!({"code": -32000, "message": "genesis is not traceable"}));
    let unknown_block = error("debug_traceBlockByHash", json!([nothing]));
    assert_eq!(unknown_block["code"], -32000, "{unknown_block}");
    // Block overrides only eth_simulateV1 takes are refused, as geth refuses them.
    let call = json!({"to": format!("{:#x}", Address::repeat_byte(9))});
    let beacon = json!({"blockOverrides": {"beaconRoot": nothing}});
    let refused = error("debug_traceCall", json!([call, "latest", beacon]));
    assert_eq!(refused["code"], -32602, "{refused}");
    assert!(refused["message"].as_str().unwrap().contains("\"beaconRoot\" is not supported"), "{refused}");
}

#[test]
fn a_trace_past_its_timeout_or_its_size_ends_with_geths_error() {
    let local = server();
    let session = local.session();
    // JUMPDEST PUSH1 0 JUMP: a loop that ends only at the gas cap.
    let looping = json!({"0x00000000000000000000000000000000000000c1": {"code": "0x5b600056"}});
    let call = json!({"to": "0x00000000000000000000000000000000000000c1"});
    let config = json!({"tracer": "callTracer", "timeout": "50ms", "stateOverrides": looping});
    let timed_out = session.call_error("debug_traceCall", json!([call, "latest", config]));
    assert_eq!(timed_out, json!({"code": -32000, "message": "execution timeout"}));
    let config = json!({"stateOverrides": looping});
    let too_large = session.call_error("debug_traceCall", json!([call, "latest", config]));
    assert_eq!(too_large["code"], -32000);
    assert!(too_large["message"].as_str().unwrap().contains("more than 100000 steps"), "{too_large}");
    // A plain transfer runs no code: nothing to log, and no time to run out of.
    let receipt = send(&session, json!({"to": format!("{:#x}", Address::repeat_byte(9)), "value": "0x1"}));
    let short = session.call("debug_traceTransaction", json!([receipt["transactionHash"], {"timeout": "0s"}]));
    assert_eq!((&short["structLogs"], &short["gas"]), (&json!([]), &json!(21_000)), "{short}");
}
