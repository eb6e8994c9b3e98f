-- The transactions each delivery carries (in its transactions, logs and
-- internal transactions), as lowercase 0x text: the history and the log of
-- attempts are filtered by one.
CREATE TABLE delivery_transactions (
    hash TEXT NOT NULL,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id),
    PRIMARY KEY (hash, delivery_id)
);

-- Deliveries enqueued before this table, read from their payloads.
INSERT INTO delivery_transactions (hash, delivery_id)
SELECT DISTINCT lower(carried.hash), carried.delivery_id FROM (
    SELECT item ->> 'hash' AS hash, d.id AS delivery_id
    FROM deliveries d, jsonb_array_elements(d.payload::jsonb -> 'txs') item
    UNION ALL
    SELECT item ->> 'transactionHash', d.id
    FROM deliveries d, jsonb_array_elements(d.payload::jsonb -> 'logs') item
    UNION ALL
    SELECT item ->> 'transactionHash', d.id
    FROM deliveries d, jsonb_array_elements(d.payload::jsonb -> 'txsInternal') item
) AS carried
WHERE carried.hash IS NOT NULL;
