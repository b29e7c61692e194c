//! The one HTTP client of KeyDo's browser code, the page's own calls and the sync's
//! alike: [`call`] adds the save's bearer token, aborts a request after
//! [`REQUEST_TIMEOUT_MS`], and turns every failure into a [`Failure`] that knows
//! whether the body was the API's own (and keeps its message for the page to show).
//! [`Http`] is the sync's [`Transport`] over it.

use crate::Transport;
use crate::deadline::Deadline;
use gloo_net::http::{Request, RequestBuilder, Response};
use keydo_core::api::{
    CreateSave, Credentials, ErrorBody, IDEMPOTENCY_KEY_HEADER, KeyedOperation, ProfileAnswer,
    ProfileAnswers, ProfileOperations, Save, SaveCreated, ScoreAck, ScoreSubmission,
};
use keydo_core::profile::QueuedOperation;
use keydo_core::sync::classify::{Failure, REQUEST_TIMEOUT_MS};
use keydo_core::sync::outbox::OutboxEntry;
use serde::Serialize;
use serde::de::DeserializeOwned;
use uuid::Uuid;

/// The API of the origin the page or worker was served from.
#[derive(Debug, Clone, Copy, Default)]
pub struct Http;

impl Transport for Http {
    async fn create_save(&self, idempotency_key: Uuid) -> Result<SaveCreated, Failure> {
        let request = Request::post("/api/saves")
            .header(IDEMPOTENCY_KEY_HEADER, &idempotency_key.to_string());
        call(request, None, Some(&CreateSave::default())).await
    }

    async fn submit_score(
        &self,
        credentials: &Credentials,
        entry: &OutboxEntry,
    ) -> Result<ScoreAck, Failure> {
        let submission = ScoreSubmission::from(entry);
        call(
            Request::post("/api/scores"),
            Some(credentials),
            Some(&submission),
        )
        .await
    }

    async fn fetch_save(&self, credentials: &Credentials) -> Result<Save, Failure> {
        call(
            Request::get("/api/saves/me"),
            Some(credentials),
            None::<&()>,
        )
        .await
    }

    async fn send_profile(
        &self,
        credentials: &Credentials,
        operations: &[QueuedOperation],
    ) -> Result<Vec<ProfileAnswer>, Failure> {
        let body = ProfileOperations {
            operations: operations
                .iter()
                .map(|operation| KeyedOperation {
                    idempotency_key: operation.operation_id,
                    operation: operation.request(),
                })
                .collect(),
        };
        let request = Request::post("/api/saves/me/operations");
        let answered: ProfileAnswers = call(request, Some(credentials), Some(&body)).await?;
        Ok(answered.answers)
    }
}

/// Sends `request` (as `credentials`' save when given, with `body` as JSON) and reads
/// its JSON answer (an empty one reads as `null`), all within [`REQUEST_TIMEOUT_MS`].
pub async fn call<T: DeserializeOwned>(
    mut request: RequestBuilder,
    credentials: Option<&Credentials>,
    body: Option<&impl Serialize>,
) -> Result<T, Failure> {
    if let Some(credentials) = credentials {
        request = request.header("Authorization", &format!("Bearer {}", credentials.token));
    }
    let deadline = Deadline::start(REQUEST_TIMEOUT_MS).map_err(|_| Failure::Network)?;
    let request = request.abort_signal(Some(&deadline.signal()));
    let request = match body {
        Some(body) => request.json(body),
        None => request.build(),
    }
    .map_err(|_| Failure::InvalidResponse)?;
    let answer = async {
        let response = request.send().await.map_err(|_| Failure::Network)?;
        read(response).await
    }
    .await;
    match answer {
        // Aborted by the deadline, whatever the browser called the failure.
        Err(_) if deadline.expired() => Err(Failure::Timeout),
        answer => answer,
    }
}

async fn read<T: DeserializeOwned>(response: Response) -> Result<T, Failure> {
    if response.ok() {
        // A captive portal's 200 page is not the API's answer.
        let text = response
            .text()
            .await
            .map_err(|_| Failure::InvalidResponse)?;
        let text = if text.is_empty() { "null" } else { &text };
        return serde_json::from_str(text).map_err(|_| Failure::InvalidResponse);
    }
    let retry_after = response.headers().get("retry-after");
    // Only the API's own error body carries a code; a proxy's page or JSON does not.
    let body: Option<ErrorBody> = response.json().await.ok();
    let code = body.as_ref().map(|b| b.error.code.as_str());
    let failure = Failure::http(response.status(), code, retry_after.as_deref());
    Err(failure.with_message(body.map(|b| b.error.message)))
}
