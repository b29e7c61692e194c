//! The database handle and every operation on it.

use crate::StorageError;
use crate::records::{Best, Credentials, Profile, Recorded, from_js, to_js};
use keydo_core::Mode;
use keydo_core::outbox::{Merge, OutboxEntry, SyncState, is_still_the_one_sent, merge};
use rexie::{ObjectStore, Rexie, TransactionMode};
use uuid::Uuid;
use wasm_bindgen::JsValue;

/// The database name the SPEC fixes (tests look for it).
pub const DATABASE: &str = "keydo";
const VERSION: u32 = 1;

const META: &str = "meta";
const HISTORY: &str = "history";
const BESTS: &str = "bests";
const OUTBOX: &str = "outbox";

const PROFILE_KEY: &str = "profile";
const SAVE_KEY: &str = "save";

/// An open `keydo` database.
pub struct Db {
    rexie: Rexie,
}

impl Db {
    /// Opens (creating or upgrading) the `keydo` database.
    pub async fn open() -> Result<Db, StorageError> {
        Db::open_named(DATABASE).await
    }

    /// Opens a database of this schema under another name (tests use their own).
    pub async fn open_named(name: &str) -> Result<Db, StorageError> {
        let rexie = Rexie::builder(name)
            .version(VERSION)
            .add_object_store(ObjectStore::new(META))
            .add_object_store(ObjectStore::new(HISTORY))
            .add_object_store(ObjectStore::new(BESTS))
            .add_object_store(ObjectStore::new(OUTBOX))
            .build()
            .await?;
        Ok(Db { rexie })
    }

    /// Closes the connection (a deleted or upgraded database waits for this).
    pub fn close(self) {
        self.rexie.close();
    }

    /// The local profile; created (with `now_ms`) on first call.
    pub async fn profile(&self, now_ms: u64) -> Result<Profile, StorageError> {
        let tx = self
            .rexie
            .transaction(&[META], TransactionMode::ReadWrite)?;
        let meta = tx.store(META)?;
        let profile = match meta.get(PROFILE_KEY.into()).await? {
            Some(stored) => from_js(stored)?,
            None => {
                let profile = Profile {
                    id: Uuid::new_v4(),
                    created_at: now_ms,
                };
                meta.put(&to_js(&profile)?, Some(&PROFILE_KEY.into()))
                    .await?;
                profile
            }
        };
        tx.done().await?;
        Ok(profile)
    }

    /// Durably records a finished game: its history row, the personal best and the
    /// outbox entry, all in one transaction. Resolves once committed.
    pub async fn record_result(&self, entry: &OutboxEntry) -> Result<Recorded, StorageError> {
        let tx = self
            .rexie
            .transaction(&[HISTORY, BESTS, OUTBOX], TransactionMode::ReadWrite)?;
        let id: JsValue = entry.score_id.to_string().into();
        tx.store(HISTORY)?.put(&to_js(entry)?, Some(&id)).await?;

        let bests = tx.store(BESTS)?;
        let mode_key: JsValue = entry.mode.id().into();
        let previous: Option<Best> = bests
            .get(mode_key.clone())
            .await?
            .map(from_js)
            .transpose()?;
        let new_best = previous.is_none_or(|best| entry.value > best.value);
        if new_best {
            let best = Best {
                mode: entry.mode,
                value: entry.value,
                score_id: entry.score_id,
                played_at: entry.played_at,
            };
            bests.put(&to_js(&best)?, Some(&mode_key)).await?;
        }

        let outbox = tx.store(OUTBOX)?;
        let key: JsValue = entry.key().to_string().into();
        let stored: Option<OutboxEntry> =
            outbox.get(key.clone()).await?.map(from_js).transpose()?;
        match merge(stored.as_ref(), entry) {
            Merge::Insert | Merge::Replace => {
                outbox.put(&to_js(entry)?, Some(&key)).await?;
            }
            Merge::KeepExisting => {}
        }
        tx.done().await?;
        let best = match previous {
            Some(previous) if !new_best => previous.value,
            _ => entry.value,
        };
        Ok(Recorded { new_best, best })
    }

    /// The personal best of every mode played so far.
    pub async fn bests(&self) -> Result<Vec<(Mode, i64)>, StorageError> {
        let tx = self
            .rexie
            .transaction(&[BESTS], TransactionMode::ReadOnly)?;
        let all = tx.store(BESTS)?.get_all(None, None).await?;
        tx.done().await?;
        all.into_iter()
            .map(|value| from_js::<Best>(value).map(|b| (b.mode, b.value)))
            .collect()
    }

    /// Every outbox entry, in key order.
    pub async fn outbox(&self) -> Result<Vec<OutboxEntry>, StorageError> {
        let tx = self
            .rexie
            .transaction(&[OUTBOX], TransactionMode::ReadOnly)?;
        let all = tx.store(OUTBOX)?.get_all(None, None).await?;
        tx.done().await?;
        all.into_iter().map(from_js).collect()
    }

    /// After the server acknowledged `sent`: deletes its entry, but only if the
    /// stored entry is still the one sent. Returns whether it was deleted.
    pub async fn remove_if_unchanged(&self, sent: &OutboxEntry) -> Result<bool, StorageError> {
        self.update_if_unchanged(sent, None).await
    }

    /// After a failed send: stores `sync` on the entry, if it is still the one sent
    /// (a better result that arrived meanwhile starts with a clean state).
    pub async fn set_sync_state(
        &self,
        sent: &OutboxEntry,
        sync: SyncState,
    ) -> Result<bool, StorageError> {
        self.update_if_unchanged(sent, Some(sync)).await
    }

    async fn update_if_unchanged(
        &self,
        sent: &OutboxEntry,
        sync: Option<SyncState>,
    ) -> Result<bool, StorageError> {
        let tx = self
            .rexie
            .transaction(&[OUTBOX], TransactionMode::ReadWrite)?;
        let outbox = tx.store(OUTBOX)?;
        let key: JsValue = sent.key().to_string().into();
        let stored: Option<OutboxEntry> =
            outbox.get(key.clone()).await?.map(from_js).transpose()?;
        let unchanged = is_still_the_one_sent(stored.as_ref(), sent.score_id);
        if unchanged {
            match (stored, sync) {
                (Some(mut entry), Some(sync)) => {
                    entry.sync = sync;
                    outbox.put(&to_js(&entry)?, Some(&key)).await?;
                }
                _ => outbox.delete(key).await?,
            }
        }
        tx.done().await?;
        Ok(unchanged)
    }

    /// The server save's credentials, if one was created.
    pub async fn credentials(&self) -> Result<Option<Credentials>, StorageError> {
        let tx = self.rexie.transaction(&[META], TransactionMode::ReadOnly)?;
        let save = tx.store(META)?.get(SAVE_KEY.into()).await?;
        tx.done().await?;
        save.map(from_js).transpose()
    }

    /// Keeps the credentials of the save the server created.
    pub async fn set_credentials(&self, credentials: &Credentials) -> Result<(), StorageError> {
        let tx = self
            .rexie
            .transaction(&[META], TransactionMode::ReadWrite)?;
        tx.store(META)?
            .put(&to_js(credentials)?, Some(&SAVE_KEY.into()))
            .await?;
        tx.done().await?;
        Ok(())
    }

    /// Forgets a save the server no longer knows (a 401 on a score).
    pub async fn forget_credentials(&self) -> Result<(), StorageError> {
        let tx = self
            .rexie
            .transaction(&[META], TransactionMode::ReadWrite)?;
        tx.store(META)?.delete(SAVE_KEY.into()).await?;
        tx.done().await?;
        Ok(())
    }
}
