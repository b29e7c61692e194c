//! The profile operations inside a flush (docs/profile.md): the head of the line goes
//! with up to [`OPERATIONS_PER_REQUEST`] after it in one request, which the server
//! applies in order, and only once they are answered the next request goes, so the
//! server applies a device's changes in the order they were made. A resend after a
//! lost answer carries the same keys and bodies, and the server answers each from its
//! record.

use crate::Transport;
use crate::flush::{Flush, SyncError, now_ms};
use keydo_core::profile::{
    Confirmed, Conflict, OPERATIONS_PER_REQUEST, ProfileQueue, QueuedOperation, Write,
    held_for_sending,
};
use keydo_core::sync::classify::Disposition;
use keydo_core::sync::coalesce::FlushKind;
use uuid::Uuid;

/// An answered operation, to store in the next step.
type Answered = (Uuid, Confirmed, Vec<Conflict>);

impl<T: Transport> Flush<'_, T> {
    /// Sends the operations in line that `kind` makes due, head first, until one waits.
    pub(crate) async fn send_profile(&mut self, kind: FlushKind) -> Result<(), SyncError> {
        let in_line = self.db().await?.profile_queue().await?.in_line();
        // The answers to a request are stored in the step that picks the next one:
        // one connection and one transaction per request sent.
        let mut answered: Vec<Answered> = Vec::new();
        // Each pass answers or takes out at least one operation, or stops.
        for _ in 0..in_line {
            let answers = std::mem::take(&mut answered);
            // The operations to send are picked and marked as sent in one transaction.
            let (sending, _) = self
                .db()
                .await?
                .update_profile_queue_holding(held_for_sending(answers.len()), |queue| {
                    let mut writes = store_answers(queue, answers);
                    let sending: Vec<QueuedOperation> = queue
                        .next_due(now_ms(), kind, OPERATIONS_PER_REQUEST)
                        .cloned()
                        .collect();
                    for operation in &sending {
                        writes.extend(queue.sending(operation.operation_id));
                    }
                    (sending, writes)
                })
                .await?;
            let Some(head) = sending.first().map(|operation| operation.operation_id) else {
                break;
            };
            let sent = self
                .with_save(async |transport, credentials| {
                    transport.send_profile(credentials, &sending).await
                })
                .await?;
            match sent {
                // Those left unanswered stay at the head of the line; the first of them
                // goes first in the next request and gets its refusal.
                Ok(answers) if !answers.is_empty() => {
                    for (operation, answer) in sending.iter().zip(answers) {
                        self.report.profile_sent += 1;
                        if answer.conflicts.iter().any(Conflict::lost) {
                            self.report.profile_conflicts += 1;
                        }
                        let confirmed = Confirmed::from(&answer);
                        answered.push((operation.operation_id, confirmed, answer.conflicts));
                    }
                }
                Ok(_) => break,
                Err((request, failure)) => {
                    let (disposition, _) = self
                        .db()
                        .await?
                        .update_profile_queue(|queue| {
                            match queue.failed(
                                head,
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
        // The last answers, when no pass was left to pick a next request.
        if !answered.is_empty() {
            self.db()
                .await?
                .update_profile_queue_holding(held_for_sending(answered.len()), |queue| {
                    ((), store_answers(queue, answered))
                })
                .await?;
        }
        Ok(())
    }
}

/// The writes that take answered operations out of the line, in the order sent.
fn store_answers(queue: &mut ProfileQueue, answers: Vec<Answered>) -> Vec<Write> {
    answers
        .into_iter()
        .flat_map(|(id, confirmed, conflicts)| queue.applied(id, confirmed, conflicts))
        .collect()
}
