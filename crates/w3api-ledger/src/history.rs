//! Values over time, kept as checkpoints: `(block, value)`, one per block
//! that changed the value, so the value at any block is a binary search.

/// Values of one thing over time: `(block, value)` checkpoints, one per
/// block that changed it, in block order.
///
/// Blocks and values are kept apart: a lookup binary-searches the blocks
/// alone, four bytes each, so the search stays in cache however wide the
/// value is (a price is 64 bytes), and touches one value at the end.
#[derive(Clone, Debug)]
pub struct History<T> {
    pub(crate) blocks: Vec<u32>,
    pub(crate) values: Vec<T>,
}

impl<T> Default for History<T> {
    fn default() -> Self {
        History { blocks: Vec::new(), values: Vec::new() }
    }
}

impl<T: Copy> History<T> {
    /// Sets the value from `block` on: a new checkpoint, or the last one
    /// changed when it is of the same block.
    pub fn set(&mut self, block: u32, value: T) {
        match (self.blocks.last(), self.values.last_mut()) {
            (Some(last), Some(current)) if *last == block => *current = value,
            _ => {
                self.blocks.push(block);
                self.values.push(value);
            }
        }
    }

    /// The history as a read-only view.
    pub fn view(&self) -> Checkpoints<'_, T> {
        Checkpoints { blocks: &self.blocks, values: &self.values }
    }

    /// The checkpoint in force at `block`: when the value was last set, and to what.
    pub fn checkpoint_at(&self, block: u32) -> Option<(u32, T)> {
        self.view().checkpoint_at(block)
    }

    /// The value at `block`.
    pub fn at(&self, block: u32) -> Option<T> {
        self.view().at(block)
    }

    /// The latest value.
    pub fn last(&self) -> Option<T> {
        self.view().last()
    }

    /// The blocks of the checkpoints, in order.
    pub fn blocks(&self) -> impl Iterator<Item = u32> + '_ {
        self.view().blocks()
    }

    /// Appends a checkpoint after every other one (for indexes built in block order).
    pub fn push(&mut self, block: u32, value: T) {
        debug_assert!(self.blocks.last().is_none_or(|last| *last < block));
        self.blocks.push(block);
        self.values.push(value);
    }

    /// Removes the checkpoints after `block`; whether any is left.
    pub fn truncate_after(&mut self, block: u32) -> bool {
        let keep = self.blocks.partition_point(|b| *b <= block);
        self.blocks.truncate(keep);
        self.values.truncate(keep);
        keep > 0
    }

    /// The block of the first checkpoint.
    pub fn first_block(&self) -> Option<u32> {
        self.blocks.first().copied()
    }
}

/// A history read where it is stored: its checkpoints' blocks and values.
#[derive(Clone, Copy, Debug)]
pub struct Checkpoints<'a, T> {
    pub(crate) blocks: &'a [u32],
    pub(crate) values: &'a [T],
}

impl<'a, T: Copy> Checkpoints<'a, T> {
    /// The checkpoint in force at `block`: when the value was last set, and to what.
    pub fn checkpoint_at(self, block: u32) -> Option<(u32, T)> {
        let after = self.blocks.partition_point(|b| *b <= block);
        after.checked_sub(1).map(|i| (self.blocks[i], self.values[i]))
    }

    /// The value at `block`.
    pub fn at(self, block: u32) -> Option<T> {
        self.checkpoint_at(block).map(|(_, value)| value)
    }

    /// The latest value.
    pub fn last(self) -> Option<T> {
        self.values.last().copied()
    }

    /// The blocks of the checkpoints, in order.
    pub fn blocks(self) -> impl Iterator<Item = u32> + 'a {
        self.blocks.iter().copied()
    }

    /// The checkpoints set at `block` or after it, in order: (block, value).
    pub fn since(self, block: u32) -> impl Iterator<Item = (u32, T)> + 'a {
        let from = self.blocks.partition_point(|b| *b < block);
        self.blocks[from..].iter().copied().zip(self.values[from..].iter().copied())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn history_answers_for_any_block() {
        let mut history = History::default();
        history.set(3, 10u128);
        history.set(3, 12);
        history.set(7, 5);
        assert_eq!(history.at(2), None);
        assert_eq!(history.at(3), Some(12));
        assert_eq!(history.at(6), Some(12));
        assert_eq!(history.checkpoint_at(9), Some((7, 5)));
        assert_eq!(history.last(), Some(5));
        assert_eq!(history.blocks().collect::<Vec<_>>(), [3, 7]);
        assert!(history.truncate_after(6));
        assert_eq!((history.last(), history.at(9)), (Some(12), Some(12)));
        assert!(!history.truncate_after(2), "nothing left before block 3");
        assert_eq!(history.last(), None);
    }
}
