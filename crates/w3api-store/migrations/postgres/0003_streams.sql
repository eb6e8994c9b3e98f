-- Webhook streams, their watched addresses, the project's settings, the
-- delivery queue replicas share, and the log of delivery attempts. Times
-- are Unix milliseconds; ids are uuids as hyphenated lowercase text.

-- Streams, numbered by creation (seq cuts their pages). The settings are
-- the API's JSON, which the store keeps and does not read.
CREATE TABLE streams (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    settings TEXT NOT NULL,
    status TEXT NOT NULL,
    status_message TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE INDEX streams_by_status ON streams (status);

-- The addresses (20 bytes) each stream watches, gone with their stream.
CREATE TABLE stream_addresses (
    stream_id TEXT NOT NULL REFERENCES streams (id) ON DELETE CASCADE,
    address BYTEA NOT NULL,
    PRIMARY KEY (stream_id, address)
);

-- The project's settings: one row.
CREATE TABLE project_settings (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    secret_key TEXT NOT NULL,
    region TEXT NOT NULL
);

-- Webhook deliveries, numbered by enqueueing, one per stream, block and
-- confirmation. A pending one is due at due_at; a worker that claims it
-- holds it (claimed_by) until lease_until or its report. Deliveries outlive
-- their stream.
CREATE TABLE deliveries (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    stream_id TEXT NOT NULL,
    chain_id TEXT NOT NULL,
    block_number BIGINT NOT NULL,
    block_hash TEXT NOT NULL,
    confirmed BOOLEAN NOT NULL,
    payload TEXT NOT NULL,
    logs BIGINT NOT NULL,
    txs BIGINT NOT NULL,
    txs_internal BIGINT NOT NULL,
    webhook_url TEXT NOT NULL,
    tag TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts BIGINT NOT NULL,
    due_at BIGINT NOT NULL,
    claimed_by TEXT,
    lease_until BIGINT,
    UNIQUE (stream_id, block_hash, confirmed)
);
CREATE INDEX deliveries_by_due ON deliveries (state, due_at);
CREATE INDEX deliveries_by_stream ON deliveries (stream_id, seq);

-- Each POST of a delivery, numbered by recording.
CREATE TABLE delivery_attempts (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id),
    number BIGINT NOT NULL,
    worker TEXT NOT NULL,
    attempted_at BIGINT NOT NULL,
    latency_ms BIGINT NOT NULL,
    status_code BIGINT,
    error TEXT,
    delivered BOOLEAN NOT NULL
);
CREATE INDEX delivery_attempts_by_delivery ON delivery_attempts (delivery_id, seq);
