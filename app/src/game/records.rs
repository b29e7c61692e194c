//! The player's results in the browser database (`keydo-storage`): each finished game
//! is recorded (history, personal best and sync outbox in one transaction), and the
//! personal bests are shown on the mode buttons.

use keydo_core::outbox::OutboxEntry;
use keydo_core::{Mode, Stats};
use keydo_storage::{Db, Recorded, StorageError};
use leptos::prelude::*;
use leptos::task::spawn_local;
use uuid::Uuid;

/// The personal best value of each mode, as far as the page knows.
#[derive(Clone, Copy)]
pub struct Bests(RwSignal<Vec<(Mode, i64)>>);

impl Bests {
    /// Starts empty and fills in from the database.
    pub fn load() -> Bests {
        let bests = Bests(RwSignal::new(Vec::new()));
        spawn_local(async move {
            match stored_bests().await {
                Ok(stored) => bests.0.set(stored),
                Err(error) => log_storage_error(&error),
            }
        });
        bests
    }

    /// The best of `mode` (reactive).
    pub fn of(&self, mode: Mode) -> Option<i64> {
        self.0
            .with(|bests| bests.iter().find(|(m, _)| *m == mode).map(|(_, v)| *v))
    }

    /// Takes the best the database reported after recording a game.
    pub fn update(&self, mode: Mode, best: i64) {
        self.0.update(|bests| {
            bests.retain(|(m, _)| *m != mode);
            bests.push((mode, best));
        });
    }
}

async fn stored_bests() -> Result<Vec<(Mode, i64)>, StorageError> {
    Db::open().await?.bests().await
}

/// Writes a finished game durably; resolves once the transaction has committed.
pub async fn record(mode: Mode, stats: Stats) -> Result<Recorded, StorageError> {
    let db = Db::open().await?;
    record_in(&db, mode, stats).await
}

async fn record_in(db: &Db, mode: Mode, stats: Stats) -> Result<Recorded, StorageError> {
    // Whole milliseconds since the epoch, far below 2^53.
    let played_at = js_sys::Date::now() as u64;
    let profile = db.profile(played_at).await?;
    let entry = OutboxEntry::new(Uuid::new_v4(), profile.id, mode, stats, played_at);
    // A `keydo:durable-write` performance measure spans the commit, for benchmarks.
    let performance = window().performance();
    if let Some(performance) = &performance {
        let _ = performance.mark(DURABLE_WRITE_START);
    }
    let recorded = db.record_result(&entry).await;
    if let Some(performance) = &performance {
        let _ = performance.measure_with_start_mark(DURABLE_WRITE, DURABLE_WRITE_START);
    }
    recorded
}

const DURABLE_WRITE: &str = "keydo:durable-write";
const DURABLE_WRITE_START: &str = "keydo:durable-write:start";

pub fn log_storage_error(error: &StorageError) {
    web_sys::console::warn_1(&format!("keydo: {error}").into());
}
