//! The store's side of the profile (docs/api.md, "Profile"): reading a player's
//! record, applying operations in order, each exactly once under its `Idempotency-Key`, and an
//! operator's name. The merge itself is `keydo_core::profile::ProfileRecord::resolve`.

use super::creations::forget_oldest;
use super::players::{RECORD_COLUMNS, record_of};
use super::sql::{Param, Sql};
use super::verified::{NameTaken, name_taken};
use super::{Store, StoreError};
use keydo_core::api::ProfileAnswer;
use keydo_core::names::DisplayName;
use keydo_core::profile::{FieldValue, ProfileOperation, ProfileRecord};
use uuid::Uuid;

/// How many expired operation records each operation forgets: more than the one it
/// adds, so the table drains back to about a day of operations.
const FORGET_PER_OPERATION: usize = 4;

/// A validated operation with the hashes of its `Idempotency-Key` and of its body as
/// sent.
#[derive(Debug, Clone)]
pub struct KeyedOperation {
    pub key_sha256: String,
    pub request_sha256: String,
    pub operation: ProfileOperation,
}

/// What applying a profile operation came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Operation {
    /// Applied now, or earlier under the same key and body: the answer (as first given).
    Answered(ProfileAnswer),
    /// The key came before with another body; nothing changed.
    KeyReused,
    /// The operation would give the player a name another player has; nothing changed.
    NameTaken,
    /// No such player (its save was folded into another).
    NoSuchPlayer,
}

impl Store {
    /// The player's profile record, if the player exists.
    pub async fn profile(&self, player_id: Uuid) -> Result<Option<ProfileRecord>, StoreError> {
        self.read(move |sql| profile_record(sql, player_id)).await
    }

    /// Applies operations (already validated) to the player's record in order, each
    /// once per key, in one transaction that first takes the player's row (on
    /// PostgreSQL a row lock, so operations of one player, from any process, take
    /// turns). Each answers from a live record of its key (made at or after
    /// `expired_before`) or resolves, stores the record and remembers the answer. The
    /// outcomes stop at the first that is not an answer.
    pub async fn apply_operations(
        &self,
        player_id: Uuid,
        operations: Vec<KeyedOperation>,
        now: i64,
        expired_before: i64,
    ) -> Result<Vec<Operation>, StoreError> {
        self.write(move |sql| {
            if !lock_player(sql, player_id)? {
                return Ok(vec![Operation::NoSuchPlayer]);
            }
            let mut outcomes = Vec::with_capacity(operations.len());
            for operation in &operations {
                let outcome = apply_one(sql, player_id, operation, now, expired_before)?;
                let answered = matches!(outcome, Operation::Answered(_));
                outcomes.push(outcome);
                if !answered {
                    break;
                }
            }
            Ok(outcomes)
        })
        .await
    }

    /// An operator's name for the player, stamped so that the players' own earlier
    /// changes lose to it (`server-wins`). `Ok(None)`: no such player; `Err` inside:
    /// another player has the name. Returns the profile's new version.
    pub async fn reset_name(
        &self,
        player_id: Uuid,
        name: DisplayName,
        now: i64,
    ) -> Result<Option<Result<i64, NameTaken>>, StoreError> {
        self.write(move |sql| {
            if !lock_player(sql, player_id)? {
                return Ok(None);
            }
            let key = name.key();
            if name_taken(sql, &key, Some(player_id))? {
                return Ok(Some(Err(NameTaken)));
            }
            let record = profile_record(sql, player_id)?
                .ok_or_else(|| StoreError::UnexpectedValue("a locked player vanished".into()))?;
            let now = u64::try_from(now).unwrap_or_default();
            let reset = record.set_by_operator(FieldValue::DisplayName(name.into_string()), now);
            save_record(sql, player_id, &reset, Some(&key))?;
            Ok(Some(Ok(reset.version)))
        })
        .await
    }
}

/// Takes the player's row for the rest of the transaction (a no-op update: a row lock
/// on PostgreSQL, valid SQL on SQLite, whose single writer already serialises); false
/// if there is no such player.
fn lock_player(sql: &mut dyn Sql, player_id: Uuid) -> Result<bool, StoreError> {
    Ok(sql
        .query_opt(
            "UPDATE players SET version = version WHERE player_id = $1 RETURNING player_id",
            &[Param::Id(player_id)],
        )?
        .is_some())
}

pub(super) fn profile_record(
    sql: &mut dyn Sql,
    player_id: Uuid,
) -> Result<Option<ProfileRecord>, StoreError> {
    sql.query_opt(
        &format!("SELECT {RECORD_COLUMNS} FROM players p WHERE p.player_id = $1"),
        &[Param::Id(player_id)],
    )?
    .map(|row| record_of(&row, 0))
    .transpose()
}

