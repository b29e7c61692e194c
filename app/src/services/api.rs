//! Every `/api` call the page makes itself: the leaderboards (跟打's too), a linked
//! text, a board entry's replay and the player's devices, and what their failures mean
//! in words. They go through `keydo-sync`'s one HTTP
//! client, [`call`], which the sync's own calls (creating a save, sending scores and
//! profile changes) share: it adds the player's token, bounds the wait, and reads the
//! API's error body (docs/api.md).

use super::db;
use gloo_net::http::Request;
use keydo_core::Mode;
use keydo_core::api::{
    Board, Credentials, Devices, IDEMPOTENCY_KEY_HEADER, Leaderboard, LinkCode, LinkCodeOwner,
    LinkDevice, ResultReplay, SaveCreated, StoredTextAnswer, TextBoard,
};
use keydo_core::game::board::Ranking;
use keydo_core::game::mode::Language;
use keydo_core::sync::classify::Failure;
use keydo_core::text::hash::TextHash;
use keydo_sync::call;
use leptos::prelude::window;
use uuid::Uuid;

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
    fetch_board(&format!(
        "/api/leaderboard?mode={}&board={}",
        mode.id(),
        board.id()
    ))
    .await
}

/// A loaded text's board or a day's race (`GET /api/boards`, docs/api.md), with the
/// player's own rank as [`leaderboard`].
pub async fn text_board(board: TextBoardRef) -> Result<TextBoard, BoardUnavailable> {
    let query = match board {
        TextBoardRef::Text { text, ranking } => {
            let ranking = match ranking {
                Ranking::First => "first",
                Ranking::Best => "best",
            };
            format!("text={text}&ranking={ranking}")
        }
        TextBoardRef::Daily { day, language } => {
            let lang = match language {
                Language::Chinese => "zh",
                Language::English => "en",
            };
            format!("daily={day}&lang={lang}")
        }
    };
    fetch_board(&format!("/api/boards?{query}")).await
}

/// Which of 跟打's boards to show.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextBoardRef {
    Text { text: TextHash, ranking: Ranking },
    Daily { day: i64, language: Language },
}

/// A board's `GET`, with the token when there is a save; again without it when the
/// server no longer knows the save (the board itself is public).
async fn fetch_board<T: serde::de::DeserializeOwned>(path: &str) -> Result<T, BoardUnavailable> {
    if !window().navigator().on_line() {
        return Err(BoardUnavailable::Offline);
    }
    let credentials = db::credentials().await;
    let mut answer = call(Request::get(path), credentials.as_ref(), None::<&()>).await;
    if credentials.is_some() && matches!(answer, Err(Failure::Status { status: 401, .. })) {
        // The sync renews the save with the next score.
        answer = call(Request::get(path), None, None::<&()>).await;
    }
    answer.map_err(|failure| match failure {
        Failure::Network => BoardUnavailable::Offline,
        Failure::Timeout => BoardUnavailable::TimedOut,
        Failure::InvalidResponse => BoardUnavailable::Unreadable,
        Failure::Status { message, .. } => BoardUnavailable::Refused(message),
    })
}

/// `GET /api/texts/{short}`: the text a `/t/<short>` link names.
pub async fn stored_text(short: &str) -> Result<StoredTextAnswer, String> {
    let short: String = short.chars().filter(char::is_ascii_hexdigit).collect();
    call(
        Request::get(&format!("/api/texts/{short}")),
        None,
        None::<&()>,
    )
    .await
    .map_err(|failure| match failure {
        Failure::Network | Failure::Timeout => {
            "the text of this link needs a connection the first time it is opened".to_owned()
        }
        other => in_words(other),
    })
}

/// Why a result's replay cannot be played.
#[derive(Debug, Clone, PartialEq)]
pub enum ReplayUnavailable {
    /// No public result has this code: a mistyped link, or one held or removed.
    NotFound,
    /// The browser is offline, the server cannot be reached or did not answer in time.
    Offline,
    /// Anything else, in words.
    Other(String),
}

/// `GET /api/results/{code}/replay`: the prompt and input log of the public result
/// whose 验证 code is `code`. Public: it goes without the player's token.
pub async fn result_replay(code: &str) -> Result<ResultReplay, ReplayUnavailable> {
    if !window().navigator().on_line() {
        return Err(ReplayUnavailable::Offline);
    }
    let path = format!("/api/results/{code}/replay");
    call(Request::get(&path), None, None::<&()>)
        .await
        .map_err(|failure| match failure {
            Failure::Status { status: 404, .. } => ReplayUnavailable::NotFound,
            Failure::Network | Failure::Timeout => ReplayUnavailable::Offline,
            other => ReplayUnavailable::Other(in_words(other)),
        })
}

/// `POST /api/devices/link-codes`: a one-time code for the player's other device.
pub async fn link_code() -> Result<LinkCode, String> {
    let credentials = own_credentials().await?;
    let request = Request::post("/api/devices/link-codes");
    call(request, Some(&credentials), Some(&serde_json::json!({})))
        .await
        .map_err(in_words)
}

/// `POST /api/devices/link-codes/check`: whose player `code` joins, without using it.
pub async fn check_link_code(code: &str) -> Result<LinkCodeOwner, String> {
    let body = LinkDevice {
        code: code.trim().to_owned(),
    };
    call(
        Request::post("/api/devices/link-codes/check"),
        None,
        Some(&body),
    )
    .await
    .map_err(in_words)
}

/// `POST /api/devices`: this device joins the player whose device shows `code`. It
/// sends its own token too, so the server folds this device's save into that player.
pub async fn link_device(code: &str, idempotency_key: Uuid) -> Result<SaveCreated, String> {
    let credentials = db::credentials().await;
    let request =
        Request::post("/api/devices").header(IDEMPOTENCY_KEY_HEADER, &idempotency_key.to_string());
    let body = LinkDevice {
        code: code.trim().to_owned(),
    };
    call(request, credentials.as_ref(), Some(&body))
        .await
        .map_err(in_words)
}

/// `GET /api/devices`: the player's devices, oldest first.
pub async fn devices() -> Result<Devices, String> {
    let credentials = own_credentials().await?;
    call(
        Request::get("/api/devices"),
        Some(&credentials),
        None::<&()>,
    )
    .await
    .map_err(in_words)
}

/// `DELETE /api/devices/{id}`: that device's token stops working.
pub async fn revoke(device: Uuid) -> Result<(), String> {
    let credentials = own_credentials().await?;
    let request = Request::delete(&format!("/api/devices/{device}"));
    call::<serde_json::Value>(request, Some(&credentials), None::<&()>)
        .await
        .map(|_| ())
        .map_err(in_words)
}

/// The save's credentials; devices exist once the first sync has made a save.
async fn own_credentials() -> Result<Credentials, String> {
    db::credentials().await.ok_or_else(|| {
        "This device has not reached the server yet: play a game online first.".to_owned()
    })
}

/// What the player reads when a device call fails.
fn in_words(failure: Failure) -> String {
    match failure {
        Failure::Network => "The server cannot be reached: are you online?".to_owned(),
        Failure::Timeout => "The server did not answer in time. Try again.".to_owned(),
        Failure::InvalidResponse => {
            "The answer could not be read (a sign-in page of the network?).".to_owned()
        }
        Failure::Status {
            message, status, ..
        } => message.unwrap_or_else(|| format!("The server answered with status {status}.")),
    }
}
