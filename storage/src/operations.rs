//! The operation outbox (docs/profile.md): the profile the server last confirmed
//! (under `meta`) and the device's profile operations (store `operations`, by their
//! place in line). Every step of `core`'s [`ProfileQueue`] runs inside one readwrite
//! transaction that loads the queue, applies the step and stores its writes, so two
//! tabs queuing at once take turns and "saved" means committed.

use crate::StorageError;
use crate::db::{Db, META, OPERATIONS};
use crate::meta::{get, put};
use crate::records::{from_js, to_js};
use idb::TransactionMode;
use keydo_core::profile::{Confirmed, Profile, ProfileQueue, Write};
use wasm_bindgen::JsValue;

const CONFIRMED_KEY: &str = "confirmedProfile";

impl Db {
    /// The queue as stored. Before the first save, nothing is confirmed: version 0,
    /// no name.
    pub async fn profile_queue(&self) -> Result<ProfileQueue, StorageError> {
        let tx = self.transaction(&[META, OPERATIONS], TransactionMode::ReadOnly)?;
        let queue = load(&tx).await?;
        tx.done().await?;
        Ok(queue)
    }

    /// Runs one step on the stored queue and commits its writes; returns the step's
    /// result and the queue after it.
    pub async fn update_profile_queue<R>(
        &self,
        step: impl FnOnce(&mut ProfileQueue) -> (R, Vec<Write>),
    ) -> Result<(R, ProfileQueue), StorageError> {
        let tx = self.transaction(&[META, OPERATIONS], TransactionMode::ReadWrite)?;
        let mut queue = load(&tx).await?;
        let (result, writes) = step(&mut queue);
        let operations = tx.store(OPERATIONS)?;
        for write in writes {
            match write {
                Write::Put(operation) => {
                    let seq = JsValue::from(operation.seq as f64);
                    operations.put(&to_js(&operation)?, Some(&seq))?.await?;
                }
                Write::Delete(seq) => operations.delete(JsValue::from(seq as f64))?.await?,
                Write::Confirmed(confirmed) => {
                    put(&tx.store(META)?, CONFIRMED_KEY, &confirmed).await?
                }
            }
        }
        tx.done().await?;
        Ok((result, queue))
    }
}

async fn load(tx: &crate::db::Transaction) -> Result<ProfileQueue, StorageError> {
    let confirmed = get(&tx.store(META)?, CONFIRMED_KEY)
        .await?
        .unwrap_or_else(|| Confirmed {
            version: 0,
            profile: Profile::named(""),
        });
    let operations = tx
        .store(OPERATIONS)?
        .get_all(None, None)?
        .await?
        .into_iter()
        .map(from_js)
        .collect::<Result<_, _>>()?;
    Ok(ProfileQueue::new(confirmed, operations))
}
