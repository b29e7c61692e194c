//! Every statement KeyDo runs, written once for both databases (see [`Sql`]).
//!
//! Scores are kept per board: `scores` holds one row per (player, mode), the best game
//! ever; `weekly_scores` one row per (player, mode, week). Both are written with a
//! conditional upsert that only replaces a row with a strictly higher value, so a
//! resend, a replay or a lower score changes nothing, concurrently or not.
//! `save_creations` remembers which save (or linked device) an `Idempotency-Key`
//! created (docs/api.md).

use super::StoreError;
use super::sql::{Param, Row, Sql};
use keydo_core::Mode;
use keydo_core::api::ServerBest;
use keydo_core::profile::{Profile, ProfileRecord};

/// A leaderboard: all time, or one UTC+8 week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    AllTime,
    Week(i64),
}

/// The statements of one board. Their parameters start with the board's scope, in
/// order: `player_id` (where a player is meant), `mode`, then `week` on weekly boards.
struct BoardStatements {
    /// scope, value, score_id, achieved_at → the row, only when it changed.
    upsert: &'static str,
    /// scope → value, score_id.
    best: &'static str,
    /// mode[, week], limit → display_name, value, achieved_at, best first.
    top: &'static str,
    /// scope → value, achieved_at, rank.
    rank: &'static str,
}

const ALL_TIME: BoardStatements = BoardStatements {
    upsert: "INSERT INTO scores (player_id, mode, value, score_id, achieved_at)
             VALUES ($1, $2, $3, $4, $5)
             ON CONFLICT (player_id, mode) DO UPDATE
             SET value = excluded.value, score_id = excluded.score_id,
                 achieved_at = excluded.achieved_at
             WHERE excluded.value > scores.value
             RETURNING value, score_id",
    best: "SELECT value, score_id FROM scores WHERE player_id = $1 AND mode = $2",
    top: "SELECT p.display_name, s.value, s.achieved_at
          FROM scores s JOIN players p ON p.player_id = s.player_id
          WHERE s.mode = $1
          ORDER BY s.value DESC, s.achieved_at ASC, s.player_id ASC
          LIMIT $2",
    rank: "SELECT me.value, me.achieved_at,
             1 + (SELECT COUNT(*) FROM scores o
                  WHERE o.mode = me.mode
                    AND (o.value > me.value
                         OR (o.value = me.value AND (o.achieved_at < me.achieved_at
                             OR (o.achieved_at = me.achieved_at AND o.player_id < me.player_id)))))
           FROM scores me WHERE me.player_id = $1 AND me.mode = $2",
};

const WEEKLY: BoardStatements = BoardStatements {
    upsert: "INSERT INTO weekly_scores (player_id, mode, week, value, score_id, achieved_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (player_id, mode, week) DO UPDATE
             SET value = excluded.value, score_id = excluded.score_id,
                 achieved_at = excluded.achieved_at
             WHERE excluded.value > weekly_scores.value
             RETURNING value, score_id",
    best: "SELECT value, score_id FROM weekly_scores
           WHERE player_id = $1 AND mode = $2 AND week = $3",
    top: "SELECT p.display_name, s.value, s.achieved_at
          FROM weekly_scores s JOIN players p ON p.player_id = s.player_id
          WHERE s.mode = $1 AND s.week = $2
          ORDER BY s.value DESC, s.achieved_at ASC, s.player_id ASC
          LIMIT $3",
    rank: "SELECT me.value, me.achieved_at,
             1 + (SELECT COUNT(*) FROM weekly_scores o
                  WHERE o.mode = me.mode AND o.week = me.week
                    AND (o.value > me.value
                         OR (o.value = me.value AND (o.achieved_at < me.achieved_at
                             OR (o.achieved_at = me.achieved_at AND o.player_id < me.player_id)))))
           FROM weekly_scores me WHERE me.player_id = $1 AND me.mode = $2 AND me.week = $3",
};

