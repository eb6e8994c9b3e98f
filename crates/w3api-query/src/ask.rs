//! Questions the query core answers over whichever backend serves a chain.
//!
//! A backend implements [`Asks`] once: it finds the chain's view and hands
//! it to the question. Every operation the core answers is then a
//! [`Question`] here, and no backend carries a method per operation.

use std::future::Future;

use w3api_source::SourceError;
use w3api_types::Chain;

use crate::ChainView;

/// Something the query core answers from one chain's view.
pub trait Question: Send + 'static {
    /// The answer.
    type Answer: Send + 'static;

    /// The answer, read from `view`.
    fn answer(self, view: &impl ChainView) -> Result<Self::Answer, SourceError>;
}

/// A backend that shows its chains' views to the query core.
pub trait Asks: Send + Sync {
    /// `question`, answered over `chain`'s view; the backend's error when it
    /// does not serve the chain or has nothing of it yet.
    fn ask<Q: Question>(
        &self,
        chain: Chain,
        question: Q,
    ) -> impl Future<Output = Result<Q::Answer, SourceError>> + Send;
}
