use super::*;
use alloy_primitives::{U256, address, b256, hex};
use alloy_trie::{KECCAK_EMPTY, TrieAccount, proof::verify_proof};
use proptest::{collection::vec, prelude::*, sample::select};
use std::collections::BTreeMap;

/// Asserts the node invariants and that no cache marked fresh is wrong.
fn check(trie: &Trie) {
    let leaves = trie.root.check(&Nibbles::new(), &mut Scratch::default());
    assert_eq!(leaves, trie.len(), "len disagrees with the leaves");
}

/// How many nodes lie on the way from the root to `key`.
fn path_nodes(trie: &Trie, key: &B256) -> usize {
    let path = Nibbles::unpack_array(&key.0);
    let mut count = 0;
    let mut at = Some((&trie.root, 0));
    while let Some((node, depth)) = at {
        count += 1;
        at = node.step(&path, depth);
    }
    count
}

fn secure(data: &[u8]) -> B256 {
    keccak256(data)
}

fn account_rlp(nonce: u64, balance: u64) -> Vec<u8> {
    alloy_rlp::encode(TrieAccount::new(nonce, U256::from(balance), EMPTY_ROOT_HASH, KECCAK_EMPTY))
}

#[test]
fn empty_trie() {
    let mut trie = Trie::new();
    assert_eq!(trie.root(), EMPTY_ROOT_HASH);
    assert_eq!(root_of([]), EMPTY_ROOT_HASH);
    assert!(trie.is_empty());
    let key = B256::repeat_byte(7);
    assert_eq!(trie.get(&key), None);
    let proof = trie.proof(&key);
    assert!(proof.is_empty());
    assert!(verify_proof(EMPTY_ROOT_HASH, Nibbles::unpack(key), None, &proof).is_ok());
    assert!(verify_proof(EMPTY_ROOT_HASH, Nibbles::unpack(key), Some(vec![1]), &proof).is_err());

    // Removing the last key gives the empty root back, not a stale one.
    trie.insert(key, vec![1]);
    assert_ne!(trie.root(), EMPTY_ROOT_HASH);
    trie.remove(key);
    trie.remove(key);
    assert_eq!(trie.root(), EMPTY_ROOT_HASH);
    assert_eq!(trie.len(), 0);
}