impl Board {
    fn statements(self) -> &'static BoardStatements {
        match self {
            Board::AllTime => &ALL_TIME,
            Board::Week(_) => &WEEKLY,
        }
    }

    /// `mode[, week]`: the parameters that pick the board's rows for a mode.
    fn scope(self, mode: Mode) -> Vec<Param<'static>> {
        let mut scope = vec![Param::Text(mode.id())];
        if let Board::Week(week) = self {
            scope.push(Param::Int(week));
        }
        scope
    }

    /// `player_id, mode[, week]`: the parameters that pick one player's row.
    fn player_scope<'a>(self, player_id: &'a str, mode: Mode) -> Vec<Param<'a>> {
        let mut scope = vec![Param::Text(player_id)];
        scope.extend(self.scope(mode));
        scope
    }
}

/// A new save (without its token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub player_id: String,
    pub display_name: String,
    pub version: i64,
}

/// Who a request's token names: a device of a player.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    pub player_id: String,
    pub device_id: String,
}

/// Stores a new save and its first device, which has the player's own id.
pub fn insert_player(
    sql: &mut dyn Sql,
    player: &Player,
    token_sha256: &str,
    device_label: &str,
    created_at: i64,
) -> Result<(), StoreError> {
    sql.query(
        "INSERT INTO players (player_id, token_sha256, display_name, version, created_at)
         VALUES ($1, $2, $3, $4, $5)",
        &[
            Param::Text(&player.player_id),
            Param::Text(token_sha256),
            Param::Text(&player.display_name),
            Param::Int(player.version),
            Param::Int(created_at),
        ],
    )?;
    insert_device(
        sql,
        &player.player_id,
        &player.player_id,
        token_sha256,
        device_label,
        created_at,
    )
}

pub fn insert_device(
    sql: &mut dyn Sql,
    device_id: &str,
    player_id: &str,
    token_sha256: &str,
    label: &str,
    linked_at: i64,
) -> Result<(), StoreError> {
    sql.query(
        "INSERT INTO devices (device_id, player_id, token_sha256, label, linked_at)
         VALUES ($1, $2, $3, $4, $5)",
        &[
            Param::Text(device_id),
            Param::Text(player_id),
            Param::Text(token_sha256),
            Param::Text(label),
            Param::Int(linked_at),
        ],
    )?;
    Ok(())
}

/// The unrevoked device whose token has this hash.
pub fn caller_by_token(
    sql: &mut dyn Sql,
    token_sha256: &str,
) -> Result<Option<Caller>, StoreError> {
    sql.query_opt(
        "SELECT player_id, device_id FROM devices
         WHERE token_sha256 = $1 AND revoked_at IS NULL",
        &[Param::Text(token_sha256)],
    )?
    .map(|row| {
        Ok(Caller {
            player_id: row.text(0)?.to_owned(),
            device_id: row.text(1)?.to_owned(),
        })
    })
    .transpose()
}

/// The columns [`record_of`] reads, for a query on `players p`.
pub const RECORD_COLUMNS: &str = "p.display_name, p.version, p.settings, p.stamps";

/// The profile record from [`RECORD_COLUMNS`], starting at column `first`.
pub fn record_of(row: &Row, first: usize) -> Result<ProfileRecord, StoreError> {
    let json = |column: usize| -> Result<serde_json::Value, StoreError> {
        serde_json::from_str(row.text(column)?)
            .map_err(|error| StoreError::UnexpectedValue(format!("profile JSON: {error}")))
    };
    let settings = serde_json::from_value(json(first + 2)?)
        .map_err(|error| StoreError::UnexpectedValue(format!("settings: {error}")))?;
    let stamps = serde_json::from_value(json(first + 3)?)
        .map_err(|error| StoreError::UnexpectedValue(format!("stamps: {error}")))?;
    Ok(ProfileRecord {
        version: row.int(first + 1)?,
        profile: Profile {
            display_name: row.text(first)?.to_owned(),
            settings,
        },
        stamps,
    })
}

/// A save creation's record under its idempotency key, as stored: nothing in it
/// reveals the key or the token (docs/api.md, "Idempotency").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveCreation {
    pub key_sha256: String,
    pub request_sha256: String,
    pub token_sealed: String,
}

/// A remembered creation (of a save, or of a linked device) and its player's profile
/// as it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberedCreation {
    pub request_sha256: String,
    pub token_sealed: String,
    pub player_id: String,
    pub record: ProfileRecord,
}

