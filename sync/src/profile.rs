//! The profile operations inside a flush (docs/profile.md): the head of the line is
//! sent, answered, and only then the next, so the server applies a device's changes in
//! the order they were made. A resend after a lost answer carries the same key and
//! body, and the server answers it from its record.

use crate::Transport;
use crate::flush::{Flush, SyncError, now_ms};
use keydo_core::classify::Disposition;
use keydo_core::coalesce::FlushKind;
use keydo_core::profile::{Confirmed, Conflict};

impl<T: Transport> Flush<'_, T> {
    /// Sends the operations in line that `kind` makes due, head first, until one waits.
    pub(crate) async fn send_profile(&mut self, kind: FlushKind) -> Result<(), SyncError> {
        let in_line = self.db.profile_queue().await?.queued().count();
        // Each pass answers or takes out one operation, or stops.
        for _ in 0..in_line {
            // The head is picked and marked as sent in one transaction.
            let (head, _) = self
                .db
                .update_profile_queue(|queue| {
                    let Some(head) = queue.next_due(now_ms(), kind).cloned() else {
                        return (None, Vec::new());
                    };
                    let sending = queue.sending(head.operation_id).into_iter().collect();
                    (Some(head), sending)
                })
                .await?;
            let Some(head) = head else {
                break;
            };
            let id = head.operation_id;
            let sent = self
                .with_save(async |transport, credentials| {
                    transport.patch_profile(credentials, &head).await
                })
                .await?;
            match sent {
                Ok(answer) => {
                    let confirmed = Confirmed::from(&answer);
                    self.report.profile_sent += 1;
                    if answer.conflicts.iter().any(Conflict::lost) {
                        self.report.profile_conflicts += 1;
                    }
                    self.db
                        .update_profile_queue(|queue| {
                            ((), queue.applied(id, confirmed, answer.conflicts))
                        })
                        .await?;
                }
                Err((request, failure)) => {
                    let (disposition, _) = self
                        .db
                        .update_profile_queue(|queue| {
                            match queue.failed(
                                id,
                                request,
                                &failure,
                                now_ms(),
                                js_sys::Math::random(),
                            ) {
                                Some((disposition, write)) => (Some(disposition), vec![write]),
                                None => (None, Vec::new()),
                            }
                        })
                        .await?;
                    if disposition == Some(Disposition::Blocked) {
                        // Out of the line: the changes after it still go.
                        self.report.profile_refused += 1;
                        continue;
                    }
                    break;
                }
            }
        }
        Ok(())
    }
}
