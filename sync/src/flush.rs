//! One flush of the outbox.

use crate::{client, lock};
use keydo_core::classify::{Disposition, Failure, Request};
use keydo_core::coalesce::FlushKind;
use keydo_core::outbox::{OutboxEntry, next_retry_at};
use keydo_storage::{Credentials, Db, StorageError};

/// What a flush did, for the coordinator's next timer and the UI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// Entries the server acknowledged.
    pub delivered: usize,
    /// Entries that failed for a passing reason and will be retried.
    pub retryable: usize,
    /// Entries the server refused; only a manual retry sends them again.
    pub blocked: usize,
    /// When the earliest waiting entry is due again (unix ms).
    pub next_retry_at: Option<u64>,
}

/// The flush could not use the browser's database.
pub type SyncError = StorageError;

/// Sends every entry of the outbox that `kind` makes due, holding the flush lock.
pub async fn flush_outbox(kind: FlushKind) -> Result<FlushReport, SyncError> {
    let db = Db::open().await?;
    let profile = db.profile(now_ms()).await?;
    let lock_name = format!("keydo-flush-{}", profile.id);
    lock::exclusive(&lock_name, async move {
        let report = flush(&db, kind).await;
        db.close();
        report
    })
    .await
}

async fn flush(db: &Db, kind: FlushKind) -> Result<FlushReport, SyncError> {
    // Read, and let that transaction finish, before any network call.
    let due: Vec<OutboxEntry> = db
        .outbox()
        .await?
        .into_iter()
        .filter(|e| e.sync.is_due(now_ms(), kind))
        .collect();
    let mut report = FlushReport::default();
    let mut credentials = db.credentials().await?;
    let mut pending = due.iter();
    while let Some(entry) = pending.next() {
        match deliver(db, &mut credentials, entry).await? {
            Ok(()) => report.delivered += 1,
            Err((request, failure)) => {
                let disposition = record(db, entry, request, &failure).await?;
                count(&mut report, disposition);
                // Offline, or no save to send with: the rest would fail alike.
                if failure == Failure::Network || request == Request::CreateSave {
                    for rest in pending.by_ref() {
                        count(&mut report, record(db, rest, request, &failure).await?);
                    }
                }
            }
        }
    }
    report.next_retry_at = next_retry_at(&db.outbox().await?);
    Ok(report)
}

/// Sends one entry, creating (or, after a 401, renewing once) the save it needs.
async fn deliver(
    db: &Db,
    credentials: &mut Option<Credentials>,
    entry: &OutboxEntry,
) -> Result<Result<(), (Request, Failure)>, SyncError> {
    let mut save_renewed = false;
    loop {
        let current = match *credentials {
            Some(current) => current,
            None => match client::create_save().await {
                Ok(created) => {
                    db.set_credentials(&created).await?;
                    *credentials = Some(created);
                    created
                }
                Err(failure) => return Ok(Err((Request::CreateSave, failure))),
            },
        };
        let request = Request::SubmitScore { save_renewed };
        match client::submit_score(&current, entry).await {
            Ok(_) => {
                db.remove_if_unchanged(entry).await?;
                return Ok(Ok(()));
            }
            Err(failure) => {
                if keydo_core::classify::classify(request, &failure) != Disposition::RenewSave {
                    return Ok(Err((request, failure)));
                }
                // The server does not know this save (say, restored from an older backup):
                // forget it, make a new one and send again, once.
                db.forget_credentials().await?;
                *credentials = None;
                save_renewed = true;
            }
        }
    }
}

/// Stores the failure on the entry (if it is still the one sent).
async fn record(
    db: &Db,
    entry: &OutboxEntry,
    request: Request,
    failure: &Failure,
) -> Result<Disposition, SyncError> {
    let mut sync = entry.sync.clone();
    let disposition = sync.record_failure(request, failure, now_ms(), js_sys::Math::random());
    db.set_sync_state(entry, sync).await?;
    Ok(disposition)
}

fn count(report: &mut FlushReport, disposition: Disposition) {
    match disposition {
        Disposition::Blocked => report.blocked += 1,
        Disposition::Retryable | Disposition::RenewSave => report.retryable += 1,
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
