//! One request at a time per idempotency key, within this process.
//!
//! Requests with the same key take turns: while one is being answered the others
//! wait, then find its record and replay it instead of doing the work again (and, for
//! new saves, instead of spending a save-creation slot).
//! Only requests with the same key ever wait for each other. Entries live as long as
//! someone holds or awaits their turn; dead ones are swept on the next call.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use tokio::sync::{Mutex as AsyncMutex, OwnedMutexGuard};

/// Held while a request with its key is being answered.
pub type Turn = OwnedMutexGuard<()>;

/// The keys being answered right now.
#[derive(Debug, Default)]
pub struct InFlight {
    keys: Mutex<HashMap<String, Weak<AsyncMutex<()>>>>,
}

impl InFlight {
    /// Waits until no other request with `key` is being answered.
    pub async fn turn(&self, key: &str) -> Turn {
        self.lock_for(key).lock_owned().await
    }

    fn lock_for(&self, key: &str) -> Arc<AsyncMutex<()>> {
        let mut keys = self.keys.lock().expect("no panics while sweeping keys");
        keys.retain(|_, lock| lock.strong_count() > 0);
        if let Some(lock) = keys.get(key).and_then(Weak::upgrade) {
            return lock;
        }
        let lock = Arc::new(AsyncMutex::new(()));
        keys.insert(key.to_owned(), Arc::downgrade(&lock));
        lock
    }

    #[cfg(test)]
    fn entries(&self) -> usize {
        self.keys.lock().unwrap().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::poll;
    use std::task::Poll;

    #[tokio::test]
    async fn the_same_key_waits_and_other_keys_do_not() {
        let in_flight = InFlight::default();
        let first = in_flight.turn("a").await;
        let second = in_flight.turn("a");
        tokio::pin!(second);
        assert!(poll!(&mut second).is_pending());
        let other = in_flight.turn("b");
        tokio::pin!(other);
        assert!(matches!(poll!(&mut other), Poll::Ready(_)));
        drop(first);
        assert!(matches!(poll!(&mut second), Poll::Ready(_)));
    }

    #[tokio::test]
    async fn finished_keys_are_forgotten() {
        let in_flight = InFlight::default();
        for key in ["a", "b", "c"] {
            drop(in_flight.turn(key).await);
        }
        let _last = in_flight.turn("d").await;
        assert_eq!(in_flight.entries(), 1);
    }
}
