-- Sign-in challenges, by nonce. Times are Unix milliseconds.
CREATE TABLE challenges (
    nonce TEXT PRIMARY KEY NOT NULL,
    id TEXT NOT NULL,
    message TEXT NOT NULL,
    public_key BLOB NOT NULL,
    profile_id TEXT NOT NULL,
    expires_at INTEGER NOT NULL,
    verified_at INTEGER
);
CREATE INDEX challenges_by_expiry ON challenges (expires_at);
