//! The trie's nodes and the rules that keep them canonical.
//!
//! Invariants every operation restores before returning, because the root is
//! only Ethereum's root if the shape is the unique one for the set of leaves:
//! - a branch has at least two children, stored densely in nibble order;
//! - an extension has a non-empty path and a branch below it;
//! - `Empty` appears only as the root of an empty trie.
//!
//! A node's `rlp` is its cached reference (`RlpNode`: the RLP itself when
//! shorter than 32 bytes, else the RLP of its keccak256), or empty when stale.
//! A leaf's encoding depends on its depth (its path is the rest of its key
//! from there), an extension's on its stored path, a branch's only on its
//! children; so a cache stays valid when its subtree is unchanged and the
//! node is not moved to another depth.

use alloy_primitives::B256;
use alloy_trie::{
    Nibbles, TrieMask,
    nodes::{BranchNodeRef, ExtensionNodeRef, LeafNodeRef, RlpNode},
};
use std::mem;

#[derive(Clone, Debug, Default)]
pub(crate) enum Node {
    #[default]
    Empty,
    /// The whole key is kept rather than the path below the parent: it is
    /// smaller than `Nibbles`, lets `get` compare keys directly, and lets a
    /// leaf move up or down on removal or split without rewriting a path.
    Leaf {
        key: B256,
        value: Box<[u8]>,
        rlp: RlpNode,
    },
    Extension {
        path: Nibbles,
        child: Box<Node>,
        rlp: RlpNode,
    },
    /// Only present children are stored: below the few top levels where
    /// hashed keys are dense, branches have a handful of children (about four
    /// on average in a trie of a million random keys), not sixteen.
    Branch {
        mask: TrieMask,
        children: Box<[Node]>,
        rlp: RlpNode,
    },
}

/// Buffers reused across one traversal so hashing allocates nothing per node.
#[derive(Default)]
pub(crate) struct Scratch {
    rlp: Vec<u8>,
    stack: Vec<RlpNode>,
}

impl Scratch {
    /// The buffer [`Node::encode`] appends to.
    pub(crate) fn rlp(&mut self) -> &mut Vec<u8> {
        &mut self.rlp
    }
}

/// Where a child of the branch `mask` for `nibble` sits in its dense array.
fn slot(mask: TrieMask, nibble: u8) -> usize {
    (mask.get() & ((1u16 << nibble) - 1)).count_ones() as usize
}

impl Node {
    fn leaf(key: B256, value: Box<[u8]>) -> Self {
        Self::Leaf { key, value, rlp: RlpNode::default() }
    }

    /// `node` reached through `path`: an extension unless the path is empty.
    fn below(path: Nibbles, node: Box<Self>) -> Self {
        if path.is_empty() { *node } else { Self::Extension { path, child: node, rlp: RlpNode::default() } }
    }

    fn branch_of_two(a_nibble: u8, a: Self, b_nibble: u8, b: Self) -> Self {
        debug_assert_ne!(a_nibble, b_nibble);
        let mut mask = TrieMask::default();
        mask.set_bit(a_nibble);
        mask.set_bit(b_nibble);
        let children = if a_nibble < b_nibble { [a, b] } else { [b, a] };
        Self::Branch { mask, children: Box::new(children), rlp: RlpNode::default() }
    }

    pub(crate) fn cache(&self) -> Option<&RlpNode> {
        match self {
            Self::Empty => None,
            Self::Leaf { rlp, .. } | Self::Extension { rlp, .. } | Self::Branch { rlp, .. } => Some(rlp),
        }
    }

    fn invalidate(&mut self) {
        match self {
            Self::Empty => {}
            Self::Leaf { rlp, .. } | Self::Extension { rlp, .. } | Self::Branch { rlp, .. } => {
                *rlp = RlpNode::default();
            }
        }
    }

    pub(crate) fn get(&self, key: &B256) -> Option<&[u8]> {
        let path = Nibbles::unpack_array(&key.0);
        let mut node = self;
        let mut depth = 0;
        loop {
            match node {
                Self::Empty => return None,
                Self::Leaf { key: found, value, .. } => return (found == key).then_some(&**value),
                Self::Extension { path: ext, child, .. } => {
                    if path.slice(depth..depth + ext.len()) != *ext {
                        return None;
                    }
                    depth += ext.len();
                    node = child;
                }
                Self::Branch { mask, children, .. } => {
                    let nibble = path.get_unchecked(depth);
                    if !mask.is_bit_set(nibble) {
                        return None;
                    }
                    depth += 1;
                    node = &children[slot(*mask, nibble)];
                }
            }
        }
    }

