//! The client's operation outbox (docs/profile.md, "Operation outbox"): the profile
//! changes a device made and has not yet had answered, in the order it made them.
//!
//! Each operation gets its `operationId` (the `Idempotency-Key`) and its place in line
//! when it is queued, and keeps both through every resend and restart. The head of the
//! line goes first, with up to [`OPERATIONS_PER_REQUEST`] after it in the same request,
//! which the server applies in order; the next request goes once those are answered, so
//! the server sees a device's changes in the order the player made them. The page shows the profile as
//! the server last confirmed it with every queued change applied on top, so a change
//! shows at once, offline too.
//!
//! The queue does no I/O. Each step returns the [`Write`]s that make it durable; the
//! caller stores them before it shows the step's result.
//!
//! A step needs only the ends of the line, so that is what a [`ProfileQueue`] holds:
//! the operations kept to be shown (answered with a conflict or refused: they leave
//! from the head, so they come before every queued one), the first few still queued
//! ([`LOADED_IN_LINE`] to queue a change, [`held_for_sending`] for a flush's step), and
//! a [`LineSummary`] of the rest — how many are in line, the last place taken, and per
//! field the value the last queued change sets. A step costs the same with 1,000
//! changes in line as with one.

use super::field::{Changes, Field, Profile};
use super::resolve::{Conflict, ProfileOperation};
use crate::sync::classify::{Disposition, ErrorCode, Failure, Request};
use crate::sync::coalesce::FlushKind;
use crate::sync::outbox::SyncState;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use uuid::Uuid;

/// The profile as the server last confirmed it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Confirmed {
    pub version: i64,
    pub profile: Profile,
}

impl Confirmed {
    /// Before the first save, nothing is confirmed: version 0, no name, the default
    /// settings.
    pub fn none() -> Confirmed {
        Confirmed {
            version: 0,
            profile: Profile::named(""),
        }
    }
}

/// Where an operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OperationState {
    /// In line, waiting for its turn or its next attempt.
    Pending,
    /// Sent and not yet answered. After a restart it is sent again with the same key.
    Sending,
    /// Answered, with a change of the player's dropped; kept to be shown until
    /// dismissed.
    Conflict,
    /// Refused for good (a name another player has); kept to be shown until dismissed.
    Failed,
}

/// What a device shows of its profile without reading its queue: the profile with
/// every queued change on top, the version the server last confirmed, and how many
/// changes are in line. Stored beside the queue by every step on it, so a page starts
/// from one small record (docs/profile.md, "Operation outbox").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalProfile {
    pub profile: Profile,
    pub version: i64,
    pub in_line: usize,
}

/// One queued profile change, as stored: one object, its [`SyncState`]'s fields beside
/// its own ([`StoredOperation`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "StoredOperation", into = "StoredOperation")]
pub struct QueuedOperation {
    /// Sent as the `Idempotency-Key`.
    pub operation_id: Uuid,
    /// Its place in line.
    pub seq: u64,
    pub payload: Changes,
    pub base_version: i64,
    pub base: Changes,
    /// When the player made the change (the operation's `changedAt`), unix ms.
    pub created_at: u64,
    pub state: OperationState,
    pub sync: SyncState,
    /// The conflicts a [`OperationState::Conflict`] operation met.
    pub conflicts: Vec<Conflict>,
}

/// A [`QueuedOperation`] as its object stores it. The sync state's fields are listed
/// here rather than flattened in: serde reads a flattened struct by buffering the whole
/// object first, code several times this size in the page's first download
/// (docs/performance.md, "What loads first").
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct StoredOperation {
    operation_id: Uuid,
    seq: u64,
    payload: Changes,
    base_version: i64,
    base: Changes,
    created_at: u64,
    state: OperationState,
    attempts: u32,
    next_attempt_at: u64,
    last_error: Option<ErrorCode>,
    blocked: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    conflicts: Vec<Conflict>,
}

impl From<StoredOperation> for QueuedOperation {
    fn from(stored: StoredOperation) -> QueuedOperation {
        QueuedOperation {
            operation_id: stored.operation_id,
            seq: stored.seq,
            payload: stored.payload,
            base_version: stored.base_version,
            base: stored.base,
            created_at: stored.created_at,
            state: stored.state,
            sync: SyncState {
                attempts: stored.attempts,
                next_attempt_at: stored.next_attempt_at,
                last_error: stored.last_error,
                blocked: stored.blocked,
            },
            conflicts: stored.conflicts,
        }
    }
}

