//! Delivers the outbox to the leaderboards: every result exactly once, none stuck
//! (docs/sync.md).
//!
//! Shared by the page (foreground flushes) and the service worker (Background
//! Sync). Data flows one way: [`flush_outbox`] reads the outbox from storage,
//! closes that transaction, sends each due entry through a [`Transport`] ([`Http`]
//! in the browser), then opens a new transaction to delete what the server
//! acknowledged — only if it is still the entry that was sent — or to record the
//! failure. Once a day, and after the server forgot the save, it first re-queues the
//! bests the server lacks. [`lock`] makes it one flush at a time across
//! tabs and the worker.

mod client;
mod deadline;
mod flush;
mod heal;
mod lock;
mod profile;
mod transport;

pub use client::Http;
pub use flush::{FlushReport, SyncError, flush_outbox, flush_with};
pub use transport::Transport;

use keydo_core::outbox::OutboxEntry;
use keydo_storage::Db;
use uuid::Uuid;

/// The player discards a blocked result: it leaves the outbox for good (its history
/// row stays, and healing never sends it again). Returns it, with its reason in
/// `sync.last_error`, or `None` when no blocked entry has this id (a manual retry
/// delivered it meanwhile, or another tab discarded it).
pub async fn discard_blocked(score_id: Uuid) -> Result<Option<OutboxEntry>, SyncError> {
    Db::open().await?.discard_blocked(score_id).await
}
