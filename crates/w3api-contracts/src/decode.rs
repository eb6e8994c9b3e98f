//! Calls and logs decoded by the ABIs of the devnet's contracts: an ERC20,
//! the wrapped native token, an ERC721, an ERC1155, Uniswap V2's factory,
//! pair and router, and the marketplace. Their events and functions are the
//! standard ones, so a contract of anyone else's that follows the same
//! standard decodes too. Besides them, the access-control and pause events
//! that the most deployed token bases emit (roles granted at deployment,
//! pauses), which the devnet's own contracts do not have.

use std::collections::HashMap;
use std::sync::LazyLock;

use alloy_dyn_abi::{DynSolEvent, DynSolType, DynSolValue, Specifier};
use alloy_json_abi::{Event, Function, JsonAbi};
use alloy_primitives::{B256, Selector};

/// A decoded call or event: its signature, name and parameters. What the
/// ABI says is borrowed from the known ABIs, kept for the process's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Such as `Transfer(address,address,uint256)`.
    pub signature: &'static str,
    /// The function's or event's name.
    pub name: &'static str,
    /// Each parameter: its name, its value as text and its Solidity type.
    pub params: Vec<(&'static str, String, &'static str)>,
}

alloy_sol_types::sol! {
    /// Events of the common role-based access control and pausing, by their
    /// standard signatures.
    #[sol(abi)]
    interface StandardEvents {
        event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender);
        event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender);
        event RoleAdminChanged(bytes32 indexed role, bytes32 indexed previousAdminRole, bytes32 indexed newAdminRole);
        event Paused(address account);
        event Unpaused(address account);
    }
}

/// An event of the known ABIs, its types resolved once: resolving them
/// (parsing each type, hashing the signature) costs more than decoding a
/// log, and a page of history decodes hundreds.
struct KnownEvent {
    event: Event,
    signature: String,
    resolved: DynSolEvent,
}

/// A function of the known ABIs, its parameters resolved once as a tuple.
struct KnownFunction {
    function: Function,
    signature: String,
    inputs: DynSolType,
}

/// Every event and function of the known ABIs, by topic and by selector;
/// one signature may have several forms (ERC20's and ERC721's `Transfer`
/// differ in which parameters are indexed).
struct Known {
    events: HashMap<B256, Vec<KnownEvent>>,
    functions: HashMap<Selector, Vec<KnownFunction>>,
}

static KNOWN: LazyLock<Known> = LazyLock::new(|| {
    let abis: [JsonAbi; 9] = [
        crate::Token::abi::contract(),
        crate::WrappedNative::abi::contract(),
        crate::Collectible::abi::contract(),
        crate::MultiToken::abi::contract(),
        crate::Factory::abi::contract(),
        crate::Pair::abi::contract(),
        crate::Router::abi::contract(),
        crate::Marketplace::abi::contract(),
        StandardEvents::abi::contract(),
    ];
    let mut known = Known { events: HashMap::new(), functions: HashMap::new() };
    for abi in abis {
        for event in abi.events().filter(|e| !e.anonymous) {
            let forms = known.events.entry(event.selector()).or_default();
            if !forms.iter().any(|known| known.event == *event) {
                let resolved = event.resolve().expect("the known ABIs' types resolve");
                forms.push(KnownEvent { event: event.clone(), signature: event.signature(), resolved });
            }
        }
        for function in abi.functions() {
            let forms = known.functions.entry(function.selector()).or_default();
            let signature = function.signature();
            if !forms.iter().any(|f| f.signature == signature) {
                let types = function.inputs.iter().map(|p| p.resolve().expect("the known ABIs' types resolve"));
                let inputs = DynSolType::Tuple(types.collect());
                forms.push(KnownFunction { function: function.clone(), signature, inputs });
            }
        }
    }
    known
});

/// The event a log records, where a known ABI has one whose topics and data
/// it fits; `None` otherwise.
pub fn event(topics: &[B256], data: &[u8]) -> Option<Decoded> {
    let forms = KNOWN.events.get(topics.first()?)?;
    forms.iter().find_map(|known| {
        let decoded = known.resolved.decode_log_parts(topics.iter().copied(), data).ok()?;
        let (mut indexed, mut body) = (decoded.indexed.into_iter(), decoded.body.into_iter());
        let params = known
            .event
            .inputs
            .iter()
            .map(|input| {
                let value = if input.indexed { indexed.next() } else { body.next() }?;
                Some((input.name.as_str(), text(&value), input.ty.as_str()))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Decoded { signature: &known.signature, name: &known.event.name, params })
    })
}

/// The function a call's input calls, where a known ABI has one whose
/// arguments it fits; `None` otherwise (a plain transfer of ether, say).
pub fn call(input: &[u8]) -> Option<Decoded> {
    let (known, values) = known_call(input)?;
    let params = known
        .function
        .inputs
        .iter()
        .zip(&values)
        .map(|(input, value)| (input.name.as_str(), text(value), input.ty.as_str()))
        .collect();
    Some(Decoded { signature: &known.signature, name: &known.function.name, params })
}

/// The name of the function a call's input calls, found as [`call`] finds
/// it, without writing out its arguments.
pub fn call_name(input: &[u8]) -> Option<&'static str> {
    known_call(input).map(|(known, _)| known.function.name.as_str())
}

/// The known function whose selector the input starts with and whose
/// arguments it fits, with the arguments.
fn known_call(input: &[u8]) -> Option<(&'static KnownFunction, Vec<DynSolValue>)> {
    let selector = Selector::try_from(input.get(..4)?).ok()?;
    KNOWN.functions.get(&selector)?.iter().find_map(|known| match known.inputs.abi_decode_params(&input[4..]) {
        Ok(DynSolValue::Tuple(values)) => Some((known, values)),
        _ => None,
    })
}

/// A value as text: numbers in decimal, addresses and bytes in lowercase
/// hex, lists and tuples as JSON arrays of those.
fn text(value: &DynSolValue) -> String {
    match value {
        DynSolValue::Bool(flag) => flag.to_string(),
        DynSolValue::Int(number, _) => number.to_string(),
        DynSolValue::Uint(number, _) => number.to_string(),
        DynSolValue::Address(address) => format!("{address:#x}"),
        DynSolValue::FixedBytes(word, size) => format!("0x{}", alloy_primitives::hex::encode(&word[..*size])),
        DynSolValue::Bytes(bytes) => format!("0x{}", alloy_primitives::hex::encode(bytes)),
        DynSolValue::String(text) => text.clone(),
        DynSolValue::Function(function) => format!("{function:#x}"),
        DynSolValue::Array(items)
        | DynSolValue::FixedArray(items)
        | DynSolValue::Tuple(items)
        | DynSolValue::CustomStruct { tuple: items, .. } => {
            // A list of strings always serializes.
            serde_json::to_string(&items.iter().map(text).collect::<Vec<_>>()).unwrap_or_default()
        }
    }
}
