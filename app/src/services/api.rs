//! Every `/api` call the page makes itself: the leaderboards and the player's devices.
//! (The sync's calls — creating a save, sending scores and profile changes — live in
//! `keydo-sync`, which the service worker shares.) One place adds the player's token,
//! bounds the wait, and reads the API's error body (docs/api.md).

use super::records;
use gloo_net::http::{Request, RequestBuilder, Response};
use keydo_core::Mode;
use keydo_core::api::{
    Board, Devices, ErrorBody, IDEMPOTENCY_KEY_HEADER, Leaderboard, LinkCode, LinkDevice,
    SaveCreated,
};
use keydo_core::sync::classify::REQUEST_TIMEOUT_MS;
use leptos::prelude::*;
use serde::de::DeserializeOwned;
use std::time::Duration;
use uuid::Uuid;

/// A request still unanswered after this long is aborted, as the sync's are.
const TIMEOUT: Duration = Duration::from_millis(REQUEST_TIMEOUT_MS);

/// Why a call brought no answer the page can use.
#[derive(Debug, Clone, PartialEq)]
enum CallError {
    /// No answer at all: offline, refused, reset.
    Network,
    /// No answer within [`TIMEOUT`].
    Timeout,
    /// An answer that is not the API's, or not the expected shape.
    InvalidResponse,
    /// The API's error status, with its message when the body was the API's.
    Status {
        status: u16,
        message: Option<String>,
    },
}

/// Why a leaderboard cannot be shown.
#[derive(Debug, Clone, PartialEq)]
pub enum BoardUnavailable {
    /// The browser is offline, or the server cannot be reached.
    Offline,
    /// The server did not answer in time.
    TimedOut,
    /// The answer could not be read.
    Unreadable,
    /// The server answered with an error; its message, when it sent one.
    Refused(Option<String>),
}

/// `GET /api/leaderboard` for `mode` and `board`; with the player's token when the
/// sync has made a save, so the answer includes the player's own rank.
pub async fn leaderboard(mode: Mode, board: Board) -> Result<Leaderboard, BoardUnavailable> {
    if !window().navigator().on_line() {
        return Err(BoardUnavailable::Offline);
    }
    let path = format!("/api/leaderboard?mode={}&board={}", mode.id(), board.id());
    let token = records::credentials().await.map(|c| c.token);
    let mut answer = get(&path, token).await;
    if token.is_some() && matches!(answer, Err(CallError::Status { status: 401, .. })) {
        // The server no longer knows this save (the sync renews it with the next
        // score): the board itself is public, so show it without the own rank.
        answer = get(&path, None).await;
    }
    answer.map_err(|error| match error {
        CallError::Network => BoardUnavailable::Offline,
        CallError::Timeout => BoardUnavailable::TimedOut,
        CallError::InvalidResponse => BoardUnavailable::Unreadable,
        CallError::Status { message, .. } => BoardUnavailable::Refused(message),
    })
}

/// `POST /api/devices/link-codes`: a one-time code for the player's other device.
pub async fn link_code() -> Result<LinkCode, String> {
    let token = own_token().await?;
    let request = Request::post("/api/devices/link-codes");
    call(request, Some(token), Some(&serde_json::json!({})))
        .await
        .map_err(|error| error.in_words())
}

/// `POST /api/devices`: this device joins the player whose device shows `code`. It
/// sends its own token too, so the server folds this device's save into that player.
pub async fn link_device(code: &str, idempotency_key: Uuid) -> Result<SaveCreated, String> {
    let token = records::credentials().await.map(|c| c.token);
    let request =
        Request::post("/api/devices").header(IDEMPOTENCY_KEY_HEADER, &idempotency_key.to_string());
    let body = LinkDevice {
        code: code.trim().to_owned(),
    };
    call(request, token, Some(&body))
        .await
        .map_err(|error| error.in_words())
}

/// `GET /api/devices`: the player's devices, oldest first.
pub async fn devices() -> Result<Devices, String> {
    let token = own_token().await?;
    call(Request::get("/api/devices"), Some(token), None::<&()>)
        .await
        .map_err(|error| error.in_words())
}

