//! What an answer can fail with, before any protocol gives it a status or
//! a code: the server's adapters map it, REST in `error.rs`, JSON-RPC in
//! `rpc.rs`, each in one place.

use w3api_source::SourceError;

/// Why an answer could not be given.
#[derive(Debug, thiserror::Error)]
pub enum AnswerError {
    /// The request cannot be answered as asked; each message names the
    /// parameter it is about (a cursor altered or reused, say).
    #[error("{}", .0.join("; "))]
    Invalid(Vec<String>),
    /// The backend failed or has nothing to answer with.
    #[error(transparent)]
    Source(#[from] SourceError),
}

impl AnswerError {
    /// One invalid parameter, named at the start of `message`.
    pub fn invalid(message: impl Into<String>) -> AnswerError {
        AnswerError::Invalid(vec![message.into()])
    }
}
