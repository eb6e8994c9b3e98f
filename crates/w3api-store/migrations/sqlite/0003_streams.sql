-- Webhook streams, their watched addresses, the project's settings, the
-- delivery queue replicas share, and the log of delivery attempts. Times
-- are Unix milliseconds; ids are uuids as hyphenated lowercase text;
-- booleans are 0 or 1. AUTOINCREMENT: a number is never used again, even
-- once its row is deleted, so that pages cut at it stay in order.

-- Streams, numbered by creation (seq cuts their pages). The settings are
-- the API's JSON, which the store keeps and does not read.
CREATE TABLE streams (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX streams_by_status ON streams (status);

-- The addresses (20 bytes) each stream watches, gone with their stream.
CREATE TABLE stream_addresses (
    stream_id TEXT NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
    address BLOB NOT NULL,
    PRIMARY KEY (stream_id, address)
);

-- The project's settings: one row.
CREATE TABLE project_settings (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    secret_key TEXT NOT NULL,
    region TEXT NOT NULL
);

-- Webhook deliveries, numbered by enqueueing, one per stream, block and
-- confirmation. A pending one is due at due_at; a worker that claims it
-- holds it (claimed_by) until lease_until or its report. Deliveries outlive
-- their stream.
CREATE TABLE deliveries (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    chain_id TEXT NOT NULL,
    block_number INTEGER NOT NULL,
    block_hash TEXT NOT NULL,
    confirmed INTEGER NOT NULL,
    payload TEXT NOT NULL,
    logs INTEGER NOT NULL,
    txs INTEGER NOT NULL,
    txs_internal INTEGER NOT NULL,
    webhook_url TEXT NOT NULL,
    tag TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts INTEGER NOT NULL,
    due_at INTEGER NOT NULL,
    claimed_by TEXT,
    lease_until INTEGER,
    UNIQUE (stream_id, block_hash, confirmed)
);
CREATE INDEX deliveries_by_due ON deliveries (state, due_at);
CREATE INDEX deliveries_by_stream ON deliveries (stream_id, seq);

-- Each POST of a delivery, numbered by recording.
CREATE TABLE delivery_attempts (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id),
    number INTEGER NOT NULL,
    worker TEXT NOT NULL,
    attempted_at INTEGER NOT NULL,
    latency_ms INTEGER NOT NULL,
    status_code INTEGER,
    error TEXT,
    delivered INTEGER NOT NULL
);
CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id, seq);
