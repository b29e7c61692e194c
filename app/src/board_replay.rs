//! The page at `/r/<code>`: a board entry's replay, with its player's name and value.
//!
//! The server serves the page's shell at that path; the app reads the path at start
//! ([`crate::game::replay_code`]) and shows this instead of the game. The prompt and
//! log come from `GET /api/results/{code}/replay` (services/api.rs); the prompt is
//! rebuilt from the corpora the page loads anyway, exactly as the server builds it.

use crate::game::{Corpora, ReplayPlayer};
use crate::services::api::{self, ReplayUnavailable};
use keydo_core::api::ResultReplay;
use keydo_core::game::playback::Playback;
use leptos::prelude::*;
use wasm_bindgen::JsValue;

#[component]
pub fn BoardReplay(code: String) -> impl IntoView {
    let corpora = Corpora::load();
    let answer = LocalResource::new({
        let code = code.clone();
        move || {
            let code = code.clone();
            async move { api::result_replay(&code).await }
        }
    });
    let shown_code = code.clone();
    let body = move || match answer.get() {
        None => view! { <p class="board-replay-status">"Loading the replay…"</p> }.into_any(),
        Some(Err(unavailable)) => {
            let message = match unavailable {
                ReplayUnavailable::NotFound => format!(
                    "No public result has the code {shown_code}: check the link. A result under review is not public yet."
                ),
                ReplayUnavailable::Offline => {
                    "This replay is on the server, which cannot be reached: are you online?"
                        .to_owned()
                }
                ReplayUnavailable::Other(message) => message,
            };
            view! { <p class="board-replay-status refused" role="alert" data-testid="replay-error">{message}</p> }
                .into_any()
        }
        Some(Ok(replay)) => playable(corpora, replay),
    };
    view! {
        <section class="board-replay" data-testid="board-replay" aria-labelledby="board-replay-heading">
            <h2 id="board-replay-heading" class="result-heading">{format!("Replay {code}")}</h2>
            {body}
            <p><a href="/" data-testid="play-keydo">"Play KeyDo"</a></p>
        </section>
    }
}

/// Whose result it is and its player, once the prompt is rebuilt (reactive).
fn playable(corpora: Corpora, replay: ResultReplay) -> AnyView {
    let heading = format!(
        "{} · {} · {}",
        replay.display_name,
        replay.mode.format_value(replay.value),
        played_on(replay.played_at)
    );
    let player = match corpora.prompt(replay.mode, &replay.prompt) {
        None => view! { <p class="board-replay-status">"Loading the text…"</p> }.into_any(),
        Some(Err(error)) => view! { <p class="board-replay-status refused" role="alert">{error}</p> }.into_any(),
        Some(Ok(prompt)) => match Playback::new(replay.mode, &prompt, &replay.input) {
            Ok(playback) => {
                let target: Vec<char> = prompt.as_str().chars().collect();
                view! { <ReplayPlayer playback target language=replay.mode.language()/> }.into_any()
            }
            Err(error) => view! {
                <p class="board-replay-status refused" role="alert">{format!("This result cannot be played back: {error}")}</p>
            }
            .into_any(),
        },
    };
    view! {
        <p class="board-replay-who" data-testid="board-replay-who">{heading}</p>
        {player}
    }
    .into_any()
}

/// The day a game was played, in the reader's locale.
fn played_on(unix_ms: i64) -> String {
    js_sys::Date::new(&JsValue::from_f64(unix_ms as f64))
        .to_locale_date_string("default", &JsValue::UNDEFINED)
        .into()
}
