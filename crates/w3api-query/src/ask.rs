//! Questions the query core answers over whichever backend serves a chain.
//!
//! A backend implements [`Asks`] once: it finds the chain's view and hands
//! it to the question. Every operation the core answers is then a
//! [`Question`] here, and no backend carries a method per operation.

use std::any::Any;
use std::future::Future;

use w3api_source::SourceError;
use w3api_types::Chain;

use crate::ChainView;
use crate::block_at::BlockAt;
use crate::collection_nfts::{ContractNfts, NftOwners, NftsById};
use crate::history_category::ContractNames;
use crate::token_metadata::TokenMetadata;
use crate::transfers::{NftTransfers, TokenTransfers};
use crate::wallet_activity::{WalletActivity, WalletStats};
use crate::wallet_history::WalletHistory;
use crate::wallet_transactions::WalletTransactions;

/// Something the query core answers from one chain's view. Every question
/// is one of [`AnyQuestion`]'s, so that it can pass through a backend held
/// as a trait object.
pub trait Question: Send + 'static + Into<AnyQuestion> {
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

/// Lists the core's questions once: the variants of [`AnyQuestion`], their
/// conversions, and how each is asked.
macro_rules! questions {
    ($($question:ident),* $(,)?) => {
        /// Any of the query core's questions: what a backend behind a trait
        /// object is asked, since [`Asks::ask`] is generic over the question.
        #[derive(Debug)]
        pub enum AnyQuestion {
            $(
                #[allow(missing_docs)]
                $question($question),
            )*
        }

        $(impl From<$question> for AnyQuestion {
            fn from(question: $question) -> AnyQuestion {
                AnyQuestion::$question(question)
            }
        })*

        impl AnyQuestion {
            /// The question inside, asked of `asks`; its answer is the
            /// question's own `Answer` type, boxed as `Any`.
            pub async fn ask_of<A: Asks>(self, asks: &A, chain: Chain) -> Result<Box<dyn Any + Send>, SourceError> {
                match self {
                    $(AnyQuestion::$question(question) => {
                        Ok(Box::new(asks.ask(chain, question).await?))
                    })*
                }
            }
        }
    };
}

questions!(
    BlockAt,
    ContractNames,
    ContractNfts,
    NftOwners,
    NftTransfers,
    NftsById,
    TokenMetadata,
    TokenTransfers,
    WalletActivity,
    WalletHistory,
    WalletStats,
    WalletTransactions,
);
