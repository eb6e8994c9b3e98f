//! An in-memory Ethereum Merkle-Patricia trie that remembers each node's hash
//! between updates.
//!
//! A chain recomputes its state root after every block, and a block touches a
//! few dozen keys of tries holding up to millions of leaves. [`HashBuilder`]
//! rebuilds a root from every sorted leaf, so it costs the whole trie each
//! time; [`Trie`] keeps the nodes, with each one's reference (its RLP, or the
//! keccak256 of it once that is 32 bytes or more) cached, and an update only
//! stales the nodes on its own path. [`Trie::root`] then re-encodes and
//! rehashes just those: O(depth) per touched key.
//!
//! Keys are 32 bytes, as in the secure tries Ethereum keeps: the account trie
//! is keyed by `keccak256(address)` with `RLP(TrieAccount)` values, a storage
//! trie by `keccak256(slot)` with `RLP(value)` values. The caller hashes and
//! encodes; this crate does not know what the values mean. Node encoding is
//! Ethereum's (through `alloy_trie::nodes`), so [`Trie::root`] equals
//! [`root_of`] the same leaves and [`Trie::proof`] is an EIP-1186 proof.

mod node;
#[cfg(test)]
mod tests;

use alloy_primitives::{B256, Bytes, keccak256};
pub use alloy_trie::EMPTY_ROOT_HASH;
use alloy_trie::{HashBuilder, Nibbles, nodes::RlpNode};
use node::{Node, Scratch};
use std::fmt;

/// A Merkle-Patricia trie over 32-byte keys that caches node hashes, so that
/// [`root`](Trie::root) after a batch of changes costs only their paths.
#[derive(Clone, Default)]
pub struct Trie {
    root: Node,
    len: usize,
}

impl Trie {
    /// An empty trie; its root is [`EMPTY_ROOT_HASH`].
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets `key` to `value`, replacing any value it had.
    ///
    /// An empty `value` removes `key`, as writing an empty value does in
    /// geth's tries: a leaf must hold something, and the account or slot
    /// that would have it (RLP of zero is `0x80`, never empty) is gone.
    pub fn insert(&mut self, key: B256, value: Vec<u8>) {
        if value.is_empty() {
            return self.remove(key);
        }
        // Rewriting the same value (an account a block touched but left as it
        // was) would otherwise stale the path and rehash it for nothing.
        if self.get(&key) == Some(&value[..]) {
            return;
        }
        let path = Nibbles::unpack_array(&key.0);
        if self.root.insert(key, &path, 0, value.into_boxed_slice()) {
            self.len += 1;
        }
    }

    /// Removes `key`, if present, merging the nodes its leaf leaves with a
    /// single child so the trie has the shape (and root) of one built from the
    /// remaining leaves.
    pub fn remove(&mut self, key: B256) {
        let path = Nibbles::unpack_array(&key.0);
        if self.root.remove(&key, &path, 0) {
            self.len -= 1;
        }
    }

    /// The value at `key`.
    pub fn get(&self, key: &B256) -> Option<&[u8]> {
        self.root.get(key)
    }

    /// How many keys have a value.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no key has a value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The root hash. Takes `&mut self` because it fills the caches of the
    /// nodes changed since the last call, which is all it recomputes.
    pub fn root(&mut self) -> B256 {
        if matches!(self.root, Node::Empty) {
            return EMPTY_ROOT_HASH;
        }
        let reference = self.root.refresh(0, &mut Scratch::default());
        // The root is hashed whatever its length; only children are inlined.
        reference.as_hash().unwrap_or_else(|| keccak256(&reference))
    }

    /// The EIP-1186 proof for `key` against [`root`](Trie::root): the RLP of
    /// each node from the root towards `key`, for a present key (ending with
    /// its leaf) or an absent one (ending with the node where its path leaves
    /// the trie). As geth does, nodes embedded in their parent (RLP shorter
    /// than 32 bytes) are not listed, since the parent already holds them;
    /// the root always is. Empty for an empty trie.
    ///
    /// `alloy_trie::proof::verify_proof(root, Nibbles::unpack(key), value, &proof)`
    /// accepts it.
    pub fn proof(&mut self, key: &B256) -> Vec<Bytes> {
        if matches!(self.root, Node::Empty) {
            return Vec::new();
        }
        let mut scratch = Scratch::default();
        self.root.refresh(0, &mut scratch);
        let path = Nibbles::unpack_array(&key.0);
        let mut proof = Vec::new();
        let mut at = Some((&self.root, 0));
        while let Some((node, depth)) = at {
            // Below an embedded node everything is embedded too.
            if depth > 0 && !node.cache().is_some_and(RlpNode::is_hash) {
                break;
            }
            scratch.rlp().clear();
            node.encode(depth, &mut scratch);
            proof.push(Bytes::from(scratch.rlp().clone()));
            at = node.step(&path, depth);
        }
        proof
    }
}

impl fmt::Debug for Trie {
    // The nodes of a large trie would bury the useful part.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let root = match self.root.cache() {
            None => Some(EMPTY_ROOT_HASH),
            Some(rlp) => rlp.as_hash(),
        };
        f.debug_struct("Trie").field("len", &self.len).field("cached_root", &root).finish()
    }
}

impl FromIterator<(B256, Vec<u8>)> for Trie {
    fn from_iter<I: IntoIterator<Item = (B256, Vec<u8>)>>(leaves: I) -> Self {
        let mut trie = Self::new();
        trie.extend(leaves);
        trie
    }
}

impl Extend<(B256, Vec<u8>)> for Trie {
    fn extend<I: IntoIterator<Item = (B256, Vec<u8>)>>(&mut self, leaves: I) {
        for (key, value) in leaves {
            self.insert(key, value);
        }
    }
}

/// The root of a trie holding `leaves`, computed from scratch with
/// [`HashBuilder`]: for a one-off root, and as the reference [`Trie`] is
/// tested against.
///
/// Same semantics as inserting them into a [`Trie`] in order: a later value
/// for a key replaces an earlier one, and an empty value removes the key.
pub fn root_of(leaves: impl IntoIterator<Item = (B256, Vec<u8>)>) -> B256 {
    let mut leaves: Vec<_> = leaves.into_iter().collect();
    // Stable, so among equal keys the last written is last.
    leaves.sort_by_key(|(key, _)| *key);
    let mut builder = HashBuilder::default();
    let mut leaves = leaves.into_iter().peekable();
    while let Some((key, value)) = leaves.next() {
        let superseded = leaves.peek().is_some_and(|(next, _)| *next == key);
        if !superseded && !value.is_empty() {
            builder.add_leaf(Nibbles::unpack_array(&key.0), &value);
        }
    }
    builder.root()
}
