//! `console.log` from Solidity: Hardhat's `console.sol` (which Foundry's
//! `console.sol` follows) calls a contract-less address
//! ([`w3api_chain::CONSOLE`]) with the ABI
//! encoding of `log(...)`, and a dev node prints what it was given. The
//! devnet writes each to its log, as Anvil prints them.
//!
//! The selectors are those `console.sol` declares, worked out from its
//! rules rather than listed: `log()`; `log`, and `logUint`, `logInt`,
//! `logString`, `logBool`, `logAddress`, `logBytes` and `logBytes1` to
//! `logBytes32`, of one value; and `log` of two to four values, each a
//! `uint256`, `string`, `bool` or `address`. Older versions of the library
//! spelled `uint256` as `uint` when they took the selector, so both are
//! known.

use std::collections::HashMap;
use std::sync::LazyLock;

use alloy_dyn_abi::{DynSolType, DynSolValue};
use alloy_primitives::{B256, Bytes, keccak256};

/// The values of every `console.sol` function, by selector.
static FUNCTIONS: LazyLock<HashMap<[u8; 4], Vec<DynSolType>>> = LazyLock::new(|| {
    let mut functions = HashMap::new();
    let mut add = |name: &str, types: Vec<DynSolType>| {
        let names: Vec<String> =
            types.iter().map(DynSolType::sol_type_name).map(std::borrow::Cow::into_owned).collect();
        for spelling in [names.join(","), names.join(",").replace("uint256", "uint")] {
            let selector = keccak256(format!("{name}({spelling})"));
            functions.insert([selector[0], selector[1], selector[2], selector[3]], types.clone());
        }
    };
    add("log", Vec::new());
    let singles = [
        ("logUint", DynSolType::Uint(256)),
        ("logInt", DynSolType::Int(256)),
        ("logString", DynSolType::String),
        ("logBool", DynSolType::Bool),
        ("logAddress", DynSolType::Address),
        ("logBytes", DynSolType::Bytes),
        ("log", DynSolType::Int(256)),
        ("log", DynSolType::Bytes),
    ];
    for (name, kind) in singles {
        add(name, vec![kind]);
    }
    for size in 1..=32 {
        add(&format!("logBytes{size}"), vec![DynSolType::FixedBytes(size)]);
    }
    let kinds = [DynSolType::Uint(256), DynSolType::String, DynSolType::Bool, DynSolType::Address];
    let mut combinations: Vec<Vec<DynSolType>> = vec![Vec::new()];
    for _ in 1..=4 {
        combinations = combinations
            .iter()
            .flat_map(|before| kinds.iter().map(move |kind| [before.clone(), vec![kind.clone()]].concat()))
            .collect();
        for types in &combinations {
            add("log", types.clone());
        }
    }
    functions
});

/// Writes to the log what transaction `transaction`'s calls to the console
/// address print, in order.
pub(crate) fn print(transaction: &B256, inputs: &[Bytes]) {
    for input in inputs {
        match message(input) {
            Some(message) => tracing::info!(target: "console", %transaction, "{message}"),
            None => tracing::debug!(%transaction, %input, "a call to the console address that is no console.log"),
        }
    }
}

/// What a call to the console address with `input` prints; `None` for an
/// input that is no `console.sol` function's.
pub(crate) fn message(input: &[u8]) -> Option<String> {
    let (selector, arguments) = input.split_first_chunk::<4>()?;
    let types = FUNCTIONS.get(selector)?;
    let values = DynSolType::Tuple(types.clone()).abi_decode_params(arguments).ok()?;
    let DynSolValue::Tuple(values) = values else { return None };
    Some(formatted(&values))
}

/// The values as `console.log` prints them: a first string's `%s`, `%d`,
/// `%i`, `%x` and `%o` take the values after it in turn (`%%` is a percent
/// sign), and the values left over follow, each after a space.
fn formatted(values: &[DynSolValue]) -> String {
    let mut rest = values.iter();
    let mut out = match values.first() {
        Some(DynSolValue::String(format)) => {
            rest.next();
            substituted(format, &mut rest)
        }
        _ => String::new(),
    };
    for value in rest {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&shown(value, 's'));
    }
    out
}

fn substituted<'a>(format: &str, values: &mut impl Iterator<Item = &'a DynSolValue>) -> String {
    let mut out = String::with_capacity(format.len());
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek().copied()) {
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('%', Some(spec @ ('s' | 'd' | 'i' | 'x' | 'o'))) => match values.next() {
                Some(value) => {
                    chars.next();
                    out.push_str(&shown(value, spec));
                }
                None => out.push('%'),
            },
            _ => out.push(c),
        }
    }
    out
}

/// One value, as `spec` asks.
fn shown(value: &DynSolValue, spec: char) -> String {
    match (value, spec) {
        (DynSolValue::Uint(n, _), 'x') => format!("{n:#x}"),
        (DynSolValue::Int(n, _), 'x') => format!("{:#x}", n.into_raw()),
        (DynSolValue::Uint(n, _), _) => n.to_string(),
        (DynSolValue::Int(n, _), _) => n.to_string(),
        (DynSolValue::Bool(b), _) => b.to_string(),
        (DynSolValue::Address(a), _) => a.to_checksum(None),
        (DynSolValue::String(s), _) => s.clone(),
        (DynSolValue::Bytes(b), _) => alloy_primitives::hex::encode_prefixed(b),
        (DynSolValue::FixedBytes(word, size), _) => alloy_primitives::hex::encode_prefixed(&word[..*size]),
        (other, _) => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::{U256, address};

    use super::*;

    fn call(signature: &str, values: Vec<DynSolValue>) -> Vec<u8> {
        let mut input = keccak256(signature)[..4].to_vec();
        input.extend(DynSolValue::Tuple(values).abi_encode_params());
        input
    }

    #[test]
    fn each_kind_of_console_call_is_printed_as_anvil_prints_it() {
        let holder = address!("0x00000000000000000000000000000000000000aa");
        let text = |s: &str| DynSolValue::String(s.into());
        let number = |n: u64| DynSolValue::Uint(U256::from(n), 256);
        assert_eq!(message(&call("log()", vec![])).as_deref(), Some(""));
        assert_eq!(message(&call("log(string)", vec![text("hello")])).as_deref(), Some("hello"));
        let formatted =
            call("log(string,uint256,address)", vec![text("%s of %%%d"), number(7), DynSolValue::Address(holder)]);
        assert_eq!(message(&formatted).as_deref(), Some(&*format!("7 of %{}", holder.to_checksum(None))));
        let spelled = call("log(uint,bool)", vec![number(3), DynSolValue::Bool(true)]);
        assert_eq!(message(&spelled).as_deref(), Some("3 true"), "the older selector spelling");
        let word = DynSolValue::FixedBytes(B256::repeat_byte(0xab), 2);
        assert_eq!(message(&call("logBytes2(bytes2)", vec![word])).as_deref(), Some("0xabab"));
        let four = call(
            "log(address,string,bool,uint256)",
            vec![DynSolValue::Address(holder), text("x"), DynSolValue::Bool(false), number(1)],
        );
        assert!(message(&four).is_some_and(|m| m.ends_with(" x false 1")));
    }

    #[test]
    fn other_input_prints_nothing() {
        assert_eq!(message(&[1, 2]), None, "shorter than a selector");
        assert_eq!(message(&call("transfer(address,uint256)", vec![])), None, "not a console function");
        assert_eq!(message(&keccak256("log(string)")[..4]), None, "arguments that do not decode");
    }
}
