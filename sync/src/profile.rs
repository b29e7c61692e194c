//! The profile operations inside a flush (docs/profile.md): the head of the line is
//! sent, answered, and only then the next, so the server applies a device's changes in
//! the order they were made. A resend after a lost answer carries the same key and
//! body, and the server answers it from its record.

use crate::Transport;
use crate::flush::{Flush, SyncError, now_ms};
use keydo_core::profile::{Confirmed, Conflict};
use keydo_core::sync::classify::Disposition;
use keydo_core::sync::coalesce::FlushKind;
use uuid::Uuid;

impl<T: Transport> Flush<'_, T> {
    /// Sends the operations in line that `kind` makes due, head first, until one waits.
    pub(crate) async fn send_profile(&mut self, kind: FlushKind) -> Result<(), SyncError> {
        let in_line = self.db().await?.profile_queue().await?.in_line();
        // An answer is stored in the step that picks the next head: one connection
        // and one transaction per operation sent.
        let mut answered: Option<(Uuid, Confirmed, Vec<Conflict>)> = None;
        // Each pass answers or takes out one operation, or stops.
        for _ in 0..in_line {
            // The head is picked and marked as sent in one transaction.
            let (head, _) = self
                .db()
                .await?
                .update_profile_queue(|queue| {
                    let mut writes = answered
                        .take()
                        .map_or_else(Vec::new, |(id, confirmed, conflicts)| {
                            queue.applied(id, confirmed, conflicts)
                        });
                    let head = queue.next_due(now_ms(), kind).cloned();
                    if let Some(head) = &head {
                        writes.extend(queue.sending(head.operation_id));
                    }
                    (head, writes)
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
                    answered = Some((id, confirmed, answer.conflicts));
                }
                Err((request, failure)) => {
                    let (disposition, _) = self
                        .db()
                        .await?
                        .update_profile_queue(|queue| {
                            match queue.failed(
                                id,
                                request,
                                &failure,
                                now_ms(),
                                js_sys::Math::random(),
                            ) {
                                Some((disposition, writes)) => (Some(disposition), writes),
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
        // The last answer, when no pass was left to pick a next head.
        if let Some((id, confirmed, conflicts)) = answered {
            self.db()
                .await?
                .update_profile_queue(|queue| ((), queue.applied(id, confirmed, conflicts)))
                .await?;
        }
        Ok(())
    }
}
