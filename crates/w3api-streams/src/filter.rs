//! `advancedOptions` filters: conditions on an event's decoded parameters,
//! written as production writes them, such as `{"gt": ["value", "1000"]}`,
//! `{"in": ["from", ["0xab…", "0xcd…"]]}` or `{"and": [{…}, {…}]}`.

use std::collections::HashMap;

use alloy_dyn_abi::DynSolValue;
use alloy_primitives::{I256, U256};
use serde_json::{Map, Value};

/// A parsed filter.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Filter {
    /// Every one holds.
    All(Vec<Filter>),
    /// At least one holds.
    Any(Vec<Filter>),
    /// The parameter compares so with the value.
    Compare { op: Compare, field: String, value: String },
    /// The parameter is (or, negated, is not) one of the values.
    Member { negated: bool, field: String, values: Vec<String> },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Compare {
    Eq,
    Ne,
    Lt,
    Gt,
    Lte,
    Gte,
}

const OPERATORS: &str = "eq, ne, lt, gt, lte, gte, in, nin, and, or";

impl Filter {
    /// Reads a filter object; the error names what is wrong, for a message
    /// prefixed with where the filter is.
    pub(crate) fn parse(filter: &Map<String, Value>, fields: &[String]) -> Result<Filter, String> {
        let [(operator, operand)] = filter.iter().collect::<Vec<_>>()[..] else {
            return Err(format!("a filter has one operator ({OPERATORS}), this has {}", filter.len()));
        };
        let field = |name: &Value| -> Result<String, String> {
            let name = name.as_str().ok_or("the first operand is a parameter name")?;
            if !fields.is_empty() && !fields.iter().any(|f| f == name) {
                return Err(format!("{name:?} is not a parameter of the event (it has {})", fields.join(", ")));
            }
            Ok(name.to_owned())
        };
        let pair = |operand: &Value| match operand.as_array().map(Vec::as_slice) {
            Some([name, value]) => Ok((name.clone(), value.clone())),
            _ => Err(format!("{operator}: the operand is [parameter, value]")),
        };
        let op = match operator.as_str() {
            "and" | "or" => {
                let parts = operand.as_array().ok_or(format!("{operator}: the operand is a list of filters"))?;
                let parts = parts
                    .iter()
                    .map(|part| {
                        part.as_object()
                            .ok_or_else(|| format!("{operator}: a part is not a filter object"))
                            .and_then(|part| Filter::parse(part, fields))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                return Ok(if operator == "and" { Filter::All(parts) } else { Filter::Any(parts) });
            }
            "in" | "nin" => {
                let (name, values) = pair(operand)?;
                let values = values
                    .as_array()
                    .ok_or(format!("{operator}: the value is a list"))?
                    .iter()
                    .map(scalar)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("{operator}: {e}"))?;
                return Ok(Filter::Member { negated: operator == "nin", field: field(&name)?, values });
            }
            "eq" => Compare::Eq,
            "ne" => Compare::Ne,
            "lt" => Compare::Lt,
            "gt" => Compare::Gt,
            "lte" => Compare::Lte,
            "gte" => Compare::Gte,
            other => return Err(format!("unknown operator {other:?} (known: {OPERATORS})")),
        };
        let (name, value) = pair(operand)?;
        Ok(Filter::Compare { op, field: field(&name)?, value: scalar(&value).map_err(|e| format!("{operator}: {e}"))? })
    }

    /// Whether the event's parameters pass.
    pub(crate) fn holds(&self, params: &HashMap<String, DynSolValue>) -> bool {
        match self {
            Filter::All(parts) => parts.iter().all(|part| part.holds(params)),
            Filter::Any(parts) => parts.iter().any(|part| part.holds(params)),
            Filter::Compare { op, field, value } => {
                params.get(field).and_then(|param| compare(param, value)).is_some_and(|order| op.accepts(order))
            }
            Filter::Member { negated, field, values } => {
                let Some(param) = params.get(field) else { return false };
                let found = values.iter().any(|value| compare(param, value) == Some(std::cmp::Ordering::Equal));
                found != *negated
            }
        }
    }
}

impl Compare {
    fn accepts(self, order: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        match self {
            Compare::Eq => order == Equal,
            Compare::Ne => order != Equal,
            Compare::Lt => order == Less,
            Compare::Gt => order == Greater,
            Compare::Lte => order != Greater,
            Compare::Gte => order != Less,
        }
    }
}

/// A filter value as text: numbers may be sent as JSON numbers or strings.
fn scalar(value: &Value) -> Result<String, String> {
    match value {
        Value::String(text) => Ok(text.clone()),
        Value::Number(number) => Ok(number.to_string()),
        Value::Bool(flag) => Ok(flag.to_string()),
        other => Err(format!("{other} is not a string, number or boolean")),
    }
}

/// How a decoded parameter orders against a filter value; `None` when the
/// value is not of the parameter's kind (so the condition fails).
fn compare(param: &DynSolValue, value: &str) -> Option<std::cmp::Ordering> {
    match param {
        DynSolValue::Uint(number, _) => Some(number.cmp(&parse_uint(value)?)),
        DynSolValue::Int(number, _) => Some(number.cmp(&value.parse::<I256>().ok()?)),
        DynSolValue::Address(address) => Some(address.to_string().to_lowercase().cmp(&value.to_lowercase())),
        DynSolValue::Bool(flag) => Some(flag.cmp(&value.parse::<bool>().ok()?)),
        DynSolValue::String(text) => Some(text.as_str().cmp(value)),
        DynSolValue::FixedBytes(word, size) => {
            let hex = format!("0x{}", alloy_primitives::hex::encode(&word[..*size]));
            Some(hex.cmp(&value.to_lowercase()))
        }
        _ => None,
    }
}

fn parse_uint(value: &str) -> Option<U256> {
    match value.strip_prefix("0x") {
        Some(hex) => U256::from_str_radix(hex, 16).ok(),
        None => U256::from_str_radix(value, 10).ok(),
    }
}

#[cfg(test)]
mod tests {
    use alloy_primitives::Address;
    use serde_json::json;

