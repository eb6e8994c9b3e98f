//! What each operation's parameters and request bodies accept, as the spec
//! states it: the tables in [`operations`] are generated from
//! `spec/openapi.yaml`, so servers validate with the spec's own names,
//! bounds and defaults.

// Generated: formatted by the generator, not by rustfmt.
#[rustfmt::skip]
pub mod operations;

/// Where a parameter is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamLocation {
    /// A segment of the path.
    Path,
    /// A key of the query string.
    Query,
}

/// The values a parameter's schema allows.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// `true` or `false`.
    Boolean {
        /// Value when absent.
        default: Option<bool>,
    },
    /// A whole number within bounds.
    Integer {
        /// Least value.
        minimum: Option<u64>,
        /// Greatest value.
        maximum: Option<u64>,
        /// Value when absent.
        default: Option<u64>,
    },
    /// A number, not below `minimum`.
    Number {
        /// Least value.
        minimum: Option<f64>,
    },
    /// Text.
    Text {
        /// Fewest characters.
        min_length: Option<u64>,
        /// The schema's `format`, such as `uuid`.
        format: Option<&'static str>,
    },
    /// A value of a component schema, such as `Address` or `Chain`.
    Schema {
        /// The schema's name.
        name: &'static str,
        /// Value when absent, as written on the wire.
        default: Option<&'static str>,
    },
    /// Repeated values of a component schema.
    List {
        /// The items' schema name.
        items: &'static str,
        /// Most items.
        max_items: Option<u64>,
    },
}

/// An operation of the spec: its `operationId`, its HTTP method, and its
/// path template (`{name}` stands for one path segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Operation {
    /// The `operationId`, such as `getWalletNfts`.
    pub id: &'static str,
    /// The HTTP method, upper case.
    pub method: &'static str,
    /// The path template, such as `/api/v2.2/{address}/nft`.
    pub path: &'static str,
}

impl Operation {
    /// The operation a request with `method` and `path` (no query) is for.
    pub fn find(method: &str, path: &str) -> Option<&'static Operation> {
        operations::OPERATIONS.iter().find(|operation| operation.matches(method, path))
    }

    /// The operation named `id`.
    pub fn named(id: &str) -> Option<&'static Operation> {
        operations::OPERATIONS.iter().find(|operation| operation.id == id)
    }

    /// Whether a request with `method` and `path` (no query) is for this operation.
    pub fn matches(&self, method: &str, path: &str) -> bool {
        let mut template = self.path.split('/');
        let mut actual = path.split('/');
        self.method.eq_ignore_ascii_case(method)
            && loop {
                match (template.next(), actual.next()) {
                    (None, None) => break true,
                    (Some(t), Some(a)) if t.starts_with('{') && t.ends_with('}') && !a.is_empty() => {}
                    (Some(t), Some(a)) if t == a => {}
                    _ => break false,
                }
            }
    }
}

/// One parameter of an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// Its name on the wire.
    pub name: &'static str,
    /// Where it is sent.
    pub location: ParamLocation,
    /// Whether a request must give it.
    pub required: bool,
    /// What values it takes.
    pub kind: ParamKind,
}

impl Param {
    /// The greatest value of an integer parameter.
    pub const fn maximum(&self) -> Option<u64> {
        match self.kind {
            ParamKind::Integer { maximum, .. } => maximum,
            _ => None,
        }
    }

    /// The most items of a list parameter.
    pub const fn max_items(&self) -> Option<u64> {
        match self.kind {
            ParamKind::List { max_items, .. } => max_items,
            _ => None,
        }
    }

    /// The default of a boolean parameter.
    pub const fn default_flag(&self) -> Option<bool> {
        match self.kind {
            ParamKind::Boolean { default } => default,
            _ => None,
        }
    }

    /// The smallest value an integer parameter allows.
    pub const fn minimum(&self) -> Option<u64> {
        match self.kind {
            ParamKind::Integer { minimum, .. } => minimum,
            _ => None,
        }
    }

    /// The default of an integer parameter.
    pub const fn default_integer(&self) -> Option<u64> {
        match self.kind {
            ParamKind::Integer { default, .. } => default,
            _ => None,
        }
    }
}

/// The bounds of one field of a request body.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FieldBounds {
    /// The field's name on the wire.
    pub name: &'static str,
    /// Least value of a number.
    pub minimum: Option<u64>,
    /// Greatest value of a number.
    pub maximum: Option<u64>,
    /// Fewest characters of a string.
    pub min_length: Option<u64>,
    /// Most characters of a string.
    pub max_length: Option<u64>,
    /// Fewest items of a list.
    pub min_items: Option<u64>,
    /// Most items of a list.
    pub max_items: Option<u64>,
}

impl FieldBounds {
    /// Whether a number is within the bounds.
    pub fn admits(&self, value: u64) -> bool {
        self.minimum.is_none_or(|min| value >= min) && self.maximum.is_none_or(|max| value <= max)
    }

    /// Whether a list's length is within the bounds.
    pub fn admits_items(&self, count: usize) -> bool {
        let count = count as u64;
        self.min_items.is_none_or(|min| count >= min) && self.max_items.is_none_or(|max| count <= max)
    }

    /// Whether a text's length (in bytes, as hosts and keys are ASCII) is within the bounds.
    pub fn admits_length(&self, text: &str) -> bool {
        let length = text.len() as u64;
        self.min_length.is_none_or(|min| length >= min) && self.max_length.is_none_or(|max| length <= max)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_find_their_operation_by_method_and_path_template() {
        let nfts = Operation::find("GET", "/api/v2.2/0xabc/nft").expect("an operation");
        assert_eq!(nfts.id, "getWalletNfts");
        assert_eq!(Operation::find("get", "/api/v2.2/0xabc/nft/collections").unwrap().id, "getWalletNftCollections");
        assert_eq!(Operation::find("POST", "/api/v2.2/0xabc/nft"), None, "another method");
        assert_eq!(Operation::find("GET", "/api/v2.2//nft"), None, "an empty segment is no value");
        assert_eq!(Operation::find("GET", "/api/v2.2/0xabc/nft/extra"), None);
        assert_eq!(Operation::named("getWalletNfts"), Some(nfts));
        assert_eq!(Operation::named("getWalletNFTs"), None, "names are exact");
    }
}
