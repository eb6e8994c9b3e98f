//! Parity's `trace_*` on the devnet: the same replay as `debug_trace*`,
//! each call placed in its transaction's tree, localized with its block,
//! filtered by party and range, and replayed with state diffs and VM
//! traces.

use super::*;

fn parties(trace: &Value) -> (&Value, &Value, &Value) {
    (&trace["action"]["from"], &trace["action"]["to"], &trace["traceAddress"])
}

#[test]
fn a_transactions_calls_are_listed_in_their_tree_with_their_block() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, paid } = withdrawal(&session);
    let hash = &receipt["transactionHash"];
    let traces = session.call("trace_transaction", json!([hash]));
    let [top, inner, payment] = traces.as_array().unwrap().as_slice() else { panic!("three calls: {traces}") };
    assert_eq!(parties(top), (&json!(sender()), &json!(forwarder), &json!([])));
    assert_eq!(parties(inner), (&json!(forwarder), &json!(weth), &json!([0])));
    assert_eq!(parties(payment), (&json!(weth), &json!(forwarder), &json!([0, 0])));
    assert_eq!([&top["subtraces"], &inner["subtraces"], &payment["subtraces"]], [&json!(1), &json!(1), &json!(0)]);
    assert_eq!(payment["action"]["value"], hex(paid));
    for trace in [top, inner, payment] {
        assert_eq!((&trace["type"], &trace["action"]["callType"]), (&json!("call"), &json!("call")), "{trace}");
        assert_eq!(trace["transactionHash"], *hash);
        assert_eq!(trace["blockHash"], receipt["blockHash"]);
        assert_eq!(trace["blockNumber"], block_of(&receipt));
        assert_eq!(trace["transactionPosition"], 0);
        assert!(trace["result"]["gasUsed"].is_string(), "{trace}");
    }
    // The block's calls are its one transaction's.
    assert_eq!(session.call("trace_block", json!([receipt["blockNumber"]])), traces);

    // A creation names the contract it made.
    let created = send(&session, json!({"data": FORWARDER_INIT}));
    let creation = session.call("trace_transaction", json!([created["transactionHash"]]));
    let [creation] = creation.as_array().unwrap().as_slice() else { panic!("one creation: {creation}") };
    assert_eq!(creation["type"], "create");
    assert_eq!(creation["action"]["init"], FORWARDER_INIT);
    assert_eq!(
        (&creation["result"]["address"], &creation["result"]["code"]),
        (&created["contractAddress"], &json!(FORWARDER_RUNTIME))
    );

    // Nothing mined has the hash: null, as for a block after the latest.
    assert_eq!(session.call("trace_transaction", json!([format!("{:#066x}", 1)])), Value::Null);
    let after = format!("{:#x}", block_of(&created) + 1);
    assert_eq!(session.call("trace_block", json!([after])), Value::Null);
    assert_eq!(session.call("trace_block", json!(["0x0"])), json!([]));
}

#[test]
fn a_generated_blocks_calls_are_the_frames_geth_s_call_tracer_sees() {
    let local = server();
    let session = local.session();
    let mut compared = 0;
    for number in 1..=30u64 {
        let block = format!("{number:#x}");
        let parity = session.call("trace_block", json!([block]));
        let geth = session.call("debug_traceBlockByNumber", json!([block, {"tracer": "callTracer"}]));
        for (position, trace) in geth.as_array().unwrap().iter().enumerate() {
            let listed: Vec<_> =
                parity.as_array().unwrap().iter().filter(|call| call["transactionPosition"] == position).collect();
            let mut frames = 0;
            count_frames(&trace["result"], &mut frames);
            assert_eq!(listed.len(), frames, "block {number}, transaction {position}");
            assert!(listed.iter().all(|call| call["transactionHash"] == trace["txHash"]));
            compared += 1;
        }
    }
    assert!(compared > 30, "only {compared} transactions compared");
}

fn count_frames(frame: &Value, frames: &mut usize) {
    *frames += 1;
    for call in calls(frame) {
        count_frames(call, frames);
    }
}

#[test]
fn a_filter_keeps_the_calls_of_its_range_and_parties() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, .. } = withdrawal(&session);
    let block = &receipt["blockNumber"];
    let filter = |extra: Value| {
        let mut filter = json!({"fromBlock": block, "toBlock": block});
        filter.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        let traces = session.call("trace_filter", json!([filter]));
        traces.as_array().unwrap().iter().map(|trace| trace["traceAddress"].clone()).collect::<Vec<_>>()
    };
    assert_eq!(filter(json!({})), [json!([]), json!([0]), json!([0, 0])]);
    assert_eq!(filter(json!({"fromAddress": [weth]})), [json!([0, 0])]);
    assert_eq!(filter(json!({"toAddress": [forwarder]})), [json!([]), json!([0, 0])]);
    assert_eq!(filter(json!({"fromAddress": [weth], "toAddress": [forwarder]})), [json!([0, 0])]);
    let union = json!({"fromAddress": [sender()], "toAddress": [weth], "mode": "union"});
    assert_eq!(filter(union), [json!([]), json!([0])]);
    assert_eq!(filter(json!({"after": 1, "count": 1})), [json!([0])]);
    assert_eq!(filter(json!({"after": 5})), Vec::<Value>::new());
    // A range may reach past the newest block, where there is nothing yet.
    let past = json!([{"fromBlock": block, "toBlock": format!("{:#x}", block_of(&receipt) + 50)}]);
    assert_eq!(session.call("trace_filter", past).as_array().unwrap().len(), 3);
    let range = json!([{"fromBlock": "0x1", "toBlock": "0x64", "toAddress": [forwarder]}]);
    assert!(session.call("trace_filter", range).as_array().unwrap().len() <= 2);

    let error = |filter: Value| session.call_error("trace_filter", json!([filter]));
    let wide = error(json!({"fromBlock": "0x0", "toBlock": "0x64"}));
    assert_eq!(wide["code"], -32602);
    assert!(wide["message"].as_str().unwrap().contains("spans 101 blocks"), "{wide}");
    let backwards = error(json!({"fromBlock": "0x5", "toBlock": "0x4"}));
    assert!(backwards["message"].as_str().unwrap().contains("fromBlock 0x5 is after toBlock 0x4"), "{backwards}");
    let many: Vec<_> = (0..1001u64).map(|n| format!("{n:#042x}")).collect();
    let crowded = error(json!({"fromBlock": block, "toBlock": block, "fromAddress": many}));
    assert!(crowded["message"].as_str().unwrap().contains("filter.fromAddress: 1001 addresses"), "{crowded}");
    let typo = error(json!({"fromBlock": block, "form": "0x1"}));
    assert_eq!(typo["code"], -32602, "{typo}");
}

