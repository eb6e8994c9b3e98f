-- When indexing of an NFT collection started, by chain and collection
-- address; the first start is kept. Times are Unix milliseconds.
CREATE TABLE nft_syncs (
    chain TEXT NOT NULL,
    collection BLOB NOT NULL,
    started_at INTEGER NOT NULL,
    PRIMARY KEY (chain, collection)
) WITHOUT ROWID;
