//! The error body every REST operation answers with.

use std::fmt;

#[cfg(feature = "schema")]
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Body of every REST error response (`spec/openapi.yaml#/components/schemas/Error`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
pub struct Error {
    /// What went wrong; one message or several.
    pub message: ErrorMessage,
    /// Machine-readable detail, when the server has any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub details: Option<serde_json::Value>,
}

/// One message, or a list of them (production sends both).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(JsonSchema))]
#[serde(untagged)]
pub enum ErrorMessage {
    /// A single message.
    One(String),
    /// Several messages, one per problem.
    Many(Vec<String>),
}

impl Error {
    /// An error body with one message and no details.
    pub fn new(message: impl Into<String>) -> Self {
        Error { message: ErrorMessage::One(message.into()), details: None }
    }

    /// The messages, one per problem.
    pub fn messages(&self) -> &[String] {
        match &self.message {
            ErrorMessage::One(message) => std::slice::from_ref(message),
            ErrorMessage::Many(messages) => messages,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.messages().join("; "))
    }
}

impl From<String> for ErrorMessage {
    fn from(message: String) -> Self {
        ErrorMessage::One(message)
    }
}
