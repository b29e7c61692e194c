//! What the store `meta` keeps, one record per key: the local profile, the server
//! save's credentials and the `Idempotency-Key` of a save being created, when the
//! client last healed, the best results the server acknowledged per mode (all
//! time and latest week) for restore healing, and the test options the player chose
//! per word mode. None of it is ever in the outbox.

use crate::StorageError;
use crate::db::{Db, META};
use crate::records::{Credentials, HealedAt, Profile, SaveRequest, SaveStart, from_js, to_js};
use keydo_core::Mode;
use keydo_core::game::board::Board;
use keydo_core::game::options::TestOptions;
use keydo_core::sync::heal::{BestOf, Delivered};
use keydo_core::sync::outbox::{OutboxEntry, SyncState};
use rexie::{Store, TransactionMode};
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;
use wasm_bindgen::JsValue;

const PROFILE_KEY: &str = "profile";
const SAVE_KEY: &str = "save";
const SAVE_REQUEST_KEY: &str = "saveRequest";
const HEALED_KEY: &str = "healedAt";
/// Results the server accepted but holds for review (docs/replay.md), newest first.
pub(crate) const HELD_KEY: &str = "held";
/// How many held results are kept to show.
const HELD_KEPT: usize = 10;

/// A result the server accepted but holds off the public boards until reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldResult {
    pub score_id: Uuid,
    pub mode: Mode,
    pub value: i64,
    pub played_at: u64,
}

/// The codes the server gave delivered results (the 成绩 line's 验证), newest first.
pub(crate) const VERIFIED_KEY: &str = "verified";
/// How many codes are kept: enough for every result screen a player looks back at.
const VERIFIED_KEPT: usize = 50;

/// A delivered result and the code the server gave it: its 验证 code and its replay
/// at `/r/<code>` (docs/genda.md).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifiedResult {
    pub score_id: Uuid,
    pub code: String,
    /// The server answered `improved`: the result is the standing best of its board
    /// (the crown, docs/sync.md). Codes kept before the crown read as not.
    #[serde(default)]
    pub improved: bool,
}

/// Where the options chosen for `mode` are kept.
fn options_key(mode: Mode) -> String {
    format!("options/{}", mode.id())
}

/// Where the delivered best of `mode` on `board` is kept.
fn delivered_key(board: BestOf, mode: Mode) -> String {
    format!("delivered/{}/{}", board.id(), mode.id())
}

