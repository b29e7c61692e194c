//! The browser database (IndexedDB `keydo`, through `keydo-storage`) as the game uses
//! it: each finished game is recorded — history, personal best, sync outbox and the
//! game as the practice statistics read it in one transaction — and the personal
//! bests are kept for the mode buttons. (The reads the
//! other services share are in [`super::db`].)
//!
//! A write that fails for a passing reason (the storage quota is used up, another tab
//! blocks a schema upgrade) loses nothing: the game stays in this tab's memory and
//! the same write is tried again with a capped backoff until it commits; recording is
//! idempotent (docs/sync.md). Meanwhile the result screen says "Not saved yet", and
//! closing the tab asks for confirmation.
//!
//! Every operation opens its own connection, which closes when it is dropped at the
//! end of the operation, so no open connection holds up a schema upgrade.
//!
//! The write and the bests' read are in the `drawn` module, fetched once the game is
//! drawn, long before a game can end (docs/performance.md, "What loads first"). A
//! game that ends before that module is in, or while it cannot be fetched, waits in
//! memory as after any other passing failure, and is written once the module loads.

use super::db::Running;
use super::practice::PracticeService;
use super::sync::Coordinator;
use crate::on_demand::once_loaded;
use keydo_core::game::board::Board;
use keydo_core::sync::outbox::OutboxEntry;
use keydo_core::{InputLog, Mode, Prompt, PromptId, Stats};
use keydo_storage::{Db, PracticeGame, Recorded, StorageError};
use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::fmt;
use std::time::Duration;
use uuid::Uuid;
use wasm_split_helpers::{SplitLoaderError, wasm_split};

/// The first retry of a failed write waits this long; each next one twice as long...
const FIRST_RETRY: Duration = Duration::from_secs(1);
/// ...up to this.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// The personal bests, and the way finished games reach the database.
#[derive(Clone, Copy)]
pub struct Records {
    /// The best value of each mode, as far as the page knows.
    bests: RwSignal<Vec<(Mode, i64)>>,
    /// Finished games whose write failed and that live only in this tab until a retry
    /// commits them.
    unsaved: RwSignal<usize>,
    /// The mode of the last game recorded in this page.
    last_played: RwSignal<Option<Mode>>,
    /// The boards that game counts on.
    last_boards: RwSignal<Vec<Board>>,
    coordinator: Coordinator,
    /// Folds each recorded game into the practice statistics.
    practice: PracticeService,
}

/// Where recording a finished game stands.
#[derive(Debug, Clone, PartialEq)]
pub enum Saving {
    Pending,
    /// The write failed for this reason and will be tried again; the game is kept in
    /// memory meanwhile.
    NotSavedYet(String),
    /// Committed to the database; `new_best` if it beat its board's personal best
    /// (the mode's, a loaded text's or its options'), `had_best` if there was one.
    Saved {
        score_id: Uuid,
        new_best: bool,
        had_best: bool,
    },
    /// A stored record is unreadable: trying again cannot help.
    Failed(String),
}

/// A finished game as it is written, fixed when the game ends so every attempt writes
/// the same result.
#[derive(Debug, Clone)]
struct Game {
    score_id: Uuid,
    mode: Mode,
    stats: Stats,
    /// When the game ended, unix ms.
    played_at: u64,
    /// What the server replays (docs/replay.md).
    prompt: PromptId,
    input: InputLog,
    /// The boards it counts on, each with its own outbox entry.
    boards: Vec<Board>,
    /// The game as the practice statistics read it, written in the same transaction.
    practice: PracticeGame,
}

impl Records {
    /// Starts with no bests: [`Records::read_bests`] fills them in once the game is
    /// drawn.
    pub fn start(coordinator: Coordinator, practice: PracticeService) -> Records {
        let records = Records {
            bests: RwSignal::new(Vec::new()),
            unsaved: RwSignal::new(0),
            last_played: RwSignal::new(None),
            last_boards: RwSignal::new(Vec::new()),
            coordinator,
            practice,
        };
        let unsaved = records.unsaved;
        let guard = window_event_listener(ev::beforeunload, move |event| {
            // Closing now would lose a game that is only in memory: the browser asks.
            if unsaved.try_get_untracked().unwrap_or(0) > 0 {
                event.prevent_default();
                event.set_return_value("unsaved");
            }
        });
        on_cleanup(move || guard.remove());
        records
    }

