//! Recording finished games and keeping the outbox: each change to a key's entries
//! loads its [`Slots`] (the sendable entry and the blocked ones beside it), applies
//! `core`'s rule, and writes back the difference in the same transaction. What the
//! sync status shows is read here too: the outbox, with the held and verified
//! results kept under `meta`.

use crate::StorageError;
use crate::db::{BESTS, Db, HISTORY, META, OUTBOX, PRACTICE};
use crate::meta::{
    HELD_KEY, HeldResult, VERIFIED_KEY, VerifiedResult, forget_delivered, get, record_delivered,
};
use crate::practice::{PracticeGame, append_game};
use crate::records::{Best, Recorded, from_js, to_js};
use futures::try_join;
use keydo_core::Mode;
use keydo_core::game::board::{Board, Ranking};
use keydo_core::sync::outbox::{OutboxEntry, OutboxKey, Slots, SyncState, blocked_prefix};
use keydo_core::text::hash::TextHash;
use rexie::{KeyRange, Store, Transaction, TransactionMode};
use uuid::Uuid;
use wasm_bindgen::JsValue;

/// What the sync status shows ([`Db::sync_status`]).
#[derive(Debug, Clone, Default)]
pub struct SyncStatus {
    pub outbox: Vec<OutboxEntry>,
    pub held: Vec<HeldResult>,
    pub verified: Vec<VerifiedResult>,
}

impl Db {
    /// What the sync status shows, in one transaction: every outbox entry (sendable
    /// and blocked), the results the server holds for review and the codes it gave
    /// delivered results, both newest first. Read after every trigger and flush, so its
    /// reads go out together (docs/sync.md, "Storage").
    pub async fn sync_status(&self) -> Result<SyncStatus, StorageError> {
        self.transact(&[OUTBOX, META], TransactionMode::ReadOnly, async |tx| {
            let (meta, outbox) = (tx.store(META)?, tx.store(OUTBOX)?);
            let (outbox, held, verified) = try_join!(
                all_entries(&outbox),
                get(&meta, HELD_KEY),
                get(&meta, VERIFIED_KEY),
            )?;
            Ok(SyncStatus {
                outbox,
                held: held.unwrap_or_default(),
                verified: verified.unwrap_or_default(),
            })
        })
        .await
    }

    /// Durably records a finished game: its history row, the personal best and an
    /// outbox entry for each board it counts on (`boards`, from
    /// `keydo_core::game::board::boards_of`), all in one transaction. Resolves once
    /// committed.
    ///
    /// The personal best is the mode's for a built-in test and the text's for a loaded
    /// one (docs/genda.md, "Boards"). Idempotent: recording the same game again (after
    /// a failed attempt, say) changes nothing more, so a caller keeps it and retries on
    /// failure.
    pub async fn record_result(
        &self,
        entry: &OutboxEntry,
        boards: &[Board],
    ) -> Result<Recorded, StorageError> {
        self.transact(
            &[HISTORY, BESTS, OUTBOX],
            TransactionMode::ReadWrite,
            async |tx| write_result(tx, entry, boards).await,
        )
        .await
    }

    /// [`Db::record_result`], and in the same transaction the game as the practice
    /// statistics read it (docs/practice.md, "Storage"), unless this game is already
    /// recorded.
    pub async fn record_result_with_practice(
        &self,
        entry: &OutboxEntry,
        boards: &[Board],
        practice: &PracticeGame,
    ) -> Result<Recorded, StorageError> {
        self.transact(
            &[HISTORY, BESTS, OUTBOX, PRACTICE],
            TransactionMode::ReadWrite,
            async |tx| {
                let id: JsValue = entry.score_id.to_string().into();
                if tx.store(HISTORY)?.get(id).await?.is_none() {
                    append_game(tx, practice).await?;
                }
                write_result(tx, entry, boards).await
            },
        )
        .await
    }

