//! The leaderboards' tables, written once for both databases (see [`Sql`]).
//!
//! Scores are kept per board: `scores` holds one row per (player, mode), the best game
//! ever; `weekly_scores` one row per (player, mode, week). Both are written with a
//! conditional upsert that only replaces a row with a strictly higher value, so a
//! resend, a replay or a lower score changes nothing, concurrently or not.

use super::StoreError;
use super::rank_counts::{self, Moves};
use super::sql::{Param, Row, Sql, set_where};
use keydo_core::Mode;
use keydo_core::api::ServerBest;
use std::sync::LazyLock;
use uuid::Uuid;

/// A leaderboard: all time, or one UTC+8 week.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Board {
    AllTime,
    Week(i64),
}

/// The statements of one board. Their parameters start with the board's scope, in
/// order: `player_id` (where a player is meant), `mode`, then `week` on weekly boards.
struct BoardStatements {
    /// scope, value, score_id, achieved_at → the row after it (value, score_id) and
    /// its value before (NULL for a new row; the same value when the game did not beat
    /// the row, which it then keeps).
    upsert: String,
    /// mode[, week], limit → display_name, value, achieved_at, player_id, name_key (''
    /// while it is still to be computed), best first.
    top: &'static str,
    /// scope, value, at most → how many other players' rows are strictly above the
    /// value, counted up to the limit.
    above: &'static str,
}

/// The upsert of `table`, keyed by its scope's columns: a strictly higher value
/// replaces the row's game; the row comes back either way (see [`set_where`]).
fn upsert(table: &str, scope: &[&str]) -> String {
    let key = scope.join(", ");
    let placeholders = (1..=scope.len() + 3)
        .map(|n| format!("${n}"))
        .collect::<Vec<_>>()
        .join(", ");
    let replace = set_where(
        table,
        &format!("excluded.value > {table}.value"),
        &["value", "score_id", "achieved_at"],
    );
    format!(
        "INSERT INTO {table} ({key}, value, score_id, achieved_at) VALUES ({placeholders})
         ON CONFLICT ({key}) DO UPDATE SET previous_value = {table}.value, {replace}
         RETURNING value, score_id, previous_value"
    )
}

static ALL_TIME: LazyLock<BoardStatements> = LazyLock::new(|| BoardStatements {
    upsert: upsert("scores", &["player_id", "mode"]),
    top: "SELECT p.display_name, s.value, s.achieved_at, p.player_id, COALESCE(p.name_key, '')
          FROM scores s JOIN players p ON p.player_id = s.player_id
          WHERE s.mode = $1
          ORDER BY s.value DESC, s.achieved_at ASC, s.player_id ASC
          LIMIT $2",
    above: "SELECT COUNT(*) FROM (SELECT 1 FROM scores
            WHERE player_id <> $1 AND mode = $2 AND value > $3 LIMIT $4) AS above",
});

static WEEKLY: LazyLock<BoardStatements> = LazyLock::new(|| BoardStatements {
    upsert: upsert("weekly_scores", &["player_id", "mode", "week"]),
    top: "SELECT p.display_name, s.value, s.achieved_at, p.player_id, COALESCE(p.name_key, '')
          FROM weekly_scores s JOIN players p ON p.player_id = s.player_id
          WHERE s.mode = $1 AND s.week = $2
          ORDER BY s.value DESC, s.achieved_at ASC, s.player_id ASC
          LIMIT $3",
    above: "SELECT COUNT(*) FROM (SELECT 1 FROM weekly_scores
            WHERE player_id <> $1 AND mode = $2 AND week = $3 AND value > $4 LIMIT $5) AS above",
});

/// How a rank statement names a board's rows: the table, the condition that keeps the
/// other rows `o` on the board of the player's row `me`, and the one that picks `me`
/// from [`Board::player_scope`]'s parameters.
struct RankParts {
    table: &'static str,
    same_board: &'static str,
    player: &'static str,
}

const ALL_TIME_PARTS: RankParts = RankParts {
    table: "scores",
    same_board: "o.mode = me.mode",
    player: "me.player_id = $1 AND me.mode = $2",
};

const WEEKLY_PARTS: RankParts = RankParts {
    table: "weekly_scores",
    same_board: "o.mode = me.mode AND o.week = me.week",
    player: "me.player_id = $1 AND me.mode = $2 AND me.week = $3",
};

