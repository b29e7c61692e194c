//! The connection: opening `keydo` through rexie (creating its stores), giving up on
//! an open that another tab holds up, closing on drop, and transactions that report
//! why they failed (docs/sync.md, "Storage").

use crate::StorageError;
use futures::future::{Either, select};
use gloo_timers::future::sleep;
use js_sys::Reflect;
use rexie::{ObjectStore, Rexie, Transaction, TransactionMode};
use std::time::Duration;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// The database name the app and its tests look for.
pub const DATABASE: &str = "keydo";
/// The schema's version: 2 added `operations`, 3 `practice`.
pub const SCHEMA_VERSION: u32 = 3;
/// How long an open may wait before it counts as blocked by a tab of an older release.
///
/// An open that nothing holds up takes milliseconds; one held up by a tab of this
/// release waits for at most one operation there (every connection is short-lived),
/// tens of milliseconds. Three seconds leaves a slow disk two orders of magnitude and
/// still tells the player soon why their game is not saved yet.
pub const OPEN_WAIT: Duration = Duration::from_secs(3);
/// Free space below which an abort without a reason is put down to the quota: the
/// largest transaction writes a few kilobytes (a game with its replay).
const QUOTA_HEADROOM_BYTES: f64 = 1024.0 * 1024.0;

pub(crate) const META: &str = "meta";
pub(crate) const HISTORY: &str = "history";
pub(crate) const BESTS: &str = "bests";
pub(crate) const OUTBOX: &str = "outbox";
pub(crate) const OPERATIONS: &str = "operations";
pub(crate) const PRACTICE: &str = "practice";
const STORES: [&str; 6] = [META, HISTORY, BESTS, OUTBOX, OPERATIONS, PRACTICE];

/// An open `keydo` database, for one operation or a few in a row, never across a
/// network call: a tab of a newer release upgrading the schema waits for it to be
/// dropped. Dropping it closes the connection, so no path, early returns and errors
/// included, leaves one open.
pub struct Db {
    /// `Some` from the open until the drop, which takes it to close it.
    connection: Option<Rexie>,
}

impl Drop for Db {
    fn drop(&mut self) {
        if let Some(connection) = self.connection.take() {
            // Closes once the transactions already started have finished.
            connection.close();
        }
    }
}

impl Db {
    /// Opens (creating or upgrading) the `keydo` database.
    pub async fn open() -> Result<Db, StorageError> {
        Db::open_named(DATABASE).await
    }

    /// Opens a database of this schema under another name (tests use their own),
    /// waiting at most [`OPEN_WAIT`].
    pub async fn open_named(name: &str) -> Result<Db, StorageError> {
        Db::open_named_within(name, OPEN_WAIT).await
    }

    /// Opens a database of this schema under `name`, or fails with
    /// [`StorageError::Blocked`] once `wait` has passed: another connection holds an
    /// older version open and does not close (a tab of an older release). The open
    /// then completes in the background, whenever that tab goes, and closes at once.
    pub async fn open_named_within(name: &str, wait: Duration) -> Result<Db, StorageError> {
        let building = STORES
            .iter()
            .fold(
                Rexie::builder(name).version(SCHEMA_VERSION),
                |builder, store| builder.add_object_store(ObjectStore::new(store)),
            )
            .build();
        match select(Box::pin(building), Box::pin(sleep(wait))).await {
            Either::Left((opened, _)) => Ok(Db {
                connection: Some(opened.map_err(StorageError::opening)?),
            }),
            Either::Right(((), building)) => {
                // Dropping the request would leave its connection open for good.
                wasm_bindgen_futures::spawn_local(async move {
                    if let Ok(late) = building.await {
                        late.close();
                    }
                });
                Err(StorageError::Blocked)
            }
        }
    }

    /// The database's name.
    pub fn name(&self) -> String {
        self.connection().name()
    }

    fn connection(&self) -> &Rexie {
        self.connection
            .as_ref()
            .expect("a Db holds its connection until dropped")
    }

    /// Runs `body` in one transaction over `stores` and resolves once it has
    /// committed. An abort is an error with its reason: the failed request's, or,
    /// when the browser gives none, a full quota if `navigator.storage.estimate()`
    /// says so.
    pub(crate) async fn transact<T>(
        &self,
        stores: &[&str],
        mode: TransactionMode,
        body: impl AsyncFnOnce(&Transaction) -> Result<T, StorageError>,
    ) -> Result<T, StorageError> {
        let transaction = self.connection().transaction(stores, mode)?;
        let outcome = body(&transaction).await;
        // Awaited on failure too: whether the transaction aborted tells the reason. A
        // failed request's `error` event reaches the transaction as well, so `done`
        // may fail instead of reporting the abort.
        let finished = transaction.done().await;
        let committed = matches!(finished, Ok(result) if result.is_committed());
        match (outcome, finished) {
            (Ok(value), _) if committed => Ok(value),
            (Ok(_) | Err(StorageError::Database(_)), _) if !committed && quota_used_up().await => {
                Err(StorageError::QuotaExceeded)
            }
            (Ok(_), Ok(_)) => Err(StorageError::Database("the transaction was aborted".into())),
            (Ok(_), Err(error)) => Err(error.into()),
            (Err(error), _) => Err(error),
        }
    }
}

/// Whether this site's storage is used up but for [`QUOTA_HEADROOM_BYTES`], as
/// `navigator.storage.estimate()` tells (in a page or a worker alike); `false` when
/// it cannot tell.
async fn quota_used_up() -> bool {
    let estimate = async {
        let navigator = Reflect::get(&js_sys::global(), &"navigator".into())?;
        let storage = Reflect::get(&navigator, &"storage".into())?;
        let estimate: js_sys::Function = Reflect::get(&storage, &"estimate".into())?.dyn_into()?;
        let promise: js_sys::Promise = estimate.call0(&storage)?.dyn_into()?;
        let estimate = JsFuture::from(promise).await?;
        let number = |field: &str| Reflect::get(&estimate, &field.into()).map(|v| v.as_f64());
        Ok::<_, JsValue>(number("quota")?.zip(number("usage")?))
    };
    matches!(estimate.await, Ok(Some((quota, usage))) if quota - usage < QUOTA_HEADROOM_BYTES)
}
