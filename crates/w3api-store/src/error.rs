use w3api_types::Chain;

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The database cannot be reached or is shutting down: the caller may
    /// retry, and the pool reconnects by itself.
    #[error("the database is unavailable: {0}")]
    Unavailable(#[source] sqlx::Error),
    /// A bounded store holds `0` unexpired challenges already.
    #[error("the store holds {0} unexpired challenges, as many as it may")]
    Full(usize),
    /// A challenge with this nonce was issued before.
    #[error("a challenge with nonce {0:?} exists already")]
    DuplicateNonce(String),
    /// The store could not be opened or migrated at start.
    #[error("opening {what}: {source}")]
    Open {
        /// What was being opened.
        what: String,
        /// Why it failed.
        #[source]
        source: sqlx::Error,
    },
    /// Another process holds the data directory.
    #[error(
        "data directory {} is in use by another w3api server; servers that share state need --database (PostgreSQL)",
        .0.display()
    )]
    InUse(std::path::PathBuf),
    /// Anything else the database reported: a bug of ours or a damaged
    /// database, not something a retry fixes.
    #[error("the database failed: {0}")]
    Failed(#[source] sqlx::Error),
    /// Blocks appended to a chain's index journal that do not follow it:
    /// the first must be numbered one past the newest kept block and name
    /// its hash as parent (each next one likewise the one before it in the
    /// batch). Nothing of the batch was kept; a reorg is truncated first.
    #[error(
        "block {got} does not follow {} in {chain}'s index journal: an appended block is numbered one past \
         the block before it and names that block's hash as its parent",
        .newest.map_or_else(|| "nothing".to_owned(), |newest| format!("block {newest}"))
    )]
    IndexOutOfOrder {
        /// The chain whose journal it is.
        chain: Chain,
        /// The block the refused one had to follow: the newest kept
        /// (`None` when none is), or the one before it in the batch.
        newest: Option<u64>,
        /// The number of the block refused.
        got: u64,
    },
    /// A change appended to a chain's journal that does not come after
    /// every change kept: another writer got there first (a bug, since a
    /// writer holds the journal from before it catches up).
    #[error("change {got} does not come after change {newest} in {chain}'s journal")]
    ChangeOutOfOrder {
        /// The chain whose journal it is.
        chain: Chain,
        /// The newest change kept.
        newest: u64,
        /// The number of the change refused.
        got: u64,
    },
    /// A chain's journal kept on top of another origin (seed, scale or
    /// base chain) than the writer's.
    #[error("{chain}'s journal was written on top of another devnet: {kept}")]
    ChainOriginDiffers {
        /// The chain whose journal it is.
        chain: Chain,
        /// The origin kept, as the devnet wrote it.
        kept: String,
    },
    /// A stored row that does not decode (written by something else).
    #[error("a stored {what} is damaged: {why}")]
    Damaged {
        /// Which kind of record.
        what: &'static str,
        /// What is wrong with it.
        why: String,
    },
}

impl StoreError {
    /// Sorts a driver error: lost connections and shutdowns are
    /// [`StoreError::Unavailable`], the rest [`StoreError::Failed`].
    pub(crate) fn from_driver(error: sqlx::Error) -> StoreError {
        if is_unavailable(&error) { StoreError::Unavailable(error) } else { StoreError::Failed(error) }
    }
}

fn is_unavailable(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::Protocol(_) => true,
        // PostgreSQL's SQLSTATE classes 08 (connection exception) and 57
        // (operator intervention: admin shutdown, cannot connect now), and
        // SQLite's SQLITE_BUSY (5) once its timeout has passed.
        sqlx::Error::Database(db) => {
            db.code().is_some_and(|code| code.starts_with("08") || code.starts_with("57") || code == "5")
        }
        _ => false,
    }
}

/// The store's failure as a data source reports it: one out of reach may
/// be asked again.
impl From<StoreError> for w3api_source::SourceError {
    fn from(error: StoreError) -> Self {
        let retry = matches!(error, StoreError::Unavailable(_));
        w3api_source::SourceError::Store { retry, cause: Box::new(error) }
    }
}