/// Takes `creation`'s key for `player_id`: true when the key was free (never used, or
/// its record was made before `expired_before` and is replaced), false when a live
/// record holds it. On PostgreSQL a concurrent claim of the same key waits here until
/// the first one's transaction ends.
pub fn claim_save_creation(
    sql: &mut dyn Sql,
    creation: &SaveCreation,
    player_id: &str,
    created_at: i64,
    expired_before: i64,
) -> Result<bool, StoreError> {
    let claimed = sql.query_opt(
        "INSERT INTO save_creations (key_sha256, request_sha256, player_id, token_sealed, created_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (key_sha256) DO UPDATE
         SET request_sha256 = excluded.request_sha256, player_id = excluded.player_id,
             token_sealed = excluded.token_sealed, created_at = excluded.created_at
         WHERE save_creations.created_at < $6
         RETURNING key_sha256",
        &[
            Param::Text(&creation.key_sha256),
            Param::Text(&creation.request_sha256),
            Param::Text(player_id),
            Param::Text(&creation.token_sealed),
            Param::Int(created_at),
            Param::Int(expired_before),
        ],
    )?;
    Ok(claimed.is_some())
}

/// The live record of a key (made at or after `expired_before`), with its save.
pub fn remembered_creation(
    sql: &mut dyn Sql,
    key_sha256: &str,
    expired_before: i64,
) -> Result<Option<RememberedCreation>, StoreError> {
    sql.query_opt(
        &format!(
            "SELECT c.request_sha256, c.token_sealed, p.player_id, {RECORD_COLUMNS}
             FROM save_creations c JOIN players p ON p.player_id = c.player_id
             WHERE c.key_sha256 = $1 AND c.created_at >= $2"
        ),
        &[Param::Text(key_sha256), Param::Int(expired_before)],
    )?
    .map(|row| {
        Ok(RememberedCreation {
            request_sha256: row.text(0)?.to_owned(),
            token_sealed: row.text(1)?.to_owned(),
            player_id: row.text(2)?.to_owned(),
            record: record_of(&row, 3)?,
        })
    })
    .transpose()
}

/// Deletes up to `at_most` records made before `expired_before`, oldest first, one row
/// per statement: concurrent transactions then lock rows in the same order and cannot
/// deadlock each other on PostgreSQL. Returns how many went.
pub fn forget_expired_creations(
    sql: &mut dyn Sql,
    expired_before: i64,
    at_most: usize,
) -> Result<usize, StoreError> {
    forget_oldest(
        sql,
        "DELETE FROM save_creations WHERE key_sha256 = (
             SELECT key_sha256 FROM save_creations WHERE created_at < $1
             ORDER BY created_at, key_sha256 LIMIT 1)
         RETURNING key_sha256",
        expired_before,
        at_most,
    )
}

/// Runs `delete_oldest` (a statement that deletes the oldest row older than `$1` and
/// returns it) up to `at_most` times, until it deletes nothing. Returns how many went.
pub fn forget_oldest(
    sql: &mut dyn Sql,
    delete_oldest: &str,
    before: i64,
    at_most: usize,
) -> Result<usize, StoreError> {
    for forgotten in 0..at_most {
        if sql
            .query_opt(delete_oldest, &[Param::Int(before)])?
            .is_none()
        {
            return Ok(forgotten);
        }
    }
    Ok(at_most)
}

/// A player's all-time best per mode they have played, with their best of `week`
/// where they have one; in [`Mode::ALL`]'s order.
pub fn bests(sql: &mut dyn Sql, player_id: &str, week: i64) -> Result<Vec<ServerBest>, StoreError> {
    let mut bests = sql
        .query(
            "SELECT s.mode, s.value, w.value
             FROM scores s LEFT JOIN weekly_scores w
               ON w.player_id = s.player_id AND w.mode = s.mode AND w.week = $1
             WHERE s.player_id = $2",
            &[Param::Int(week), Param::Text(player_id)],
        )?
        .iter()
        .map(|row| {
            let mode = row.text(0)?;
            Ok(ServerBest {
                mode: mode
                    .parse()
                    .map_err(|_| StoreError::UnexpectedValue(format!("mode {mode:?}")))?,
                alltime: row.int(1)?,
                weekly: row.opt_int(2)?,
            })
        })
        .collect::<Result<Vec<_>, StoreError>>()?;
    bests.sort_by_key(|best| best.mode);
    Ok(bests)
}