    use super::*;

    fn parse(filter: Value) -> Result<Filter, String> {
        let fields = ["from", "to", "value"].map(String::from);
        Filter::parse(filter.as_object().unwrap(), &fields)
    }

    fn transfer(value: u64) -> HashMap<String, DynSolValue> {
        let from = Address::repeat_byte(0xab);
        HashMap::from([
            ("from".into(), DynSolValue::Address(from)),
            ("to".into(), DynSolValue::Address(Address::repeat_byte(0xcd))),
            ("value".into(), DynSolValue::Uint(U256::from(value), 256)),
        ])
    }

    #[test]
    fn comparisons_read_numbers_in_decimal_or_hex_and_addresses_in_any_case() {
        let big = parse(json!({"gt": ["value", "1000"]})).unwrap();
        assert!(big.holds(&transfer(1001)) && !big.holds(&transfer(1000)));
        assert!(parse(json!({"gte": ["value", 1000]})).unwrap().holds(&transfer(1000)));
        assert!(parse(json!({"eq": ["value", "0x3e8"]})).unwrap().holds(&transfer(1000)));
        let sender = format!("{:#x}", Address::repeat_byte(0xab)).to_uppercase().replacen("0X", "0x", 1);
        assert!(parse(json!({"eq": ["from", sender]})).unwrap().holds(&transfer(1)));
        assert!(!parse(json!({"eq": ["value", "not a number"]})).unwrap().holds(&transfer(1)));
    }

    #[test]
    fn lists_and_combinations() {
        let receivers =
            json!(["0x1111111111111111111111111111111111111111", format!("{:#x}", Address::repeat_byte(0xcd))]);
        assert!(parse(json!({"in": ["to", receivers]})).unwrap().holds(&transfer(1)));
        assert!(!parse(json!({"nin": ["to", receivers]})).unwrap().holds(&transfer(1)));
        let both = parse(json!({"and": [{"gt": ["value", 5]}, {"lt": ["value", 10]}]})).unwrap();
        assert!(both.holds(&transfer(7)) && !both.holds(&transfer(11)));
        let either = parse(json!({"or": [{"lt": ["value", 5]}, {"gt": ["value", 10]}]})).unwrap();
        assert!(either.holds(&transfer(11)) && !either.holds(&transfer(7)));
    }

    #[test]
    fn a_bad_filter_says_what_is_wrong() {
        assert!(parse(json!({"between": ["value", 1]})).unwrap_err().contains("unknown operator \"between\""));
        assert!(parse(json!({"eq": ["amount", 1]})).unwrap_err().contains("\"amount\" is not a parameter"));
        assert!(parse(json!({"eq": ["value"]})).unwrap_err().contains("[parameter, value]"));
        assert!(parse(json!({"eq": ["value", 1], "gt": ["value", 2]})).unwrap_err().contains("one operator"));
        assert!(parse(json!({"in": ["to", "0x1"]})).unwrap_err().contains("is a list"));
    }
}
