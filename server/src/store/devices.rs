//! The store's side of devices (docs/api.md, "Devices"): one-time link codes and whose
//! they are, linking
//! a device (and folding the joining device's old save into the player), the device
//! list and revocation. Revoking or folding forgets the tokens in this process's cache
//! at once.

use super::board_scores::{self, BoardGame, StoredBoard};
use super::boards::{self, Board, Game};
use super::creations::{self, RememberedCreation, SaveCreation};
use super::players;
use super::profiles::profile_record;
use super::rank_counts::Moves;
use super::result_codes;
use super::sql::{Param, Sql};
use super::{Store, StoreError};
use keydo_core::Mode;
use keydo_core::profile::ProfileRecord;
use uuid::Uuid;

/// How many expired link codes each new code forgets.
const FORGET_PER_CODE: usize = 4;

/// A request to join a player with a link code.
#[derive(Debug, Clone)]
pub struct LinkRequest {
    pub code_sha256: String,
    pub device_id: Uuid,
    pub token_sha256: String,
    pub label: String,
    /// The joining device's old save (its bearer token named it), to fold into the
    /// player.
    pub fold_from: Option<Uuid>,
    /// Remembers the new device's answer under the request's `Idempotency-Key`.
    pub creation: SaveCreation,
    pub now: i64,
    /// Key records made before this are forgotten.
    pub expired_before: i64,
}

/// What a link came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Linking {
    /// The device joined the player.
    Linked {
        player_id: Uuid,
        record: ProfileRecord,
    },
    /// The key already named a linked device (an earlier or concurrent request).
    Remembered(RememberedCreation),
    /// The code is unknown, expired or used.
    InvalidCode,
}

/// A device as its player sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedDevice {
    pub device_id: Uuid,
    pub label: String,
    pub linked_at: i64,
}

impl Store {
    /// Stores a new code's hash for the player, first forgetting a few expired codes.
    pub async fn create_link_code(
        &self,
        player_id: Uuid,
        code_sha256: String,
        now: i64,
        expires_at: i64,
    ) -> Result<(), StoreError> {
        self.write(move |sql| {
            creations::forget_oldest(
                sql,
                "DELETE FROM link_codes WHERE code_sha256 = (
                     SELECT code_sha256 FROM link_codes WHERE expires_at < $1
                     ORDER BY expires_at, code_sha256 LIMIT 1)
                 RETURNING code_sha256",
                now,
                FORGET_PER_CODE,
            )?;
            sql.query(
                "INSERT INTO link_codes (code_sha256, player_id, expires_at) VALUES ($1, $2, $3)",
                &[
                    Param::Text(&code_sha256),
                    Param::Id(player_id),
                    Param::Int(expires_at),
                ],
            )?;
            Ok(())
        })
        .await
    }

    /// The display name of the player a live (unused, unexpired) code joins.
    pub async fn link_code_owner(
        &self,
        code_sha256: String,
        now: i64,
    ) -> Result<Option<String>, StoreError> {
        self.read(move |sql| {
            sql.query_opt(
                "SELECT p.display_name FROM link_codes c
                 JOIN players p ON p.player_id = c.player_id
                 WHERE c.code_sha256 = $1 AND c.used_at IS NULL AND c.expires_at > $2",
                &[Param::Text(&code_sha256), Param::Int(now)],
            )?
            .map(|row| Ok(row.text(0)?.to_owned()))
            .transpose()
        })
        .await
    }

    /// Uses the code (once, before it expires) to add a device to its player, folding
    /// `fold_from`'s save into the player, and remembers the answer under the key; all
    /// in one transaction.
    pub async fn link_device(&self, link: LinkRequest) -> Result<Linking, StoreError> {
        let (linking, dropped) = self
            .write(move |sql| {
                let remembered = |sql: &mut dyn Sql| {
                    creations::remembered_creation(
                        sql,
                        &link.creation.key_sha256,
                        link.expired_before,
                    )
                };
                if let Some(remembered) = remembered(sql)? {
                    return Ok((Linking::Remembered(remembered), Vec::new()));
                }
                let Some(player_id) = use_code(sql, &link.code_sha256, link.now)? else {
                    // A concurrent request with this key (another process) may have
                    // used the code and committed meanwhile.
                    let linking =
                        remembered(sql)?.map_or(Linking::InvalidCode, Linking::Remembered);
                    return Ok((linking, Vec::new()));
                };
                players::insert_device(
                    sql,
                    link.device_id,
                    player_id,
                    &link.token_sha256,
                    &link.label,
                    link.now,
                )?;
                let dropped = match &link.fold_from {
                    Some(old) if *old != player_id => fold(sql, *old, player_id)?,
                    _ => Vec::new(),
                };
                let claimed = creations::claim_save_creation(
                    sql,
                    &link.creation,
                    player_id,
                    link.now,
                    link.expired_before,
                )?;
                if !claimed {
                    return Err(StoreError::UnexpectedValue(
                        "a key was claimed while its code was in use".into(),
                    ));
                }
                let record = profile_record(sql, player_id)?.ok_or_else(|| {
                    StoreError::UnexpectedValue("a linked player vanished".into())
                })?;
                Ok((Linking::Linked { player_id, record }, dropped))
            })
            .await?;
        self.forget_tokens(&dropped);
        Ok(linking)
    }

    /// The player's unrevoked devices, oldest first.
    pub async fn devices(&self, player_id: Uuid) -> Result<Vec<ListedDevice>, StoreError> {
        self.read(move |sql| {
            sql.query(
                "SELECT device_id, label, linked_at FROM devices
                 WHERE player_id = $1 AND revoked_at IS NULL
                 ORDER BY linked_at, device_id",
                &[Param::Id(player_id)],
            )?
            .iter()
            .map(|row| {
                Ok(ListedDevice {
                    device_id: row.id(0)?,
                    label: row.text(1)?.to_owned(),
                    linked_at: row.int(2)?,
                })
            })
            .collect()
        })
        .await
    }

    /// Revokes the player's device: its token is refused from now on. False if the
    /// player has no such unrevoked device.
    pub async fn revoke_device(
        &self,
        player_id: Uuid,
        device_id: Uuid,
        now: i64,
    ) -> Result<bool, StoreError> {
        let revoked = self
            .write(move |sql| {
                sql.query_opt(
                    "UPDATE devices SET revoked_at = $1
                     WHERE device_id = $2 AND player_id = $3 AND revoked_at IS NULL
                     RETURNING token_sha256",
                    &[Param::Int(now), Param::Id(device_id), Param::Id(player_id)],
                )?
                .map(|row| Ok(row.text(0)?.to_owned()))
                .transpose()
            })
            .await?;
        self.forget_tokens(revoked.as_slice());
        Ok(revoked.is_some())
    }
}