#[test]
fn a_replay_records_the_state_it_changed_and_each_instruction() {
    let local = server();
    let session = local.session();
    let Withdrawal { weth, forwarder, receipt, paid } = withdrawal(&session);
    let hash = &receipt["transactionHash"];
    let everything = session.call("trace_replayTransaction", json!([hash, ["trace", "stateDiff", "vmTrace"]]));
    assert_eq!(everything["output"], "0x");
    let localized = session.call("trace_transaction", json!([hash]));
    assert_eq!(everything["trace"].as_array().unwrap().len(), localized.as_array().unwrap().len());
    assert!(everything["trace"][0].get("blockHash").is_none(), "{}", everything["trace"][0]);
    // WETH's ether went down by what it paid; the forwarder's up.
    let balance = |account: &str, side: &str| {
        let change = &everything["stateDiff"][account]["balance"]["*"][side];
        U256::from_str_radix(&change.as_str().unwrap_or_else(|| panic!("{account}: {everything}"))[2..], 16).unwrap()
    };
    assert_eq!(balance(&weth, "from") - balance(&weth, "to"), paid);
    assert_eq!(balance(&forwarder, "to") - balance(&forwarder, "from"), paid);
    assert_eq!(everything["stateDiff"][&weth]["code"], "=");
    // The VM trace starts in the forwarder's code and steps into WETH's.
    let vm = &everything["vmTrace"];
    assert_eq!(vm["code"], FORWARDER_RUNTIME);
    let ops = vm["ops"].as_array().unwrap();
    assert!(ops.iter().any(|op| op["sub"]["ops"].as_array().is_some_and(|sub| !sub.is_empty())), "{vm}");

    // What is not asked for is not recorded.
    let calls_only = session.call("trace_replayTransaction", json!([hash, ["trace"]]));
    assert_eq!((&calls_only["stateDiff"], &calls_only["vmTrace"]), (&Value::Null, &Value::Null));
    assert_eq!(calls_only["trace"], everything["trace"]);
    let diff_only = session.call("trace_replayTransaction", json!([hash, ["stateDiff", "stateDiff"]]));
    assert_eq!((&diff_only["trace"], &diff_only["stateDiff"]), (&json!([]), &everything["stateDiff"]));

    let nothing = format!("{:#066x}", 1);
    let unknown = session.call_error("trace_replayTransaction", json!([nothing, ["trace"]]));
    assert_eq!(unknown, json!({"code": -32000, "message": "transaction not found"}));
    let bogus = session.call_error("trace_replayTransaction", json!([hash, ["bogus"]]));
    assert_eq!(bogus["code"], -32602);
    assert!(bogus.to_string().contains("bogus"), "{bogus}");
}

#[test]
fn a_call_is_traced_over_the_state_of_its_block() {
    let local = server();
    let session = local.session();
    let payee = format!("{:#x}", Address::repeat_byte(0x77));
    let request = json!({"from": sender(), "to": payee, "value": "0x5"});
    let answer = session.call("trace_call", json!([request, ["trace", "stateDiff"], "latest"]));
    assert_eq!(answer["stateDiff"][&payee]["balance"], json!({"+": "0x5"}), "{answer}");
    let [transfer] = answer["trace"].as_array().unwrap().as_slice() else { panic!("one call: {answer}") };
    assert_eq!((&transfer["action"]["to"], &transfer["action"]["value"]), (&json!(payee), &json!("0x5")));
    assert_eq!(answer["vmTrace"], Value::Null);
    // A contract's output, and the latest block when none is named.
    let weth = deploy_weth(&session);
    let name = WrappedNative::nameCall {}.abi_encode();
    let call = json!({"to": weth, "data": format!("0x{}", alloy_primitives::hex::encode(name))});
    let named = session.call("trace_call", json!([call, ["vmTrace"]]));
    let output = named["output"].as_str().unwrap();
    let decoded = WrappedNative::nameCall::abi_decode_returns(&alloy_primitives::hex::decode(output).unwrap());
    assert_eq!(decoded.unwrap(), "Wrapped");
    assert!(!named["vmTrace"]["ops"].as_array().unwrap().is_empty());
    // At a block before the contract was made, there is nothing to call.
    let before = session.call("trace_call", json!([call, ["trace"], "0x1"]));
    assert_eq!(before["output"], "0x");
    let looping = json!({"to": "0x00000000000000000000000000000000000000c1"});
    let error = session.call_error("trace_call", json!([looping, ["trace"], "0xffffffff"]));
    assert_eq!(error["code"], -32602, "{error}");
}
