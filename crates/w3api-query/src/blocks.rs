//! The block an answer is read at.

use w3api_source::SourceError;

use crate::ChainView;

/// The block a query names, or the newest one; a block past the newest is
/// [`SourceError::BlockOutOfRange`], never an answer from another block.
pub fn resolve(view: &impl ChainView, requested: Option<u64>) -> Result<u64, SourceError> {
    let latest = view.head()?;
    match requested {
        None => Ok(latest),
        Some(block) if block <= latest => Ok(block),
        Some(requested) => Err(SourceError::BlockOutOfRange { requested, latest }),
    }
}

/// The newest block at least `seconds` older than block `block`; `None`
/// when the view does not reach that far back.
pub fn block_before(view: &impl ChainView, block: u64, seconds: u64) -> Option<u64> {
    let cutoff = view.timestamp(block)?.checked_sub(seconds)?;
    last_block_at(view, cutoff, block)
}

/// The newest block up to `through` whose timestamp is at most `time`;
/// `None` when the view's first block is already later, or a timestamp
/// the search needs is missing.
pub fn last_block_at(view: &impl ChainView, time: u64, through: u64) -> Option<u64> {
    view.last_block_at(time, through)
}

/// [`last_block_at`] by a binary search over the view's timestamps, which
/// never fall from one block to the next: what a view answers with unless
/// it has an index of its own.
pub fn search_last_block_at(view: &impl ChainView, time: u64, through: u64) -> Option<u64> {
    // The first block past `time`, in [first, through]; the one before it.
    let first = view.first_block();
    let (mut low, mut high) = (first, through.checked_add(1)?);
    while low < high {
        let middle = low + (high - low) / 2;
        if view.timestamp(middle)? <= time {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    low.checked_sub(1).filter(|before| *before >= first)
}

/// The ledger's block number (its histories count blocks in `u32`); a
/// block beyond that range reads as the newest the ledger can hold.
pub(crate) fn ledger_block(block: u64) -> u32 {
    u32::try_from(block).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use w3api_source::SourceError;

    use super::{block_before, resolve};
    use crate::testing::Times;

    /// Blocks from `first` on, at the given timestamps, and nothing else.
    #[test]
    fn the_block_before_is_the_newest_at_or_before_the_cutoff() {
        // Blocks 100 to 106; two blocks may share a second, gaps vary.
        let view = Times::new(100, &[1000, 1012, 1012, 1030, 1031, 1100, 1200]);
        assert_eq!(block_before(&view, 106, 100), Some(105), "1100 is exactly 100 s before");
        assert_eq!(block_before(&view, 106, 101), Some(104));
        assert_eq!(block_before(&view, 105, 88), Some(102), "the later of two blocks in one second");
        assert_eq!(block_before(&view, 105, 0), Some(105), "no time: the block itself");
        assert_eq!(block_before(&view, 106, 200), Some(100), "the first block, exactly");
        assert_eq!(block_before(&view, 106, 201), None, "before the view's first block");
        assert_eq!(block_before(&view, 107, 1), None, "a block the view does not have");
        assert_eq!(block_before(&view, 99, 1), None);
    }

    #[test]
    fn the_block_at_a_date_is_the_last_at_or_before_it() {
        use crate::Question;
        use crate::block_at::BlockAt;
        let view = Times::new(5, &[100, 110, 110, 120]);
        let at = |timestamp| BlockAt { timestamp }.answer(&view);
        assert_eq!(at(100).unwrap(), (5, 100), "the first block's own second");
        assert_eq!(at(109).unwrap(), (5, 100));
        assert_eq!(at(110).unwrap(), (7, 110), "the last of two blocks in one second");
        assert_eq!(at(119).unwrap(), (7, 110));
        assert_eq!(at(4_000_000_000).unwrap(), (8, 120), "past the newest: the newest");
        let before = at(99).unwrap_err();
        assert!(matches!(before, SourceError::NoBlockAt { date: 99, first: 5, first_time: 100 }), "{before}");
        assert!(matches!(BlockAt { timestamp: 1 }.answer(&Times::new(5, &[])), Err(SourceError::Unavailable(_))));
    }

    #[test]
    fn a_block_past_the_newest_is_out_of_range_and_none_is_the_newest() {
        let view = Times::new(5, &[10, 20, 30]);
        assert_eq!(resolve(&view, None).unwrap(), 7);
        assert_eq!(resolve(&view, Some(6)).unwrap(), 6);
        let error = resolve(&view, Some(8)).unwrap_err();
        assert!(matches!(error, SourceError::BlockOutOfRange { requested: 8, latest: 7 }), "{error}");
        let empty = Times::new(5, &[]);
        assert!(matches!(resolve(&empty, None), Err(SourceError::Unavailable(_))));
    }
}
