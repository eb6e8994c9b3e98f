-- What users did to each devnet chain beyond its seed, in the order it
-- happened, so that a restart or another replica gets the same chain.
-- Chains are as the API names them.

-- What each chain's journal was written on top of (the devnet's seed,
-- scale and base chain, as the devnet writes it): a server deriving a
-- different base refuses the journal. Every write to a chain's journal
-- first writes this row, which is what orders the writers.
CREATE TABLE chain_journals (
    chain TEXT PRIMARY KEY,
    origin TEXT NOT NULL
);

-- One change per row, numbered up in the order it was made (numbers a
-- revert or reset made obsolete are forgotten, and never reused). The
-- change and its outcome are the devnet's JSON, which the store keeps and
-- does not read.
CREATE TABLE chain_changes (
    chain TEXT NOT NULL,
    seq BIGINT NOT NULL,
    change TEXT NOT NULL,
    outcome TEXT NOT NULL,
    PRIMARY KEY (chain, seq)
);

-- Who makes each chain's live blocks (--block-time) among replicas: one
-- holder, until expires_at (Unix milliseconds).
CREATE TABLE live_block_leases (
    chain TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
