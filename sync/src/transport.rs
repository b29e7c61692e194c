//! The API calls the sync makes, as a seam: the flush talks to a [`Transport`],
//! the real one over HTTP ([`crate::Http`]) or a scripted one in tests.

use keydo_core::api::{Credentials, ProfileAnswer, Save, SaveCreated, ScoreAck};
use keydo_core::profile::QueuedOperation;
use keydo_core::sync::classify::Failure;
use keydo_core::sync::outbox::OutboxEntry;
use uuid::Uuid;

/// How the flush reaches the API. Every failure comes back as a [`Failure`] that
/// `core` classifies; none is lost to a panic or an endless wait.
// The page and the worker are single-threaded: no `Send` bound on the futures.
#[allow(async_fn_in_trait)]
pub trait Transport {
    /// `POST /api/saves` with a generated name, sending `idempotency_key` so a resend
    /// after a lost answer returns the same save.
    async fn create_save(&self, idempotency_key: Uuid) -> Result<SaveCreated, Failure>;

    /// `POST /api/scores` for one outbox entry.
    async fn submit_score(
        &self,
        credentials: &Credentials,
        entry: &OutboxEntry,
    ) -> Result<ScoreAck, Failure>;

    /// `GET /api/saves/me`: the save and the bests the server holds for it.
    async fn fetch_save(&self, credentials: &Credentials) -> Result<Save, Failure>;

    /// `POST /api/saves/me/operations`: profile operations in the order they were
    /// made, each under its `operationId` as its key. The answers to the first ones, in
    /// order; fewer than sent when the next was refused. A failure is the first one's.
    async fn send_profile(
        &self,
        credentials: &Credentials,
        operations: &[QueuedOperation],
    ) -> Result<Vec<ProfileAnswer>, Failure>;
}
