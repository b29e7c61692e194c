//! The `board_scores` table: the boards beside a mode's (docs/genda.md, "Boards"): a
//! loaded text's best and 首打 boards and each day's race, one row per (board, player).
//!
//! Board ids are text: `text:<hash>:best`, `text:<hash>:first`, `daily:<zh|en>:<day>`,
//! and a test with options' personal board `options:<mode>:<options>:best`
//! (`options:time:30+punctuation:best`), which no public listing reads.
//! Rows are written with a conditional upsert: a best board replaces a row only with
//! a strictly higher value, a first board only with a strictly earlier `played_at`; a
//! tie keeps the row, so a resend, a replay or a later game changes nothing,
//! concurrently or not. Every board ranks its rows alike: value, then the earlier
//! receipt, then the smaller player id.

use super::StoreError;
use super::sql::{Param, Row, Sql, set_where};
use keydo_core::Mode;
use keydo_core::api::OptionsBest;
use keydo_core::game::board::{Board, Ranking};
use keydo_core::game::mode::Language;
use keydo_core::game::options::TestOptions;
use std::sync::LazyLock;
use uuid::Uuid;

/// A board beside a mode's, as stored: its id and ranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredBoard {
    pub id: String,
    pub ranking: Ranking,
}

impl StoredBoard {
    /// The stored board of a game of `mode` on `board`; `None` for the mode's own
    /// boards (tables `scores` and `weekly_scores`).
    pub fn of(board: Board, mode: Mode) -> Option<StoredBoard> {
        let id = match board {
            Board::Mode => return None,
            Board::TextBest { text } => format!("text:{text}:best"),
            Board::TextFirst { text } => format!("text:{text}:first"),
            Board::DailyFirst { day } => format!("daily:{}:{day}", language_id(mode.language())),
            Board::OptionsBest { options } => {
                format!("{OPTIONS_PREFIX}{mode}:{}:best", options.key())
            }
        };
        Some(StoredBoard {
            id,
            ranking: board.ranking(),
        })
    }

    /// The board `id` names, if it is one.
    pub fn parse(id: &str) -> Option<StoredBoard> {
        let ranking = if id.starts_with("daily:") || id.ends_with(":first") {
            Ranking::First
        } else if id.ends_with(":best") {
            Ranking::Best
        } else {
            return None;
        };
        Some(StoredBoard {
            id: id.to_owned(),
            ranking,
        })
    }
}

/// How the id of a test with options' board starts.
const OPTIONS_PREFIX: &str = "options:";

/// The player's best on each test with options, by the board ids' `<mode>:<options>`;
/// ids that do not read back (none are written) are left out.
pub fn options_bests(sql: &mut dyn Sql, player_id: Uuid) -> Result<Vec<OptionsBest>, StoreError> {
    let rows = sql.query(
        "SELECT board, value FROM board_scores
         WHERE player_id = $1 AND board LIKE 'options:%' ORDER BY board",
        &[Param::Id(player_id)],
    )?;
    let mut bests = Vec::new();
    for row in &rows {
        let board = row.text(0)?;
        let test = board
            .strip_prefix(OPTIONS_PREFIX)
            .and_then(|rest| rest.strip_suffix(":best"))
            .and_then(|rest| rest.split_once(':'))
            .and_then(|(mode, key)| {
                Some((mode.parse::<Mode>().ok()?, TestOptions::parse_key(key)?))
            });
        if let Some((mode, options)) = test {
            bests.push(OptionsBest {
                mode,
                options,
                value: row.int(1)?,
            });
        }
    }
    Ok(bests)
}

/// `zh` or `en`: the language part of a day's race board id and of its query.
fn language_id(language: Language) -> &'static str {
    match language {
        Language::Chinese => "zh",
        Language::English => "en",
    }
}

/// A game for a board.
#[derive(Debug, Clone, Copy)]
pub struct BoardGame {
    pub player_id: Uuid,
    pub score_id: Uuid,
    pub value: i64,
    pub played_at: i64,
    pub achieved_at: i64,
}

/// The player's row on a board after a submission.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BoardBest {
    pub value: i64,
    /// Whether the submitted game (by score id) is the row.
    pub is_this_game: bool,
}

/// board, player_id, value, score_id, played_at, achieved_at → the row after it (value,
/// score_id): the game replaces the row where `replaces` holds, and the row comes back
/// either way (see [`set_where`]).
fn upsert(replaces: &str) -> String {
    let replace = set_where(
        "board_scores",
        replaces,
        &["value", "score_id", "played_at", "achieved_at"],
    );
    format!(
        "INSERT INTO board_scores (board, player_id, value, score_id, played_at, achieved_at)
         VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (board, player_id) DO UPDATE SET {replace}
         RETURNING value, score_id"
    )
}

/// A best board's: a strictly higher value replaces the row.
static UPSERT_BEST: LazyLock<String> =
    LazyLock::new(|| upsert("excluded.value > board_scores.value"));
/// A first board's: a strictly earlier game replaces the row.
static UPSERT_FIRST: LazyLock<String> =
    LazyLock::new(|| upsert("excluded.played_at < board_scores.played_at"));

