//! The reads of the browser database (IndexedDB `keydo`, through `keydo-storage`)
//! that more than one service shares: the save's credentials the page's own API
//! calls send, and the word tests' chosen options (docs/scoring.md, "Options").
//!
//! Every read opens its own connection, which closes when it is dropped at the end
//! of the read, so no open connection holds up a schema upgrade.
//!
//! The writes made while playing are in the `drawn` module, fetched once the game is
//! drawn (docs/performance.md, "What loads first"): the first keystroke needs none.

use crate::on_demand::once_loaded;
use keydo_core::Mode;
use keydo_core::api::Credentials;
use keydo_core::game::options::TestOptions;
use keydo_storage::{Db, StorageError};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use wasm_split_helpers::{SplitLoaderError, wasm_split};

/// A read or write of the database, running in an on-demand module (boxed: a split
/// function cannot be `async`).
pub type Running<T> = Pin<Box<dyn Future<Output = Result<T, StorageError>>>>;

/// The server save's credentials, if the sync has created one and the database can
/// be read.
pub async fn credentials() -> Option<Credentials> {
    let db = Db::open().await.ok()?;
    db.credentials().await.ok().flatten()
}

/// The options last chosen for `mode`, read from a task after the current one: the
/// game reads them while it mounts ([`open_in_next_task`]).
pub async fn test_options(mode: Mode) -> Result<TestOptions, StorageError> {
    open_in_next_task().await?.test_options(mode).await
}

/// Opens the database from a task queued now: a read the page starts while it mounts
/// the game (the options, the profile) is not part of that task, long enough
/// already (docs/performance.md, "Time to playable: the work after the download").
pub async fn open_in_next_task() -> Result<Db, StorageError> {
    gloo_timers::future::sleep(Duration::ZERO).await;
    Db::open().await
}

/// Keeps the options chosen for `mode` across reloads, once the `drawn` module is
/// in (tried again while it cannot be fetched).
pub async fn set_test_options(mode: Mode, options: TestOptions) -> Result<(), StorageError> {
    once_loaded(|| load_set_test_options(mode, options))
        .await
        .await
}

#[wasm_split(drawn, fallible)]
fn load_set_test_options(
    mode: Mode,
    options: TestOptions,
) -> Result<Running<()>, SplitLoaderError> {
    Ok(Box::pin(async move {
        Db::open().await?.set_test_options(mode, &options).await
    }))
}
