//! Delivers the outbox to the leaderboards: every result exactly once, none stuck
//! (docs/sync.md).
//!
//! Shared by the page (foreground flushes) and the service worker (Background
//! Sync). Data flows one way: [`flush_outbox`] reads the outbox from storage,
//! closes that transaction and its connection, sends each due entry through a
//! [`Transport`] ([`Http`] in the browser), then opens a new connection to delete
//! what the server acknowledged — only if it is still the entry that was sent — or
//! to record the failure. Once a day, and after the server forgot the save, it first re-queues the
//! bests the server lacks. [`lock`] makes it one flush at a time across
//! tabs and the worker.
//!
//! [`call`] is the one HTTP client of the page and the worker: the page's own API
//! calls (the leaderboards, the devices) go through it too.

mod client;
mod deadline;
mod flush;
mod heal;
mod lock;
mod profile;
mod transport;

pub use client::{Http, call};
pub use flush::{FlushReport, SyncError, flush_outbox, flush_with};
pub use transport::Transport;

use keydo_core::api::SaveCreated;
use keydo_core::profile::{Confirmed, ProfileQueue};
use keydo_core::sync::outbox::OutboxEntry;
use keydo_storage::Db;
use uuid::Uuid;

/// The player discards a blocked result: it leaves the outbox for good (its history
/// row stays, and healing never sends it again). Returns it, with its reason in
/// `sync.last_error`, or `None` when no blocked entry has this id (a manual retry
/// delivered it meanwhile, or another tab discarded it).
pub async fn discard_blocked(score_id: Uuid) -> Result<Option<OutboxEntry>, SyncError> {
    Db::open().await?.discard_blocked(score_id).await
}

/// This device now plays as another save: the player's, after linking it with a code
/// from their other device (docs/profile.md, "Devices"). Its profile becomes the one
/// confirmed, and every best this device delivered goes into the outbox again, so
/// the next flush sends it to that player and nothing earned here is lost. Returns
/// how many were re-queued.
pub async fn adopt_save(save: &SaveCreated) -> Result<usize, SyncError> {
    let db = Db::open().await?;
    flush::adopt(&db, save).await?;
    Ok(heal::requeue_delivered(&db, &[]).await?.len())
}

/// Reads the profile from the server (`GET /api/saves/me`) into the queue's confirmed
/// profile, so changes made on the player's other devices show here. `None` when there
/// is no save yet or the server could not be asked; the page asks again later.
pub async fn refresh_profile() -> Result<Option<ProfileQueue>, SyncError> {
    // Closed before the request: no connection is held across the network.
    let Some(credentials) = Db::open().await?.credentials().await? else {
        return Ok(None);
    };
    let Ok(save) = Http.fetch_save(&credentials).await else {
        return Ok(None);
    };
    let (_, queue) = Db::open()
        .await?
        .update_profile_queue(|queue| ((), queue.confirm(Confirmed::from(&save))))
        .await?;
    Ok(Some(queue))
}