impl Db {
    /// The local profile; created (with `now_ms`) on first call.
    pub async fn profile(&self, now_ms: u64) -> Result<Profile, StorageError> {
        // Read first, as every flush does: a readwrite transaction on `meta` would wait
        // for, and hold up, the page's writes (docs/profile.md, "Where a write's time
        // goes").
        let stored = self
            .transact(&[META], TransactionMode::ReadOnly, async |tx| {
                get(&tx.store(META)?, PROFILE_KEY).await
            })
            .await?;
        if let Some(profile) = stored {
            return Ok(profile);
        }
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            let profile = match get(&meta, PROFILE_KEY).await? {
                Some(stored) => stored,
                None => {
                    let profile = Profile {
                        id: Uuid::new_v4(),
                        created_at: now_ms,
                    };
                    put(&meta, PROFILE_KEY, &profile).await?;
                    profile
                }
            };
            Ok(profile)
        })
        .await
    }

    /// The server save's credentials, if one was created.
    pub async fn credentials(&self) -> Result<Option<Credentials>, StorageError> {
        self.transact(&[META], TransactionMode::ReadOnly, async |tx| {
            let save = get(&tx.store(META)?, SAVE_KEY).await?;
            Ok(save)
        })
        .await
    }

    /// Before `POST /api/saves`: the save if another context stored one meanwhile,
    /// else the `Idempotency-Key` for it, made and stored now if there is none yet, so
    /// every attempt and every context sends the same key until the save is stored.
    pub async fn begin_save(&self) -> Result<SaveStart, StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            let start = if let Some(credentials) = get(&meta, SAVE_KEY).await? {
                SaveStart::Existing(credentials)
            } else if let Some(request) = get::<SaveRequest>(&meta, SAVE_REQUEST_KEY).await? {
                SaveStart::Create {
                    idempotency_key: request.idempotency_key,
                }
            } else {
                let idempotency_key = Uuid::new_v4();
                put(&meta, SAVE_REQUEST_KEY, &SaveRequest { idempotency_key }).await?;
                SaveStart::Create { idempotency_key }
            };
            Ok(start)
        })
        .await
    }

    /// Keeps the credentials of the save the server created; its `Idempotency-Key`
    /// has served and is dropped, so a later renewal makes a new one.
    pub async fn set_credentials(&self, credentials: &Credentials) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            put(&meta, SAVE_KEY, credentials).await?;
            meta.delete(JsValue::from(SAVE_REQUEST_KEY)).await?;
            Ok(())
        })
        .await
    }

    /// Drops the pending `Idempotency-Key` (the API refused it), so the next attempt
    /// makes a new one.
    pub async fn drop_save_request(&self) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            tx.store(META)?
                .delete(JsValue::from(SAVE_REQUEST_KEY))
                .await?;
            Ok(())
        })
        .await
    }

    /// Forgets a save the server no longer knows (its own `UNAUTHORIZED`), unless
    /// another context already replaced it. Returns whether it was forgotten.
    pub async fn forget_credentials(&self, unknown: &Credentials) -> Result<bool, StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            let still_stored = get::<Credentials>(&meta, SAVE_KEY).await? == Some(*unknown);
            if still_stored {
                meta.delete(JsValue::from(SAVE_KEY)).await?;
            }
            Ok(still_stored)
        })
        .await
    }

    /// When the client last compared its delivered bests with the server's.
    pub async fn healed_at(&self) -> Result<Option<u64>, StorageError> {
        self.transact(&[META], TransactionMode::ReadOnly, async |tx| {
            let healed = get::<HealedAt>(&tx.store(META)?, HEALED_KEY).await?;
            Ok(healed.map(|h| h.at))
        })
        .await
    }

    pub async fn set_healed_at(&self, now_ms: u64) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            put(&tx.store(META)?, HEALED_KEY, &HealedAt { at: now_ms }).await?;
            Ok(())
        })
        .await
    }

    /// Notes that the server holds `entry` for review; the newest [`HELD_KEPT`] stay.
    pub async fn note_held(&self, entry: &OutboxEntry) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            let mut held: Vec<HeldResult> = get(&meta, HELD_KEY).await?.unwrap_or_default();
            held.retain(|kept| kept.score_id != entry.score_id);
            held.insert(
                0,
                HeldResult {
                    score_id: entry.score_id,
                    mode: entry.mode,
                    value: entry.value,
                    played_at: entry.played_at,
                },
            );
            held.truncate(HELD_KEPT);
            put(&meta, HELD_KEY, &held).await?;
            Ok(())
        })
        .await
    }

    /// Keeps the code the server gave a delivered result; the newest [`VERIFIED_KEPT`]
    /// stay.
    pub async fn note_verified(
        &self,
        score_id: Uuid,
        code: &str,
        improved: bool,
    ) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            let mut verified: Vec<VerifiedResult> =
                get(&meta, VERIFIED_KEY).await?.unwrap_or_default();
            verified.retain(|kept| kept.score_id != score_id);
            verified.insert(
                0,
                VerifiedResult {
                    score_id,
                    code: code.to_owned(),
                    improved,
                },
            );
            verified.truncate(VERIFIED_KEPT);
            put(&meta, VERIFIED_KEY, &verified).await
        })
        .await
    }

    /// The options the player last chose for `mode` (docs/scoring.md, "Options"); the
    /// public test's until they choose any.
    pub async fn test_options(&self, mode: Mode) -> Result<TestOptions, StorageError> {
        self.transact(&[META], TransactionMode::ReadOnly, async |tx| {
            Ok(get(&tx.store(META)?, &options_key(mode))
                .await?
                .unwrap_or_default())
        })
        .await
    }

    /// Keeps the options the player chose for `mode` across reloads.
    pub async fn set_test_options(
        &self,
        mode: Mode,
        options: &TestOptions,
    ) -> Result<(), StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            put(&tx.store(META)?, &options_key(mode), options).await
        })
        .await
    }

    /// The best results the server has acknowledged, per mode, all time and latest week.
    pub async fn delivered(&self) -> Result<Delivered, StorageError> {
        self.transact(&[META], TransactionMode::ReadOnly, async |tx| {
            let meta = tx.store(META)?;
            let mut delivered = Delivered::default();
            for mode in Mode::ALL {
                if let Some(best) = get(&meta, &delivered_key(BestOf::Alltime, mode)).await? {
                    delivered.alltime.push(best);
                }
                if let Some(best) = get(&meta, &delivered_key(BestOf::Weekly, mode)).await? {
                    delivered.weekly.push(best);
                }
            }
            Ok(delivered)
        })
        .await
    }
}

/// Keeps `acked` as a delivered best where it improves one.
pub(crate) async fn record_delivered(
    meta: &Store,
    acked: &OutboxEntry,
) -> Result<(), StorageError> {
    // Healing re-sends what a restored server lacks of the mode boards' bests, which
    // `GET /api/saves/me` reports; a text's boards are not healed (docs/sync.md).
    if acked.board != Board::Mode {
        return Ok(());
    }
    let acked = OutboxEntry {
        sync: SyncState::default(),
        ..acked.clone()
    };
    for board in BestOf::ALL {
        let key = delivered_key(board, acked.mode);
        let kept: Option<OutboxEntry> = get(meta, &key).await?;
        if board.improves(kept.as_ref(), &acked) {
            put(meta, &key, &acked).await?;
        }
    }
    Ok(())
}

/// Stops keeping `score_id` as a delivered best: the API now refuses it and the
/// player discarded it, so healing must not send it again.
pub(crate) async fn forget_delivered(meta: &Store, score_id: Uuid) -> Result<(), StorageError> {
    for board in BestOf::ALL {
        for mode in Mode::ALL {
            let key = delivered_key(board, mode);
            let kept: Option<OutboxEntry> = get(meta, &key).await?;
            if kept.is_some_and(|kept| kept.score_id == score_id) {
                meta.delete(JsValue::from(key)).await?;
            }
        }
    }
    Ok(())
}

pub(crate) async fn get<T: DeserializeOwned>(
    meta: &Store,
    key: &str,
) -> Result<Option<T>, StorageError> {
    meta.get(JsValue::from(key)).await?.map(from_js).transpose()
}

pub(crate) async fn put<T: Serialize>(
    meta: &Store,
    key: &str,
    value: &T,
) -> Result<(), StorageError> {
    meta.put(&to_js(value)?, Some(&JsValue::from(key))).await?;
    Ok(())
}
