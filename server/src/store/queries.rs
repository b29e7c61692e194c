//! Every statement KeyDo runs, written once for both databases (see [`Sql`]).
//!
//! Scores are kept per board: `scores` holds one row per (player, mode), the best game
//! ever; `weekly_scores` one row per (player, mode, week). Both are written with a
//! conditional upsert that only replaces a row with a strictly higher value, so a
//! resend, a replay or a lower score changes nothing, concurrently or not.
//! `save_creations` remembers which save an `Idempotency-Key` created (docs/api.md).

use super::StoreError;
use super::sql::{Param, Row, Sql};
use keydo_core::Mode;
use keydo_core::api::ServerBest;

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

/// A save as stored (without its token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub player_id: String,
    pub display_name: String,
    pub version: i64,
}

pub fn insert_player(
    sql: &mut dyn Sql,
    player: &Player,
    token_sha256: &str,
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
    Ok(())
}

pub fn player_by_token(
    sql: &mut dyn Sql,
    token_sha256: &str,
) -> Result<Option<Player>, StoreError> {
    sql.query_opt(
        "SELECT player_id, display_name, version FROM players WHERE token_sha256 = $1",
        &[Param::Text(token_sha256)],
    )?
    .map(|row| {
        Ok(Player {
            player_id: row.text(0)?.to_owned(),
            display_name: row.text(1)?.to_owned(),
            version: row.int(2)?,
        })
    })
    .transpose()
}

/// A save creation's record under its idempotency key, as stored: nothing in it
/// reveals the key or the token (docs/api.md, "Idempotency").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveCreation {
    pub key_sha256: String,
    pub request_sha256: String,
    pub token_sealed: String,
}

/// A remembered creation and the save it made, as that save is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RememberedCreation {
    pub request_sha256: String,
    pub token_sealed: String,
    pub player: Player,
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
        "SELECT c.request_sha256, c.token_sealed, p.player_id, p.display_name, p.version
         FROM save_creations c JOIN players p ON p.player_id = c.player_id
         WHERE c.key_sha256 = $1 AND c.created_at >= $2",
        &[Param::Text(key_sha256), Param::Int(expired_before)],
    )?
    .map(|row| {
        Ok(RememberedCreation {
            request_sha256: row.text(0)?.to_owned(),
            token_sealed: row.text(1)?.to_owned(),
            player: Player {
                player_id: row.text(2)?.to_owned(),
                display_name: row.text(3)?.to_owned(),
                version: row.int(4)?,
            },
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
    for forgotten in 0..at_most {
        let deleted = sql.query_opt(
            "DELETE FROM save_creations WHERE key_sha256 = (
                 SELECT key_sha256 FROM save_creations WHERE created_at < $1
                 ORDER BY created_at, key_sha256 LIMIT 1)
             RETURNING key_sha256",
            &[Param::Int(expired_before)],
        )?;
        if deleted.is_none() {
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
