//! Restore healing inside a flush: compare the server's bests (`GET /api/saves/me`)
//! with the bests it acknowledged before, and re-queue what it lacks. Runs at most
//! once a day, and after the save is renewed (a new save lacks everything).

use crate::Transport;
use crate::flush::{Flush, SyncError, now_ms};
use keydo_core::api::week::week_of;
use keydo_core::profile::Confirmed;
use keydo_core::sync::classify::{Disposition, Failure, Request, classify};
use keydo_core::sync::heal::missing_on_server;
use keydo_storage::Db;
use uuid::Uuid;

impl<T: Transport> Flush<'_, T> {
    /// Heals from the server's answer. Returns the failure to record on this flush's
    /// entries instead of sending them when the server could not be reached.
    pub(crate) async fn heal(&mut self) -> Result<Option<(Request, Failure)>, SyncError> {
        let Some(credentials) = self.credentials else {
            return Ok(None);
        };
        let request = Request::Authenticated {
            save_renewed: self.renewed,
        };
        match self.transport.fetch_save(&credentials).await {
            Ok(save) => {
                // One connection for these steps: no network call between them.
                let db = self.db().await?;
                db.update_profile_queue(|queue| ((), queue.confirm(Confirmed::from(&save))))
                    .await?;
                let delivered = db.delivered().await?;
                let missing = missing_on_server(save.week, &save.bests, &delivered);
                self.report.requeued += db.requeue(&missing).await?.len();
                db.set_healed_at(now_ms()).await?;
            }
            Err(failure) => match classify(request, &failure) {
                Disposition::RenewSave => {
                    self.renew(&credentials).await?;
                    self.requeue_for_new_save().await?;
                }
                _ if failure.is_unreachable() => return Ok(Some((request, failure))),
                // Another day (or the next flush) tries again.
                Disposition::Retryable | Disposition::Blocked => {}
            },
        }
        Ok(None)
    }

    /// After a renewal: the new save lacks every delivered best but those it has
    /// acknowledged since. Returns the ids re-queued.
    pub(crate) async fn requeue_for_new_save(&mut self) -> Result<Vec<Uuid>, SyncError> {
        let requeued = requeue_delivered(&self.db().await?, &self.acked).await?;
        self.report.requeued += requeued.len();
        Ok(requeued)
    }
}

/// Puts every delivered best back into the outbox but those in `acked`: the save now
/// in use lacks them. Returns the ids re-queued.
pub(crate) async fn requeue_delivered(db: &Db, acked: &[Uuid]) -> Result<Vec<Uuid>, SyncError> {
    let delivered = db.delivered().await?;
    let mut missing = missing_on_server(week_of(now_ms() as i64), &[], &delivered);
    missing.retain(|e| !acked.contains(&e.score_id));
    let requeued = db.requeue(&missing).await?;
    db.set_healed_at(now_ms()).await?;
    Ok(requeued)
}