/// One leaf, its RLP written out by hand from the Yellow Paper rather than
/// through alloy_trie: `[hex_prefix(key, leaf), value]`, hashed.
#[test]
fn single_leaf_by_hand() {
    let key = b256!("00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    let value = b"hello".to_vec();
    let mut rlp = vec![0xc0 + 34 + 6, 0x80 + 33, 0x20];
    rlp.extend_from_slice(key.as_slice());
    rlp.push(0x80 + 5);
    rlp.extend_from_slice(&value);
    let mut trie = Trie::new();
    trie.insert(key, value.clone());
    assert_eq!(trie.root(), keccak256(&rlp));
    assert_eq!(trie.proof(&key), vec![Bytes::from(rlp)]);
    assert_eq!(root_of([(key, value)]), trie.root());
}

/// A small trie with every node kind: the root branch, an extension over a
/// branch (keys sharing `0x1234`), and embedded leaves under a branch at the
/// last nibble (keys differing only there, with one-byte values).
fn small_example() -> Vec<(B256, Vec<u8>)> {
    vec![
        (b256!("1234000000000000000000000000000000000000000000000000000000000000"), b"first".to_vec()),
        (b256!("1234500000000000000000000000000000000000000000000000000000000000"), b"second".to_vec()),
        (b256!("ab00000000000000000000000000000000000000000000000000000000000001"), vec![1]),
        (b256!("ab00000000000000000000000000000000000000000000000000000000000002"), vec![2]),
        (b256!("ff00000000000000000000000000000000000000000000000000000000000000"), vec![0x42; 40]),
    ]
}

#[test]
fn small_example_root() {
    let leaves = small_example();
    // Derived with alloy_trie's HashBuilder (`root_of`) when this test was written.
    let expected = b256!("941c78914efb2174ce0235bcbda084bd66a787a52b5e59458cbe5b2c36a013d6");
    assert_eq!(root_of(leaves.clone()), expected);
    let mut trie: Trie = leaves.iter().cloned().collect();
    assert_eq!(trie.root(), expected);
    check(&trie);
    // Any insertion order gives the same trie.
    let mut reversed: Trie = leaves.iter().rev().cloned().collect();
    assert_eq!(reversed.root(), expected);

    // The branch at the last nibble and its two leaves are embedded in the
    // extension above them, so, as geth does, the proof stops there.
    let (key, value) = leaves[3].clone();
    let proof = trie.proof(&key);
    assert_eq!(path_nodes(&trie, &key), 4);
    assert_eq!(proof.len(), 2);
    assert!(proof.iter().all(|node| node.len() >= 32));
    assert!(verify_proof(expected, Nibbles::unpack(key), Some(value), &proof).is_ok());
}

/// `test1`/`test2` of ethereum/tests `TrieTests/hex_encoded_securetrie_test.json`:
/// account tries as a client keeps them, keys `keccak256(address)`.
#[test]
fn ethereum_tests_secure_account_tries() {
    let cases: [(&[(&str, &str)], B256); 2] = [
        (
            &[
                (
                    "a94f5374fce5edbc8e2a8697c15331677e6ebf0b",
                    "f848018405f446a7a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
                (
                    "095e7baea6a6c7c4c2dfeb977efac326af552d87",
                    "f8440101a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a004bccc5d94f4d1f99aab44369a910179931772f2a5c001c3229f57831c102769",
                ),
                (
                    "d2571607e241ecf590ed94b12d87c94babe36db6",
                    "f8440180a0ba4b47865c55a341a4a78759bb913cd15c3ee8eaf30a62fa8d1c8863113d84e8a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
                (
                    "62c01474f089b07dae603491675dc5b5748f7049",
                    "f8448080a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
                (
                    "2adc25665018aa1fe0e6bc666dac8fc2697ff9ba",
                    "f8478083019a59a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
            ],
            b256!("730a444e08ab4b8dee147c9b232fc52d34a223d600031c1e9d25bfc985cbd797"),
        ),
        (
            &[
                (
                    "a94f5374fce5edbc8e2a8697c15331677e6ebf0b",
                    "f84c01880de0b6b3a7622746a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
                (
                    "095e7baea6a6c7c4c2dfeb977efac326af552d87",
                    "f84780830186b7a056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0501653f02840675b1aab0328c6634762af5d51764e78f9641cccd9b27b90db4f",
                ),
                (
                    "2adc25665018aa1fe0e6bc666dac8fc2697ff9ba",
                    "f8468082521aa056e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421a0c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470",
                ),
            ],
            b256!("a7c787bf470808896308c215e22c7a580a0087bb6db6e8695fb4759537283a83"),
        ),
    ];
    for (accounts, expected) in cases {
        let mut trie = Trie::new();
        for (address, value) in accounts {
            let value = hex::decode(value).unwrap();
            // The values are accounts as TrieAccount encodes them.
            let account: TrieAccount = alloy_rlp::decode_exact(&value).unwrap();
            assert_eq!(alloy_rlp::encode(account), value);
            trie.insert(secure(&hex::decode(address).unwrap()), value);
        }
        assert_eq!(trie.root(), expected);
        check(&trie);
    }
}

/// `jeff` of ethereum/tests `TrieTests/trietest_secureTrie.json`, applied in
/// order, a removal and a rewrite included.
#[test]
fn ethereum_tests_secure_trie_jeff() {
    let steps: [(&str, Option<&str>); 11] = [
        (
            "0000000000000000000000000000000000000000000000000000000000000045",
            Some("22b224a1420a802ab51d326e29fa98e34c4f24ea"),
        ),
        (
            "0000000000000000000000000000000000000000000000000000000000000046",
            Some("67706c2076330000000000000000000000000000000000000000000000000000"),
        ),
        (
            "0000000000000000000000000000000000000000000000000000001234567890",
            Some("697c7b8c961b56f675d570498424ac8de1a918f6"),
        ),
        ("000000000000000000000000697c7b8c961b56f675d570498424ac8de1a918f6", Some("1234567890")),
        (
            "0000000000000000000000007ef9e639e2733cb34e4dfc576d4b23f72db776b2",
            Some("4655474156000000000000000000000000000000000000000000000000000000"),
        ),
        (
            "000000000000000000000000ec4f34c97e43fbb2816cfd95e388353c7181dab1",
            Some("4e616d6552656700000000000000000000000000000000000000000000000000"),
        ),
        (
            "4655474156000000000000000000000000000000000000000000000000000000",
            Some("7ef9e639e2733cb34e4dfc576d4b23f72db776b2"),
        ),
        (
            "4e616d6552656700000000000000000000000000000000000000000000000000",
            Some("ec4f34c97e43fbb2816cfd95e388353c7181dab1"),
        ),
        ("0000000000000000000000000000000000000000000000000000001234567890", None),
        (
            "000000000000000000000000697c7b8c961b56f675d570498424ac8de1a918f6",
            Some("6f6f6f6820736f2067726561742c207265616c6c6c793f000000000000000000"),
        ),
        (
            "6f6f6f6820736f2067726561742c207265616c6c6c793f000000000000000000",
            Some("697c7b8c961b56f675d570498424ac8de1a918f6"),
        ),
    ];
    let mut trie = Trie::new();
    for (key, value) in steps {
        let key = secure(&hex::decode(key).unwrap());
        match value {
            Some(value) => trie.insert(key, hex::decode(value).unwrap()),
            None => trie.remove(key),
        }
        // Hashing between steps must not change the outcome.
        trie.root();
    }
    assert_eq!(trie.root(), b256!("72adb52e9d9428f808e3e8045be18d3baa77881d0cfab89a17a2bcbacee2f320"));
    assert_eq!(trie.len(), 8);
    check(&trie);
}

/// A genesis allocating to a single account: the state root a client would
/// put in the genesis header, from alloy_trie's `TrieAccount` and
/// `HashBuilder`, and from the account's single leaf written out by hand.
#[test]
fn single_account_genesis() {
    let address = address!("a94f5374fce5edbc8e2a8697c15331677e6ebf0b");
    let account = TrieAccount::new(0, U256::from(10).pow(U256::from(18)), EMPTY_ROOT_HASH, KECCAK_EMPTY);
    let value = alloy_rlp::encode(account);
    let key = keccak256(address);

    let mut builder = HashBuilder::default();
    builder.add_leaf(Nibbles::unpack(key), &value);
    let expected = builder.root();

    let mut leaf = vec![0xf8, (34 + 2 + value.len()) as u8, 0x80 + 33, 0x20];
    leaf.extend_from_slice(key.as_slice());
    leaf.extend_from_slice(&[0xb8, value.len() as u8]);
    leaf.extend_from_slice(&value);
    assert_eq!(keccak256(&leaf), expected);

    let mut trie = Trie::new();
    trie.insert(key, value.clone());
    assert_eq!(trie.root(), expected);
    assert!(verify_proof(expected, Nibbles::unpack(key), Some(value), &trie.proof(&key)).is_ok());
}

/// An update stales exactly the nodes on its path, and `root` refreshes just
/// those: the property the crate exists for.
#[test]
fn updates_stale_only_their_path() {
    let mut trie: Trie = (0..3000u64).map(|i| (secure(&i.to_be_bytes()), account_rlp(i, i))).collect();
    let mut model: BTreeMap<B256, Vec<u8>> =
        (0..3000u64).map(|i| (secure(&i.to_be_bytes()), account_rlp(i, i))).collect();
    trie.root();
    let (stale, total) = trie.root.count_stale();
    assert_eq!(stale, 0);
    assert!(total > 3000);

    let changed = secure(&7u64.to_be_bytes());
    trie.insert(changed, account_rlp(8, 8));
    model.insert(changed, account_rlp(8, 8));
    assert_eq!(trie.root.count_stale().0, path_nodes(&trie, &changed));

    // Rewriting a value unchanged stales nothing.
    trie.root();
    trie.insert(changed, account_rlp(8, 8));
    assert_eq!(trie.root.count_stale().0, 0);

    let added = secure(b"new");
    trie.insert(added, account_rlp(1, 1));
    model.insert(added, account_rlp(1, 1));
    assert_eq!(trie.root.count_stale().0, path_nodes(&trie, &added));
    trie.root();

    // A removal stales at most the path it had (less if nodes merged).
    let removed = secure(&9u64.to_be_bytes());
    let before = path_nodes(&trie, &removed);
    trie.remove(removed);
    model.remove(&removed);
    let stale = trie.root.count_stale().0;
    assert!(stale > 0 && stale < before, "{stale} stale for a path of {before}");

    // An absent key's removal stales nothing.
    trie.root();
    trie.remove(secure(b"absent"));
    assert_eq!(trie.root.count_stale().0, 0);

    assert_eq!(trie.root(), root_of(model));
    check(&trie);
}

#[test]
fn empty_value_removes() {
    let mut trie: Trie = small_example().into_iter().collect();
    let (key, _) = small_example()[0].clone();
    trie.insert(key, Vec::new());
    assert_eq!(trie.get(&key), None);
    assert_eq!(trie.len(), 4);
    assert_eq!(trie.root(), root_of(small_example().into_iter().skip(1)));
    assert_eq!(root_of(small_example().into_iter().chain([(key, Vec::new())])), trie.root());
}

#[test]
fn debug_is_short() {
    let mut trie: Trie = small_example().into_iter().collect();
    let root = trie.root();
    let shown = format!("{trie:?}");
    assert!(shown.contains("len: 5"), "{shown}");
    assert!(shown.contains(&format!("{root}")), "{shown}");
}

/// Keys that collide often and share prefixes of every length: nibbles set at
/// a few depths (0 to 63) over zeros, so there are extensions long and short,
/// and leaves deep enough to be embedded in their parent when values are
/// short. Fully random keys are mixed in for the top-level branching.
fn key() -> impl Strategy<Value = B256> {
    let shaped = vec((select(vec![0usize, 1, 2, 17, 40, 61, 62, 63]), 0u8..3), 0..4).prop_map(|changes| {
        let mut nibbles = [0u8; 64];
        for (at, nibble) in changes {
            nibbles[at] = nibble;
        }
        B256::from_slice(&Nibbles::from_nibbles(nibbles).pack())
    });
    prop_oneof![1 => any::<[u8; 32]>().prop_map(B256::from), 3 => shaped]
}

/// Short values make embedded (< 32 bytes) nodes; long ones hashed leaves.
fn value() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![vec(any::<u8>(), 1..3), vec(any::<u8>(), 20..60)]
}

#[derive(Clone, Debug)]
enum Op {
    Insert(B256, Vec<u8>),
    Remove(B256),
    /// Removes the nth present key (modulo their count), as random keys miss.
    RemovePresent(usize),
    Root,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (key(), value()).prop_map(|(k, v)| Op::Insert(k, v)),
        1 => key().prop_map(Op::Remove),
        3 => any::<usize>().prop_map(Op::RemovePresent),
        1 => Just(Op::Root),
    ]
}

fn apply(trie: &mut Trie, model: &mut BTreeMap<B256, Vec<u8>>, op: &Op) {
    match op {
        Op::Insert(key, value) => {
            trie.insert(*key, value.clone());
            model.insert(*key, value.clone());
        }
        Op::Remove(key) => {
            trie.remove(*key);
            model.remove(key);
        }
        Op::RemovePresent(n) => {
            if let Some(key) = model.keys().nth(n % model.len().max(1)).copied() {
                trie.remove(key);
                model.remove(&key);
            }
        }
        Op::Root => {
            assert_eq!(trie.root(), root_of(model.clone()));
            check(trie);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn matches_a_rebuild_after_any_changes(ops in vec(op(), 0..120)) {
        let mut trie = Trie::new();
        let mut model = BTreeMap::new();
        for op in &ops {
            apply(&mut trie, &mut model, op);
            prop_assert_eq!(trie.len(), model.len());
        }
        check(&trie);
        prop_assert_eq!(trie.root(), root_of(model.clone()));
        for (key, value) in &model {
            prop_assert_eq!(trie.get(key), Some(&value[..]));
        }
        for op in &ops {
            if let Op::Insert(key, _) | Op::Remove(key) = op {
                prop_assert_eq!(trie.get(key), model.get(key).map(|v| &v[..]));
            }
        }
    }

    #[test]
    fn proofs_verify_and_catch_tampering(
        ops in vec(op(), 1..80),
        probes in vec(key(), 1..6),
        nth in any::<usize>(),
        flip in any::<(usize, usize)>(),
    ) {
        let mut trie = Trie::new();
        let mut model = BTreeMap::new();
        for op in ops.iter().filter(|op| !matches!(op, Op::Root)) {
            apply(&mut trie, &mut model, op);
        }
        // Before `root`, so the proof has stale caches to fill first.
        let early = trie.proof(&probes[0]);
        let root = trie.root();
        prop_assert_eq!(&early, &trie.proof(&probes[0]));
        let present = model.keys().nth(nth % model.len().max(1)).copied();
        for key in probes.into_iter().chain(present) {
            let expected = model.get(&key).cloned();
            let proof = trie.proof(&key);
            let path = Nibbles::unpack(key);
            prop_assert!(verify_proof(root, path, expected.clone(), &proof).is_ok(), "{key} {expected:?} {proof:?}");
            // A proof is for one root, one value.
            prop_assert!(verify_proof(keccak256(root), path, expected.clone(), &proof).is_err());
            match &expected {
                Some(value) => {
                    prop_assert!(verify_proof(root, path, None, &proof).is_err());
                    let mut other = value.clone();
                    other[0] ^= 1;
                    prop_assert!(verify_proof(root, path, Some(other), &proof).is_err());
                    let mut longer = value.clone();
                    longer.push(0);
                    prop_assert!(verify_proof(root, path, Some(longer), &proof).is_err());
                }
                None => prop_assert!(verify_proof(root, path, Some(vec![1]), &proof).is_err()),
            }
            // Any byte changed in any node breaks the hash chain.
            if !proof.is_empty() {
                let mut tampered = proof.clone();
                let node = flip.0 % tampered.len();
                let mut bytes = tampered[node].to_vec();
                let at = flip.1 % bytes.len();
                bytes[at] ^= 0x10;
                tampered[node] = bytes.into();
                prop_assert!(verify_proof(root, path, expected.clone(), &tampered).is_err());
            }
        }
    }
}

/// Prints the cost of a block's worth of updates on a large account trie
/// next to a full rebuild, and the memory the trie holds. Run with
/// `cargo test -p w3api-trie --release -- --ignored --nocapture measure`;
/// `TRIE_LEAVES` and `TRIE_BLOCKS` change its size.
#[test]
#[ignore = "a measurement for humans, no assertion on time"]
fn measure() {
    use std::time::Instant;
    let env = |name: &str, default: u64| std::env::var(name).ok().and_then(|v| v.parse().ok()).unwrap_or(default);
    let leaves = env("TRIE_LEAVES", 100_000);
    let blocks = env("TRIE_BLOCKS", 200);
    let per_block = 50u64;
    let key = |i: u64| secure(&i.to_be_bytes());

    // Resident memory, where the OS tells it, to check the estimate below.
    let rss_kb = || {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let line = status.lines().find(|line| line.starts_with("VmRSS:")).unwrap_or_default().to_owned();
        line.split_whitespace().nth(1).and_then(|kb| kb.parse::<usize>().ok()).unwrap_or(0)
    };
    let rss_before = rss_kb();
    let started = Instant::now();
    let mut trie: Trie = (0..leaves).map(|i| (key(i), account_rlp(i, i * 1_000_000_007))).collect();
    let built = started.elapsed();
    let rss_built = rss_kb().saturating_sub(rss_before);
    let started = Instant::now();
    trie.root();
    let first_root = started.elapsed();

    let mut next = leaves;
    let started = Instant::now();
    for block in 0..blocks {
        for j in 0..per_block {
            // Mostly updates of existing accounts, some new ones and removals.
            let i = (block * 7919 + j * 104_729) % next;
            match j % 10 {
                0 => {
                    trie.insert(key(next), account_rlp(1, next));
                    next += 1;
                }
                1 => trie.remove(key(i)),
                _ => trie.insert(key(i), account_rlp(block + 1, i + block)),
            }
        }
        trie.root();
    }
    let per_block_time = started.elapsed() / blocks as u32;

    let started = Instant::now();
    let mut all = Vec::with_capacity(trie.len());
    for i in 0..next {
        if let Some(value) = trie.get(&key(i)) {
            all.push((key(i), value.to_vec()));
        }
    }
    let gathered = started.elapsed();
    let started = Instant::now();
    let rebuilt = root_of(all);
    let rebuild = started.elapsed();
    assert_eq!(trie.root(), rebuilt);

    let mut census = [0usize; 4];
    trie.root.census(&mut census);
    let [leaf_count, extensions, branches, value_bytes] = census;
    let node = size_of::<Node>();
    // One allocation per value, per branch's child array and per extension's child.
    let allocations = leaf_count + branches + extensions;
    let bytes = node * (leaf_count + extensions + branches) + value_bytes + 16 * allocations;
    println!(
        "{leaf_count} leaves, {branches} branches, {extensions} extensions; size_of::<Node>() = {node}; \
         ~{} MB, ~{} bytes per leaf ({} of them value); resident growth while inserting: {} MB",
        bytes / 1_000_000,
        bytes / leaf_count,
        value_bytes / leaf_count,
        rss_built / 1000
    );
    println!(
        "insert all: {built:?}; first root: {first_root:?}; per block of {per_block} changes + root: \
         {per_block_time:?}; HashBuilder rebuild of the same leaves: {rebuild:?} (gathering them: {gathered:?})"
    );
}
