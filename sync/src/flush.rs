//! One flush of the outbox: heal if due, then send every entry the trigger makes due,
//! creating (or renewing, once) the save they need, then the profile operations in
//! line (docs/profile.md).

use crate::{Http, Transport, lock};
use keydo_core::api::{Credentials, SaveCreated};
use keydo_core::profile::Confirmed;
use keydo_core::sync::backoff::MAX_DELAY_MS;
use keydo_core::sync::classify::{Disposition, Failure, Request, classify};
use keydo_core::sync::coalesce::FlushKind;
use keydo_core::sync::heal::is_heal_due;
use keydo_core::sync::outbox::{OutboxEntry, next_retry_at};
use keydo_storage::{DATABASE, Db, SaveStart, StorageError};
use uuid::Uuid;

/// What a flush did, for the coordinator's next timer and the UI.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FlushReport {
    /// Entries the server acknowledged.
    pub delivered: usize,
    /// Of those, entries the server holds for review (docs/replay.md).
    pub held: usize,
    /// Entries that failed for a passing reason and will be retried.
    pub retryable: usize,
    /// Entries the API refused; only a manual retry sends them again.
    pub blocked: usize,
    /// Results put back into the outbox because the server lacked them (restore healing).
    pub requeued: usize,
    /// Whether the server had forgotten the save, so a new one was made.
    pub renewed: bool,
    /// Profile operations the server answered.
    pub profile_sent: usize,
    /// Of those, operations with a change of the player's dropped in a conflict.
    pub profile_conflicts: usize,
    /// Profile operations the API refused for good.
    pub profile_refused: usize,
    /// When the earliest waiting entry is due again (unix ms), never later than the
    /// backoff cap from the end of the flush: a timer for it needs no clamping.
    pub next_retry_at: Option<u64>,
}

/// The flush could not use the browser's database.
pub type SyncError = StorageError;

/// Sends every entry of the outbox that `kind` makes due, over HTTP, holding the
/// profile's flush lock (one flush at a time across tabs and the service worker).
pub async fn flush_outbox(kind: FlushKind) -> Result<FlushReport, SyncError> {
    let profile = Db::open().await?.profile(now_ms()).await?;
    let lock_name = format!("keydo-flush-{}", profile.id);
    lock::exclusive(&lock_name, async move {
        flush_with(DATABASE, &Http, kind).await
    })
    .await
}

/// The flush itself, on the database named `database` and a transport (tests use
/// their own database and script the transport).
///
/// Every database operation opens its own connection and drops it before the next
/// network call (docs/sync.md, "Storage"), so a flush never holds up another tab's
/// schema upgrade for longer than one operation.
///
/// No request waits longer than the transport's timeout, and the first that gets no
/// answer ends the sending (the rest would fail alike), so a flush holds its lock for
/// at most one timeout past its last answer.
pub async fn flush_with(
    database: &str,
    transport: &impl Transport,
    kind: FlushKind,
) -> Result<FlushReport, SyncError> {
    let mut flush = Flush {
        database,
        transport,
        credentials: Db::open_named(database).await?.credentials().await?,
        renewed: false,
        acked: Vec::new(),
        report: FlushReport::default(),
    };
    let mut unreachable = None;
    let healed_at = flush.db().await?.healed_at().await?;
    if flush.credentials.is_some() && is_heal_due(healed_at, now_ms()) {
        unreachable = flush.heal().await?;
    }
    // Read, and let that transaction finish, before any network call.
    let mut due: Vec<OutboxEntry> = flush
        .db()
        .await?
        .outbox()
        .await?
        .into_iter()
        .filter(|e| e.sync.is_due(now_ms(), kind))
        .collect();
    // A second pass sends the new save what a renewal in the first re-queued.
    for _ in 0..2 {
        let renewed_before = flush.renewed;
        let mut pending = due.iter();
        while let Some(entry) = pending.next() {
            // The same game waiting for another of its boards: the server ranked it on
            // every board it counts on when it acknowledged it (docs/genda.md, "Boards").
            if flush.acked.contains(&entry.score_id) {
                flush.db().await?.remove_if_unchanged(entry).await?;
                continue;
            }
            let failed = match &unreachable {
                Some(offline) => Some(offline.clone()),
                None => flush.deliver(entry).await?.err(),
            };
            let Some((request, failure)) = failed else {
                flush.report.delivered += 1;
                continue;
            };
            flush.record(entry, request, &failure).await?;
            // Offline, or no save to send with: the rest would fail alike.
            if failure.is_unreachable() || request == Request::CreateSave {
                for rest in pending.by_ref() {
                    flush.record(rest, request, &failure).await?;
                }
            }
        }
        if flush.renewed == renewed_before || unreachable.is_some() {
            break;
        }
        let requeued = flush.requeue_for_new_save().await?;
        due = flush
            .db()
            .await?
            .outbox()
            .await?
            .into_iter()
            .filter(|e| requeued.contains(&e.score_id))
            .collect();
    }
    if unreachable.is_none() {
        flush.send_profile(kind).await?;
    }
    let db = flush.db().await?;
    let profile_retry_at = db.profile_queue().await?.next_retry_at();
    flush.report.next_retry_at = next_retry_at(&db.outbox().await?, now_ms())
        .into_iter()
        .chain(profile_retry_at.map(|at| at.min(now_ms() + MAX_DELAY_MS)))
        .min();
    Ok(flush.report)
}