/// scope → value, achieved_at, rank: one plus the players in the buckets above the
/// player's (their counts, docs/operations.md "Ranks at a million"), those above them
/// inside their own bucket, and those level with them who got there first. Every part
/// reads an index range that ends at the player's bucket, so no read counts a whole
/// board.
fn rank_statement(parts: &RankParts, counts_week: &str) -> String {
    let RankParts {
        table,
        same_board,
        player,
    } = parts;
    let width = rank_counts::BUCKET_WIDTH;
    format!(
        "SELECT me.value, me.achieved_at, CAST(1
           + (SELECT COALESCE(SUM(c.players), 0) FROM rank_counts c
              WHERE c.mode = me.mode AND c.week = {counts_week} AND c.bucket > me.value / {width})
           + (SELECT COALESCE(SUM(d.delta), 0) FROM rank_deltas d
              WHERE d.mode = me.mode AND d.week = {counts_week} AND d.bucket > me.value / {width})
           + (SELECT COUNT(*) FROM {table} o WHERE {same_board} AND o.value > me.value
                AND o.value < (me.value / {width} + 1) * {width})
           + (SELECT COUNT(*) FROM {table} o WHERE {same_board} AND o.value = me.value
                AND (o.achieved_at, o.player_id) < (me.achieved_at, me.player_id))
           AS BIGINT)
         FROM {table} me WHERE {player}"
    )
}

static ALL_TIME_RANK: LazyLock<String> =
    LazyLock::new(|| rank_statement(&ALL_TIME_PARTS, &rank_counts::ALL_TIME.to_string()));

static WEEKLY_RANK: LazyLock<String> = LazyLock::new(|| rank_statement(&WEEKLY_PARTS, "me.week"));

impl Board {
    fn statements(self) -> &'static BoardStatements {
        match self {
            Board::AllTime => &ALL_TIME,
            Board::Week(_) => &WEEKLY,
        }
    }

    fn rank_parts(self) -> &'static RankParts {
        match self {
            Board::AllTime => &ALL_TIME_PARTS,
            Board::Week(_) => &WEEKLY_PARTS,
        }
    }

    /// The statement [`standing`] runs (for `EXPLAIN`: docs/operations.md, "Ranks at a
    /// million").
    pub(super) fn rank_statement(self) -> &'static str {
        match self {
            Board::AllTime => &ALL_TIME_RANK,
            Board::Week(_) => &WEEKLY_RANK,
        }
    }

    /// The `week` of this board's bucket counts.
    fn counts_week(self) -> i64 {
        match self {
            Board::AllTime => rank_counts::ALL_TIME,
            Board::Week(week) => week,
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
    pub(super) fn player_scope(self, player_id: Uuid, mode: Mode) -> Vec<Param<'static>> {
        let mut scope = vec![Param::Id(player_id)];
        scope.extend(self.scope(mode));
        scope
    }
}

