//! Calls and logs decoded by the ABIs of the devnet's contracts: an ERC20,
//! the wrapped native token, an ERC721, an ERC1155, Uniswap V2's factory,
//! pair and router, and the marketplace. Their events and functions are the
//! standard ones, so a contract of anyone else's that follows the same
//! standard decodes too. Besides them, the access-control and pause events
//! that the most deployed token bases emit (roles granted at deployment,
//! pauses), which the devnet's own contracts do not have.

use std::collections::HashMap;
use std::sync::LazyLock;

use alloy_dyn_abi::{DynSolValue, EventExt, JsonAbiExt};
use alloy_json_abi::{Event, Function, JsonAbi};
use alloy_primitives::{B256, Selector};

/// A decoded call or event: its signature, name and parameters.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded {
    /// Such as `Transfer(address,address,uint256)`.
    pub signature: String,
    /// The function's or event's name.
    pub name: String,
    /// Each parameter: its name, its value as text and its Solidity type.
    pub params: Vec<(String, String, String)>,
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

/// Every event and function of the known ABIs, by topic and by selector;
/// one signature may have several forms (ERC20's and ERC721's `Transfer`
/// differ in which parameters are indexed).
struct Known {
    events: HashMap<B256, Vec<Event>>,
    functions: HashMap<Selector, Vec<Function>>,
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
            if !forms.contains(event) {
                forms.push(event.clone());
            }
        }
        for function in abi.functions() {
            let forms = known.functions.entry(function.selector()).or_default();
            if !forms.iter().any(|f| f.signature() == function.signature()) {
                forms.push(function.clone());
            }
        }
    }
    known
});

/// The event a log records, where a known ABI has one whose topics and data
/// it fits; `None` otherwise.
pub fn event(topics: &[B256], data: &[u8]) -> Option<Decoded> {
    let forms = KNOWN.events.get(topics.first()?)?;
    forms.iter().find_map(|event| {
        let decoded = event.decode_log_parts(topics.iter().copied(), data).ok()?;
        let (mut indexed, mut body) = (decoded.indexed.into_iter(), decoded.body.into_iter());
        let params = event
            .inputs
            .iter()
            .map(|input| {
                let value = if input.indexed { indexed.next() } else { body.next() }?;
                Some((input.name.clone(), text(&value), input.ty.clone()))
            })
            .collect::<Option<Vec<_>>>()?;
        Some(Decoded { signature: event.signature(), name: event.name.clone(), params })
    })
}

/// The function a call's input calls, where a known ABI has one whose
/// arguments it fits; `None` otherwise (a plain transfer of ether, say).
pub fn call(input: &[u8]) -> Option<Decoded> {
    let selector = Selector::try_from(input.get(..4)?).ok()?;
    let forms = KNOWN.functions.get(&selector)?;
    forms.iter().find_map(|function| {
        let values = function.abi_decode_input(&input[4..]).ok()?;
        let params = function
            .inputs
            .iter()
            .zip(&values)
            .map(|(input, value)| (input.name.clone(), text(value), input.ty.clone()))
            .collect();
        Some(Decoded { signature: function.signature(), name: function.name.clone(), params })
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
