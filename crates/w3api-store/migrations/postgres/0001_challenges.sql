-- Sign-in challenges, by nonce. Times are Unix milliseconds.
CREATE TABLE challenges (
    nonce TEXT PRIMARY KEY,
    id TEXT NOT NULL,
    message TEXT NOT NULL,
    public_key BYTEA NOT NULL,
    profile_id TEXT NOT NULL,
    expires_at BIGINT NOT NULL,
    verified_at BIGINT
);
CREATE INDEX challenges_by_expiry ON challenges (expires_at);