    /// Inserts or replaces `key` (whose nibbles are `path`) in this node found
    /// at `depth`, staling every cache on the way. Returns whether it was new.
    pub(crate) fn insert(&mut self, key: B256, path: &Nibbles, depth: usize, value: Box<[u8]>) -> bool {
        match self {
            Self::Empty => {
                *self = Self::leaf(key, value);
                true
            }
            Self::Leaf { key: existing, value: old, rlp } => {
                if *existing == key {
                    *old = value;
                    *rlp = RlpNode::default();
                    return false;
                }
                let existing_path = Nibbles::unpack_array(&existing.0);
                // Both keys share the `depth` nibbles that led here.
                let fork = existing_path.common_prefix_length(path);
                let mut moved = mem::take(self);
                moved.invalidate();
                let branch = Self::branch_of_two(
                    existing_path.get_unchecked(fork),
                    moved,
                    path.get_unchecked(fork),
                    Self::leaf(key, value),
                );
                *self = Self::below(path.slice(depth..fork), Box::new(branch));
                true
            }
            Self::Extension { path: ext, child, rlp } => {
                let shared = ext.common_prefix_length(&path.slice(depth..));
                if shared == ext.len() {
                    *rlp = RlpNode::default();
                    return child.insert(key, path, depth + shared, value);
                }
                let Self::Extension { path: ext, child, .. } = mem::take(self) else { unreachable!() };
                // The old child keeps its depth (the nibble at `shared` moves
                // into the new branch), so its cache stays valid.
                let old = Self::below(ext.slice(shared + 1..), child);
                let branch = Self::branch_of_two(
                    ext.get_unchecked(shared),
                    old,
                    path.get_unchecked(depth + shared),
                    Self::leaf(key, value),
                );
                *self = Self::below(ext.slice(..shared), Box::new(branch));
                true
            }
            Self::Branch { mask, children, rlp } => {
                *rlp = RlpNode::default();
                let nibble = path.get_unchecked(depth);
                let at = slot(*mask, nibble);
                if mask.is_bit_set(nibble) {
                    return children[at].insert(key, path, depth + 1, value);
                }
                let mut grown = mem::take(children).into_vec();
                grown.insert(at, Self::leaf(key, value));
                *children = grown.into_boxed_slice();
                mask.set_bit(nibble);
                true
            }
        }
    }

    /// Removes `key` from this node found at `depth`, staling caches only if
    /// it was there, and restores the invariants: a branch left with one child
    /// merges into it, an extension absorbs a non-branch child. The node
    /// becomes `Empty` if it was the removed leaf. Returns whether it was there.
    pub(crate) fn remove(&mut self, key: &B256, path: &Nibbles, depth: usize) -> bool {
        match self {
            Self::Empty => false,
            Self::Leaf { key: found, .. } => {
                let hit = found == key;
                if hit {
                    *self = Self::Empty;
                }
                hit
            }
            Self::Extension { path: ext, child, rlp } => {
                if path.slice(depth..depth + ext.len()) != *ext || !child.remove(key, path, depth + ext.len()) {
                    return false;
                }
                *rlp = RlpNode::default();
                match **child {
                    Self::Branch { .. } => {}
                    Self::Empty => *self = Self::Empty,
                    Self::Leaf { .. } => {
                        let Self::Extension { child, .. } = mem::take(self) else { unreachable!() };
                        *self = *child;
                        self.invalidate();
                    }
                    Self::Extension { .. } => {
                        let Self::Extension { path: lower, child: grandchild, .. } = mem::take(&mut **child) else {
                            unreachable!()
                        };
                        *ext = ext.join(&lower);
                        *child = grandchild;
                    }
                }
                true
            }
            Self::Branch { mask, children, rlp } => {
                let nibble = path.get_unchecked(depth);
                if !mask.is_bit_set(nibble) {
                    return false;
                }
                let at = slot(*mask, nibble);
                if !children[at].remove(key, path, depth + 1) {
                    return false;
                }
                *rlp = RlpNode::default();
                if !matches!(children[at], Self::Empty) {
                    return true;
                }
                mask.unset_bit(nibble);
                let mut shrunk = mem::take(children).into_vec();
                shrunk.remove(at);
                if shrunk.len() > 1 {
                    *children = shrunk.into_boxed_slice();
                    return true;
                }
                let last = mask.first_set_bit_index().expect("a branch had two children");
                let only = shrunk.pop().expect("a branch had two children");
                *self = match only {
                    Self::Leaf { key, value, .. } => Self::leaf(key, value),
                    Self::Extension { path: lower, child, .. } => {
                        let mut merged = Nibbles::from_nibbles_unchecked([last]);
                        merged.extend(&lower);
                        Self::below(merged, child)
                    }
                    branch @ Self::Branch { .. } => {
                        Self::below(Nibbles::from_nibbles_unchecked([last]), Box::new(branch))
                    }
                    Self::Empty => unreachable!("only the root is ever empty"),
                };
                true
            }
        }
    }

    /// This node's reference, recomputing the stale caches in its subtree
    /// (and only those: a fresh cache ends the descent).
    pub(crate) fn refresh(&mut self, depth: usize, scratch: &mut Scratch) -> RlpNode {
        if let Some(rlp) = self.cache()
            && !rlp.is_empty()
        {
            return rlp.clone();
        }
        match self {
            Self::Empty | Self::Leaf { .. } => {}
            Self::Extension { path, child, .. } => {
                child.refresh(depth + path.len(), scratch);
            }
            Self::Branch { children, .. } => {
                for child in children.iter_mut() {
                    child.refresh(depth + 1, scratch);
                }
            }
        }
        scratch.rlp.clear();
        self.encode(depth, scratch);
        let fresh = RlpNode::from_rlp(&scratch.rlp);
        match self {
            Self::Empty => {}
            Self::Leaf { rlp, .. } | Self::Extension { rlp, .. } | Self::Branch { rlp, .. } => *rlp = fresh.clone(),
        }
        fresh
    }