impl From<QueuedOperation> for StoredOperation {
    fn from(operation: QueuedOperation) -> StoredOperation {
        StoredOperation {
            operation_id: operation.operation_id,
            seq: operation.seq,
            payload: operation.payload,
            base_version: operation.base_version,
            base: operation.base,
            created_at: operation.created_at,
            state: operation.state,
            attempts: operation.sync.attempts,
            next_attempt_at: operation.sync.next_attempt_at,
            last_error: operation.sync.last_error,
            blocked: operation.sync.blocked,
            conflicts: operation.conflicts,
        }
    }
}

impl QueuedOperation {
    /// The request body.
    pub fn request(&self) -> ProfileOperation {
        ProfileOperation {
            base_version: self.base_version,
            base: self.base.clone(),
            changes: self.payload.clone(),
            changed_at: self.created_at,
        }
    }

    /// Whether it was never sent: its body may still change.
    fn is_unsent(&self) -> bool {
        self.state == OperationState::Pending && self.sync.attempts == 0
    }

    /// Whether it is still in line to be sent.
    pub fn is_queued(&self) -> bool {
        matches!(
            self.state,
            OperationState::Pending | OperationState::Sending
        )
    }
}

/// How many of the queued operations a [`ProfileQueue`] holds for a change: the head
/// and the one after it, which the head's answer may rebase.
pub const LOADED_IN_LINE: usize = 2;

/// How many operations one request carries at most (`POST /api/saves/me/operations`).
pub const OPERATIONS_PER_REQUEST: usize = 16;

/// How many queued operations a flush's step holds, which stores the answers to
/// `answers` operations: those, the next request's, and the one after them, which the
/// last answer may rebase.
pub fn held_for_sending(answers: usize) -> usize {
    answers + OPERATIONS_PER_REQUEST + 1
}

/// What to store after a step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write {
    /// Store this operation (new or changed), by its `seq`.
    Put(QueuedOperation),
    /// Remove the operation with this `seq`.
    Delete(u64),
    /// Store the confirmed profile.
    Confirmed(Confirmed),
    /// Store the line's summary.
    Summary(LineSummary),
}

impl Write {
    /// What it writes to: a record of the line by its place, or one of the two kept
    /// beside it.
    fn target(&self) -> (u8, u64) {
        match self {
            Write::Put(operation) => (0, operation.seq),
            Write::Delete(seq) => (0, *seq),
            Write::Confirmed(_) => (1, 0),
            Write::Summary(_) => (2, 0),
        }
    }

    /// The writes that leave the store as all of `writes` in order would: the last one
    /// to each record. A step that stores many answers rewrites the summary and the
    /// confirmed profile with each; only the last of those needs storing.
    pub fn coalesced(writes: Vec<Write>) -> Vec<Write> {
        let last: BTreeMap<(u8, u64), usize> = writes
            .iter()
            .enumerate()
            .map(|(index, write)| (write.target(), index))
            .collect();
        writes
            .into_iter()
            .enumerate()
            .filter(|(index, write)| last[&write.target()] == *index)
            .map(|(_, write)| write)
            .collect()
    }
}

/// The line beyond the operations a [`ProfileQueue`] holds, kept beside them so no
/// step reads the whole line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineSummary {
    /// How many operations are still to be sent.
    pub in_line: usize,
    /// The last place in line taken (places are never reused).
    pub last_seq: u64,
    /// Per field, the value the last queued change of it sets…
    pub values: Changes,
    /// …and that change's place in line.
    pub set_by: BTreeMap<Field, u64>,
}

impl LineSummary {
    /// The summary of a whole stored line (a line stored before summaries were).
    pub fn of(operations: &[QueuedOperation]) -> LineSummary {
        let mut summary = LineSummary {
            last_seq: operations.iter().map(|op| op.seq).max().unwrap_or(0),
            ..LineSummary::default()
        };
        let mut queued: Vec<&QueuedOperation> =
            operations.iter().filter(|op| op.is_queued()).collect();
        queued.sort_by_key(|op| op.seq);
        for operation in queued {
            summary.joined(operation);
        }
        summary
    }

    /// Whether this summary holds for a store whose head reads `held` (the kept
    /// operations and the first `holding` queued) and whose last place is `last_seq`. It
    /// does not when a tab of an earlier release, which keeps no summary, changed the
    /// line: the caller then makes it again from the whole line.
    pub fn holds_for(
        &self,
        held: &[QueuedOperation],
        last_seq: Option<u64>,
        holding: usize,
    ) -> bool {
        let queued = held.iter().filter(|op| op.is_queued()).count();
        queued.min(holding) == self.in_line.min(holding)
            && last_seq.is_none_or(|last| last <= self.last_seq)
    }

