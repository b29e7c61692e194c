//! The `results` table: verified results, review and moderation (docs/replay.md).
//!
//! Parameters appear in the order of their numbers (see [`Sql`]). `Param` has no NULL,
//! so optional values travel as a sentinel that `NULLIF` turns back into NULL: '' for
//! text, -1 for weeks.

use super::StoreError;
use super::board_scores::StoredBoard;
use super::players::SaveFacts;
use super::sql::{Param, Row, Sql, Value};
use keydo_core::Mode;
use keydo_core::text::LoadedText;
use std::sync::LazyLock;
use uuid::Uuid;

/// The boards a result counts on: its mode's (all time, and its `board_week`) or not,
/// and those of `board_scores` (a text's, the day's race).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResultBoards {
    pub mode: bool,
    pub others: Vec<StoredBoard>,
}

impl ResultBoards {
    /// The `results.boards` column: board ids, comma-separated, `mode` for the mode's.
    fn to_column(&self) -> String {
        let mode = self.mode.then_some("mode");
        let others = self.others.iter().map(|board| board.id.as_str());
        mode.into_iter().chain(others).collect::<Vec<_>>().join(",")
    }

    /// The column read back; NULL (results from before migration V8) is the mode's.
    fn from_column(column: Option<&str>) -> Result<ResultBoards, StoreError> {
        let Some(column) = column else {
            return Ok(ResultBoards {
                mode: true,
                others: Vec::new(),
            });
        };
        let mut boards = ResultBoards {
            mode: false,
            others: Vec::new(),
        };
        for id in column.split(',').filter(|id| !id.is_empty()) {
            if id == "mode" {
                boards.mode = true;
            } else {
                boards.others.push(
                    StoredBoard::parse(id)
                        .ok_or_else(|| StoreError::UnexpectedValue(format!("board {id:?}")))?,
                );
            }
        }
        Ok(boards)
    }
}

/// Where a stored result stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultState {
    /// On the public boards.
    Public,
    /// Waits for an operator.
    Held,
    /// Held, then approved: on the public boards.
    Approved,
    /// Held, then pushed out of its save's pending few by better ones (docs/replay.md,
    /// "The review queue"): counts for its player, keeps no log, waits for no one.
    Displaced,
}

impl ResultState {
    pub fn id(self) -> &'static str {
        match self {
            ResultState::Public => "public",
            ResultState::Held => "held",
            ResultState::Approved => "approved",
            ResultState::Displaced => "displaced",
        }
    }

    fn parse(id: &str) -> Result<Self, StoreError> {
        match id {
            "public" => Ok(ResultState::Public),
            "held" => Ok(ResultState::Held),
            "approved" => Ok(ResultState::Approved),
            "displaced" => Ok(ResultState::Displaced),
            other => Err(StoreError::UnexpectedValue(format!(
                "result state {other:?}"
            ))),
        }
    }

    /// Whether results in this state belong on the public boards.
    pub fn is_public(self) -> bool {
        matches!(self, ResultState::Public | ResultState::Approved)
    }
}

/// A verified result, as stored.
#[derive(Debug, Clone)]
pub struct NewResult {
    pub player_id: Uuid,
    pub score_id: Uuid,
    pub mode: Mode,
    pub value: i64,
    /// `words:42`, `quotes:austen-pride`, `text:<hash>`.
    pub prompt: String,
    /// The loaded text it was played on, stored once in `texts` ([`super::texts`]).
    pub text: Option<LoadedText>,
    /// The boards it counts on.
    pub boards: ResultBoards,
    /// `words:42` for seeded prompts.
    pub seed_key: Option<String>,
    pub played_at: i64,
    pub received_at: i64,
    pub board_week: Option<i64>,
    pub state: ResultState,
    /// Review rule ids, comma-separated.
    pub holds: String,
    pub suspicious: bool,
    pub stats_json: String,
    /// How long its typing took: what it adds to its save's verified typing.
    pub typing_ms: i64,
    /// The input log (base64): kept for every accepted result (a public result's is
    /// public, docs/api.md), dropped when a held result is displaced.
    pub input: Option<String>,
    /// The digest its log is spent under ([`super::log_digests`]); `None` when logs may
    /// be reused (test setups).
    pub log_sha256: Option<String>,
}

