//! The `players` table: a new save with its first device, who a token names, the
//! profile record as stored (read by [`record_of`] wherever a query joins `players p`),
//! and what recording a result needs to know of a save.

use super::StoreError;
use super::sql::{Param, Row, Sql};
use keydo_core::profile::{Profile, ProfileRecord};
use uuid::Uuid;

/// A new save (without its token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Player {
    pub player_id: Uuid,
    pub display_name: String,
    pub version: i64,
}

/// Who a request's token names: a device of a player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Caller {
    pub player_id: Uuid,
    pub device_id: Uuid,
}

/// A new save: its player, its name's key (docs/replay.md) and its first device.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewSave {
    pub player: Player,
    pub name_key: String,
    pub token_sha256: String,
    pub device_label: String,
    pub created_at: i64,
}

/// Stores a new save, its name's key and its first device, which has the player's own
/// id. The caller has checked that the name's key is free.
pub fn insert_named_player(sql: &mut dyn Sql, save: &NewSave) -> Result<(), StoreError> {
    let player = &save.player;
    sql.query(
        "INSERT INTO players (player_id, token_sha256, display_name, version, created_at, name_key)
         VALUES ($1, $2, $3, $4, $5, $6)",
        &[
            Param::Id(player.player_id),
            Param::Text(&save.token_sha256),
            Param::Text(&player.display_name),
            Param::Int(player.version),
            Param::Int(save.created_at),
            Param::Text(&save.name_key),
        ],
    )?;
    insert_device(
        sql,
        player.player_id,
        player.player_id,
        &save.token_sha256,
        &save.device_label,
        save.created_at,
    )
}

pub fn insert_device(
    sql: &mut dyn Sql,
    device_id: Uuid,
    player_id: Uuid,
    token_sha256: &str,
    label: &str,
    linked_at: i64,
) -> Result<(), StoreError> {
    sql.query(
        "INSERT INTO devices (device_id, player_id, token_sha256, label, linked_at)
         VALUES ($1, $2, $3, $4, $5)",
        &[
            Param::Id(device_id),
            Param::Id(player_id),
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
            player_id: row.id(0)?,
            device_id: row.id(1)?,
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

/// What the server knows of a save when it records a result.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveFacts {
    pub created_at: i64,
    pub hidden: bool,
}

pub fn save_facts(sql: &mut dyn Sql, player_id: Uuid) -> Result<Option<SaveFacts>, StoreError> {
    sql.query_opt(
        "SELECT created_at, hidden FROM players WHERE player_id = $1",
        &[Param::Id(player_id)],
    )?
    .map(|row| {
        Ok(SaveFacts {
            created_at: row.int(0)?,
            hidden: row.int(1)? != 0,
        })
    })
    .transpose()
}

/// Sets whether the player is hidden from the public boards; `false` if no such player.
pub fn set_hidden(sql: &mut dyn Sql, player_id: Uuid, hidden: bool) -> Result<bool, StoreError> {
    Ok(sql
        .query_opt(
            "UPDATE players SET hidden = $1 WHERE player_id = $2 RETURNING player_id",
            &[Param::Int(i64::from(hidden)), Param::Id(player_id)],
        )?
        .is_some())
}
