//! Query strings, read exactly as the spec states them.
//!
//! Array parameters arrive as repeated keys (`a=1&a=2`), with brackets
//! (`a[]=1&a[]=2`, as axios sends them) or indexed (`a[0]=1&a[1]=2`); all
//! three are accepted. Every problem (an unknown parameter, a value of the
//! wrong type or out of range, a single-valued parameter given twice) is
//! collected with the parameter's name, and answered together as a 400.
//!
//! Names, bounds and defaults come from the generated parameter tables
//! ([`w3api_types::params`]), so they are the spec's own.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::str::FromStr;

use w3api_answers::Paging;
use w3api_answers::Window;
use w3api_answers::wallet_nfts::NftView;
use w3api_query::listing::{Order, Span};
use w3api_types::params::{Param, ParamKind};
use w3api_types::{Address, Chain, DateInput, ListingOrder, NftTokenId, TokenIdFormat, U256};

use crate::error::ApiError;

/// The parameters of one request, consumed as they are read. Names and
/// values borrow the raw query unless they were percent-encoded.
pub(crate) struct Query<'a> {
    params: BTreeMap<Cow<'a, str>, Vec<Cow<'a, str>>>,
    problems: Vec<String>,
    /// Chains outside the table the server was started for (taken by hex id).
    own_chains: &'a [Chain],
}

