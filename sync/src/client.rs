//! The real [`Transport`]: the API over `fetch` (gloo-net), each request aborted
//! after [`REQUEST_TIMEOUT_MS`], every failure turned into a [`Failure`] that knows
//! whether the body was the API's own.

use crate::Transport;
use crate::deadline::Deadline;
use gloo_net::http::{Request, RequestBuilder, Response};
use keydo_core::api::{
    CreateSave, ErrorBody, IDEMPOTENCY_KEY_HEADER, ProfileAnswer, Save, SaveCreated, ScoreAck,
    ScoreSubmission,
};
use keydo_core::profile::QueuedOperation;
use keydo_core::sync::classify::{Failure, REQUEST_TIMEOUT_MS};
use keydo_core::sync::outbox::OutboxEntry;
use keydo_storage::Credentials;
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
        send(request, Some(&CreateSave::default())).await
    }

    async fn submit_score(
        &self,
        credentials: &Credentials,
        entry: &OutboxEntry,
    ) -> Result<ScoreAck, Failure> {
        let request = authorized(Request::post("/api/scores"), credentials);
        send(request, Some(&ScoreSubmission::from(entry))).await
    }

    async fn fetch_save(&self, credentials: &Credentials) -> Result<Save, Failure> {
        send(
            authorized(Request::get("/api/saves/me"), credentials),
            None::<&()>,
        )
        .await
    }

    async fn patch_profile(
        &self,
        credentials: &Credentials,
        operation: &QueuedOperation,
    ) -> Result<ProfileAnswer, Failure> {
        let request = authorized(Request::patch("/api/saves/me"), credentials)
            .header(IDEMPOTENCY_KEY_HEADER, &operation.operation_id.to_string());
        send(request, Some(&operation.request())).await
    }
}

fn authorized(request: RequestBuilder, credentials: &Credentials) -> RequestBuilder {
    request.header("Authorization", &format!("Bearer {}", credentials.token))
}

/// Sends `request` (with `body` as JSON) and reads the answer, all within the timeout.
async fn send<T: DeserializeOwned>(
    request: RequestBuilder,
    body: Option<&impl Serialize>,
) -> Result<T, Failure> {
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
        return response.json().await.map_err(|_| Failure::InvalidResponse);
    }
    let retry_after = response.headers().get("retry-after");
    // Only the API's own error body carries a code; a proxy's page or JSON does not.
    let body: Option<ErrorBody> = response.json().await.ok();
    Err(Failure::http(
        response.status(),
        body.as_ref().map(|b| b.error.code.as_str()),
        retry_after.as_deref(),
    ))
}
