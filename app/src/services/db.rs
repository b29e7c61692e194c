//! The reads of the browser database (IndexedDB `keydo`, through `keydo-storage`)
//! that more than one service shares: the save's credentials the page's own API
//! calls send, and the word tests' chosen options (docs/scoring.md, "Options").
//!
//! Every read opens its own connection, which closes when it is dropped at the end
//! of the read, so no open connection holds up a schema upgrade.

use keydo_core::Mode;
use keydo_core::api::Credentials;
use keydo_core::game::options::TestOptions;
use keydo_storage::{Db, StorageError};

/// The server save's credentials, if the sync has created one and the database can
/// be read.
pub async fn credentials() -> Option<Credentials> {
    let db = Db::open().await.ok()?;
    db.credentials().await.ok().flatten()
}

/// The options last chosen for `mode`.
pub async fn test_options(mode: Mode) -> Result<TestOptions, StorageError> {
    Db::open().await?.test_options(mode).await
}

/// Keeps the options chosen for `mode` across reloads.
pub async fn set_test_options(mode: Mode, options: TestOptions) -> Result<(), StorageError> {
    Db::open().await?.set_test_options(mode, &options).await
}