/// A player's all-time best per mode they have played, with their best of `week`
/// where they have one; in [`Mode::ALL`]'s order.
pub fn bests(sql: &mut dyn Sql, player_id: Uuid, week: i64) -> Result<Vec<ServerBest>, StoreError> {
    let mut bests = sql
        .query(
            "SELECT s.mode, s.value, w.value
             FROM scores s LEFT JOIN weekly_scores w
               ON w.player_id = s.player_id AND w.mode = s.mode AND w.week = $1
             WHERE s.player_id = $2",
            &[Param::Int(week), Param::Id(player_id)],
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
    pub player_id: Uuid,
    pub mode: Mode,
    pub score_id: Uuid,
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

/// What recording a game did to the player's bests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    pub all_time: Best,
    /// `None` when the game's week is not the current one.
    pub weekly: Option<Best>,
}

/// Records `game` on its mode's all-time board and, when `week` is given, on that
/// week's board; both boards' bucket moves are one statement.
pub fn record_mode(
    sql: &mut dyn Sql,
    game: &Game,
    week: Option<i64>,
) -> Result<Recorded, StoreError> {
    let mut moves = Moves::default();
    let all_time = record(sql, Board::AllTime, game, &mut moves)?;
    let weekly = week
        .map(|week| record(sql, Board::Week(week), game, &mut moves))
        .transpose()?;
    moves.append(sql)?;
    Ok(Recorded { all_time, weekly })
}

/// Records `game` on `board` if it beats the player's best there; returns the best.
/// The row's bucket move goes into `moves`, for the caller to append.
pub fn record(
    sql: &mut dyn Sql,
    board: Board,
    game: &Game,
    moves: &mut Moves,
) -> Result<Best, StoreError> {
    let statements = board.statements();
    let mut upsert = board.player_scope(game.player_id, game.mode);
    upsert.extend([
        Param::Int(game.value),
        Param::Id(game.score_id),
        Param::Int(game.achieved_at),
    ]);
    let row = sql.query_opt(&statements.upsert, &upsert)?.ok_or_else(|| {
        StoreError::UnexpectedValue("an upsert of a board returned no row".into())
    })?;
    // A kept row's value before is its value: no move.
    moves.moved(
        game.mode.id(),
        board.counts_week(),
        row.opt_int(2)?,
        Some(row.int(0)?),
    );
    Ok(Best {
        value: row.int(0)?,
        is_this_game: row.id(1)? == game.score_id,
    })
}

/// One line of a leaderboard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub display_name: String,
    pub value: i64,
    pub achieved_at: i64,
    /// Text: legacy saves' ids need not be UUIDs.
    pub player_id: String,
    /// The save's name key, `None` while it is still to be computed (docs/replay.md).
    pub name_key: Option<String>,
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
                player_id: row.text(3)?.to_owned(),
                name_key: Some(row.text(4)?)
                    .filter(|key| !key.is_empty())
                    .map(str::to_owned),
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
    player_id: Uuid,
) -> Result<Option<Standing>, StoreError> {
    sql.query_opt(board.rank_statement(), &board.player_scope(player_id, mode))?
        .map(|row: Row| {
            Ok(Standing {
                value: row.int(0)?,
                achieved_at: row.int(1)?,
                rank: row.int(2)?,
            })
        })
        .transpose()
}

/// A player's rank counted from the board's rows alone, one per row above them: what
/// [`standing`]'s counted rank must equal. A check, never served: it reads the whole
/// board below the top.
pub fn rank_by_full_count(
    sql: &mut dyn Sql,
    board: Board,
    mode: Mode,
    player_id: Uuid,
) -> Result<Option<i64>, StoreError> {
    let RankParts {
        table,
        same_board,
        player,
    } = board.rank_parts();
    let statement = format!(
        "SELECT 1 + (SELECT COUNT(*) FROM {table} o WHERE {same_board}
             AND (o.value > me.value OR (o.value = me.value AND (o.achieved_at < me.achieved_at
                  OR (o.achieved_at = me.achieved_at AND o.player_id < me.player_id)))))
         FROM {table} me WHERE {player}"
    );
    sql.query_opt(&statement, &board.player_scope(player_id, mode))?
        .map(|row| row.int(0))
        .transpose()
}

/// The player's value on a public board, if they are on it.
pub fn board_value(
    sql: &mut dyn Sql,
    board: Board,
    player_id: Uuid,
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

/// How many players other than `player_id` are strictly above `value` on the board,
/// counted up to `at_most` (a gate asks about the top few places, and counting all
/// the players above a low value would read most of the board).
pub fn players_above(
    sql: &mut dyn Sql,
    board: Board,
    player_id: Uuid,
    mode: Mode,
    value: i64,
    at_most: i64,
) -> Result<i64, StoreError> {
    let mut params = board.player_scope(player_id, mode);
    params.extend([Param::Int(value), Param::Int(at_most)]);
    sql.query_opt(board.statements().above, &params)?
        .map_or(Ok(0), |row| row.int(0))
}

/// Takes the player's rows off every public board.
pub fn remove_from_boards(sql: &mut dyn Sql, player_id: Uuid) -> Result<(), StoreError> {
    let removed = [
        format!(
            "DELETE FROM scores WHERE player_id = $1 RETURNING mode, {}, value",
            rank_counts::ALL_TIME
        ),
        "DELETE FROM weekly_scores WHERE player_id = $1 RETURNING mode, week, value".to_owned(),
    ]
    .iter()
    .map(|statement| sql.query(statement, &[Param::Id(player_id)]))
    .collect::<Result<Vec<_>, StoreError>>()?;
    let mut moves = Moves::default();
    for row in removed.iter().flatten() {
        moves.moved(row.text(0)?, row.int(1)?, Some(row.int(2)?), None);
    }
    moves.append(sql)
}
