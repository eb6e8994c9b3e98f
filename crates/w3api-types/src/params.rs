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
}

impl FieldBounds {
    /// Whether a number is within the bounds.
    pub fn admits(&self, value: u64) -> bool {
        self.minimum.is_none_or(|min| value >= min) && self.maximum.is_none_or(|max| value <= max)
    }

    /// Whether a text's length (in bytes, as hosts and keys are ASCII) is within the bounds.
    pub fn admits_length(&self, text: &str) -> bool {
        let length = text.len() as u64;
        self.min_length.is_none_or(|min| length >= min) && self.max_length.is_none_or(|max| length <= max)
    }
}
