//! A store given at start, or else one in memory opened on first use.

use std::sync::Arc;

use tokio::sync::OnceCell;

use crate::{Location, Store, StoreError, open};

/// The store a component was given, or a private in-memory one opened the
/// first time it is needed: opening is asynchronous, and the servers and
/// devnets that hold a cell are built in synchronous code.
pub struct StoreCell {
    store: OnceCell<Arc<dyn Store>>,
    capacity: usize,
}

impl StoreCell {
    /// `store` if given; otherwise an in-memory store bounded to `capacity`
    /// challenges, opened on first use.
    pub fn new(store: Option<Arc<dyn Store>>, capacity: usize) -> StoreCell {
        StoreCell { store: OnceCell::new_with(store), capacity }
    }

    /// The store, opening the in-memory one if this is the first use.
    pub async fn get(&self) -> Result<&Arc<dyn Store>, StoreError> {
        self.store.get_or_try_init(|| open(&Location::Memory, self.capacity)).await
    }

    /// The store if it is open (given, or opened by an earlier use).
    pub fn opened(&self) -> Option<Arc<dyn Store>> {
        self.store.get().cloned()
    }
}
