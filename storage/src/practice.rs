//! The `practice` store (docs/practice.md, "Storage"): every game folded into the
//! per-unit statistics, as rebuilding needs it, and one record of the statistics
//! folded from them so far.
//!
//! Keys: `state` holds [`Practice`]; `game:<seq>` one [`PracticeGame`] each, `seq`
//! counting from 0 in the order they were written. A game of the boards is written in
//! the same transaction as its history row (`Db::record_result_with_practice`), a
//! lesson alone (`Db::record_practice_game`), so no game is ever missed or counted
//! twice; the statistics then catch up, in order, with the games written since they
//! were last folded (`Db::catch_up_practice`), which needs the course (the lists a
//! lesson is made of) and so waits until the page has it.

use crate::StorageError;
use crate::db::{Db, HISTORY, PRACTICE};
use crate::records::{from_js, to_js};
use keydo_core::game::prompt::Prompt;
use keydo_core::practice::Course;
use keydo_core::practice::stats::{Target, UnitStats};
use keydo_core::sync::outbox::OutboxEntry;
use keydo_core::{InputLog, Mode};
use rexie::{KeyRange, Store, Transaction, TransactionMode};
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

const STATE: &str = "state";

/// One game as the statistics read it: what was typed, how, and the target then set.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PracticeGame {
    pub mode: Mode,
    /// The prompt's text: a lesson is in no corpus, so its identity would not do.
    pub prompt: String,
    pub input: InputLog,
    pub target: Target,
    /// When the game ended, unix ms.
    pub played_at: u64,
}

/// The player's practice: the statistics, the target they aim for, and how far the
/// statistics have caught up with the games written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Practice {
    pub stats: UnitStats,
    pub target: Target,
    /// Games written to the store.
    pub recorded: u64,
    /// Games folded into `stats`: the first `folded` of them.
    pub folded: u64,
}

fn game_key(seq: u64) -> JsValue {
    // Zero-padded, so the keys' string order is the games' order.
    format!("game:{seq:016}").into()
}

pub(crate) async fn read_state(store: &Store) -> Result<Practice, StorageError> {
    Ok(store
        .get(STATE.into())
        .await?
        .map(from_js)
        .transpose()?
        .unwrap_or_default())
}

/// Writes `game` as the next one after those already written, in `tx`.
pub(crate) async fn append_game(tx: &Transaction, game: &PracticeGame) -> Result<(), StorageError> {
    let store = tx.store(PRACTICE)?;
    let mut state = read_state(&store).await?;
    store
        .put(&to_js(game)?, Some(&game_key(state.recorded)))
        .await?;
    state.recorded += 1;
    store.put(&to_js(&state)?, Some(&STATE.into())).await?;
    Ok(())
}

/// The games of `range` (all when `None`), in the order written.
async fn games(store: &Store, range: Option<KeyRange>) -> Result<Vec<PracticeGame>, StorageError> {
    let range = match range {
        Some(range) => range,
        None => KeyRange::bound(&game_key(0), &game_key(u64::MAX), None, None)
            .map_err(rexie::Error::from)?,
    };
    let values = store.get_all(Some(range), None).await?;
    values.into_iter().map(from_js).collect()
}

fn prompt_of(game: &PracticeGame) -> Result<Prompt, StorageError> {
    Prompt::new(&game.prompt)
        .map_err(|e| StorageError::Record(format!("a practice game's prompt: {e}")))
}

/// Folds `games` with `course` into `stats`, one by one: from the default, this is
/// `Course::rebuild`, which core's tests hold equal to folding game by game.
fn fold(
    course: &Course,
    stats: UnitStats,
    games: &[PracticeGame],
) -> Result<UnitStats, StorageError> {
    let prompts: Vec<Prompt> = games.iter().map(prompt_of).collect::<Result<_, _>>()?;
    let mut stats = stats;
    for (game, prompt) in games.iter().zip(&prompts) {
        course.add_game(&mut stats, game.mode, prompt, &game.input, game.target);
    }
    Ok(stats)
}

impl Db {
    /// The player's practice as stored (the default before anything was).
    pub async fn practice(&self) -> Result<Practice, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadOnly, async |tx| {
            read_state(&tx.store(PRACTICE)?).await
        })
        .await
    }

    /// Sets the target speeds lessons aim for; later games are folded with it.
    pub async fn set_practice_target(&self, target: Target) -> Result<Practice, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadWrite, async |tx| {
            let store = tx.store(PRACTICE)?;
            let mut state = read_state(&store).await?;
            state.target = target;
            store.put(&to_js(&state)?, Some(&STATE.into())).await?;
            Ok(state)
        })
        .await
    }

    /// Records a practice game (a lesson, a 练错字 drill), which no board ever sees,
    /// and folds it and any game not yet folded into the statistics, in one
    /// transaction.
    pub async fn record_practice_game(
        &self,
        course: &Course,
        game: &PracticeGame,
    ) -> Result<Practice, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadWrite, async |tx| {
            append_game(tx, game).await?;
            catch_up(tx, course).await
        })
        .await
    }

    /// Folds the games written since the statistics were last folded.
    pub async fn catch_up_practice(&self, course: &Course) -> Result<Practice, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadWrite, async |tx| {
            catch_up(tx, course).await
        })
        .await
    }

    /// Recomputes the statistics from every stored game, keeping the target.
    pub async fn rebuild_practice(&self, course: &Course) -> Result<Practice, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadWrite, async |tx| {
            let store = tx.store(PRACTICE)?;
            let mut state = read_state(&store).await?;
            let games = games(&store, None).await?;
            state.stats = fold(course, UnitStats::default(), &games)?;
            state.recorded = games.len() as u64;
            state.folded = state.recorded;
            store.put(&to_js(&state)?, Some(&STATE.into())).await?;
            Ok(state)
        })
        .await
    }

    /// Every game of the boards recorded here as (mode, value, when it ended), oldest
    /// first: the player's speed over time.
    pub async fn played(&self) -> Result<Vec<(Mode, i64, u64)>, StorageError> {
        self.transact(&[HISTORY], TransactionMode::ReadOnly, async |tx| {
            let mut played = tx
                .store(HISTORY)?
                .get_all(None, None)
                .await?
                .into_iter()
                .map(|value| from_js::<OutboxEntry>(value).map(|e| (e.mode, e.value, e.played_at)))
                .collect::<Result<Vec<_>, _>>()?;
            played.sort_by_key(|&(_, _, at)| at);
            Ok(played)
        })
        .await
    }

    /// Every stored game, in the order written.
    pub async fn practice_games(&self) -> Result<Vec<PracticeGame>, StorageError> {
        self.transact(&[PRACTICE], TransactionMode::ReadOnly, async |tx| {
            games(&tx.store(PRACTICE)?, None).await
        })
        .await
    }
}

pub(crate) async fn catch_up(tx: &Transaction, course: &Course) -> Result<Practice, StorageError> {
    let store = tx.store(PRACTICE)?;
    let mut state = read_state(&store).await?;
    if state.folded < state.recorded {
        let range = KeyRange::bound(
            &game_key(state.folded),
            &game_key(state.recorded),
            Some(false),
            Some(true),
        )
        .map_err(rexie::Error::from)?;
        let new = games(&store, Some(range)).await?;
        state.stats = fold(course, state.stats, &new)?;
        state.folded = state.recorded;
        store.put(&to_js(&state)?, Some(&STATE.into())).await?;
    }
    Ok(state)
}