    /// Reads the stored personal bests, in the `drawn` module: called once the game
    /// is drawn, it fetches that module ahead of the first game's end, and tries again
    /// while the module cannot be fetched.
    pub fn read_bests(&self) {
        let bests = self.bests;
        spawn_local(async move {
            match once_loaded(load_bests).await.await {
                Ok(stored) => bests.update(|shown| add_stored(shown, stored)),
                Err(error) => log_failure(&error),
            }
        });
    }

    /// The personal best of `mode` (reactive).
    pub fn best(&self, mode: Mode) -> Option<i64> {
        self.bests
            .with(|bests| bests.iter().find(|(m, _)| *m == mode).map(|(_, v)| *v))
    }

    /// How many finished games are kept only in this tab's memory (reactive).
    pub fn unsaved(&self) -> Signal<usize> {
        self.unsaved.into()
    }

    /// The mode of the last game recorded in this page, once one was (reactive).
    pub fn last_played(&self) -> Signal<Option<Mode>> {
        self.last_played.into()
    }

    /// The boards the last game recorded in this page counts on (reactive).
    pub fn last_boards(&self) -> Signal<Vec<Board>> {
        self.last_boards.into()
    }

    /// Writes a game that just ended durably — trying again until it commits — then
    /// has the sync deliver it. The signal follows the write: "saved" means committed.
    ///
    /// `boards_at` names the boards the game counts on, given when it ended
    /// (`keydo_core::game::board::boards_of`); `text` is the prompt `prompt` names,
    /// kept with the game for the practice statistics.
    pub fn record(
        &self,
        mode: Mode,
        stats: Stats,
        (prompt, text): (PromptId, &Prompt),
        input: InputLog,
        boards_at: impl FnOnce(u64) -> Vec<Board>,
    ) -> ReadSignal<Saving> {
        // Whole milliseconds since the epoch, far below 2^53.
        let played_at = js_sys::Date::now() as u64;
        let practice = PracticeGame {
            mode,
            prompt: text.as_str().to_owned(),
            input: input.clone(),
            target: self.practice.target(),
            played_at,
        };
        let game = Game {
            practice,
            score_id: Uuid::new_v4(),
            mode,
            stats,
            played_at,
            prompt,
            input,
            boards: boards_at(played_at),
        };
        let score_id = game.score_id;
        let on_mode_boards = game.boards.contains(&Board::Mode);
        self.last_played.set(Some(mode));
        self.last_boards.set(game.boards.clone());
        let saving = RwSignal::new(Saving::Pending);
        let records = *self;
        spawn_local(async move {
            let outcome = records.write_until_committed(game, saving).await;
            match outcome {
                Ok(recorded) => {
                    if on_mode_boards {
                        records.set_best(mode, recorded.best);
                    }
                    records.coordinator.recount().await;
                    saving.try_set(Saving::Saved {
                        score_id,
                        new_best: recorded.new_best,
                        had_best: recorded.had_best,
                    });
                    records.coordinator.saved();
                    records.practice.catch_up();
                }
                Err(error) => {
                    saving.try_set(Saving::Failed(error.to_string()));
                }
            }
        });
        saving.read_only()
    }

    /// Writes `game`, retrying transient failures with a capped backoff; while it is
    /// not saved it counts as unsaved and `saving` says why.
    async fn write_until_committed(
        &self,
        game: Game,
        saving: RwSignal<Saving>,
    ) -> Result<Recorded, WriteFailure> {
        let mut failures = 0;
        let outcome = loop {
            match write(game.clone()).await {
                Err(error) if error.is_transient() => {
                    log_failure(&error);
                    if failures == 0 {
                        self.unsaved.update(|n| *n += 1);
                    }
                    failures += 1;
                    saving.try_set(Saving::NotSavedYet(error.to_string()));
                    gloo_timers::future::sleep(retry_delay(failures)).await;
                }
                outcome => break outcome,
            }
        };
        if failures > 0 {
            self.unsaved.update(|n| *n -= 1);
        }
        if let Err(error) = &outcome {
            log_failure(error);
        }
        outcome
    }

    /// Takes the best the database reported after recording a game.
    fn set_best(&self, mode: Mode, best: i64) {
        self.bests.update(|bests| {
            bests.retain(|(m, _)| *m != mode);
            bests.push((mode, best));
        });
    }
}

/// Adds the bests read from the database to those `shown`, for the modes it has none
/// of: a best recorded in this page before the read came back is newer than the read.
fn add_stored(shown: &mut Vec<(Mode, i64)>, stored: Vec<(Mode, i64)>) {
    for (mode, value) in stored {
        if shown.iter().all(|(m, _)| *m != mode) {
            shown.push((mode, value));
        }
    }
}

