//! The ranks' upkeep and checks as `Store` transactions (docs/operations.md, "Ranks at
//! a million"): the sweeper's fold, the comparison of counts and ranks with counts of
//! the rows, the rank's plan, and loading a seeded board fixture.

use super::board_fixture::{
    BoardFixture, DEVICE_COLUMNS, PLAYER_COLUMNS, SCORE_COLUMNS, WEEKLY_COLUMNS,
};
use super::boards::{self, Board};
use super::rank_counts::{differences, fold_deltas, recount};
use super::{Database, Store, StoreError};
use keydo_core::Mode;
use uuid::Uuid;

/// Players a bulk load writes per transaction.
const LOAD_BATCH: u32 = 10_000;

impl Store {
    /// Folds the rank deltas appended since the last sweep into the counts (the
    /// sweeper's step); returns how many it took.
    pub async fn fold_rank_deltas(&self) -> Result<usize, StoreError> {
        self.write(fold_deltas).await
    }

    /// How many buckets' counts differ from a count of the board rows: 0, or a bug.
    pub async fn rank_count_differences(&self) -> Result<i64, StoreError> {
        self.read(differences).await
    }

    /// The player's rank counted row by row ([`boards::rank_by_full_count`]), to check
    /// the served one against.
    pub async fn rank_by_full_count(
        &self,
        board: Board,
        mode: Mode,
        player_id: Uuid,
    ) -> Result<Option<i64>, StoreError> {
        self.read(move |sql| boards::rank_by_full_count(sql, board, mode, player_id))
            .await
    }

    /// The database's plan for the player's rank, one line per step: `EXPLAIN
    /// (ANALYZE, BUFFERS)` on PostgreSQL (run, with its timings), `EXPLAIN QUERY PLAN`
    /// on SQLite.
    pub async fn explain_rank(
        &self,
        board: Board,
        mode: Mode,
        player_id: Uuid,
    ) -> Result<Vec<String>, StoreError> {
        let (explain, column) = match &*self.database {
            Database::Sqlite(_) => ("EXPLAIN QUERY PLAN", 3),
            Database::Postgres(_) => ("EXPLAIN (ANALYZE, BUFFERS)", 0),
        };
        let statement = format!("{explain} {}", board.rank_statement());
        self.read(move |sql| {
            sql.query(&statement, &board.player_scope(player_id, mode))?
                .iter()
                .map(|row| Ok(row.text(column)?.to_owned()))
                .collect()
        })
        .await
    }

    /// Writes `fixture`'s players and board rows ([`LOAD_BATCH`] players per
    /// transaction, by `COPY` on PostgreSQL), then counts the buckets again and
    /// refreshes the planner's statistics (on PostgreSQL, by a `VACUUM (ANALYZE)`).
    /// Returns how many games the rows stand for. For an empty database: a load run's
    /// or a test's.
    pub async fn load_board_fixture(&self, fixture: BoardFixture) -> Result<u64, StoreError> {
        let mut games = 0;
        for first in (0..fixture.players).step_by(LOAD_BATCH as usize) {
            let last = fixture.players.min(first + LOAD_BATCH);
            games += self
                .write(move |sql| {
                    let (mut players, mut devices, mut scores, mut weekly, mut games) =
                        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), 0);
                    for n in first..last {
                        let player = fixture.player(n);
                        players.push(player.player);
                        devices.push(player.device);
                        scores.extend(player.scores);
                        weekly.extend(player.weekly);
                        games += u64::from(player.games);
                    }
                    sql.insert_rows("players", PLAYER_COLUMNS, &players)?;
                    sql.insert_rows("devices", DEVICE_COLUMNS, &devices)?;
                    sql.insert_rows("scores", SCORE_COLUMNS, &scores)?;
                    sql.insert_rows("weekly_scores", WEEKLY_COLUMNS, &weekly)?;
                    Ok(games)
                })
                .await?;
        }
        self.write(recount).await?;
        match &*self.database {
            Database::Sqlite(_) => {
                self.write(|sql| sql.query("ANALYZE", &[]).map(drop))
                    .await?
            }
            // VACUUM runs outside a transaction, so on a read's connection. Besides the
            // statistics it marks the loaded pages all-visible, so the boards' index-only
            // scans need not visit the table whether or not autovacuum has got to them
            // yet (docs/operations.md, "Ranks at a million").
            Database::Postgres(_) => {
                self.read(|sql| {
                    sql.query(
                        "VACUUM (ANALYZE) players, devices, scores, weekly_scores, rank_counts",
                        &[],
                    )
                    .map(drop)
                })
                .await?
            }
        }
        Ok(games)
    }
}
