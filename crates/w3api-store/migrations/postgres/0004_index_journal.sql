-- The journal of each chain's node-mode index, and who writes it. Chains
-- are as the API names them; hashes are their 32 bytes; holders are uuids
-- as hyphenated lowercase text.

-- One row per indexed block, in a line of numbers whose parent hashes
-- link each to the one before (the store checks it on append). The
-- payload is the indexer's, which the store keeps and does not read;
-- timestamp is the block's, in Unix seconds.
CREATE TABLE index_blocks (
    chain TEXT NOT NULL,
    number BIGINT NOT NULL,
    hash BYTEA NOT NULL,
    parent_hash BYTEA NOT NULL,
    timestamp BIGINT NOT NULL,
    payload BYTEA NOT NULL,
    PRIMARY KEY (chain, number)
);

-- Who may write each chain's journal: one holder, until expires_at (Unix
-- milliseconds). Every write to a chain's journal goes through its row.
CREATE TABLE index_leases (
    chain TEXT PRIMARY KEY,
    holder TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