impl<'a> Query<'a> {
    /// Parses a raw query string.
    pub(crate) fn parse(raw: Option<&'a str>, own_chains: &'a [Chain]) -> Query<'a> {
        let mut indexed: BTreeMap<Cow<'a, str>, Vec<(u64, Cow<'a, str>)>> = BTreeMap::new();
        let mut params: BTreeMap<Cow<'a, str>, Vec<Cow<'a, str>>> = BTreeMap::new();
        let mut problems = Vec::new();
        for (key, value) in form_urlencoded::parse(raw.unwrap_or_default().as_bytes()) {
            let Some((name, index)) = array_key(&key) else {
                problems.push(format!("{key}: not a valid parameter name"));
                continue;
            };
            // The name is the start of the key.
            let name = match key {
                Cow::Borrowed(key) => Cow::Borrowed(&key[..name.len()]),
                Cow::Owned(ref key) => Cow::Owned(key[..name.len()].to_string()),
            };
            match index {
                Some(index) => indexed.entry(name).or_default().push((index, value)),
                None => params.entry(name).or_default().push(value),
            }
        }
        for (name, mut values) in indexed {
            values.sort_by_key(|(index, _)| *index);
            params.entry(name).or_default().extend(values.into_iter().map(|(_, v)| v));
        }
        Query { params, problems, own_chains }
    }

    /// The value of a single-valued parameter, if given.
    pub(crate) fn one(&mut self, param: &Param) -> Option<String> {
        self.single(param.name).map(Cow::into_owned)
    }

    fn single(&mut self, name: &str) -> Option<Cow<'a, str>> {
        let mut values = self.params.remove(name)?;
        if values.len() > 1 {
            self.problems.push(format!("{name}: given {} times; it takes one value", values.len()));
            return None;
        }
        values.pop()
    }

    /// Every value of an array parameter.
    fn many(&mut self, name: &str) -> Vec<Cow<'a, str>> {
        self.params.remove(name).unwrap_or_default()
    }

    /// Whether a problem with the parameter `name` has been recorded.
    pub(crate) fn had_problem(&self, name: &str) -> bool {
        let prefix = format!("{name}: ");
        self.problems.iter().any(|problem| problem.starts_with(&prefix))
    }

    /// Records a problem with a parameter.
    pub(crate) fn problem(&mut self, name: &str, message: impl std::fmt::Display) {
        self.problems.push(format!("{name}: {message}"));
    }

    /// A parameter parsed with `parse`, whose error says what was expected.
    fn parsed<T>(&mut self, name: &str, parse: impl FnOnce(&str) -> Result<T, String>) -> Option<T> {
        let value = self.single(name)?;
        match parse(&value) {
            Ok(parsed) => Some(parsed),
            Err(expected) => {
                self.problem(name, format_args!("{value:?} is not {expected}"));
                None
            }
        }
    }

    /// A text parameter, no shorter than the spec's `minLength`.
    pub(crate) fn text(&mut self, param: &Param) -> Option<String> {
        let least = match param.kind {
            ParamKind::Text { min_length, .. } => min_length.unwrap_or(0),
            _ => 0,
        };
        self.parsed(param.name, |v| {
            if (v.chars().count() as u64) < least {
                Err(format!("at least {least} characters long"))
            } else {
                Ok(v.to_string())
            }
        })
    }

    /// A boolean, `true` or `false`; its default when absent (false when the
    /// spec gives none).
    pub(crate) fn flag(&mut self, param: &Param) -> bool {
        self.parsed(param.name, |v| match v {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err("true or false".into()),
        })
        .or(param.default_flag())
        .unwrap_or(false)
    }

    /// A single-valued parameter read by `parse`, whose error says what
    /// was expected.
    pub(crate) fn value<T>(&mut self, param: &Param, parse: impl FnOnce(&str) -> Result<T, String>) -> Option<T> {
        self.parsed(param.name, parse)
    }

    /// A non-negative integer within the parameter's maximum, written in
    /// digits or as any JSON number that is whole (`12.0`, `1.2e1`), as
    /// clients that type the parameter a number send it.
    pub(crate) fn integer(&mut self, param: &Param) -> Option<u64> {
        let max = param.maximum().unwrap_or(u64::MAX);
        self.parsed(param.name, |v| {
            whole_number(v).filter(|n| *n <= max).ok_or_else(|| format!("an integer from 0 to {max}"))
        })
    }

    /// A number written as JSON writes numbers, not below the parameter's
    /// minimum; one too large for a float is infinite.
    pub(crate) fn number(&mut self, param: &Param) -> Option<f64> {
        let minimum = match param.kind {
            ParamKind::Number { minimum } => minimum.unwrap_or(f64::NEG_INFINITY),
            _ => f64::NEG_INFINITY,
        };
        self.parsed(param.name, |v| {
            let expected = || {
                if minimum == 0.0 {
                    "a non-negative number".to_string()
                } else if minimum.is_finite() {
                    format!("a number of at least {minimum}")
                } else {
                    "a number".to_string()
                }
            };
            if !is_json_number(v) {
                return Err(expected());
            }
            v.parse::<f64>().ok().filter(|n| *n >= minimum).ok_or_else(expected)
        })
    }

    /// A data-API chain by name or hex id; the spec's default when absent.
    pub(crate) fn chain(&mut self, param: &Param) -> Chain {
        let expected = || format!("a chain of the data API ({})", data_api_forms().join(", "));
        let own = self.own_chains;
        self.parsed(param.name, |v| data_api_chain(v, own).ok_or_else(expected))
            .or_else(|| schema_default(param).and_then(|v| data_api_chain(v, &[])))
            .unwrap_or(Chain::Eth)
    }

    /// A list of data-API chains, each once in the order given; `eth` when
    /// none is given.
    pub(crate) fn chains(&mut self, param: &Param) -> Vec<Chain> {
        let expected = || format!("a chain of the data API ({})", data_api_forms().join(", "));
        let own = self.own_chains;
        let mut chains = self.list(param, "chains", |text| data_api_chain(text, own).ok_or_else(expected));
        if chains.is_empty() {
            chains.push(Chain::Eth);
        }
        let mut seen = Vec::with_capacity(chains.len());
        chains.retain(|chain| !seen.contains(chain) && (seen.push(*chain), true).1);
        chains
    }

    /// A value of a component schema that parses from text (such as
    /// `TokenIdFormat`); the spec's default when absent.
    pub(crate) fn schema_value<T: FromStr<Err: std::fmt::Display>>(&mut self, param: &Param) -> Option<T> {
        let value = self.single(param.name).or_else(|| schema_default(param).map(Cow::Borrowed))?;
        match value.parse() {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                self.problem(param.name, error);
                None
            }
        }
    }

    /// An array of addresses, no more than the parameter's `maxItems`.
    pub(crate) fn addresses(&mut self, param: &Param) -> Vec<Address> {
        self.list(param, "addresses", parse_address)
    }

    /// An array of addresses that the operation requires: at least one, no
    /// more than the parameter's `maxItems`.
    pub(crate) fn required_addresses(&mut self, param: &Param) -> Vec<Address> {
        if !self.params.contains_key(param.name) {
            self.problem(param.name, "required; give at least one address");
        }
        self.addresses(param)
    }

    /// Every value of an array parameter, each read by `parse`, whose error
    /// says what was expected; no more than the parameter's `maxItems` (the
    /// problem then counts them as `items`).
    pub(crate) fn list<T>(&mut self, param: &Param, items: &str, parse: impl Fn(&str) -> Result<T, String>) -> Vec<T> {
        let (name, max) = (param.name, param.max_items().map_or(usize::MAX, |m| m as usize));
        let values = self.many(name);
        if values.len() > max {
            self.problem(name, format_args!("{} {items} given; at most {max} are allowed", values.len()));
            return Vec::new();
        }
        values
            .into_iter()
            .filter_map(|value| match parse(&value) {
                Ok(parsed) => Some(parsed),
                Err(expected) => {
                    self.problem(name, format_args!("{value:?} is not {expected}"));
                    None
                }
            })
            .collect()
    }

    /// A path parameter that must be an address; a problem is reported with the query's.
    pub(crate) fn path_address(&mut self, value: &str) -> Option<Address> {
        match parse_address(value) {
            Ok(address) => Some(address),
            Err(expected) => {
                self.problem("address", format_args!("{value:?} is not {expected}"));
                None
            }
        }
    }

    /// The path's token id; a problem, and `None`, when it is not one.
    pub(crate) fn path_token_id(&mut self, value: &str) -> Option<U256> {
        self.path_value::<NftTokenId>("token_id", value).map(|id| id.0)
    }

    /// A path parameter `name` read from its text; a problem, and `None`,
    /// when it does not parse.
    pub(crate) fn path_value<T: FromStr<Err: std::fmt::Display>>(&mut self, name: &str, value: &str) -> Option<T> {
        match value.parse() {
            Ok(parsed) => Some(parsed),
            Err(error) => {
                self.problem(name, error);
                None
            }
        }
    }

    /// The page a listing's `limit` and `cursor` ask for, `limit` as the
    /// spec defines it: 0 or absent is the spec's default (its maximum,
    /// should a limit ever come without one).
    pub(crate) fn paging(&mut self, limit: &Param, cursor: &Param) -> Paging {
        let limit = match self.integer(limit) {
            None | Some(0) => limit.default_integer().or(limit.maximum()).unwrap_or(u64::MAX),
            Some(limit) => limit,
        };
        Paging { limit, cursor: self.one(cursor) }
    }

    /// The window a listing's `from_block`, `to_block`, `from_date`,
    /// `to_date` and `order` name (`params` in that order).
    pub(crate) fn window(&mut self, params: [&Param; 5]) -> Window {
        let [from_block, to_block, from_date, to_date, order] = params;
        let date = |q: &mut Query, param| q.schema_value::<DateInput>(param).map(|date| date.0.timestamp());
        let span = Span {
            from_block: self.integer(from_block),
            to_block: self.integer(to_block),
            from_date: date(self, from_date),
            to_date: date(self, to_date),
        };
        let order = match self.schema_value(order).unwrap_or_default() {
            ListingOrder::Ascending => Order::Ascending,
            ListingOrder::Descending => Order::Descending,
        };
        Window { span, order }
    }

    /// How NFTs are to be written, as `format`, `normalizeMetadata` and
    /// `media_items` ask.
    pub(crate) fn nft_view(&mut self, format: &Param, normalize_metadata: &Param, media_items: &Param) -> NftView {
        NftView {
            format: self.schema_value::<TokenIdFormat>(format).unwrap_or_default(),
            normalize_metadata: self.flag(normalize_metadata),
            media_items: self.flag(media_items),
        }
    }

    /// Ends reading: unknown parameters become problems, and any problem fails the request.
    pub(crate) fn finish(mut self) -> Result<(), ApiError> {
        for (name, _) in std::mem::take(&mut self.params) {
            self.problems.push(format!("{name}: not a parameter of this operation"));
        }
        if self.problems.is_empty() { Ok(()) } else { Err(ApiError::bad_request(self.problems)) }
    }
}

