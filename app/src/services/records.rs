//! The browser database (IndexedDB `keydo`, through `keydo-storage`) as the page uses
//! it: each finished game is recorded — history, personal best and sync outbox in one
//! transaction — the personal bests are kept for the mode buttons, and the sync status
//! and the leaderboard read the outbox and the save's credentials here.
//!
//! Every operation opens its own connection, which closes when it is dropped at the
//! end of the operation, so no open connection holds up a schema upgrade.

use super::sync::Coordinator;
use keydo_core::outbox::OutboxEntry;
use keydo_core::{Mode, Stats};
use keydo_storage::{Credentials, Db, Recorded, StorageError};
use leptos::prelude::*;
use leptos::task::spawn_local;
use uuid::Uuid;

/// The personal bests, and the way finished games reach the database.
#[derive(Clone, Copy)]
pub struct Records {
    /// The best value of each mode, as far as the page knows.
    bests: RwSignal<Vec<(Mode, i64)>>,
    coordinator: Coordinator,
}

/// Where recording a finished game stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Saving {
    Pending,
    /// Committed to the database; `new_best` if it beat the mode's personal best.
    Saved {
        new_best: bool,
    },
    Failed(String),
}

impl Records {
    /// Starts with no bests and fills them in from the database.
    pub fn start(coordinator: Coordinator) -> Records {
        let records = Records {
            bests: RwSignal::new(Vec::new()),
            coordinator,
        };
        spawn_local(async move {
            match stored_bests().await {
                Ok(stored) => records.bests.set(stored),
                Err(error) => log_storage_error(&error),
            }
        });
        records
    }

    /// The personal best of `mode` (reactive).
    pub fn best(&self, mode: Mode) -> Option<i64> {
        self.bests
            .with(|bests| bests.iter().find(|(m, _)| *m == mode).map(|(_, v)| *v))
    }

    /// Writes a game that just ended durably, then has the sync deliver it. The
    /// signal follows the write: "saved" means committed.
    pub fn record(&self, mode: Mode, stats: Stats) -> ReadSignal<Saving> {
        let saving = RwSignal::new(Saving::Pending);
        let records = *self;
        spawn_local(async move {
            match write(mode, stats).await {
                Ok(recorded) => {
                    records.set_best(mode, recorded.best);
                    saving.try_set(Saving::Saved {
                        new_best: recorded.new_best,
                    });
                    records.coordinator.result_saved();
                }
                Err(error) => {
                    log_storage_error(&error);
                    saving.try_set(Saving::Failed(error.to_string()));
                }
            }
        });
        saving.read_only()
    }

    /// Takes the best the database reported after recording a game.
    fn set_best(&self, mode: Mode, best: i64) {
        self.bests.update(|bests| {
            bests.retain(|(m, _)| *m != mode);
            bests.push((mode, best));
        });
    }
}

async fn stored_bests() -> Result<Vec<(Mode, i64)>, StorageError> {
    Db::open().await?.bests().await
}

/// Every outbox entry, in key order.
pub async fn outbox() -> Result<Vec<OutboxEntry>, StorageError> {
    Db::open().await?.outbox().await
}

/// The server save's credentials, if the sync has created one and the database can
/// be read.
pub async fn credentials() -> Option<Credentials> {
    let db = Db::open().await.ok()?;
    db.credentials().await.ok().flatten()
}

/// Records one finished game; resolves once the transaction has committed.
async fn write(mode: Mode, stats: Stats) -> Result<Recorded, StorageError> {
    // Whole milliseconds since the epoch, far below 2^53.
    let played_at = js_sys::Date::now() as u64;
    let db = Db::open().await?;
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

fn log_storage_error(error: &StorageError) {
    web_sys::console::warn_1(&format!("keydo: {error}").into());
}
