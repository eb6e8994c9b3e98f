//! How streams deliver: the retry schedule, timeouts, claims and depths.

use std::time::Duration;

use w3api_types::Chain;

/// How deliveries are made.
#[derive(Clone, Debug)]
pub struct StreamsConfig {
    /// How long after each failed attempt the next one is made. Its length
    /// is how many retries a delivery gets; after the last, the delivery
    /// has failed and its stream goes to status `error`.
    pub retries: Vec<Duration>,
    /// How long a receiver has to answer an attempt (and the test webhook).
    pub attempt_timeout: Duration,
    /// How long a claimed delivery is this server's alone: a server killed
    /// mid-delivery leaves it to another once this has passed.
    pub lease: Duration,
    /// Blocks until a block is confirmed, on every chain; `None` follows
    /// production's depth of each chain ([`production_confirmations`]).
    pub confirmations: Option<u64>,
    /// How often a server looks for deliveries another one queued, and
    /// for heads of chains it is not told about.
    pub poll: Duration,
    /// Attempts in flight at once.
    pub concurrency: usize,
    /// This server's name in the claims it makes.
    pub worker: String,
    /// The only hosts webhooks may be on; any host when empty.
    pub webhook_hosts: Vec<String>,
}

impl Default for StreamsConfig {
    /// Production's schedule: retries after 1 and 10 minutes, 1, 2, 6 and
    /// 12 hours, and a day.
    fn default() -> StreamsConfig {
        let minutes = |m: u64| Duration::from_secs(m * 60);
        StreamsConfig {
            retries: vec![
                minutes(1),
                minutes(10),
                minutes(60),
                minutes(120),
                minutes(360),
                minutes(720),
                minutes(1440),
            ],
            attempt_timeout: Duration::from_secs(10),
            lease: Duration::from_secs(60),
            confirmations: None,
            poll: Duration::from_millis(250),
            concurrency: 256,
            worker: uuid::Uuid::new_v4().to_string(),
            webhook_hosts: Vec::new(),
        }
    }
}

impl StreamsConfig {
    /// Blocks until a block of `chain` is confirmed.
    pub fn confirmations(&self, chain: Chain) -> u64 {
        self.confirmations.unwrap_or_else(|| production_confirmations(chain))
    }
}

/// The depth production waits for before it sends a block confirmed, by
/// chain id (its documented table); 100 for chains it does not list.
pub fn production_confirmations(chain: Chain) -> u64 {
    match chain.id() {
        Some(1 | 11_155_111 | 17_000 | 560_048) => 12,
        Some(56 | 97 | 42_161 | 421_614) => 18,
        Some(10 | 11_155_420) => 500,
        _ => 100,
    }
}
