use chrono::{DateTime, Utc};

/// A sign-in challenge as issued: the text the account signs and what the
/// server needs to check a signature of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The message's nonce, unique among challenges; the key they are found by.
    pub nonce: String,
    /// The identifier returned to the caller.
    pub id: String,
    /// The exact text issued, which the signature covers.
    pub message: String,
    /// The account's Ed25519 public key.
    pub public_key: [u8; 32],
    /// The account's stable identifier.
    pub profile_id: String,
    /// When the challenge stops being valid (whole milliseconds are kept).
    pub expires_at: DateTime<Utc>,
    /// When a signature of it was accepted; `None` until then.
    pub verified_at: Option<DateTime<Utc>>,
}