/// A validated game, ready to be recorded.
#[derive(Debug, Clone)]
pub struct Game {
    pub player_id: String,
    pub mode: Mode,
    pub score_id: String,
    pub value: i64,
    pub achieved_at: i64,
}

/// A player's best on one board after a submission.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Best {
    pub value: i64,
    /// Whether the submitted game (by score id) is that best.
    pub is_this_game: bool,
}

/// Records `game` on `board` if it beats the player's best there; returns the best.
pub fn record(sql: &mut dyn Sql, board: Board, game: &Game) -> Result<Best, StoreError> {
    let statements = board.statements();
    let player_scope = board.player_scope(&game.player_id, game.mode);
    let mut upsert = player_scope.clone();
    upsert.extend([
        Param::Int(game.value),
        Param::Text(&game.score_id),
        Param::Int(game.achieved_at),
    ]);
    // The upsert returns the row only when it wrote it; otherwise read the standing best.
    let row = match sql.query_opt(statements.upsert, &upsert)? {
        Some(row) => row,
        None => sql
            .query_opt(statements.best, &player_scope)?
            .ok_or_else(|| {
                StoreError::UnexpectedValue("a best vanished inside its transaction".into())
            })?,
    };
    Ok(Best {
        value: row.int(0)?,
        is_this_game: row.text(1)? == game.score_id,
    })
}

/// One line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub display_name: String,
    pub value: i64,
    pub achieved_at: i64,
}

/// The best `limit` rows of a board, best first; ties go to the earlier game, then to
/// the smaller player id, so the order never depends on storage.
pub fn top(
    sql: &mut dyn Sql,
    board: Board,
    mode: Mode,
    limit: i64,
) -> Result<Vec<Entry>, StoreError> {
    let mut params = board.scope(mode);
    params.push(Param::Int(limit));
    sql.query(board.statements().top, &params)?
        .iter()
        .map(|row| {
            Ok(Entry {
                display_name: row.text(0)?.to_owned(),
                value: row.int(1)?,
                achieved_at: row.int(2)?,
            })
        })
        .collect()
}

/// A player's own line: rank (1-based, in [`top`]'s order), value and time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    pub rank: i64,
    pub value: i64,
    pub achieved_at: i64,
}

pub fn standing(
    sql: &mut dyn Sql,
    board: Board,
    mode: Mode,
    player_id: &str,
) -> Result<Option<Standing>, StoreError> {
    sql.query_opt(
        board.statements().rank,
        &board.player_scope(player_id, mode),
    )?
    .map(|row: Row| {
        Ok(Standing {
            value: row.int(0)?,
            achieved_at: row.int(1)?,
            rank: row.int(2)?,
        })
    })
    .transpose()
}

/// Whether the database answers.
pub fn ping(sql: &mut dyn Sql) -> Result<(), StoreError> {
    sql.query("SELECT 1", &[])?;
    Ok(())
}

// ─── Verified results, review and moderation (docs/replay.md) ──────────────────────
// Kept apart from the statements above. Parameters appear in the order of their numbers
// (see `Sql`). `Param` has no NULL, so optional values travel as a sentinel that
// `NULLIF` turns back into NULL: '' for text, -1 for weeks.

/// Where a stored result stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultState {
    /// On the public boards.
    Public,
    /// Waits for an operator.
    Held,
    /// Held, then approved: on the public boards.
    Approved,
}

impl ResultState {
    pub fn id(self) -> &'static str {
        match self {
            ResultState::Public => "public",
            ResultState::Held => "held",
            ResultState::Approved => "approved",
        }
    }

    fn parse(id: &str) -> Result<Self, StoreError> {
        match id {
            "public" => Ok(ResultState::Public),
            "held" => Ok(ResultState::Held),
            "approved" => Ok(ResultState::Approved),
            other => Err(StoreError::UnexpectedValue(format!(
                "result state {other:?}"
            ))),
        }
    }

    /// Whether results in this state belong on the public boards.
    pub fn is_public(self) -> bool {
        self != ResultState::Held
    }
}