/// Stores `result` unless it is stored already (same player and score id) or its seed
/// was used (same player and seed key); says whether it was stored.
pub fn insert_result(sql: &mut dyn Sql, result: &NewResult) -> Result<bool, StoreError> {
    let inserted = sql.query_opt(
        "INSERT INTO results (player_id, score_id, mode, value, prompt, seed_key, played_at,
                              received_at, board_week, state, holds, suspicious, stats,
                              typing_ms, input, boards)
         VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, NULLIF($9, CAST(-1 AS BIGINT)),
                 $10, $11, $12, $13, $14, NULLIF($15, ''), $16)
         ON CONFLICT DO NOTHING
         RETURNING score_id",
        &[
            Param::Id(result.player_id),
            Param::Id(result.score_id),
            Param::Text(result.mode.id()),
            Param::Int(result.value),
            Param::Text(&result.prompt),
            Param::Text(result.seed_key.as_deref().unwrap_or_default()),
            Param::Int(result.played_at),
            Param::Int(result.received_at),
            Param::Int(result.board_week.unwrap_or(-1)),
            Param::Text(result.state.id()),
            Param::Text(&result.holds),
            Param::Int(i64::from(result.suspicious)),
            Param::Text(&result.stats_json),
            Param::Int(result.typing_ms),
            Param::Text(result.input.as_deref().unwrap_or_default()),
            Param::Text(&result.boards.to_column()),
        ],
    )?;
    Ok(inserted.is_some())
}

/// A stored result's standing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResult {
    pub mode: Mode,
    pub value: i64,
    pub played_at: i64,
    pub received_at: i64,
    pub board_week: Option<i64>,
    pub boards: ResultBoards,
    pub state: ResultState,
}

impl From<&NewResult> for StoredResult {
    /// The standing of a result just stored.
    fn from(result: &NewResult) -> Self {
        StoredResult {
            mode: result.mode,
            value: result.value,
            played_at: result.played_at,
            received_at: result.received_at,
            board_week: result.board_week,
            boards: result.boards.clone(),
            state: result.state,
        }
    }
}

const STORED_RESULT_COLUMNS: &str =
    "mode, value, received_at, board_week, state, played_at, boards";

fn stored_result_of(row: &Row) -> Result<StoredResult, StoreError> {
    let boards = match row.0.get(6) {
        Some(Value::Null) => None,
        _ => Some(row.text(6)?),
    };
    Ok(StoredResult {
        mode: mode_of(row.text(0)?)?,
        value: row.int(1)?,
        received_at: row.int(2)?,
        board_week: optional_int(row, 3)?,
        state: ResultState::parse(row.text(4)?)?,
        played_at: row.int(5)?,
        boards: ResultBoards::from_column(boards)?,
    })
}

/// What a submission reads first, in one statement.
pub struct Submitter {
    pub save: SaveFacts,
    /// The first receipt, if the result is stored already.
    pub receipt: Option<StoredResult>,
    /// The player's all-time best in the result's mode.
    pub mode_best: Option<i64>,
}