/// The wait before the next attempt after `failures` failed writes in a row: doubling
/// from [`FIRST_RETRY`], capped at [`MAX_RETRY`].
fn retry_delay(failures: u32) -> Duration {
    let doublings = failures.saturating_sub(1).min(16);
    (FIRST_RETRY * 2u32.pow(doublings)).min(MAX_RETRY)
}

/// Why one attempt at recording a game failed.
#[derive(Debug, Clone)]
enum WriteFailure {
    /// The `drawn` module, which holds the write, could not be fetched.
    NotLoaded,
    /// The database refused or failed the write.
    Storage(StorageError),
}

impl WriteFailure {
    /// Whether trying again may succeed: a module not fetched yet may be fetched next
    /// time, and storage says which of its failures pass.
    fn is_transient(&self) -> bool {
        match self {
            WriteFailure::NotLoaded => true,
            WriteFailure::Storage(error) => error.is_transient(),
        }
    }
}

impl fmt::Display for WriteFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteFailure::NotLoaded => {
                f.write_str("the code that saves a result could not be loaded")
            }
            WriteFailure::Storage(error) => error.fmt(f),
        }
    }
}

impl From<SplitLoaderError> for WriteFailure {
    fn from(_: SplitLoaderError) -> Self {
        WriteFailure::NotLoaded
    }
}

/// One attempt at recording `game`; resolves once the transaction has committed.
async fn write(game: Game) -> Result<Recorded, WriteFailure> {
    load_write(game).await?.await.map_err(WriteFailure::Storage)
}

/// The write.
#[wasm_split(drawn, fallible)]
fn load_write(game: Game) -> Result<Running<Recorded>, WriteFailure> {
    Ok(Box::pin(write_now(game)))
}

/// The personal best of every mode played so far.
#[wasm_split(drawn, fallible)]
fn load_bests() -> Result<Running<Vec<(Mode, i64)>>, SplitLoaderError> {
    Ok(Box::pin(async { Db::open().await?.bests().await }))
}

async fn write_now(game: Game) -> Result<Recorded, StorageError> {
    let db = Db::open().await?;
    let profile = db.profile(game.played_at).await?;
    let entry = OutboxEntry::new(
        game.score_id,
        profile.id,
        game.mode,
        game.stats,
        game.played_at,
    )
    .with_replay(game.prompt, game.input);
    // A `keydo:durable-write` performance measure spans the commit, for benchmarks.
    let performance = window().performance();
    if let Some(performance) = &performance {
        let _ = performance.mark(DURABLE_WRITE_START);
    }
    let recorded = db
        .record_result_with_practice(&entry, &game.boards, &game.practice)
        .await;
    if let Some(performance) = &performance {
        let _ = performance.measure_with_start_mark(DURABLE_WRITE, DURABLE_WRITE_START);
    }
    recorded
}

const DURABLE_WRITE: &str = "keydo:durable-write";
const DURABLE_WRITE_START: &str = "keydo:durable-write:start";

fn log_failure(error: &dyn fmt::Display) {
    web_sys::console::warn_1(&format!("keydo: {error}").into());
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn failed_writes_are_retried_doubling_from_a_second_up_to_half_a_minute() {
        let delays: Vec<u64> = (1..=8).map(|n| retry_delay(n).as_secs()).collect();
        assert_eq!(delays, [1, 2, 4, 8, 16, 30, 30, 30]);
        assert_eq!(retry_delay(0), FIRST_RETRY);
        assert_eq!(retry_delay(u32::MAX), MAX_RETRY);
    }

    #[test]
    fn a_best_recorded_before_the_stored_ones_were_read_is_kept() {
        let mut shown = vec![(Mode::Quote, 90)];
        add_stored(&mut shown, vec![(Mode::Quote, 80), (Mode::Time, 50)]);
        assert_eq!(shown, [(Mode::Quote, 90), (Mode::Time, 50)]);
        let mut none_yet = Vec::new();
        add_stored(&mut none_yet, vec![(Mode::Words, 70)]);
        assert_eq!(none_yet, [(Mode::Words, 70)]);
    }

    #[test]
    fn a_write_whose_module_is_not_in_yet_is_tried_again_as_a_full_quota_is() {
        assert!(WriteFailure::NotLoaded.is_transient());
        assert!(WriteFailure::Storage(StorageError::QuotaExceeded).is_transient());
        let unreadable = WriteFailure::Storage(StorageError::Record("bad".into()));
        assert!(!unreadable.is_transient());
        assert_eq!(
            WriteFailure::NotLoaded.to_string(),
            "the code that saves a result could not be loaded"
        );
    }
}