/// A verified result, as stored.
#[derive(Debug, Clone)]
pub struct NewResult {
    pub player_id: String,
    pub score_id: String,
    pub mode: Mode,
    pub value: i64,
    /// `words:42`, `quotes:austen-pride`.
    pub prompt: String,
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
    /// The input log, kept only for held results.
    pub input: Option<String>,
}

/// What the server knows of a save when it records a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveFacts {
    pub created_at: i64,
    pub hidden: bool,
}

pub fn save_facts(sql: &mut dyn Sql, player_id: &str) -> Result<Option<SaveFacts>, StoreError> {
    sql.query_opt(
        "SELECT created_at, hidden FROM players WHERE player_id = $1",
        &[Param::Text(player_id)],
    )?
    .map(|row| {
        Ok(SaveFacts {
            created_at: row.int(0)?,
            hidden: row.int(1)? != 0,
        })
    })
    .transpose()
}

/// Stores `result` unless it is stored already (same player and score id) or its seed
/// was used (same player and seed key); says whether it was stored.
pub fn insert_result(sql: &mut dyn Sql, result: &NewResult) -> Result<bool, StoreError> {
    let inserted = sql.query_opt(
        "INSERT INTO results (player_id, score_id, mode, value, prompt, seed_key, played_at,
                              received_at, board_week, state, holds, suspicious, stats, input)
         VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), $7, $8, NULLIF($9, CAST(-1 AS BIGINT)),
                 $10, $11, $12, $13, NULLIF($14, ''))
         ON CONFLICT DO NOTHING
         RETURNING score_id",
        &[
            Param::Text(&result.player_id),
            Param::Text(&result.score_id),
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
            Param::Text(result.input.as_deref().unwrap_or_default()),
        ],
    )?;
    Ok(inserted.is_some())
}

/// A stored result's standing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResult {
    pub mode: Mode,
    pub value: i64,
    pub received_at: i64,
    pub board_week: Option<i64>,
    pub state: ResultState,
}

const STORED_RESULT_COLUMNS: &str = "mode, value, received_at, board_week, state";

fn stored_result_of(row: &Row) -> Result<StoredResult, StoreError> {
    Ok(StoredResult {
        mode: mode_of(row.text(0)?)?,
        value: row.int(1)?,
        received_at: row.int(2)?,
        board_week: optional_int(row, 3)?,
        state: ResultState::parse(row.text(4)?)?,
    })
}

pub fn stored_result(
    sql: &mut dyn Sql,
    player_id: &str,
    score_id: &str,
) -> Result<Option<StoredResult>, StoreError> {
    sql.query_opt(
        &format!(
            "SELECT {STORED_RESULT_COLUMNS} FROM results WHERE player_id = $1 AND score_id = $2"
        ),
        &[Param::Text(player_id), Param::Text(score_id)],
    )?
    .as_ref()
    .map(stored_result_of)
    .transpose()
}

/// The player's value on a public board, if they are on it.
pub fn board_value(
    sql: &mut dyn Sql,
    board: Board,
    player_id: &str,
    mode: Mode,
) -> Result<Option<i64>, StoreError> {
    let statement = match board {
        Board::AllTime => "SELECT value FROM scores WHERE player_id = $1 AND mode = $2",
        Board::Week(_) => {
            "SELECT value FROM weekly_scores WHERE player_id = $1 AND mode = $2 AND week = $3"
        }
    };
    sql.query_opt(statement, &board.player_scope(player_id, mode))?
        .map(|row| row.int(0))
        .transpose()
}

/// Marks a held result approved; returns it, or `None` if no such result is held.
pub fn approve_result(
    sql: &mut dyn Sql,
    player_id: &str,
    score_id: &str,
) -> Result<Option<StoredResult>, StoreError> {
    sql.query_opt(
        &format!(
            "UPDATE results SET state = 'approved'
             WHERE player_id = $1 AND score_id = $2 AND state = 'held'
             RETURNING {STORED_RESULT_COLUMNS}"
        ),
        &[Param::Text(player_id), Param::Text(score_id)],
    )?
    .as_ref()
    .map(stored_result_of)
    .transpose()
}