/// The [`Submitter`] of `score_id` in `mode`; `None`: no such save. The save's row is
/// locked against a fold until the transaction ends, before any other row of the
/// player's (docs/operations.md, "Writes committed together").
pub fn submitter(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
    mode: Mode,
) -> Result<Option<Submitter>, StoreError> {
    static STATEMENT: LazyLock<String> = LazyLock::new(|| {
        let columns: Vec<String> = STORED_RESULT_COLUMNS
            .split(", ")
            .map(|column| format!("r.{column}"))
            .collect();
        format!(
            "SELECT {}, p.created_at, p.hidden, s.value FROM players p
             LEFT JOIN results r ON r.player_id = $1 AND r.score_id = $2
             LEFT JOIN scores s ON s.player_id = $1 AND s.mode = $3
             WHERE p.player_id = $1",
            columns.join(", ")
        )
    });
    let params = [
        Param::Id(player_id),
        Param::Id(score_id),
        Param::Text(mode.id()),
    ];
    static LOCKING: LazyLock<String> =
        LazyLock::new(|| format!("{} FOR KEY SHARE OF p", *STATEMENT));
    let statement = if sql.locks_rows() {
        &LOCKING
    } else {
        &STATEMENT
    };
    let Some(row) = sql.query_opt(statement, &params)? else {
        return Ok(None);
    };
    Ok(Some(Submitter {
        save: SaveFacts {
            created_at: row.int(7)?,
            hidden: row.int(8)? != 0,
        },
        receipt: match row.0.first() {
            Some(Value::Null) => None,
            _ => Some(stored_result_of(&row)?),
        },
        mode_best: row.opt_int(9)?,
    }))
}

pub fn stored_result(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
) -> Result<Option<StoredResult>, StoreError> {
    sql.query_opt(
        &format!(
            "SELECT {STORED_RESULT_COLUMNS} FROM results WHERE player_id = $1 AND score_id = $2"
        ),
        &[Param::Id(player_id), Param::Id(score_id)],
    )?
    .as_ref()
    .map(stored_result_of)
    .transpose()
}

/// Marks a held result approved; returns it, or `None` if no such result is held.
pub fn approve_result(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
) -> Result<Option<StoredResult>, StoreError> {
    sql.query_opt(
        &format!(
            "UPDATE results SET state = 'approved'
             WHERE player_id = $1 AND score_id = $2 AND state = 'held'
             RETURNING {STORED_RESULT_COLUMNS}"
        ),
        &[Param::Id(player_id), Param::Id(score_id)],
    )?
    .as_ref()
    .map(stored_result_of)
    .transpose()
}

/// A result as an operator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedResult {
    pub received_at: i64,
    pub player_id: Uuid,
    pub display_name: String,
    pub score_id: Uuid,
    pub mode: Mode,
    pub value: i64,
    pub state: ResultState,
    pub holds: String,
    /// The player's value on the public all-time board in this mode, if any.
    pub public_best: Option<i64>,
    /// How many verified results the player has, in any state.
    pub player_results: i64,
}

/// Which results an operator lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// Waiting for review, oldest first.
    Held,
    /// Waiting for review, grouped by player, the player with the best value first,
    /// and each player's best first: the review queue (docs/replay.md).
    Queue,
    /// With timing no person produces, whatever their state, newest first.
    Suspicious,
}

pub fn list_results(
    sql: &mut dyn Sql,
    listing: Listing,
    limit: i64,
) -> Result<Vec<ListedResult>, StoreError> {
    let filter = match listing {
        Listing::Held => "r.state = 'held' ORDER BY r.received_at ASC, r.player_id",
        Listing::Queue => {
            "r.state = 'held'
             ORDER BY (SELECT MAX(h.value) FROM results h
                       WHERE h.player_id = r.player_id AND h.state = 'held') DESC,
                      r.player_id, r.value DESC, r.received_at, r.score_id"
        }
        Listing::Suspicious => "r.suspicious = 1 ORDER BY r.received_at DESC, r.player_id",
    };
    sql.query(
        &format!(
            "SELECT r.received_at, r.player_id, p.display_name, r.score_id, r.mode, r.value,
                    r.state, r.holds,
                    (SELECT s.value FROM scores s
                     WHERE s.player_id = r.player_id AND s.mode = r.mode),
                    (SELECT COUNT(*) FROM results c WHERE c.player_id = r.player_id)
             FROM results r JOIN players p ON p.player_id = r.player_id
             WHERE {filter} LIMIT $1"
        ),
        &[Param::Int(limit)],
    )?
    .iter()
    .map(|row| {
        Ok(ListedResult {
            received_at: row.int(0)?,
            player_id: row.id(1)?,
            display_name: row.text(2)?.to_owned(),
            score_id: row.id(3)?,
            mode: mode_of(row.text(4)?)?,
            value: row.int(5)?,
            state: ResultState::parse(row.text(6)?)?,
            holds: row.text(7)?.to_owned(),
            public_best: row.opt_int(8)?,
            player_results: row.int(9)?,
        })
    })
    .collect()
}