/// The default a schema-valued parameter has in the spec.
fn schema_default(param: &Param) -> Option<&'static str> {
    match param.kind {
        ParamKind::Schema { default, .. } => default,
        _ => None,
    }
}

/// Splits `name[]` and `name[3]` (and plain `name`); `None` for a malformed key.
fn array_key(key: &str) -> Option<(&str, Option<u64>)> {
    let Some(open) = key.find('[') else { return (!key.is_empty()).then_some((key, None)) };
    let (name, rest) = key.split_at(open);
    let inner = rest.strip_prefix('[')?.strip_suffix(']')?;
    if name.is_empty() {
        return None;
    }
    if inner.is_empty() {
        return Some((name, None));
    }
    inner.parse().ok().map(|index| (name, Some(index)))
}

/// A whole non-negative number: digits (past `u64` it saturates, so a huge
/// `to_block` means "the newest block" rather than an error), or a JSON
/// number with no fraction.
pub(crate) fn whole_number(text: &str) -> Option<u64> {
    if !text.is_empty() && text.bytes().all(|b| b.is_ascii_digit()) {
        return Some(text.parse::<u64>().unwrap_or(u64::MAX));
    }
    let number = is_json_number(text).then(|| text.parse::<f64>().ok()).flatten()?;
    // A float past u64 saturates when cast, as digits do.
    (number >= 0.0 && number.fract() == 0.0).then_some(number as u64)
}

