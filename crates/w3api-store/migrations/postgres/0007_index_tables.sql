-- Node mode's index in tables (`--index postgres`): what the in-memory
-- index of a chain holds, kept here instead, so that replicas answer from
-- the database and hold nothing of the chain themselves. One replica per
-- chain writes (it holds the chain's row of index_leases); every write is
-- one transaction that first touches that row.
--
-- Chains are as the API names them. Addresses are numbered per chain
-- (index_holders) so that the big tables key on 4 bytes, not 20; number 0
-- is the zero address, the source of mints and the sink of burns. Amounts
-- are exact integers (NUMERIC), token ids too. Values that change over
-- blocks are kept as checkpoints: a row per block in which the value
-- changed, holding the value at the end of that block; the value at block
-- B is the newest row at or before B. A reorganisation deletes every row of
-- the dropped blocks, in the transaction that writes the new branch.

-- The indexed blocks: the chain the index holds, in a line of numbers.
CREATE TABLE index_headers (
    chain TEXT NOT NULL,
    number BIGINT NOT NULL,
    hash BYTEA NOT NULL,
    parent_hash BYTEA NOT NULL,
    timestamp BIGINT NOT NULL,
    PRIMARY KEY (chain, number)
);
-- The block at a date, and a day before a block, are one probe.
CREATE INDEX index_headers_by_time ON index_headers (chain, timestamp, number);

-- Where each chain's index stands: the first block it indexes from, the
-- sequence numbers the next movement and inner transfer take, and how many
-- reorganisations it rolled back (readers that do not write learn of them
-- here). Written with every batch, in its transaction.
CREATE TABLE index_progress (
    chain TEXT PRIMARY KEY,
    first_block BIGINT NOT NULL,
    next_move BIGINT NOT NULL,
    next_inner BIGINT NOT NULL,
    revision BIGINT NOT NULL
);

CREATE TABLE index_holders (
    chain TEXT NOT NULL,
    holder INTEGER NOT NULL,
    address BYTEA NOT NULL,
    PRIMARY KEY (chain, holder)
);
CREATE UNIQUE INDEX index_holders_by_address ON index_holders (chain, address);

-- Contracts as their indexes number them (assets from 1: 1 the wrapped
-- native token, 2 the stablecoin; collections from 0). A registration is
-- never undone by a reorganisation, as in memory.
CREATE TABLE index_tokens (
    chain TEXT NOT NULL,
    asset INTEGER NOT NULL,
    address BYTEA NOT NULL,
    name TEXT NOT NULL,
    symbol TEXT NOT NULL,
    decimals SMALLINT NOT NULL,
    PRIMARY KEY (chain, asset)
);
CREATE UNIQUE INDEX index_tokens_by_address ON index_tokens (chain, address);

CREATE TABLE index_collections (
    chain TEXT NOT NULL,
    collection INTEGER NOT NULL,
    address BYTEA NOT NULL,
    name TEXT NOT NULL,
    symbol TEXT NOT NULL,
    erc1155 BOOLEAN NOT NULL,
    PRIMARY KEY (chain, collection)
);
CREATE UNIQUE INDEX index_collections_by_address ON index_collections (chain, address);

-- DEX factories, numbered in the order they first created a pair.
CREATE TABLE index_exchanges (
    chain TEXT NOT NULL,
    exchange INTEGER NOT NULL,
    factory BYTEA NOT NULL,
    PRIMARY KEY (chain, exchange)
);

-- Pairs in creation order; a reorganisation drops the pairs created on the
-- dropped blocks.
CREATE TABLE index_pairs (
    chain TEXT NOT NULL,
    pair INTEGER NOT NULL,
    address BYTEA NOT NULL,
    token0 INTEGER NOT NULL,
    token1 INTEGER NOT NULL,
    exchange INTEGER NOT NULL,
    created BIGINT NOT NULL,
    PRIMARY KEY (chain, pair)
);
CREATE INDEX index_pairs_by_token0 ON index_pairs (chain, token0);
CREATE INDEX index_pairs_by_token1 ON index_pairs (chain, token1);

CREATE TABLE index_reserves (
    chain TEXT NOT NULL,
    pair INTEGER NOT NULL,
    block BIGINT NOT NULL,
    reserve0 NUMERIC(39) NOT NULL,
    reserve1 NUMERIC(39) NOT NULL,
    PRIMARY KEY (chain, pair, block)
);

-- Every transaction, and who sent or received it (one row when a wallet
-- sends to itself).
CREATE TABLE index_transactions (
    chain TEXT NOT NULL,
    block BIGINT NOT NULL,
    position INTEGER NOT NULL,
    hash BYTEA NOT NULL,
    sender INTEGER NOT NULL,
    recipient INTEGER,
    value NUMERIC(78) NOT NULL,
    PRIMARY KEY (chain, block, position)
);

CREATE TABLE index_parties (
    chain TEXT NOT NULL,
    holder INTEGER NOT NULL,
    block BIGINT NOT NULL,
    position INTEGER NOT NULL,
    PRIMARY KEY (chain, holder, block, position)
);

-- Native value moved by calls inside transactions, numbered in chain order.
CREATE TABLE index_inner (
    chain TEXT NOT NULL,
    seq BIGINT NOT NULL,
    block BIGINT NOT NULL,
    position INTEGER NOT NULL,
    payer INTEGER NOT NULL,
    payee INTEGER NOT NULL,
    value NUMERIC(78) NOT NULL,
    PRIMARY KEY (chain, seq)
);
CREATE INDEX index_inner_by_payer ON index_inner (chain, payer, seq);
CREATE INDEX index_inner_by_payee ON index_inner (chain, payee, seq);

-- Every token and NFT movement, numbered in chain order: an ERC20 one names
-- its asset, an NFT one its collection and token id.
CREATE TABLE index_moves (
    chain TEXT NOT NULL,
    seq BIGINT NOT NULL,
    block BIGINT NOT NULL,
    position INTEGER,
    log INTEGER,
    asset INTEGER,
    collection INTEGER,
    token_id NUMERIC(78),
    sender INTEGER NOT NULL,
    recipient INTEGER NOT NULL,
    amount NUMERIC(39) NOT NULL,
    multi BOOLEAN NOT NULL,
    operator INTEGER,
    batch BOOLEAN NOT NULL,
    PRIMARY KEY (chain, seq)
);
CREATE INDEX index_moves_by_sender ON index_moves (chain, sender, seq);
CREATE INDEX index_moves_by_recipient ON index_moves (chain, recipient, seq);
CREATE INDEX index_moves_by_asset ON index_moves (chain, asset, block, seq) WHERE asset IS NOT NULL;
CREATE INDEX index_moves_by_collection ON index_moves (chain, collection, seq) WHERE collection IS NOT NULL;

-- Checkpoints of balances, supplies, ERC721 owners and ERC1155 amounts.
CREATE TABLE index_balances (
    chain TEXT NOT NULL,
    holder INTEGER NOT NULL,
    asset INTEGER NOT NULL,
    block BIGINT NOT NULL,
    balance NUMERIC(39) NOT NULL,
    PRIMARY KEY (chain, holder, asset, block)
);

CREATE TABLE index_supplies (
    chain TEXT NOT NULL,
    asset INTEGER NOT NULL,
    block BIGINT NOT NULL,
    supply NUMERIC(39) NOT NULL,
    PRIMARY KEY (chain, asset, block)
);

CREATE TABLE index_owners (
    chain TEXT NOT NULL,
    collection INTEGER NOT NULL,
    token_id NUMERIC(78) NOT NULL,
    block BIGINT NOT NULL,
    owner INTEGER NOT NULL,
    PRIMARY KEY (chain, collection, token_id, block)
);

CREATE TABLE index_amounts (
    chain TEXT NOT NULL,
    holder INTEGER NOT NULL,
    collection INTEGER NOT NULL,
    token_id NUMERIC(78) NOT NULL,
    block BIGINT NOT NULL,
    amount NUMERIC(20) NOT NULL,
    PRIMARY KEY (chain, holder, collection, token_id, block)
);

-- Every NFT each holder ever held, with the movement that first gave it
-- (which orders a holder's NFTs and a token's holders), and each token's
-- first mint.
CREATE TABLE index_held (
    chain TEXT NOT NULL,
    holder INTEGER NOT NULL,
    collection INTEGER NOT NULL,
    token_id NUMERIC(78) NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (chain, holder, collection, token_id)
);
CREATE INDEX index_held_by_token ON index_held (chain, collection, token_id, seq);

CREATE TABLE index_minted (
    chain TEXT NOT NULL,
    collection INTEGER NOT NULL,
    token_id NUMERIC(78) NOT NULL,
    block BIGINT NOT NULL,
    seq BIGINT NOT NULL,
    PRIMARY KEY (chain, collection, token_id)
);
CREATE INDEX index_minted_in_order ON index_minted (chain, collection, seq);
