//! Why a command failed; `main` prints it and exits non-zero.

use std::path::PathBuf;

/// A failed command. Server errors keep the server's message.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// A REST call failed (the message is the server's when it answered).
    /// Boxed: it holds the response headers.
    #[error("{0}")]
    Rest(Box<w3api_rest::Error>),
    /// A JSON-RPC call failed.
    #[error("{0}")]
    Rpc(#[from] w3api_rpc::RpcError),
    /// The REST client could not be built from the options.
    #[error("{0}")]
    Client(#[from] w3api_rest::BuildError),
    /// No API key was given for a command that calls the API.
    #[error("no API key: pass --api-key or set W3API_API_KEY")]
    MissingApiKey,
    /// The answer was empty where a value was asked for (an unknown block or index).
    #[error("{0}")]
    NotFound(String),
    /// A file could not be read or written.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file does not hold what the command needs.
    #[error("{0}")]
    Input(String),
    /// The server could not start or stopped with an error.
    #[error("{0}")]
    Server(String),
}

impl CliError {
    /// A failed read or write of `path`.
    pub(crate) fn file(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> CliError {
        let path = path.into();
        move |source| CliError::File { path, source }
    }
}

impl From<w3api_rest::Error> for CliError {
    fn from(error: w3api_rest::Error) -> Self {
        CliError::Rest(Box::new(error))
    }
}

/// What the generated operations return, made one of ours.
impl From<w3api_rest::data::Error<w3api_types::Error>> for CliError {
    fn from(error: w3api_rest::data::Error<w3api_types::Error>) -> Self {
        CliError::from(w3api_rest::Error::from(error))
    }
}