/// One of the values a version knows of an open enum, by its wire text;
/// the error lists them.
pub(crate) fn known_value<T: Clone + std::fmt::Display>(known: &[T], text: &str) -> Result<T, String> {
    known.iter().find(|value| value.to_string() == text).cloned().ok_or_else(|| {
        let names: Vec<String> = known.iter().map(ToString::to_string).collect();
        format!("one of {}", names.join(", "))
    })
}

/// An address: `0x` and 40 hex digits, any letter case.
pub(crate) fn parse_address(value: &str) -> Result<Address, String> {
    let is_hex = value.len() == 42 && value.starts_with("0x") && value[2..].bytes().all(|b| b.is_ascii_hexdigit());
    if is_hex {
        Address::from_str(value).map_err(|e| e.to_string())
    } else {
        Err("a 0x-prefixed 20-byte hex address".into())
    }
}

/// The data API's spellings of a chain: its name or its hex id, exactly as
/// the spec's enum lists them; or the hex id of one of `own`, the chains
/// outside the table the server was started for (a genesis of their own).
/// Any other chain is refused, as production refuses it.
pub(crate) fn data_api_chain(value: &str, own: &[Chain]) -> Option<Chain> {
    let chain = Chain::from_str(value).ok()?;
    let hex = chain.hex_id().is_some_and(|hex| value == hex);
    let Some(name) = chain.data_api_name() else {
        return (matches!(chain, Chain::Other(_)) && own.contains(&chain) && hex).then_some(chain);
    };
    (value == name || hex || chain.aliases().contains(&value)).then_some(chain)
}

pub(crate) fn data_api_forms() -> Vec<String> {
    Chain::data_api()
        .flat_map(|c| {
            let forms = c.data_api_name().map(String::from).into_iter().chain(c.hex_id());
            forms.chain(c.aliases().iter().map(ToString::to_string)).collect::<Vec<_>>()
        })
        .collect()
}

/// `-? int frac? exp?` as in RFC 8259 (so no `NaN`, `inf` or hex).
fn is_json_number(text: &str) -> bool {
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let rest = text.strip_prefix('-').unwrap_or(text);
    let int = digits(rest);
    if int == 0 || (int > 1 && rest.starts_with('0')) {
        return false;
    }
    let mut rest = &rest[int..];
    if let Some(fraction) = rest.strip_prefix('.') {
        let n = digits(fraction);
        if n == 0 {
            return false;
        }
        rest = &fraction[n..];
    }
    if let Some(exponent) = rest.strip_prefix(['e', 'E']) {
        let exponent = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
        let n = digits(exponent);
        return n > 0 && n == exponent.len();
    }
    rest.is_empty()
}

#[cfg(test)]
mod tests {
    use w3api_types::params::operations::get_wallet_token_balances_price as wallet;

    use super::*;

    #[test]
    fn defaults_are_the_specs() {
        let mut query = Query::parse(None, &[]);
        assert_eq!(query.chain(&wallet::CHAIN), Chain::Eth);
        assert!(!query.flag(&wallet::EXCLUDE_SPAM));
        let nfts = w3api_types::params::operations::get_wallet_nfts::NORMALIZE_METADATA;
        assert!(query.flag(&nfts), "normalizeMetadata is true unless set");
        let format = w3api_types::params::operations::get_wallet_nfts::FORMAT;
        assert_eq!(query.schema_value(&format), Some(TokenIdFormat::Decimal));
        assert!(query.finish().is_ok());
    }

    #[test]
    fn array_forms_all_read_the_same() {
        for raw in ["a=1&a=2", "a[]=1&a[]=2", "a[1]=2&a[0]=1", "a=1&a[]=2"] {
            let mut query = Query::parse(Some(raw), &[]);
            assert_eq!(query.many("a"), ["1", "2"], "{raw}");
            assert!(query.finish().is_ok());
        }
    }