/// How many results wait for review.
pub fn held_count(sql: &mut dyn Sql) -> Result<i64, StoreError> {
    sql.query_opt("SELECT COUNT(*) FROM results WHERE state = 'held'", &[])?
        .map_or(Ok(0), |row| row.int(0))
}

/// A result's input log as it was kept for review.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptLog {
    pub mode: Mode,
    /// `words:42`, `quotes:austen-pride`.
    pub prompt: String,
    /// The log, base64.
    pub input: String,
}

/// The kept log of a result, if it was held (and so kept it).
pub fn kept_log(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
) -> Result<Option<KeptLog>, StoreError> {
    sql.query_opt(
        "SELECT mode, prompt, input FROM results
         WHERE player_id = $1 AND score_id = $2 AND input IS NOT NULL",
        &[Param::Id(player_id), Param::Id(score_id)],
    )?
    .map(|row| {
        Ok(KeptLog {
            mode: mode_of(row.text(0)?)?,
            prompt: row.text(1)?.to_owned(),
            input: row.text(2)?.to_owned(),
        })
    })
    .transpose()
}

/// The player's results that belong on the public boards, in the order received.
pub fn public_results(
    sql: &mut dyn Sql,
    player_id: Uuid,
) -> Result<Vec<(Uuid, StoredResult)>, StoreError> {
    sql.query(
        &format!(
            "SELECT {STORED_RESULT_COLUMNS}, score_id FROM results
             WHERE player_id = $1 AND state IN ('public', 'approved')
             ORDER BY received_at, score_id"
        ),
        &[Param::Id(player_id)],
    )?
    .iter()
    .map(|row| Ok((row.id(7)?, stored_result_of(row)?)))
    .collect()
}

fn mode_of(id: &str) -> Result<Mode, StoreError> {
    id.parse()
        .map_err(|_| StoreError::UnexpectedValue(format!("mode {id:?}")))
}

fn optional_int(row: &Row, column: usize) -> Result<Option<i64>, StoreError> {
    match row.0.get(column) {
        Some(Value::Null) => Ok(None),
        _ => row.int(column).map(Some),
    }
}

/// A public result's replay, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredReplay {
    pub mode: Mode,
    /// `words:42`, `quotes:austen-pride`, `text:<hash>`.
    pub prompt: String,
    /// The log, base64.
    pub input: String,
    pub value: i64,
    pub display_name: String,
    pub played_at: i64,
}

/// The replay of the result with this code, if it is on the public boards: public or
/// approved, its player not hidden, its log kept.
pub fn public_replay(sql: &mut dyn Sql, code: &str) -> Result<Option<StoredReplay>, StoreError> {
    sql.query_opt(
        "SELECT r.mode, r.prompt, r.input, r.value, p.display_name, r.played_at
         FROM result_codes c
         JOIN results r ON r.player_id = c.player_id AND r.score_id = c.score_id
         JOIN players p ON p.player_id = r.player_id
         WHERE c.code = $1 AND r.state IN ('public', 'approved') AND p.hidden = 0
           AND r.input IS NOT NULL",
        &[Param::Text(code)],
    )?
    .map(|row| {
        Ok(StoredReplay {
            mode: mode_of(row.text(0)?)?,
            prompt: row.text(1)?.to_owned(),
            input: row.text(2)?.to_owned(),
            value: row.int(3)?,
            display_name: row.text(4)?.to_owned(),
            played_at: row.int(5)?,
        })
    })
    .transpose()
}
