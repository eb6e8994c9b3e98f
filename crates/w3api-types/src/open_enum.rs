//! String enums that production may extend.
//!
//! A response carrying a value this crate does not know yet (a new stream
//! status, a new token standard) must not fail the whole page, so each such
//! enum has an `Unknown(String)` variant that keeps the text as sent and
//! writes it back unchanged. The schema lists the known values only: those
//! are what the spec documents and what the drift check compares.

/// Defines a string enum with the given variants and wire values, plus
/// `Unknown(String)`, with `as_str`, `Display`, `FromStr` (infallible),
/// serde and schemars impls.
macro_rules! open_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $wire:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
            /// A value this version does not know, kept as sent.
            Unknown(String),
        }

        impl $name {
            /// Every value this version knows, in the order of the spec.
            pub const KNOWN: &'static [$name] = &[$($name::$variant),+];

            /// The value as written on the wire.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $wire, )+
                    $name::Unknown(text) => text,
                }
            }

            /// Whether this version knows the value (not `Unknown`).
            pub fn is_known(&self) -> bool {
                !matches!(self, $name::Unknown(_))
            }

            fn known(text: &str) -> Option<Self> {
                match text {
                    $( $wire => Some($name::$variant), )+
                    _ => None,
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = std::convert::Infallible;

            /// A known value, or `Unknown` holding the text.
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                Ok(Self::known(text).unwrap_or_else(|| $name::Unknown(text.to_string())))
            }
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let text = std::borrow::Cow::<str>::deserialize(deserializer)?;
                Ok(Self::known(&text).unwrap_or_else(|| $name::Unknown(text.into_owned())))
            }
        }

        #[cfg(feature = "schema")]
        impl schemars::JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                stringify!($name).into()
            }

            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({ "type": "string", "enum": [$($wire),+] })
            }
        }
    };
}

pub(crate) use open_enum;