    #[test]
    fn numbers_are_read_as_json_writes_them() {
        for good in ["0", "-0", "12", "1.5", "1e3", "2.5E-7", "1e400", "123456789012345678901234567890"] {
            assert!(is_json_number(good), "{good}");
        }
        for bad in ["", "-", "01", "1.", ".5", "1e", "1e+", "NaN", "inf", "0x10", "+1", "1 "] {
            assert!(!is_json_number(bad), "{bad}");
        }
        let mut query = Query::parse(Some("a=1e400&b=-1&c=99999999999999999999999&d=99999999999999999999999"), &[]);
        let number = |name| Param { name, kind: ParamKind::Number { minimum: Some(0.0) }, ..wallet::TO_BLOCK };
        assert_eq!(query.number(&number("a")), Some(f64::INFINITY), "too large for a float is still a number");
        assert_eq!(query.number(&number("b")), None);
        assert_eq!(query.integer(&Param { name: "c", ..wallet::TO_BLOCK }), Some(u64::MAX), "saturates");
        assert_eq!(query.integer(&Param { name: "d", ..wallet::LIMIT }), None);
        let text = query.finish().unwrap_err().messages.join("\n");
        assert!(text.contains("b: \"-1\" is not a non-negative number") && text.contains("d: "), "{text}");
    }

    #[test]
    fn problems_name_the_parameter() {
        let mut query = Query::parse(Some("limit=101&limit=3&exclude_spam=yes&chain=solana&x=1&a[b]=1"), &[]);
        assert_eq!(query.integer(&wallet::LIMIT), None);
        assert!(
            !query.flag(&wallet::EXCLUDE_SPAM),
            "a bad flag reads as its default; the problem is kept for finish()"
        );
        assert_eq!(query.chain(&wallet::CHAIN), Chain::Eth);
        let error = query.finish().unwrap_err();
        let text = error.messages.join("\n");
        assert!(text.contains("limit: given 2 times"), "{text}");
        assert!(text.contains("exclude_spam: \"yes\" is not true or false"), "{text}");
        assert!(text.contains("chain: \"solana\" is not a chain of the data API"), "{text}");
        assert!(text.contains("x: not a parameter of this operation"), "{text}");
        assert!(text.contains("a[b]: not a valid parameter name"), "{text}");
    }

    #[test]
    fn chains_are_taken_as_the_spec_spells_them() {
        assert_eq!(data_api_chain("polygon amoy", &[]), Some(Chain::PolygonAmoy));
        assert_eq!(data_api_chain("0x13882", &[]), Some(Chain::PolygonAmoy));
        assert_eq!(data_api_chain("0xaa37d", &[]), Some(Chain::OptimismSepolia));
        assert_eq!(data_api_chain("amoy", &[]), None, "an RPC slug");
        assert_eq!(data_api_chain("blast", &[]), None, "a chain the data API does not serve");
        assert_eq!(data_api_chain("0X13882", &[]), None, "not as the enum writes it");
        // A chain outside the table, by hex id: only one the server was started for.
        let own: Chain = "0xc72dd9d5e883e".parse().unwrap();
        assert_eq!(data_api_chain("0xc72dd9d5e883e", &[own]), Some(own));
        assert_eq!(data_api_chain("0xc72dd9d5e883e", &[]), None, "a chain the server was not started for");
        assert_eq!(data_api_chain("0xC72DD9D5E883E", &[own]), None, "not as a hex id is written");
        assert_eq!(data_api_chain("mychain", &["mychain".parse().unwrap()]), None, "an other chain by name");
        let blast = Chain::Blast.hex_id().unwrap();
        assert_eq!(data_api_chain(&blast, &[Chain::Blast]), None, "a table chain the data API does not serve");
    }

    #[test]
    fn integers_take_digits_or_whole_json_numbers() {
        let read = |text: &str| {
            let raw = format!("n={}", text.replace('+', "%2B").replace(' ', "%20"));
            let mut query = Query::parse(Some(&raw), &[]);
            query.integer(&Param { name: "n", ..wallet::TO_BLOCK })
        };
        for bad in ["-1", "1.5", "1e-3", "", " 5", "+5", "0x10", "01.0", "1.", "NaN"] {
            assert_eq!(read(bad), None, "{bad:?}");
        }
        let whole =
            [("12", 12), ("12.0", 12), ("1.2e1", 12), ("1e3", 1000), ("-0", 0), ("99999999999999999999", u64::MAX)];
        for (text, value) in whole {
            assert_eq!(read(text), Some(value), "{text:?}");
        }
    }

    #[test]
    fn chain_aliases_production_renamed_are_read() {
        assert_eq!(data_api_chain("0x31769", &[]), Some(Chain::RoninTestnet), "production's newer id");
        assert_eq!(data_api_chain("0x7e5", &[]), Some(Chain::RoninTestnet), "the id its documentation pages give");
    }
}
