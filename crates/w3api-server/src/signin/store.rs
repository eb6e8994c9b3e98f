//! Issued challenges, kept until they expire.

use std::collections::HashMap;
use std::sync::Mutex;

use chrono::{DateTime, Utc};

use super::message::SignInMessage;

/// A challenge the server issued.
#[derive(Clone, Debug)]
pub(crate) struct Challenge {
    /// Identifier returned to the caller.
    pub id: String,
    /// The exact text issued.
    pub text: String,
    /// Its fields.
    pub message: SignInMessage,
    /// The account's public key.
    pub public_key: [u8; 32],
    /// Stable identifier of the account.
    pub profile_id: String,
    /// When it stops being valid.
    pub expires_at: DateTime<Utc>,
    /// Whether a signature for it was already accepted.
    pub used: bool,
}

/// The store is full of challenges that have not expired yet.
#[derive(Debug)]
pub(crate) struct Full;

/// Challenges by nonce, at most `capacity`; expired ones are evicted when
/// room is needed.
pub(crate) struct Challenges {
    by_nonce: Mutex<HashMap<String, Challenge>>,
    capacity: usize,
}

impl Challenges {
    /// A store holding at most `capacity` live challenges.
    pub(crate) fn new(capacity: usize) -> Challenges {
        Challenges { by_nonce: Mutex::new(HashMap::new()), capacity }
    }

    /// Keeps a new challenge, evicting expired ones if the store is full.
    pub(crate) fn insert(&self, challenge: Challenge, now: DateTime<Utc>) -> Result<(), Full> {
        let mut by_nonce = self.by_nonce.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if by_nonce.len() >= self.capacity {
            by_nonce.retain(|_, c| c.expires_at > now);
        }
        if by_nonce.len() >= self.capacity {
            return Err(Full);
        }
        by_nonce.insert(challenge.message.nonce.clone(), challenge);
        Ok(())
    }

    /// Runs `check` on the challenge with `nonce`; if it returns `Ok`, the
    /// challenge is marked used. A failed check leaves it as it was.
    pub(crate) fn redeem<T, E>(
        &self,
        nonce: &str,
        check: impl FnOnce(&Challenge) -> Result<T, E>,
    ) -> Option<Result<T, E>> {
        let mut by_nonce = self.by_nonce.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let challenge = by_nonce.get_mut(nonce)?;
        let outcome = check(challenge);
        if outcome.is_ok() {
            challenge.used = true;
        }
        Some(outcome)
    }
}

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;
    use crate::signin::message::SignInMessage;

    fn challenge(nonce: &str, expires_at: DateTime<Utc>) -> Challenge {
        let message = SignInMessage {
            domain: "d".into(),
            address: "a".into(),
            statement: None,
            uri: "https://d".into(),
            version: "1".into(),
            network: w3api_types::SolanaNetwork::Devnet,
            nonce: nonce.into(),
            issued_at: expires_at,
            expiration_time: Some(expires_at),
            not_before: None,
            resources: Vec::new(),
        };
        Challenge {
            id: nonce.into(),
            text: message.render(),
            message,
            public_key: [0; 32],
            profile_id: "p".into(),
            expires_at,
            used: false,
        }
    }

    #[test]
    fn the_store_is_bounded_and_evicts_expired_challenges() {
        let now = Utc::now();
        let store = Challenges::new(2);
        store.insert(challenge("a", now + Duration::seconds(1)), now).unwrap();
        store.insert(challenge("b", now + Duration::seconds(60)), now).unwrap();
        assert!(store.insert(challenge("c", now + Duration::seconds(60)), now).is_err(), "full of live challenges");
        let later = now + Duration::seconds(2);
        store.insert(challenge("c", later + Duration::seconds(60)), later).expect("\"a\" expired and was evicted");
        assert!(store.redeem("a", |_| Ok::<_, ()>(())).is_none());
        assert!(store.redeem("b", |_| Ok::<_, ()>(())).is_some());
    }

    #[test]
    fn a_failed_check_leaves_the_challenge_unused() {
        let now = Utc::now();
        let store = Challenges::new(4);
        store.insert(challenge("n", now + Duration::seconds(60)), now).unwrap();
        assert_eq!(store.redeem("n", |_| Err::<(), _>("nope")), Some(Err("nope")));
        assert_eq!(store.redeem("n", |c| if c.used { Err("used") } else { Ok(()) }), Some(Ok(())));
        assert_eq!(store.redeem("n", |c| if c.used { Err("used") } else { Ok(()) }), Some(Err("used")));
    }
}