/// One flush's state: the save it sends with, and whether it already renewed it.
pub(crate) struct Flush<'a, T> {
    /// The database's name: each operation opens its own connection ([`Flush::db`]).
    pub(crate) database: &'a str,
    pub(crate) transport: &'a T,
    pub(crate) credentials: Option<Credentials>,
    /// The save was renewed in this flush: a 401 on the new one is not ours to fix.
    pub(crate) renewed: bool,
    /// Results the current save acknowledged in this flush.
    pub(crate) acked: Vec<Uuid>,
    pub(crate) report: FlushReport,
}

impl<T: Transport> Flush<'_, T> {
    /// A connection for one operation, dropped before the next network call.
    pub(crate) async fn db(&self) -> Result<Db, SyncError> {
        Db::open_named(self.database).await
    }

    /// Sends one entry. The outer error is the database's; the inner one the request's.
    async fn deliver(
        &mut self,
        entry: &OutboxEntry,
    ) -> Result<Result<(), (Request, Failure)>, SyncError> {
        let sent = self
            .with_save(async |transport, credentials| {
                transport.submit_score(credentials, entry).await
            })
            .await?;
        let Ok(ack) = sent else {
            return Ok(sent.map(|_| ()));
        };
        self.db().await?.remove_if_unchanged(entry).await?;
        if let Some(code) = &ack.code {
            self.db()
                .await?
                .note_verified(entry.score_id, code, ack.improved)
                .await?;
        }
        if ack.held {
            self.db().await?.note_held(entry).await?;
            self.report.held += 1;
        }
        self.acked.push(entry.score_id);
        Ok(Ok(()))
    }

    /// Makes one authenticated request, creating (or, after the API's `UNAUTHORIZED`,
    /// renewing) the save it needs.
    pub(crate) async fn with_save<R>(
        &mut self,
        send: impl AsyncFn(&T, &Credentials) -> Result<R, Failure>,
    ) -> Result<Result<R, (Request, Failure)>, SyncError> {
        loop {
            let credentials = match self.credentials {
                Some(credentials) => credentials,
                None => match self.create_save().await? {
                    Ok(created) => created,
                    Err(failure) => return Ok(Err((Request::CreateSave, failure))),
                },
            };
            let request = Request::Authenticated {
                save_renewed: self.renewed,
            };
            match send(self.transport, &credentials).await {
                Ok(answer) => return Ok(Ok(answer)),
                Err(failure) if classify(request, &failure) == Disposition::RenewSave => {
                    self.renew(&credentials).await?;
                }
                Err(failure) => return Ok(Err((request, failure))),
            }
        }
    }

    /// The save to send with: one another context stored meanwhile, or a new one
    /// created under the stored `Idempotency-Key` (the same on every attempt).
    async fn create_save(&mut self) -> Result<Result<Credentials, Failure>, SyncError> {
        let idempotency_key = match self.db().await?.begin_save().await? {
            SaveStart::Existing(stored) => {
                self.credentials = Some(stored);
                return Ok(Ok(stored));
            }
            SaveStart::Create { idempotency_key } => idempotency_key,
        };
        match self.transport.create_save(idempotency_key).await {
            Ok(save) => {
                // One connection for these steps: no network call between them.
                let db = self.db().await?;
                let created = adopt(&db, &save).await?;
                // A new save holds nothing yet and this flush sends what is pending;
                // after a renewal the flush re-queues the delivered bests too. So the
                // next daily heal is due a day from now.
                db.set_healed_at(now_ms()).await?;
                self.credentials = Some(created);
                Ok(Ok(created))
            }
            Err(failure) => {
                if classify(Request::CreateSave, &failure) == Disposition::Blocked {
                    // The API refused the request itself: the next try gets a new key.
                    self.db().await?.drop_save_request().await?;
                }
                Ok(Err(failure))
            }
        }
    }

    /// The server does not know the save (say, restored from an older backup): forget
    /// it, unless another context already replaced it, so the next send makes a new one.
    pub(crate) async fn renew(&mut self, unknown: &Credentials) -> Result<(), SyncError> {
        self.db().await?.forget_credentials(unknown).await?;
        self.credentials = None;
        self.acked.clear();
        self.renewed = true;
        self.report.renewed = true;
        Ok(())
    }

    /// Stores the failure on the entry (if it is still the one sent) and counts it.
    async fn record(
        &mut self,
        entry: &OutboxEntry,
        request: Request,
        failure: &Failure,
    ) -> Result<(), SyncError> {
        let mut sync = entry.sync.clone();
        let disposition = sync.record_failure(request, failure, now_ms(), js_sys::Math::random());
        self.db().await?.set_sync_state(entry, sync).await?;
        match disposition {
            Disposition::Blocked => self.report.blocked += 1,
            Disposition::Retryable | Disposition::RenewSave => self.report.retryable += 1,
        }
        Ok(())
    }
}

/// This device now plays as `save`: its credentials are stored and its profile is the
/// one confirmed.
pub(crate) async fn adopt(db: &Db, save: &SaveCreated) -> Result<Credentials, SyncError> {
    let credentials = Credentials::from(save);
    db.set_credentials(&credentials).await?;
    db.update_profile_queue(|queue| ((), queue.adopt(Confirmed::from(save))))
        .await?;
    Ok(credentials)
}

pub(crate) fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
