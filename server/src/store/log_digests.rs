//! The `log_digests` table: a log is spent once (docs/replay.md, "A log is spent
//! once").
//!
//! Every accepted result's input log leaves its SHA-256 here, unique across all saves.
//! The log is the game's edits with their times and nothing else (`playedAt`, the week
//! and the score id travel beside it), and the replay accepts it only in the one
//! encoding the page's session writes, so the digest names the edit sequence: a log
//! sent again by another save, re-dated or under a new score id is refused. Two people
//! typing the same prompt perfectly share its edits but not their times.

use super::StoreError;
use super::results::NewResult;
use super::sql::{Param, Sql};
use keydo_core::InputLog;
use keydo_core::api::ApiCode;
use keydo_core::verify::Refusal;
use sha2::{Digest, Sha256};

/// The digest a log is spent under: hex SHA-256 of its bytes.
pub fn log_sha256(log: &InputLog) -> String {
    hex::encode(Sha256::digest(log.as_bytes()))
}

/// Spends the log of a result about to be stored, or refuses it as spent. Nothing to
/// do without a digest (logs may be reused: test setups). A result its seed will
/// refuse spends nothing: a refused result spends no log. (A resend never gets here:
/// its first receipt stands.)
pub fn spend(sql: &mut dyn Sql, result: &NewResult) -> Result<Option<Refusal>, StoreError> {
    let Some(log_sha256) = result.log_sha256.as_deref() else {
        return Ok(None);
    };
    let mut params = vec![
        Param::Text(log_sha256),
        Param::Id(result.player_id),
        Param::Id(result.score_id),
        Param::Int(result.received_at),
    ];
    // One statement in the common case, a new log on a new seed. On PostgreSQL a
    // concurrent transaction spending the same log makes the insert wait for it and
    // do nothing.
    let claimed = match &result.seed_key {
        Some(seed_key) => {
            params.push(Param::Text(seed_key));
            sql.query_opt(
                "INSERT INTO log_digests (log_sha256, player_id, score_id, spent_at)
                 SELECT $1, $2, $3, $4
                 WHERE NOT EXISTS (SELECT 1 FROM results WHERE player_id = $2 AND seed_key = $5)
                 ON CONFLICT DO NOTHING
                 RETURNING log_sha256",
                &params,
            )?
        }
        None => sql.query_opt(
            "INSERT INTO log_digests (log_sha256, player_id, score_id, spent_at)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT DO NOTHING
             RETURNING log_sha256",
            &params,
        )?,
    };
    if claimed.is_some() {
        return Ok(None);
    }
    // Not spent now: the log was spent before (refused), or the seed is taken (the
    // result is refused by its seed, and spends nothing), in that order.
    let spent = sql
        .query_opt(
            "SELECT 1 FROM log_digests WHERE log_sha256 = $1",
            &[Param::Text(log_sha256)],
        )?
        .is_some();
    Ok(spent.then(reused))
}

fn reused() -> Refusal {
    Refusal {
        code: ApiCode::LogReused,
        message: "This game's typing was already sent with another result; \
                  each game counts once."
            .into(),
    }
}