/// Marks the code used, if it is live; returns its player.
fn use_code(sql: &mut dyn Sql, code_sha256: &str, now: i64) -> Result<Option<Uuid>, StoreError> {
    sql.query_opt(
        "UPDATE link_codes SET used_at = $1
         WHERE code_sha256 = $2 AND used_at IS NULL AND expires_at > $1
         RETURNING player_id",
        &[Param::Int(now), Param::Text(code_sha256)],
    )?
    .map(|row| row.id(0))
    .transpose()
}

/// Folds the save `old` into `into`: its public bests go on `into`'s rows by the
/// boards' own rule (a row changes only for a strictly higher value), its results move
/// (so a resend of one of its games is a replay), and the save is deleted with its
/// devices, keys and codes. Returns the token hashes of its devices.
fn fold(sql: &mut dyn Sql, old: Uuid, into: Uuid) -> Result<Vec<String>, StoreError> {
    // Both saves first, in ascending id, as a batch of games takes its players
    // (docs/operations.md, "Writes committed together"): a game of either waits for the
    // fold, or the fold for its batch, never both.
    if sql.locks_rows() {
        for save in [old.min(into), old.max(into)] {
            sql.query(
                "SELECT 1 FROM players WHERE player_id = $1 FOR UPDATE",
                &[Param::Id(save)],
            )?;
        }
    }
    let hidden = players::save_facts(sql, into)?.is_some_and(|save| save.hidden);
    let bests = sql.query(
        "SELECT mode, -1, value, score_id, achieved_at FROM scores WHERE player_id = $1
         UNION ALL
         SELECT mode, week, value, score_id, achieved_at FROM weekly_scores WHERE player_id = $1",
        &[Param::Id(old)],
    )?;
    if !hidden {
        let mut moves = Moves::default();
        for row in &bests {
            let mode: Mode = row.text(0)?.parse().map_err(|_| {
                StoreError::UnexpectedValue(format!("mode {:?}", row.text(0).unwrap_or("")))
            })?;
            let board = match row.int(1)? {
                -1 => Board::AllTime,
                week => Board::Week(week),
            };
            let game = Game {
                player_id: into,
                mode,
                score_id: row.id(3)?,
                value: row.int(2)?,
                achieved_at: row.int(4)?,
            };
            boards::record(sql, board, &game, &mut moves)?;
        }
        moves.append(sql)?;
    }
    let board_rows = board_scores::rows_of(sql, old)?;
    if !hidden {
        for (board, game) in board_rows {
            let board = StoredBoard::parse(&board)
                .ok_or_else(|| StoreError::UnexpectedValue(format!("board {board:?}")))?;
            let game = BoardGame {
                player_id: into,
                ..game
            };
            board_scores::record(sql, &board, &game)?;
        }
    }
    board_scores::remove_player(sql, old)?;
    result_codes::move_codes(sql, old, into)?;
    let both = [Param::Id(old), Param::Id(into)];
    // A game both saves hold stays the player's; a seed both used counts once.
    sql.query(
        "DELETE FROM results WHERE player_id = $1
         AND score_id IN (SELECT score_id FROM results WHERE player_id = $2)",
        &both,
    )?;
    sql.query(
        "UPDATE results SET seed_key = NULL WHERE player_id = $1
         AND seed_key IN (SELECT seed_key FROM results WHERE player_id = $2 AND seed_key IS NOT NULL)",
        &both,
    )?;
    sql.query(
        "UPDATE results SET player_id = $1 WHERE player_id = $2",
        &[Param::Id(into), Param::Id(old)],
    )?;
    let tokens = sql
        .query(
            "DELETE FROM devices WHERE player_id = $1 RETURNING token_sha256",
            &[Param::Id(old)],
        )?
        .iter()
        .map(|row| Ok(row.text(0)?.to_owned()))
        .collect::<Result<Vec<_>, StoreError>>()?;
    boards::remove_from_boards(sql, old)?;
    for table in [
        "save_creations",
        "profile_operations",
        "link_codes",
        "players",
    ] {
        sql.query(
            &format!("DELETE FROM {table} WHERE player_id = $1"),
            &[Param::Id(old)],
        )?;
    }
    Ok(tokens)
}