    /// The personal best of every mode played so far, in mode id order.
    pub async fn bests(&self) -> Result<Vec<(Mode, i64)>, StorageError> {
        self.transact(&[BESTS], TransactionMode::ReadOnly, async |tx| {
            let all = tx.store(BESTS)?.get_all(None, None).await?;
            let mut bests = Vec::new();
            for value in all {
                let best: Best = from_js(value)?;
                if best.board == Board::Mode {
                    bests.push((best.mode, best.value));
                }
            }
            Ok(bests)
        })
        .await
    }

    /// The personal best on a loaded text, if it was ever finished here.
    pub async fn text_best(&self, mode: Mode, text: TextHash) -> Result<Option<i64>, StorageError> {
        self.transact(&[BESTS], TransactionMode::ReadOnly, async |tx| {
            let key: JsValue = best_key(mode, Board::TextBest { text }).into();
            let best: Option<Best> = tx.store(BESTS)?.get(key).await?.map(from_js).transpose()?;
            Ok(best.map(|best| best.value))
        })
        .await
    }

    /// Every outbox entry, sendable and blocked, in key order.
    pub async fn outbox(&self) -> Result<Vec<OutboxEntry>, StorageError> {
        self.transact(&[OUTBOX], TransactionMode::ReadOnly, async |tx| {
            all_entries(&tx.store(OUTBOX)?).await
        })
        .await
    }

    /// After the server acknowledged `sent`: deletes it if it is still stored (a
    /// better result added meanwhile stays), and keeps it as a delivered best where it
    /// is one (for restore healing). Returns whether it was deleted.
    pub async fn remove_if_unchanged(&self, sent: &OutboxEntry) -> Result<bool, StorageError> {
        self.transact(&[OUTBOX, META], TransactionMode::ReadWrite, async |tx| {
            let removed = change_slots(&tx.store(OUTBOX)?, sent.key(), |s| {
                s.acknowledge(sent.score_id)
            })
            .await?;
            record_delivered(&tx.store(META)?, sent).await?;
            Ok(removed)
        })
        .await
    }

    /// After a failed send: stores `sync` on the entry if it is still stored, moving it
    /// beside the key's sendable slot when it became blocked (so it never hides a newer
    /// result) and back when a manual retry failed for a passing reason.
    pub async fn set_sync_state(
        &self,
        sent: &OutboxEntry,
        sync: SyncState,
    ) -> Result<bool, StorageError> {
        self.transact(&[OUTBOX], TransactionMode::ReadWrite, async |tx| {
            let stored = change_slots(&tx.store(OUTBOX)?, sent.key(), |s| {
                s.record(sent.score_id, sync)
            })
            .await?;
            Ok(stored)
        })
        .await
    }

    /// The player gives up on a blocked entry: it leaves the outbox (its history row
    /// stays) and is never re-queued by restore healing. Returns it, with its reason in `sync.last_error`, or `None` when no
    /// blocked entry has this id (delivered or discarded meanwhile).
    pub async fn discard_blocked(
        &self,
        score_id: Uuid,
    ) -> Result<Option<OutboxEntry>, StorageError> {
        let Some(blocked) = self
            .outbox()
            .await?
            .into_iter()
            .find(|e| e.score_id == score_id && e.sync.blocked)
        else {
            return Ok(None);
        };
        self.transact(&[OUTBOX, META], TransactionMode::ReadWrite, async |tx| {
            let discarded = change_slots(&tx.store(OUTBOX)?, blocked.key(), |s| {
                s.discard_blocked(score_id)
            })
            .await?;
            forget_delivered(&tx.store(META)?, score_id).await?;
            Ok(discarded)
        })
        .await
    }

    /// Adds results again (restore healing), each merged with its key's sendable
    /// entry. Returns the ids of those stored.
    pub async fn requeue(&self, entries: &[OutboxEntry]) -> Result<Vec<Uuid>, StorageError> {
        self.transact(&[OUTBOX], TransactionMode::ReadWrite, async |tx| {
            let outbox = tx.store(OUTBOX)?;
            let mut stored = Vec::new();
            for entry in entries {
                if change_slots(&outbox, entry.key(), |s| s.add(entry.clone())).await? {
                    stored.push(entry.score_id);
                }
            }
            Ok(stored)
        })
        .await
    }
}