/// A result as an operator sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedResult {
    pub received_at: i64,
    pub player_id: String,
    pub display_name: String,
    pub score_id: String,
    pub mode: Mode,
    pub value: i64,
    pub state: ResultState,
    pub holds: String,
}

/// Which results an operator lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listing {
    /// Waiting for review, oldest first.
    Held,
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
        Listing::Suspicious => "r.suspicious = 1 ORDER BY r.received_at DESC, r.player_id",
    };
    sql.query(
        &format!(
            "SELECT r.received_at, r.player_id, p.display_name, r.score_id, r.mode, r.value,
                    r.state, r.holds
             FROM results r JOIN players p ON p.player_id = r.player_id
             WHERE {filter} LIMIT $1"
        ),
        &[Param::Int(limit)],
    )?
    .iter()
    .map(|row| {
        Ok(ListedResult {
            received_at: row.int(0)?,
            player_id: row.text(1)?.to_owned(),
            display_name: row.text(2)?.to_owned(),
            score_id: row.text(3)?.to_owned(),
            mode: mode_of(row.text(4)?)?,
            value: row.int(5)?,
            state: ResultState::parse(row.text(6)?)?,
            holds: row.text(7)?.to_owned(),
        })
    })
    .collect()
}

/// Sets whether the player is hidden from the public boards; `false` if no such player.
pub fn set_hidden(sql: &mut dyn Sql, player_id: &str, hidden: bool) -> Result<bool, StoreError> {
    Ok(sql
        .query_opt(
            "UPDATE players SET hidden = $1 WHERE player_id = $2 RETURNING player_id",
            &[Param::Int(i64::from(hidden)), Param::Text(player_id)],
        )?
        .is_some())
}

/// Takes the player's rows off every public board.
pub fn remove_from_boards(sql: &mut dyn Sql, player_id: &str) -> Result<(), StoreError> {
    for statement in [
        "DELETE FROM scores WHERE player_id = $1",
        "DELETE FROM weekly_scores WHERE player_id = $1",
    ] {
        sql.query(statement, &[Param::Text(player_id)])?;
    }
    Ok(())
}

/// The player's results that belong on the public boards, in the order received.
pub fn public_results(
    sql: &mut dyn Sql,
    player_id: &str,
) -> Result<Vec<(String, StoredResult)>, StoreError> {
    sql.query(
        &format!(
            "SELECT {STORED_RESULT_COLUMNS}, score_id FROM results
             WHERE player_id = $1 AND state <> 'held' ORDER BY received_at, score_id"
        ),
        &[Param::Text(player_id)],
    )?
    .iter()
    .map(|row| Ok((row.text(5)?.to_owned(), stored_result_of(row)?)))
    .collect()
}

/// The player whose name has `name_key`, if any.
pub fn name_key_owner(sql: &mut dyn Sql, name_key: &str) -> Result<Option<String>, StoreError> {
    sql.query_opt(
        "SELECT player_id FROM players WHERE name_key = $1",
        &[Param::Text(name_key)],
    )?
    .map(|row| Ok(row.text(0)?.to_owned()))
    .transpose()
}

pub fn set_name_key(sql: &mut dyn Sql, player_id: &str, name_key: &str) -> Result<(), StoreError> {
    sql.query(
        "UPDATE players SET name_key = $1 WHERE player_id = $2",
        &[Param::Text(name_key), Param::Text(player_id)],
    )?;
    Ok(())
}

/// Up to `limit` saves from before name keys existed: (player id, display name).
pub fn unkeyed_names(sql: &mut dyn Sql, limit: i64) -> Result<Vec<(String, String)>, StoreError> {
    sql.query(
        "SELECT player_id, display_name FROM players WHERE name_key IS NULL LIMIT $1",
        &[Param::Int(limit)],
    )?
    .iter()
    .map(|row| Ok((row.text(0)?.to_owned(), row.text(1)?.to_owned())))
    .collect()
}

fn mode_of(id: &str) -> Result<Mode, StoreError> {
    id.parse()
        .map_err(|_| StoreError::UnexpectedValue(format!("mode {id:?}")))
}

fn optional_int(row: &Row, column: usize) -> Result<Option<i64>, StoreError> {
    match row.0.get(column) {
        Some(super::sql::Value::Null) => Ok(None),
        _ => row.int(column).map(Some),
    }
}
