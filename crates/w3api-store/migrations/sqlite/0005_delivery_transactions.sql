-- The transactions each delivery carries (in its transactions, logs and
-- internal transactions), as lowercase 0x text: the history and the log of
-- attempts are filtered by one.
CREATE TABLE delivery_transactions (
    hash TEXT NOT NULL,
    delivery_id TEXT NOT NULL REFERENCES deliveries (id),
    PRIMARY KEY (hash, delivery_id)
) WITHOUT ROWID;

-- Deliveries enqueued before this table, read from their payloads.
INSERT OR IGNORE INTO delivery_transactions (hash, delivery_id)
SELECT lower(json_extract(item.value, '$.hash')), d.id
FROM deliveries d, json_each(d.payload, '$.txs') item
WHERE json_extract(item.value, '$.hash') IS NOT NULL
UNION
SELECT lower(json_extract(item.value, '$.transactionHash')), d.id
FROM deliveries d, json_each(d.payload, '$.logs') item
WHERE json_extract(item.value, '$.transactionHash') IS NOT NULL
UNION
SELECT lower(json_extract(item.value, '$.transactionHash')), d.id
FROM deliveries d, json_each(d.payload, '$.txsInternal') item
WHERE json_extract(item.value, '$.transactionHash') IS NOT NULL;