    fn joined(&mut self, operation: &QueuedOperation) {
        self.in_line += 1;
        self.last_seq = self.last_seq.max(operation.seq);
        for value in operation.payload.values() {
            self.set_by.insert(value.field(), operation.seq);
            self.values.insert(value);
        }
    }

    /// `operation` left the line; a field a later one sets keeps that one's value.
    fn left(&mut self, operation: &QueuedOperation) {
        self.in_line = self.in_line.saturating_sub(1);
        self.set_by.retain(|_, seq| *seq != operation.seq);
        let set_by = &self.set_by;
        self.values = self
            .values
            .values()
            .into_iter()
            .filter(|value| set_by.contains_key(&value.field()))
            .collect();
    }
}

/// The ends of the line a step works on (see the module's doc): the confirmed
/// profile, the operations kept to be shown and the first queued ones, in `seq`
/// order, and the summary of the line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProfileQueue {
    confirmed: Confirmed,
    operations: Vec<QueuedOperation>,
    summary: LineSummary,
}

impl ProfileQueue {
    /// The queue of a whole stored line, holding its first `holding` queued.
    pub fn new(
        confirmed: Confirmed,
        operations: Vec<QueuedOperation>,
        holding: usize,
    ) -> ProfileQueue {
        let summary = LineSummary::of(&operations);
        ProfileQueue::loaded(confirmed, operations, summary, holding)
    }

    /// The queue as loaded: `operations` holds at least the kept ones and the first
    /// `holding` queued (more are dropped), `summary` the line.
    pub fn loaded(
        confirmed: Confirmed,
        mut operations: Vec<QueuedOperation>,
        summary: LineSummary,
        holding: usize,
    ) -> ProfileQueue {
        operations.sort_by_key(|operation| operation.seq);
        let mut queued = 0;
        operations.retain(|op| {
            queued += usize::from(op.is_queued());
            !op.is_queued() || queued <= holding
        });
        ProfileQueue {
            confirmed,
            operations,
            summary,
        }
    }

    pub fn confirmed(&self) -> &Confirmed {
        &self.confirmed
    }

    pub fn summary(&self) -> &LineSummary {
        &self.summary
    }

    /// The operations held: those kept to be shown, then the first of the line.
    pub fn operations(&self) -> &[QueuedOperation] {
        &self.operations
    }

    /// The first operations still to be sent (those held), in order.
    pub fn queued(&self) -> impl Iterator<Item = &QueuedOperation> {
        self.operations.iter().filter(|op| op.is_queued())
    }

    /// How many operations are still to be sent.
    pub fn in_line(&self) -> usize {
        self.summary.in_line
    }

    /// What the player sees: the confirmed profile with every queued change on top.
    pub fn local(&self) -> Profile {
        self.confirmed.profile.with(&self.summary.values)
    }

    /// What the device shows of the queue but its kept operations ([`LocalProfile`]).
    pub fn local_profile(&self) -> LocalProfile {
        LocalProfile {
            profile: self.local(),
            version: self.confirmed.version,
            in_line: self.in_line(),
        }
    }

    /// Queues a change the player made at `now_ms`, under `operation_id`. Fields that
    /// already have the asked value are left out; no writes if that leaves nothing.
    pub fn queue(&mut self, changes: &Changes, operation_id: Uuid, now_ms: u64) -> Vec<Write> {
        let local = self.local();
        let payload: Changes = changes
            .values()
            .into_iter()
            .filter(|value| local.get(value.field()) != *value)
            .collect();
        if payload.is_empty() {
            return Vec::new();
        }
        let operation = QueuedOperation {
            operation_id,
            seq: self.summary.last_seq + 1,
            base: local.base_for(&payload),
            payload,
            base_version: self.confirmed.version,
            created_at: now_ms,
            state: OperationState::Pending,
            sync: SyncState::default(),
            conflicts: Vec::new(),
        };
        self.summary.joined(&operation);
        if self.queued().count() < LOADED_IN_LINE {
            self.operations.push(operation.clone());
        }
        vec![Write::Put(operation), Write::Summary(self.summary.clone())]
    }

    /// The operations a flush of `kind` sends now, in one request: the head of the line
    /// and those after it, up to `max`, as long as each is due (strict order: one that
    /// waits holds back the rest).
    pub fn next_due(
        &self,
        now_ms: u64,
        kind: FlushKind,
        max: usize,
    ) -> impl Iterator<Item = &QueuedOperation> {
        self.queued()
            .take_while(move |operation| operation.sync.is_due(now_ms, kind))
            .take(max)
    }

