//! The block at a date (`getDateToBlock`).

use w3api_source::SourceError;

use crate::ChainView;
use crate::ask::Question;
use crate::blocks::{last_block_at, resolve};

/// The last block at or before `timestamp` (Unix seconds).
#[derive(Clone, Copy, Debug)]
pub struct BlockAt {
    /// The date, in Unix seconds.
    pub timestamp: u64,
}

impl Question for BlockAt {
    /// The block's number and timestamp.
    type Answer = (u64, u64);

    fn answer(self, view: &impl ChainView) -> Result<(u64, u64), SourceError> {
        let head = resolve(view, None)?;
        let block = last_block_at(view, self.timestamp, head).ok_or_else(|| {
            let first = view.first_block();
            let first_time = view.timestamp(first).unwrap_or_default();
            SourceError::NoBlockAt { date: self.timestamp, first, first_time }
        })?;
        let time =
            view.timestamp(block).ok_or_else(|| SourceError::Unavailable(format!("block {block} has no time")))?;
        Ok((block, time))
    }
}
