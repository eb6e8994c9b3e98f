-- When indexing of an NFT collection started, by chain and collection
-- address; the first start is kept. Times are Unix milliseconds.
CREATE TABLE nft_syncs (
    chain TEXT NOT NULL,
    collection BYTEA NOT NULL,
    started_at BIGINT NOT NULL,
    PRIMARY KEY (chain, collection)
);