/// Stores the record; with `name_key`, the name's key too (the name changed).
fn save_record(
    sql: &mut dyn Sql,
    player_id: Uuid,
    record: &ProfileRecord,
    name_key: Option<&str>,
) -> Result<(), StoreError> {
    let settings = to_json(&record.profile.settings)?;
    let stamps = to_json(&record.stamps)?;
    sql.query(
        "UPDATE players
         SET display_name = $1, version = $2, settings = $3, stamps = $4,
             name_key = COALESCE(NULLIF($5, ''), name_key)
         WHERE player_id = $6",
        &[
            Param::Text(&record.profile.display_name),
            Param::Int(record.version),
            Param::Text(&settings),
            Param::Text(&stamps),
            Param::Text(name_key.unwrap_or_default()),
            Param::Id(player_id),
        ],
    )?;
    Ok(())
}

/// The key of a name that passed validation.
fn name_key(display_name: &str) -> Result<String, StoreError> {
    DisplayName::parse(display_name)
        .map(|name| name.key())
        .map_err(|error| StoreError::UnexpectedValue(format!("a validated name: {error}")))
}

/// The live record of a key: the request's hash and the answer.
fn remembered_operation(
    sql: &mut dyn Sql,
    player_id: Uuid,
    key_sha256: &str,
    expired_before: i64,
) -> Result<Option<(String, ProfileAnswer)>, StoreError> {
    sql.query_opt(
        "SELECT request_sha256, answer FROM profile_operations
         WHERE player_id = $1 AND key_sha256 = $2 AND created_at >= $3",
        &[
            Param::Id(player_id),
            Param::Text(key_sha256),
            Param::Int(expired_before),
        ],
    )?
    .map(|row| {
        let answer = serde_json::from_str(row.text(1)?)
            .map_err(|error| StoreError::UnexpectedValue(format!("a stored answer: {error}")))?;
        Ok((row.text(0)?.to_owned(), answer))
    })
    .transpose()
}

/// Remembers the answer under the key, replacing an expired record of the same key.
fn remember_operation(
    sql: &mut dyn Sql,
    player_id: Uuid,
    key_sha256: &str,
    request_sha256: &str,
    answer: &ProfileAnswer,
    now: i64,
) -> Result<(), StoreError> {
    sql.query(
        "INSERT INTO profile_operations (player_id, key_sha256, request_sha256, answer, created_at)
         VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (player_id, key_sha256) DO UPDATE
         SET request_sha256 = excluded.request_sha256, answer = excluded.answer,
             created_at = excluded.created_at",
        &[
            Param::Id(player_id),
            Param::Text(key_sha256),
            Param::Text(request_sha256),
            Param::Text(&to_json(answer)?),
            Param::Int(now),
        ],
    )?;
    Ok(())
}

/// Deletes up to [`FORGET_PER_OPERATION`] records made before `expired_before`, oldest
/// first, one row per statement (so concurrent transactions take rows in one order).
fn forget_expired_operations(sql: &mut dyn Sql, expired_before: i64) -> Result<(), StoreError> {
    forget_oldest(
        sql,
        "DELETE FROM profile_operations WHERE (player_id, key_sha256) IN (
             SELECT player_id, key_sha256 FROM profile_operations WHERE created_at < $1
             ORDER BY created_at, player_id, key_sha256 LIMIT 1)
         RETURNING key_sha256",
        expired_before,
        FORGET_PER_OPERATION,
    )?;
    Ok(())
}

fn to_json(value: &impl serde::Serialize) -> Result<String, StoreError> {
    serde_json::to_string(value)
        .map_err(|error| StoreError::UnexpectedValue(format!("serialising: {error}")))
}

/// One operation of [`Store::apply_operations`], the player's row already taken.
fn apply_one(
    sql: &mut dyn Sql,
    player_id: Uuid,
    keyed: &KeyedOperation,
    now: i64,
    expired_before: i64,
) -> Result<Operation, StoreError> {
    forget_expired_operations(sql, expired_before)?;
    if let Some((stored_request, answer)) =
        remembered_operation(sql, player_id, &keyed.key_sha256, expired_before)?
    {
        return Ok(if stored_request == keyed.request_sha256 {
            Operation::Answered(answer)
        } else {
            Operation::KeyReused
        });
    }
    let record = profile_record(sql, player_id)?
        .ok_or_else(|| StoreError::UnexpectedValue("a locked player vanished".into()))?;
    let resolution = record.resolve(&keyed.operation);
    let renamed = resolution.record.profile.display_name != record.profile.display_name;
    let name_key = if renamed {
        let key = name_key(&resolution.record.profile.display_name)?;
        if name_taken(sql, &key, Some(player_id))? {
            return Ok(Operation::NameTaken);
        }
        Some(key)
    } else {
        None
    };
    save_record(sql, player_id, &resolution.record, name_key.as_deref())?;
    let answer = ProfileAnswer {
        version: resolution.record.version,
        profile: resolution.record.profile,
        conflicts: resolution.conflicts,
    };
    remember_operation(
        sql,
        player_id,
        &keyed.key_sha256,
        &keyed.request_sha256,
        &answer,
        now,
    )?;
    Ok(Operation::Answered(answer))
}
