//! The connection: opening `keydo` (creating its stores), closing it whenever the
//! handle is dropped or another context upgrades the schema, and transactions that
//! report why they failed.

use crate::StorageError;
use futures::future::{Either, select};
use idb::{DatabaseEvent, Factory, ObjectStore, ObjectStoreParams, TransactionMode};
use wasm_bindgen::JsCast;
use web_sys::{IdbDatabase, IdbTransaction};

/// The database name the app and its tests look for.
pub const DATABASE: &str = "keydo";
/// The schema's version: 2 added `operations`.
pub const SCHEMA_VERSION: u32 = 2;

pub(crate) const META: &str = "meta";
pub(crate) const HISTORY: &str = "history";
pub(crate) const BESTS: &str = "bests";
pub(crate) const OUTBOX: &str = "outbox";
pub(crate) const OPERATIONS: &str = "operations";
const STORES: [&str; 5] = [META, HISTORY, BESTS, OUTBOX, OPERATIONS];

/// An open `keydo` database. Dropping it closes the connection, so no path, early
/// returns and errors included, leaves one open to hold up a later schema upgrade.
pub struct Db {
    database: idb::Database,
}

impl Drop for Db {
    fn drop(&mut self) {
        // Closes once the transactions already started have finished.
        self.database.close();
    }
}

impl Db {
    /// Opens (creating or upgrading) the `keydo` database.
    pub async fn open() -> Result<Db, StorageError> {
        Db::open_named(DATABASE).await
    }

    /// Opens a database of this schema under another name (tests use their own).
    ///
    /// Fails with [`StorageError::Blocked`] rather than wait when another connection
    /// holds an older version open and does not close (a tab of an older release);
    /// the open then completes in the background and closes at once.
    pub async fn open_named(name: &str) -> Result<Db, StorageError> {
        let mut request = Factory::new()?.open(name, Some(SCHEMA_VERSION))?;
        request.on_upgrade_needed(|event| {
            // Creating a store only fails outside an upgrade, which this is.
            if let Ok(database) = event.database() {
                let existing = database.store_names();
                for store in STORES.iter().filter(|s| !existing.iter().any(|e| e == *s)) {
                    let _ = database.create_object_store(store, ObjectStoreParams::new());
                }
            }
        });
        let (blocked, on_blocked) = futures::channel::oneshot::channel();
        request.on_blocked(move |_| {
            let _ = blocked.send(());
        });
        let opening = request.into_future();
        let mut database = match select(opening, on_blocked).await {
            Either::Left((opened, _)) => opened?,
            Either::Right((Ok(()), opening)) => {
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(late) = opening.await {
                        late.close();
                    }
                });
                return Err(StorageError::Blocked);
            }
            // The request settled and dropped its blocked handler: it is done.
            Either::Right((Err(_), opening)) => opening.await?,
        };
        database.on_version_change(|event| {
            // Another context wants to upgrade the schema: let it.
            if let Some(database) = event
                .target()
                .and_then(|target| target.dyn_into::<IdbDatabase>().ok())
            {
                database.close();
            }
        });
        Ok(Db { database })
    }

    /// Starts a transaction over `stores`.
    pub(crate) fn transaction(
        &self,
        stores: &[&str],
        mode: TransactionMode,
    ) -> Result<Transaction, StorageError> {
        let transaction = self.database.transaction(stores, mode)?;
        Ok(Transaction {
            raw: transaction.into(),
        })
    }
}

/// A transaction that, when awaited, says whether it committed and if not, why.
pub(crate) struct Transaction {
    raw: IdbTransaction,
}

impl Transaction {
    pub(crate) fn store(&self, name: &str) -> Result<ObjectStore, StorageError> {
        Ok(idb::Transaction::from(self.raw.clone()).object_store(name)?)
    }

    /// Waits until the transaction has committed; an abort (a full quota, say) is an
    /// error with its reason.
    pub(crate) async fn done(self) -> Result<(), StorageError> {
        let result = idb::Transaction::from(self.raw.clone()).await?;
        if result.is_committed() {
            return Ok(());
        }
        Err(match self.raw.error() {
            Some(dom) => StorageError::from_dom(&dom.name(), &dom.message()),
            None => StorageError::Database("the transaction was aborted".into()),
        })
    }
}
