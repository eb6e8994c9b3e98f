//! `getDateToBlock`: the last block at or before a date.

use chrono::{DateTime, Utc};
use w3api_query::block_at::BlockAt;
use w3api_source::{BlockRef, SourceError};
use w3api_types::{BlockDate, Chain, DateInput};

use crate::Backend;

/// The last block of `chain` at or before `date`.
pub async fn date_to_block<S: Backend>(source: &S, chain: Chain, date: DateInput) -> Result<BlockDate, SourceError> {
    // A date before 1970 is before every chain's first block.
    let timestamp = u64::try_from(date.0.timestamp()).unwrap_or(0);
    let (block, time) = source.ask(chain, BlockAt { timestamp }).await?;
    let header = source.block(chain, BlockRef::Number(block), false).await?;
    let header = header.ok_or_else(|| SourceError::Unavailable(format!("block {block} is not there any more")))?;
    Ok(BlockDate {
        date: date.0,
        block,
        timestamp: time,
        block_timestamp: DateTime::<Utc>::from_timestamp(i64::try_from(time).unwrap_or(i64::MAX), 0)
            .unwrap_or_default(),
        hash: header.hash,
        parent_hash: header.parent_hash,
    })
}