/// Records `game` on `board` by its ranking; returns the player's row.
pub fn record(
    sql: &mut dyn Sql,
    board: &StoredBoard,
    game: &BoardGame,
) -> Result<BoardBest, StoreError> {
    let params = [
        Param::Text(&board.id),
        Param::Id(game.player_id),
        Param::Int(game.value),
        Param::Id(game.score_id),
        Param::Int(game.played_at),
        Param::Int(game.achieved_at),
    ];
    let upsert = match board.ranking {
        Ranking::Best => &*UPSERT_BEST,
        Ranking::First => &*UPSERT_FIRST,
    };
    let row = sql.query_opt(upsert, &params)?.ok_or_else(|| {
        StoreError::UnexpectedValue("an upsert of a board returned no row".into())
    })?;
    Ok(BoardBest {
        value: row.int(0)?,
        is_this_game: row.id(1)? == game.score_id,
    })
}

/// The player's row on the board, if they are on it: its value and `played_at`.
pub fn row(
    sql: &mut dyn Sql,
    board: &str,
    player_id: Uuid,
) -> Result<Option<(i64, i64)>, StoreError> {
    sql.query_opt(
        "SELECT value, played_at FROM board_scores WHERE board = $1 AND player_id = $2",
        &[Param::Text(board), Param::Id(player_id)],
    )?
    .map(|row| Ok((row.int(0)?, row.int(1)?)))
    .transpose()
}

/// How many players other than `player_id` are on the board, and how many of them
/// are strictly above `value`.
pub fn others(
    sql: &mut dyn Sql,
    board: &str,
    player_id: Uuid,
    value: i64,
) -> Result<(i64, i64), StoreError> {
    let row = sql.query_opt(
        "SELECT COUNT(*), CAST(COALESCE(SUM(CASE WHEN value > $1 THEN 1 ELSE 0 END), 0) AS BIGINT)
         FROM board_scores WHERE board = $2 AND player_id <> $3",
        &[Param::Int(value), Param::Text(board), Param::Id(player_id)],
    )?;
    match row {
        Some(row) => Ok((row.int(0)?, row.int(1)?)),
        None => Ok((0, 0)),
    }
}

/// One line of a board.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardEntry {
    pub display_name: String,
    pub value: i64,
    pub achieved_at: i64,
    pub played_at: i64,
    /// Text: legacy saves' ids need not be UUIDs.
    pub player_id: String,
    /// The save's name key, `None` while it is still to be computed.
    pub name_key: Option<String>,
    /// The result's code (its replay), `None` for a result stored without one.
    pub code: Option<String>,
}

/// The best `limit` rows of a board, best first.
pub fn top(sql: &mut dyn Sql, board: &str, limit: i64) -> Result<Vec<BoardEntry>, StoreError> {
    sql.query(
        "SELECT p.display_name, s.value, s.achieved_at, s.played_at, p.player_id,
                COALESCE(p.name_key, ''), COALESCE(c.code, '')
         FROM board_scores s JOIN players p ON p.player_id = s.player_id
         LEFT JOIN result_codes c ON c.player_id = s.player_id AND c.score_id = s.score_id
         WHERE s.board = $1
         ORDER BY s.value DESC, s.achieved_at ASC, s.player_id ASC
         LIMIT $2",
        &[Param::Text(board), Param::Int(limit)],
    )?
    .iter()
    .map(|row| {
        let optional = |row: &Row, column| -> Result<Option<String>, StoreError> {
            Ok(Some(row.text(column)?)
                .filter(|text| !text.is_empty())
                .map(str::to_owned))
        };
        Ok(BoardEntry {
            display_name: row.text(0)?.to_owned(),
            value: row.int(1)?,
            achieved_at: row.int(2)?,
            played_at: row.int(3)?,
            player_id: row.text(4)?.to_owned(),
            name_key: optional(row, 5)?,
            code: optional(row, 6)?,
        })
    })
    .collect()
}

/// A player's own line on a board: rank (1-based, in [`top`]'s order), value, time.
pub fn standing(
    sql: &mut dyn Sql,
    board: &str,
    player_id: Uuid,
) -> Result<Option<super::Standing>, StoreError> {
    sql.query_opt(
        "SELECT me.value, me.achieved_at,
           1 + (SELECT COUNT(*) FROM board_scores o
                WHERE o.board = me.board
                  AND (o.value > me.value
                       OR (o.value = me.value AND (o.achieved_at < me.achieved_at
                           OR (o.achieved_at = me.achieved_at AND o.player_id < me.player_id)))))
         FROM board_scores me WHERE me.board = $1 AND me.player_id = $2",
        &[Param::Text(board), Param::Id(player_id)],
    )?
    .map(|row| {
        Ok(super::Standing {
            value: row.int(0)?,
            achieved_at: row.int(1)?,
            rank: row.int(2)?,
        })
    })
    .transpose()
}

/// The player's rows on every board: (board, game), for folding a save into another.
pub fn rows_of(sql: &mut dyn Sql, player_id: Uuid) -> Result<Vec<(String, BoardGame)>, StoreError> {
    sql.query(
        "SELECT board, value, score_id, played_at, achieved_at FROM board_scores
         WHERE player_id = $1",
        &[Param::Id(player_id)],
    )?
    .iter()
    .map(|row| {
        Ok((
            row.text(0)?.to_owned(),
            BoardGame {
                player_id,
                value: row.int(1)?,
                score_id: row.id(2)?,
                played_at: row.int(3)?,
                achieved_at: row.int(4)?,
            },
        ))
    })
    .collect()
}

/// Takes the player's rows off every board of this table.
pub fn remove_player(sql: &mut dyn Sql, player_id: Uuid) -> Result<(), StoreError> {
    sql.query(
        "DELETE FROM board_scores WHERE player_id = $1",
        &[Param::Id(player_id)],
    )?;
    Ok(())
}
