//! Places that matter wait for review (docs/replay.md, "Places that matter"): the
//! results the server holds for where they would land rather than how they were typed,
//! and the few held results a save may have waiting ("The review queue").
//!
//! Each rule compares with `>=`: a result is held when it would take place N of a
//! board or better (ties counting for it), when it is at least the leap margin above
//! its player's public best, or when its save's verified typing is below the minimum.

use super::StoreError;
use super::board_scores::{self, StoredBoard};
use super::boards::{self, Board};
use super::players::SaveFacts;
use super::results::{NewResult, ResultState};
use super::sql::{Param, Sql};
use keydo_core::Mode;
use keydo_core::game::board::Ranking;
use keydo_core::game::score::Stats;
use keydo_core::verify::review::Hold;
use std::num::NonZeroU32;
use std::str::FromStr;
use uuid::Uuid;

/// The gates' settings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gates {
    /// Per mode, the board places that wait for review.
    pub top_places: TopPlaces,
    /// A result this many percent or more above its player's public best waits; 0: off.
    pub leap_percent: u32,
    /// A save with less verified typing than this (ms) has its results wait; 0: off.
    pub min_typing_ms: i64,
    /// Held results one save may have waiting per mode; better ones displace the worst.
    pub pending_per_mode: NonZeroU32,
}

impl Default for Gates {
    /// Top 10 of every board, a 25 % leap, 5 minutes of typing, 3 pending per mode.
    fn default() -> Self {
        Gates {
            top_places: TopPlaces::default(),
            leap_percent: 25,
            min_typing_ms: 5 * 60_000,
            pending_per_mode: NonZeroU32::new(3).expect("not zero"),
        }
    }
}

impl Gates {
    /// No gate holds anything and no held result is displaced: results reach the
    /// boards as before the gates existed (the integration tests' default).
    pub fn off() -> Self {
        Gates {
            top_places: TopPlaces([0; 4]),
            leap_percent: 0,
            min_typing_ms: 0,
            pending_per_mode: NonZeroU32::MAX,
        }
    }
}

/// How many places of each mode's boards wait for review; 0 turns the gate off.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TopPlaces([u32; 4]);

impl Default for TopPlaces {
    fn default() -> Self {
        TopPlaces([10; 4])
    }
}

impl TopPlaces {
    pub fn get(&self, mode: Mode) -> u32 {
        self.0[Self::index(mode)]
    }

    fn index(mode: Mode) -> usize {
        Mode::ALL
            .iter()
            .position(|m| *m == mode)
            .expect("every mode is in Mode::ALL")
    }
}

impl FromStr for TopPlaces {
    type Err = String;

    /// `words=10,zh=5`: the modes named change, the others keep 10.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut places = TopPlaces::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (mode, count) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not <mode>=<places>"))?;
            let mode: Mode = mode
                .trim()
                .parse()
                .map_err(|_| format!("{mode:?} is not a mode (time, words, quote, zh)"))?;
            places.0[Self::index(mode)] = count
                .trim()
                .parse()
                .map_err(|_| format!("{count:?} is not a whole number of places"))?;
        }
        Ok(places)
    }
}

/// The gates for one submission: their settings and its held-submission budget.
pub struct Gate {
    pub gates: Gates,
    /// Spends one held submission of the save's and the address's budgets; `false`
    /// when one of them is spent.
    pub spend_hold: Box<dyn FnOnce() -> bool + Send>,
    /// Spends one new text of the save's and the address's budgets; `false` when one
    /// of them is spent (docs/api.md, "Rate limits").
    pub spend_new_text: Box<dyn FnOnce() -> bool + Send>,
}

/// Adds the gates' holds to a result not stored yet (a resend keeps its first receipt,
/// docs/replay.md) and spends the held budget when it is held. `None`: it would be held, and its save
/// or address sent too many held results lately.
pub fn gate(
    sql: &mut dyn Sql,
    mut result: NewResult,
    save: &SaveFacts,
    mode_best: Option<i64>,
    weekly_board: Option<i64>,
    gates: &Gates,
    spend_hold: Box<dyn FnOnce() -> bool + Send>,
) -> Result<Option<NewResult>, StoreError> {
    let holds = place_holds(sql, &result, save, mode_best, weekly_board, gates)?;
    if !holds.is_empty() {
        let ids = result.holds.split(',').filter(|id| !id.is_empty());
        let ids: Vec<&str> = ids.chain(holds.iter().map(|hold| hold.id())).collect();
        result.holds = ids.join(",");
        result.state = ResultState::Held;
    }
    if result.state == ResultState::Held && !spend_hold() {
        return Ok(None);
    }
    Ok(Some(result))
}

/// After a held result is stored: keeps the best [`Gates::pending_per_mode`] of its
/// save's held results in its mode waiting (higher value first, then the earlier
/// receipt) and displaces the rest, dropping their logs.
pub fn bound_pending(
    sql: &mut dyn Sql,
    result: &NewResult,
    gates: &Gates,
) -> Result<(), StoreError> {
    if result.state != ResultState::Held {
        return Ok(());
    }
    sql.query(
        "UPDATE results SET state = 'displaced', input = NULL
         WHERE player_id = $1 AND mode = $2 AND state = 'held' AND score_id NOT IN (
             SELECT score_id FROM results
             WHERE player_id = $1 AND mode = $2 AND state = 'held'
             ORDER BY value DESC, received_at ASC, score_id ASC
             LIMIT $3)",
        &[
            Param::Id(result.player_id),
            Param::Text(result.mode.id()),
            Param::Int(i64::from(gates.pending_per_mode.get())),
        ],
    )?;
    Ok(())
}

