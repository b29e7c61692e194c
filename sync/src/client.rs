//! The two API calls the sync makes, with every failure turned into a
//! [`Failure`] that `core` can classify.

use gloo_net::http::{Request, Response};
use keydo_core::api::{CreateSave, ErrorBody, SaveCreated, ScoreAck, ScoreSubmission};
use keydo_core::classify::Failure;
use keydo_core::outbox::OutboxEntry;
use keydo_storage::Credentials;
use serde::de::DeserializeOwned;

/// `POST /api/saves` with a generated display name.
pub async fn create_save() -> Result<Credentials, Failure> {
    let request = Request::post("/api/saves")
        .json(&CreateSave::default())
        .map_err(|_| Failure::InvalidResponse)?;
    let created: SaveCreated = send(request).await?;
    Ok(Credentials {
        player_id: created.player_id,
        token: created.token,
    })
}

/// `POST /api/scores` for one outbox entry.
pub async fn submit_score(
    credentials: &Credentials,
    entry: &OutboxEntry,
) -> Result<ScoreAck, Failure> {
    let request = Request::post("/api/scores")
        .header("Authorization", &format!("Bearer {}", credentials.token))
        .json(&ScoreSubmission::from(entry))
        .map_err(|_| Failure::InvalidResponse)?;
    send(request).await
}

async fn send<T: DeserializeOwned>(request: Request) -> Result<T, Failure> {
    let response = request.send().await.map_err(|_| Failure::Network)?;
    if response.ok() {
        response.json().await.map_err(|_| Failure::InvalidResponse)
    } else {
        Err(http_failure(response).await)
    }
}

async fn http_failure(response: Response) -> Failure {
    let retry_after = response.headers().get("retry-after");
    let body: Option<ErrorBody> = response.json().await.ok();
    Failure::http(
        response.status(),
        body.as_ref().map(|b| b.error.code.as_str()),
        retry_after.as_deref(),
    )
}
