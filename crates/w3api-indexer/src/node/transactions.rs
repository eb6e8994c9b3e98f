//! Transactions and their receipts by hash, many at once: a page of a
//! wallet's transactions or history reads them all in as few requests as
//! the node takes (one batch, where it takes batches of that size), not a
//! round trip each.

use serde_json::json;
use w3api_types::rpc::{Hash32, Receipt, Transaction};

use super::{Node, NodeError};

const TRANSACTION: &str = "eth_getTransactionByHash";
const RECEIPT: &str = "eth_getTransactionReceipt";

impl Node {
    /// Each of `hashes`' transaction and receipt, in order, as the node
    /// knows them (`None` for what it does not).
    pub async fn transactions_with_receipts(
        &self,
        hashes: &[Hash32],
    ) -> Result<Vec<(Option<Transaction>, Option<Receipt>)>, NodeError> {
        let calls: Vec<_> =
            hashes.iter().flat_map(|hash| [(TRANSACTION, json!([hash])), (RECEIPT, json!([hash]))]).collect();
        let answers = self.calls(&calls).await?;
        if answers.len() != calls.len() {
            return Err(self.failed(TRANSACTION, format!("{} answers to {} calls", answers.len(), calls.len())));
        }
        answers
            .chunks(2)
            .map(|pair| Ok((self.decode(TRANSACTION, &pair[0])?, self.decode(RECEIPT, &pair[1])?)))
            .collect()
    }
}