/// Where a personal best is kept: the mode's id (as before texts existed) or
/// `text/<hash>` for a loaded text's best, `<mode>/options/<options>` for a test with options'.
fn best_key(mode: Mode, board: Board) -> String {
    match board {
        Board::TextBest { text } | Board::TextFirst { text } => format!("text/{text}"),
        Board::Mode | Board::DailyFirst { .. } => mode.id().to_owned(),
        Board::OptionsBest { options } => format!("{mode}/options/{}", options.key()),
    }
}

/// Loads `key`'s slots, applies `change`, writes back what it changed.
async fn change_slots<T>(
    outbox: &Store,
    key: OutboxKey,
    change: impl FnOnce(&mut Slots) -> T,
) -> Result<T, StorageError> {
    let sendable: JsValue = key.to_string().into();
    let prefix = blocked_prefix(key);
    let blocked = KeyRange::bound(
        &prefix.as_str().into(),
        &format!("{prefix}\u{ffff}").into(),
        None,
        None,
    )
    .map_err(rexie::Error::from)?;
    let mut stored: Vec<OutboxEntry> = outbox
        .get_all(Some(blocked), None)
        .await?
        .into_iter()
        .map(from_js)
        .collect::<Result<_, _>>()?;
    if let Some(entry) = outbox.get(sendable).await? {
        stored.push(from_js(entry)?);
    }
    let before = Slots::from_stored(stored);
    let mut after = before.clone();
    let output = change(&mut after);
    for gone in before.entries().filter(|old| {
        after
            .entries()
            .all(|new| new.store_key() != old.store_key())
    }) {
        outbox.delete(JsValue::from(gone.store_key())).await?;
    }
    for changed in after
        .entries()
        .filter(|new| before.entries().all(|old| old != *new))
    {
        outbox
            .put(&to_js(changed)?, Some(&changed.store_key().into()))
            .await?;
    }
    Ok(output)
}

/// Writes a finished game's history row, personal best and outbox entries in `tx`.
async fn write_result(
    tx: &Transaction,
    entry: &OutboxEntry,
    boards: &[Board],
) -> Result<Recorded, StorageError> {
    let id: JsValue = entry.score_id.to_string().into();
    tx.store(HISTORY)?.put(&to_js(entry)?, Some(&id)).await?;

    let best_board = boards
        .iter()
        .copied()
        .find(|board| board.ranking() == Ranking::Best)
        .unwrap_or_default();
    let bests = tx.store(BESTS)?;
    let best_key: JsValue = best_key(entry.mode, best_board).into();
    let previous: Option<Best> = bests
        .get(best_key.clone())
        .await?
        .map(from_js)
        .transpose()?;
    let new_best = previous.is_none_or(|best| entry.value > best.value);
    if new_best {
        let best = Best {
            mode: entry.mode,
            board: best_board,
            value: entry.value,
            score_id: entry.score_id,
            played_at: entry.played_at,
        };
        bests.put(&to_js(&best)?, Some(&best_key)).await?;
    }

    let outbox = tx.store(OUTBOX)?;
    for &board in boards {
        let entry = entry.for_board(board);
        change_slots(&outbox, entry.key(), |slots| slots.add(entry)).await?;
    }
    let best = match previous {
        Some(previous) if !new_best => previous.value,
        _ => entry.value,
    };
    Ok(Recorded {
        new_best,
        best,
        had_best: previous.is_some(),
    })
}

/// Every entry of the store `outbox`.
pub(crate) async fn all_entries(outbox: &Store) -> Result<Vec<OutboxEntry>, StorageError> {
    let all = outbox.get_all(None, None).await?;
    all.into_iter().map(from_js).collect()
}