    /// When the head of the line is due again, if it waits.
    pub fn next_retry_at(&self) -> Option<u64> {
        self.queued()
            .next()
            .map(|head| head.sync.next_attempt_at)
            .filter(|&at| at > 0)
    }

    /// The device now sends with another save (a new one after the server forgot the
    /// old, or the player's after linking): its profile is the one confirmed, whatever
    /// its version, and the line is rebased on it.
    pub fn adopt(&mut self, server: Confirmed) -> Vec<Write> {
        // Below every version, so `confirm` takes the new one.
        self.confirmed.version = i64::MIN;
        self.confirm(server)
    }

    /// Marks the operation as sent, before it goes.
    pub fn sending(&mut self, operation_id: Uuid) -> Option<Write> {
        let operation = self.find(operation_id)?;
        operation.state = OperationState::Sending;
        Some(Write::Put(operation.clone()))
    }

    /// The server answered the operation: it leaves the line (kept, as a conflict, if
    /// a change of the player's was dropped), the answer becomes the confirmed profile,
    /// and the operations after it are rebased where the answer is what they saw.
    pub fn applied(
        &mut self,
        operation_id: Uuid,
        answer: Confirmed,
        conflicts: Vec<Conflict>,
    ) -> Vec<Write> {
        let mut writes = Vec::new();
        if let Some(index) = self
            .operations
            .iter()
            .position(|op| op.operation_id == operation_id && op.is_queued())
        {
            self.summary.left(&self.operations[index]);
            let lost: Vec<Conflict> = conflicts.into_iter().filter(Conflict::lost).collect();
            if lost.is_empty() {
                writes.push(Write::Delete(self.operations.remove(index).seq));
            } else {
                let operation = &mut self.operations[index];
                operation.state = OperationState::Conflict;
                operation.conflicts = lost;
                writes.push(Write::Put(operation.clone()));
            }
            writes.push(Write::Summary(self.summary.clone()));
        }
        writes.extend(self.confirm(answer));
        writes
    }

    /// The server's profile, from an answer or `GET /api/saves/me`. An older version
    /// than the one confirmed is ignored. Operations never sent among the first in line
    /// whose `base` equals the new confirmed values take its version: they were made on
    /// top of what it holds. (Every operation is among them when the one before it is
    /// answered.) One that was sent keeps its body, since a resend under its key must
    /// be the same request.
    pub fn confirm(&mut self, server: Confirmed) -> Vec<Write> {
        if server.version < self.confirmed.version {
            return Vec::new();
        }
        let mut writes = Vec::new();
        if server != self.confirmed {
            self.confirmed = server;
            writes.push(Write::Confirmed(self.confirmed.clone()));
        }
        let confirmed = &self.confirmed;
        for operation in self.operations.iter_mut().filter(|op| op.is_unsent()) {
            if operation.base_version != confirmed.version
                && confirmed.profile.base_for(&operation.base) == operation.base
            {
                operation.base_version = confirmed.version;
                writes.push(Write::Put(operation.clone()));
            }
        }
        writes
    }

    /// Sending the operation failed at `now_ms`; `jitter` in `[0, 1)` spreads the
    /// backoff. A refusal for good takes it out of the line as
    /// [`OperationState::Failed`], so the changes after it still go.
    pub fn failed(
        &mut self,
        operation_id: Uuid,
        request: Request,
        failure: &Failure,
        now_ms: u64,
        jitter: f64,
    ) -> Option<(Disposition, Vec<Write>)> {
        let operation = self.find(operation_id)?;
        let disposition = operation
            .sync
            .record_failure(request, failure, now_ms, jitter);
        let mut writes = Vec::new();
        if disposition == Disposition::Blocked {
            operation.state = OperationState::Failed;
            let operation = operation.clone();
            self.summary.left(&operation);
            writes.push(Write::Put(operation));
            writes.push(Write::Summary(self.summary.clone()));
        } else {
            operation.state = OperationState::Pending;
            writes.push(Write::Put(operation.clone()));
        }
        Some((disposition, writes))
    }

    /// The player read a conflict or a refusal: it is forgotten.
    pub fn dismiss(&mut self, operation_id: Uuid) -> Option<Write> {
        let index = self
            .operations
            .iter()
            .position(|op| op.operation_id == operation_id && !op.is_queued())?;
        Some(Write::Delete(self.operations.remove(index).seq))
    }

    /// A queued operation held.
    fn find(&mut self, operation_id: Uuid) -> Option<&mut QueuedOperation> {
        self.operations
            .iter_mut()
            .find(|op| op.operation_id == operation_id && op.is_queued())
    }
}
