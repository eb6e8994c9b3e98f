//! Waiting for chains to move, as the subscription feed and the streams'
//! follower both do: on the heads a source announces, and on a poll, which
//! is all there is for a source that announces none and a safety net for
//! one that does.

use std::time::Duration;

use tokio::sync::broadcast::Receiver;
use tokio::sync::broadcast::error::RecvError;
use tokio::time::{Interval, MissedTickBehavior};

use crate::Head;

/// Why a [`HeadWatch`] woke.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wake {
    /// The source announced a chain's new head.
    Head(Head),
    /// The watcher fell this many announcements behind: any chain may have moved.
    Missed(u64),
    /// The poll's interval passed.
    Tick,
}

/// A source's announced heads together with a poll.
pub struct HeadWatch {
    /// `None` once the source stops announcing (or never did).
    heads: Option<Receiver<Head>>,
    ticks: Interval,
}

impl HeadWatch {
    /// Watches `heads` (a source's [`crate::Blocks::heads`]), polling every
    /// `poll`; the first poll is at once.
    pub fn new(heads: Option<Receiver<Head>>, poll: Duration) -> HeadWatch {
        let mut ticks = tokio::time::interval(poll);
        // A slow round is not made up for with a burst of polls.
        ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        HeadWatch { heads, ticks }
    }

    /// Waits for the next announcement or poll.
    pub async fn next(&mut self) -> Wake {
        loop {
            let head = async {
                match self.heads.as_mut() {
                    Some(heads) => heads.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                // Heads first: a poll due at the same time finds nothing more.
                biased;
                head = head => match head {
                    Ok(head) => return Wake::Head(head),
                    Err(RecvError::Lagged(missed)) => return Wake::Missed(missed),
                    Err(RecvError::Closed) => self.heads = None,
                },
                _ = self.ticks.tick() => return Wake::Tick,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::sync::broadcast;
    use w3api_types::Chain;

    #[tokio::test]
    async fn wakes_on_heads_on_lag_and_on_the_poll_after_the_source_stops_announcing() {
        let (sender, receiver) = broadcast::channel(1);
        let mut watch = HeadWatch::new(Some(receiver), Duration::from_millis(50));
        assert_eq!(watch.next().await, Wake::Tick, "the first poll is at once");
        let head = |number| Head { chain: Chain::Eth, number };
        sender.send(head(1)).unwrap();
        assert_eq!(watch.next().await, Wake::Head(head(1)));
        sender.send(head(2)).unwrap();
        sender.send(head(3)).unwrap();
        assert_eq!(watch.next().await, Wake::Missed(1), "a channel of one kept only the newest");
        assert_eq!(watch.next().await, Wake::Head(head(3)));
        drop(sender);
        let next = tokio::time::timeout(Duration::from_secs(5), watch.next()).await;
        assert_eq!(next, Ok(Wake::Tick), "with no announcer left, the poll still wakes it");
    }
}
