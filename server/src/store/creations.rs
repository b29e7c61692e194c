//! The `save_creations` table: which save (or linked device) an `Idempotency-Key`
//! created (docs/api.md, "Idempotency"), and forgetting expired records.

use super::StoreError;
use super::players::{RECORD_COLUMNS, record_of};
use super::sql::{Param, Sql};
use keydo_core::profile::ProfileRecord;
use uuid::Uuid;

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
    pub player_id: Uuid,
    pub record: ProfileRecord,
}

/// Takes `creation`'s key for `player_id`: true when the key was free (never used, or
/// its record was made before `expired_before` and is replaced), false when a live
/// record holds it. On PostgreSQL a concurrent claim of the same key waits here until
/// the first one's transaction ends.
pub fn claim_save_creation(
    sql: &mut dyn Sql,
    creation: &SaveCreation,
    player_id: Uuid,
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
            Param::Id(player_id),
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
            player_id: row.id(2)?,
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