/// `DELETE /api/devices/{id}`: that device's token stops working.
pub async fn revoke(device: Uuid) -> Result<(), String> {
    let token = own_token().await?;
    let request = Request::delete(&format!("/api/devices/{device}"));
    call::<serde_json::Value>(request, Some(token), None::<&()>)
        .await
        .map(|_| ())
        .map_err(|error| error.in_words())
}

/// The save's token; devices exist once the first sync has made a save.
async fn own_token() -> Result<Uuid, String> {
    records::credentials()
        .await
        .map(|c| c.token)
        .ok_or_else(|| {
            "This device has not reached the server yet: play a game online first.".to_owned()
        })
}

impl CallError {
    /// What the player reads.
    fn in_words(self) -> String {
        match self {
            CallError::Network => "The server cannot be reached: are you online?".to_owned(),
            CallError::Timeout => "The server did not answer in time. Try again.".to_owned(),
            CallError::InvalidResponse => {
                "The answer could not be read (a sign-in page of the network?).".to_owned()
            }
            CallError::Status { message, status } => {
                message.unwrap_or_else(|| format!("The server answered with status {status}."))
            }
        }
    }
}

/// A `GET` of `path`, with `token` as the bearer, answered within [`TIMEOUT`].
async fn get<T: DeserializeOwned>(path: &str, token: Option<Uuid>) -> Result<T, CallError> {
    call(Request::get(path), token, None::<&()>).await
}

/// Sends `request` (with `token` as the bearer and `body` as JSON) and reads its JSON
/// answer (an empty one reads as `null`), within [`TIMEOUT`].
async fn call<T: DeserializeOwned>(
    mut request: RequestBuilder,
    token: Option<Uuid>,
    body: Option<&impl serde::Serialize>,
) -> Result<T, CallError> {
    if let Some(token) = token {
        request = request.header("Authorization", &format!("Bearer {token}"));
    }
    let deadline = Deadline::start();
    let request = request.abort_signal(deadline.signal().as_ref());
    let answer = async {
        let request = match body {
            Some(body) => request.json(body),
            None => request.build(),
        }
        .map_err(|_| CallError::InvalidResponse)?;
        let response = request.send().await.map_err(|_| CallError::Network)?;
        if !response.ok() {
            return Err(error_of(response).await);
        }
        let text = response
            .text()
            .await
            .map_err(|_| CallError::InvalidResponse)?;
        let text = if text.is_empty() { "null" } else { &text };
        serde_json::from_str(text).map_err(|_| CallError::InvalidResponse)
    }
    .await;
    // An aborted request fails like a lost connection: the deadline tells them apart.
    match answer {
        Err(CallError::Network | CallError::InvalidResponse) if deadline.passed() => {
            Err(CallError::Timeout)
        }
        answer => answer,
    }
}

/// An error answer: its status, and its message if the body is the API's.
async fn error_of(response: Response) -> CallError {
    let status = response.status();
    let message = response
        .json::<ErrorBody>()
        .await
        .ok()
        .map(|body| body.error.message);
    CallError::Status { status, message }
}

/// Aborts a request (sending or reading its body) after [`TIMEOUT`].
struct Deadline {
    controller: Option<web_sys::AbortController>,
    timer: Option<TimeoutHandle>,
}

impl Deadline {
    fn start() -> Deadline {
        let controller = web_sys::AbortController::new().ok();
        let timer = controller.clone().and_then(|controller| {
            set_timeout_with_handle(move || controller.abort(), TIMEOUT).ok()
        });
        Deadline { controller, timer }
    }

    fn signal(&self) -> Option<web_sys::AbortSignal> {
        self.controller.as_ref().map(|c| c.signal())
    }

    fn passed(&self) -> bool {
        self.signal().is_some_and(|signal| signal.aborted())
    }
}

impl Drop for Deadline {
    fn drop(&mut self) {
        if let Some(timer) = self.timer.take() {
            timer.clear();
        }
    }
}