/// The gates `result` falls under, in [`Hold::ALL`] order.
/// `mode_best`: the player's all-time best in the result's mode, read with the save.
fn place_holds(
    sql: &mut dyn Sql,
    result: &NewResult,
    save: &SaveFacts,
    mode_best: Option<i64>,
    weekly_board: Option<i64>,
    gates: &Gates,
) -> Result<Vec<Hold>, StoreError> {
    let mut holds = Vec::new();
    let places = gates.top_places.get(result.mode);
    let mode_boards = std::iter::once(Board::AllTime).chain(weekly_board.map(Board::Week));
    let mut top_place = false;
    for board in mode_boards.filter(|_| result.boards.mode) {
        top_place = top_place || takes_a_top_place(sql, board, result, mode_best, places)?;
    }
    for board in &result.boards.others {
        top_place = top_place || takes_a_crowded_top_place(sql, board, result, places)?;
    }
    if top_place {
        holds.push(Hold::TopPlace);
    }
    if mode_best.is_some_and(|best| leaps(best, result.value, gates.leap_percent)) {
        holds.push(Hold::Leap);
    }
    if gates.min_typing_ms > 0
        && verified_typing(sql, result.player_id, save.created_at, result.received_at)?
            < gates.min_typing_ms
    {
        holds.push(Hold::LittleTyping);
    }
    Ok(holds)
}

/// Whether `result` would change `board` and place `places`-th or better on it, a tie
/// counting for it: fewer than `places` other players are strictly above it.
fn takes_a_top_place(
    sql: &mut dyn Sql,
    board: Board,
    result: &NewResult,
    mode_best: Option<i64>,
    places: u32,
) -> Result<bool, StoreError> {
    if places == 0 {
        return Ok(false);
    }
    let own = match board {
        Board::AllTime => mode_best,
        Board::Week(_) => boards::board_value(sql, board, result.player_id, result.mode)?,
    };
    if own.is_some_and(|own| result.value <= own) {
        return Ok(false);
    }
    let places = i64::from(places);
    let above = boards::players_above(
        sql,
        board,
        result.player_id,
        result.mode,
        result.value,
        places,
    )?;
    Ok(above < places)
}

/// Whether `result` would change a text's or a day's `board` and place `places`-th
/// or better on it while at least `places` other players are on it (docs/replay.md,
/// "Places that matter"): anyone can paste a new text and be alone on its boards, so
/// a board's first few entries would otherwise all wait for review.
fn takes_a_crowded_top_place(
    sql: &mut dyn Sql,
    board: &StoredBoard,
    result: &NewResult,
    places: u32,
) -> Result<bool, StoreError> {
    if places == 0 {
        return Ok(false);
    }
    if let Some((value, played_at)) = board_scores::row(sql, &board.id, result.player_id)? {
        let changes = match board.ranking {
            Ranking::Best => result.value > value,
            Ranking::First => result.played_at < played_at,
        };
        if !changes {
            return Ok(false);
        }
    }
    let (others, above) = board_scores::others(sql, &board.id, result.player_id, result.value)?;
    Ok(others >= i64::from(places) && above < i64::from(places))
}

/// Whether `value` is at least `percent` % above a public best of `best`.
fn leaps(best: i64, value: i64, percent: u32) -> bool {
    percent > 0
        && best > 0
        && i128::from(value) * 100 >= i128::from(best) * (100 + i128::from(percent))
}

/// The save's verified typing at `now` (docs/replay.md): the typing time of its
/// results whose timing a person produces, but never more than the time the server
/// has seen pass since it created the save.
fn verified_typing(
    sql: &mut dyn Sql,
    player_id: Uuid,
    created_at: i64,
    now: i64,
) -> Result<i64, StoreError> {
    fill_typing_from_stats(sql, player_id)?;
    let typed = sql
        .query_opt(
            "SELECT CAST(COALESCE(SUM(typing_ms), 0) AS BIGINT) FROM results
             WHERE player_id = $1 AND suspicious = 0",
            &[Param::Id(player_id)],
        )?
        .map(|row| row.int(0))
        .transpose()?
        .unwrap_or(0);
    Ok(typed.min(now.saturating_sub(created_at)).max(0))
}

/// Results stored before typing times were (migration V5) get theirs from their stats.
fn fill_typing_from_stats(sql: &mut dyn Sql, player_id: Uuid) -> Result<(), StoreError> {
    let unfilled = sql.query(
        "SELECT score_id, stats FROM results WHERE player_id = $1 AND typing_ms IS NULL",
        &[Param::Id(player_id)],
    )?;
    for row in unfilled {
        let stats: Stats = serde_json::from_str(row.text(1)?)
            .map_err(|error| StoreError::UnexpectedValue(format!("stored stats: {error}")))?;
        sql.query(
            "UPDATE results SET typing_ms = $1 WHERE player_id = $2 AND score_id = $3",
            &[
                Param::Int(i64::try_from(stats.duration_ms).unwrap_or(i64::MAX)),
                Param::Id(player_id),
                Param::Text(row.text(0)?),
            ],
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_leap_is_measured_with_at_least() {
        assert!(leaps(8_000, 10_000, 25));
        assert!(!leaps(8_000, 9_999, 25));
        assert!(!leaps(8_000, 20_000, 0), "0 turns the rule off");
        assert!(!leaps(0, 1, 25), "no best, no leap");
    }

    #[test]
    fn top_places_read_from_a_flag() {
        let places: TopPlaces = " words=3 , zh=0".parse().unwrap();
        assert_eq!(Mode::ALL.map(|m| places.get(m)), [10, 3, 10, 0]);
        assert_eq!("".parse::<TopPlaces>().unwrap(), TopPlaces::default());
        for wrong in ["words", "walk=3", "zh=many", "zh=-1"] {
            assert!(wrong.parse::<TopPlaces>().is_err(), "{wrong}");
        }
    }
}
