//! Players per bucket of each board, so a rank is a few sums and one bounded count
//! (docs/operations.md, "Ranks at a million").
//!
//! A bucket is [`BUCKET_WIDTH`] values wide. Every change of a board row appends its
//! moves to `rank_deltas` in the change's own transaction; the sweeper folds them into
//! `rank_counts` now and then. A count is always `rank_counts` plus the deltas not yet
//! folded, so it is exact at every moment whether or not the sweeper has run. Appends
//! never wait for each other, and only the sweeper updates `rank_counts`, in ascending
//! key order: no counter is a hot row and no two transactions can deadlock on them.

use super::StoreError;
use super::sql::{Param, Sql};
use std::collections::BTreeMap;

/// The width of a bucket in board values (0.1 WPM or 0.1 字/分); migration V9 uses
/// the same. At a million players the fullest bucket holds a few thousand.
pub const BUCKET_WIDTH: i64 = 10;

/// The `week` column of the all-time board's counts.
pub const ALL_TIME: i64 = -1;

/// The bucket a value counts in.
pub fn bucket(value: i64) -> i64 {
    value / BUCKET_WIDTH
}

/// How many rows one statement appends or folds: bounds the statement texts a
/// connection prepares (one per row count) and the parameters per statement.
const ROWS_PER_STATEMENT: usize = 64;

/// The bucket moves of one transaction's board changes, appended to `rank_deltas`
/// together: a submission's moves on both its boards are one round trip.
#[derive(Debug, Default)]
pub struct Moves(Vec<(String, i64, i64, i64)>);

impl Moves {
    /// Notes that a player's row on board `week` (or [`ALL_TIME`]) of `mode` went from
    /// `from` to `to` (`None`: no row).
    pub fn moved(&mut self, mode: &str, week: i64, from: Option<i64>, to: Option<i64>) {
        let (from, to) = (from.map(bucket), to.map(bucket));
        if from == to {
            return;
        }
        for (bucket, delta) in [(from, -1), (to, 1)] {
            if let Some(bucket) = bucket {
                self.0.push((mode.to_owned(), week, bucket, delta));
            }
        }
    }

    /// Appends the moves, in the caller's transaction.
    pub fn append(self, sql: &mut dyn Sql) -> Result<(), StoreError> {
        for rows in self.0.chunks(ROWS_PER_STATEMENT) {
            let params: Vec<Param> = rows
                .iter()
                .flat_map(|(mode, week, bucket, delta)| {
                    [
                        Param::Text(mode),
                        Param::Int(*week),
                        Param::Int(*bucket),
                        Param::Int(*delta),
                    ]
                })
                .collect();
            sql.query(
                &format!(
                    "INSERT INTO rank_deltas (mode, week, bucket, delta) VALUES {}",
                    values(rows.len(), 4)
                ),
                &params,
            )?;
        }
        Ok(())
    }
}

/// `($1, $2, ...), (...)`: `rows` rows of `columns` parameters.
fn values(rows: usize, columns: usize) -> String {
    (0..rows)
        .map(|row| {
            let row: Vec<String> = (1..=columns)
                .map(|column| format!("${}", row * columns + column))
                .collect();
            format!("({})", row.join(", "))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// Folds every delta appended so far into `rank_counts`, in one transaction (the
/// caller's); returns how many deltas it took. The deltas it deletes are exactly the
/// ones it adds: a concurrent sweeper skips rows this one deleted.
pub fn fold_deltas(sql: &mut dyn Sql) -> Result<usize, StoreError> {
    let taken = sql.query(
        "DELETE FROM rank_deltas RETURNING mode, week, bucket, delta",
        &[],
    )?;
    let mut sums = BTreeMap::<(String, i64, i64), i64>::new();
    for row in &taken {
        *sums
            .entry((row.text(0)?.to_owned(), row.int(1)?, row.int(2)?))
            .or_default() += row.int(3)?;
    }
    // Ascending key order, within a statement and across them: two sweepers on one
    // PostgreSQL wait, never deadlock.
    let sums: Vec<_> = sums.into_iter().filter(|(_, sum)| *sum != 0).collect();
    for rows in sums.chunks(ROWS_PER_STATEMENT) {
        let params: Vec<Param> = rows
            .iter()
            .flat_map(|((mode, week, bucket), sum)| {
                [
                    Param::Text(mode),
                    Param::Int(*week),
                    Param::Int(*bucket),
                    Param::Int(*sum),
                ]
            })
            .collect();
        let emptied = sql.query(
            &format!(
                "INSERT INTO rank_counts (mode, week, bucket, players) VALUES {}
                 ON CONFLICT (mode, week, bucket) DO UPDATE
                 SET players = rank_counts.players + excluded.players
                 RETURNING mode, week, bucket, players",
                values(rows.len(), 4)
            ),
            &params,
        )?;
        for row in emptied
            .iter()
            .filter(|row| row.int(3).is_ok_and(|n| n == 0))
        {
            sql.query(
                "DELETE FROM rank_counts WHERE mode = $1 AND week = $2 AND bucket = $3",
                &[
                    Param::Text(row.text(0)?),
                    Param::Int(row.int(1)?),
                    Param::Int(row.int(2)?),
                ],
            )?;
        }
    }
    Ok(taken.len())
}

/// Counts every bucket again from the board rows (after a bulk load that bypassed
/// the boards' writes), in the caller's transaction.
pub fn recount(sql: &mut dyn Sql) -> Result<(), StoreError> {
    for statement in [
        "DELETE FROM rank_deltas".to_owned(),
        "DELETE FROM rank_counts".to_owned(),
        format!(
            "INSERT INTO rank_counts (mode, week, bucket, players)
             SELECT mode, {ALL_TIME}, value / {BUCKET_WIDTH}, COUNT(*) FROM scores
             GROUP BY mode, value / {BUCKET_WIDTH}"
        ),
        format!(
            "INSERT INTO rank_counts (mode, week, bucket, players)
             SELECT mode, week, value / {BUCKET_WIDTH}, COUNT(*) FROM weekly_scores
             GROUP BY mode, week, value / {BUCKET_WIDTH}"
        ),
    ] {
        sql.query(&statement, &[])?;
    }
    Ok(())
}

/// How many buckets' counts differ from a count of the board rows: 0 unless a board
/// row changed without its deltas.
pub fn differences(sql: &mut dyn Sql) -> Result<i64, StoreError> {
    sql.query_opt(
        &format!(
            "SELECT COUNT(*) FROM (
                 SELECT mode, week, bucket FROM (
                     SELECT mode, week, bucket, players AS n FROM rank_counts
                     UNION ALL SELECT mode, week, bucket, delta FROM rank_deltas
                     UNION ALL SELECT mode, {ALL_TIME}, value / {BUCKET_WIDTH}, -1 FROM scores
                     UNION ALL SELECT mode, week, value / {BUCKET_WIDTH}, -1 FROM weekly_scores
                 ) AS counted
                 GROUP BY mode, week, bucket HAVING SUM(n) <> 0
             ) AS differing"
        ),
        &[],
    )?
    .map_or(Ok(0), |row| row.int(0))
}