    /// Appends this node's full RLP to `scratch.rlp`. Its children's caches
    /// must be fresh.
    pub(crate) fn encode(&self, depth: usize, scratch: &mut Scratch) {
        use alloy_rlp::Encodable;
        match self {
            Self::Empty => scratch.rlp.push(alloy_rlp::EMPTY_STRING_CODE),
            Self::Leaf { key, value, .. } => {
                let rest = Nibbles::unpack_array(&key.0).slice(depth..);
                LeafNodeRef::new(&rest, value).encode(&mut scratch.rlp);
            }
            Self::Extension { path, child, .. } => {
                let child = child.cache().expect("an extension's child is a branch");
                debug_assert!(!child.is_empty(), "stale child");
                ExtensionNodeRef::new(path, child).encode(&mut scratch.rlp);
            }
            Self::Branch { mask, children, .. } => {
                let start = scratch.stack.len();
                for child in children {
                    let rlp = child.cache().expect("a branch's children are not empty");
                    debug_assert!(!rlp.is_empty(), "stale child");
                    scratch.stack.push(rlp.clone());
                }
                BranchNodeRef::new(&scratch.stack[start..], *mask).encode(&mut scratch.rlp);
                scratch.stack.truncate(start);
            }
        }
    }

    /// The node on `path`'s way below this one (found at `depth`) and its
    /// depth, or `None` where the path leaves the trie.
    pub(crate) fn step(&self, path: &Nibbles, depth: usize) -> Option<(&Self, usize)> {
        match self {
            Self::Empty | Self::Leaf { .. } => None,
            Self::Extension { path: ext, child, .. } => {
                (path.slice(depth..depth + ext.len()) == *ext).then_some((&**child, depth + ext.len()))
            }
            Self::Branch { mask, children, .. } => {
                let nibble = path.get_unchecked(depth);
                mask.is_bit_set(nibble).then(|| (&children[slot(*mask, nibble)], depth + 1))
            }
        }
    }
}

#[cfg(test)]
impl Node {
    /// Checks the shape invariants and that every fresh cache is what the
    /// node encodes to now; returns the number of leaves.
    pub(crate) fn check(&self, prefix: &Nibbles, scratch: &mut Scratch) -> usize {
        if let Some(rlp) = self.cache()
            && !rlp.is_empty()
        {
            let mut copy = self.clone();
            copy.clear_caches();
            assert_eq!(copy.refresh(prefix.len(), scratch), *rlp, "stale cache kept as fresh at {prefix:?}");
        }
        match self {
            Self::Empty => 0,
            Self::Leaf { key, value, .. } => {
                assert!(Nibbles::unpack_array(&key.0).starts_with(prefix), "leaf off its path");
                assert!(!value.is_empty());
                1
            }
            Self::Extension { path, child, .. } => {
                assert!(!path.is_empty(), "empty extension");
                assert!(matches!(**child, Self::Branch { .. }), "extension above a non-branch");
                child.check(&prefix.join(path), scratch)
            }
            Self::Branch { mask, children, .. } => {
                assert!(children.len() >= 2, "branch with fewer than two children");
                assert_eq!(children.len(), mask.count_bits() as usize);
                mask.iter()
                    .zip(children.iter())
                    .map(|(nibble, child)| {
                        assert!(!matches!(child, Self::Empty));
                        let mut below = *prefix;
                        below.push(nibble);
                        child.check(&below, scratch)
                    })
                    .sum()
            }
        }
    }

    pub(crate) fn clear_caches(&mut self) {
        self.invalidate();
        match self {
            Self::Empty | Self::Leaf { .. } => {}
            Self::Extension { child, .. } => child.clear_caches(),
            Self::Branch { children, .. } => children.iter_mut().for_each(Self::clear_caches),
        }
    }

    /// How many nodes have a stale cache, and how many nodes there are.
    pub(crate) fn count_stale(&self) -> (usize, usize) {
        let own = (usize::from(self.cache().is_some_and(|rlp| rlp.is_empty())), 1);
        let below = match self {
            Self::Empty | Self::Leaf { .. } => (0, 0),
            Self::Extension { child, .. } => child.count_stale(),
            Self::Branch { children, .. } => {
                children.iter().map(Self::count_stale).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
            }
        };
        (own.0 + below.0, own.1 + below.1)
    }

    /// Counts of (leaves, extensions, branches) and the bytes of leaf values.
    pub(crate) fn census(&self, out: &mut [usize; 4]) {
        match self {
            Self::Empty => {}
            Self::Leaf { value, .. } => {
                out[0] += 1;
                out[3] += value.len();
            }
            Self::Extension { child, .. } => {
                out[1] += 1;
                child.census(out);
            }
            Self::Branch { children, .. } => {
                out[2] += 1;
                children.iter().for_each(|c| c.census(out));
            }
        }
    }
}
