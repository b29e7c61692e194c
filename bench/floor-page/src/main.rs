//! A typing page with what KeyDo's first keystroke needs, and nothing else: a word list
//! fetched, a prompt drawn letter by letter, a field whose every input is logged with
//! its time, and at the end a result merged into an IndexedDB store (read, then
//! written) in one transaction. One mode, no options, no input method, no sync.

use leptos::prelude::*;
use leptos::task::spawn_local;
use serde::{Deserialize, Serialize};
use wasm_bindgen::JsValue;

const STORE: &str = "results";

#[derive(Serialize, Deserialize, Debug)]
struct Finished {
    id: uuid::Uuid,
    prompt: String,
    /// (milliseconds since the page started, length of the field) per input.
    log: Vec<(u32, u32)>,
    wpm: f64,
    accuracy: f64,
    played_at: u64,
    /// How many times this result was written.
    writes: u32,
}

/// Writes `result` over any earlier copy of itself, in one transaction.
async fn save(mut result: Finished) -> Result<Finished, String> {
    let text = |error: rexie::Error| error.to_string();
    let db = rexie::Rexie::builder("floor")
        .version(1)
        .add_object_store(rexie::ObjectStore::new(STORE))
        .build()
        .await
        .map_err(text)?;
    let tx = db
        .transaction(&[STORE], rexie::TransactionMode::ReadWrite)
        .map_err(text)?;
    let store = tx.store(STORE).map_err(text)?;
    let key = JsValue::from_str(&result.id.to_string());
    if let Some(stored) = store.get(key.clone()).await.map_err(text)?
        && let Ok(earlier) = serde_wasm_bindgen::from_value::<Finished>(stored)
    {
        result.writes = earlier.writes + 1;
    }
    let value = serde_wasm_bindgen::to_value(&result).map_err(|error| error.to_string())?;
    store.put(&value, Some(&key)).await.map_err(text)?;
    tx.done().await.map_err(text)?;
    Ok(result)
}

fn now_ms() -> u32 {
    window().performance().map_or(0.0, |p| p.now()) as u32
}

#[component]
fn Game() -> impl IntoView {
    let words = LocalResource::new(|| async {
        let response = gloo_net::http::Request::get("/texts/words.txt")
            .send()
            .await
            .ok()?;
        response.text().await.ok()
    });
    let prompt = Memo::new(move |_| {
        words
            .get()
            .flatten()
            .map(|list| {
                list.split_whitespace()
                    .take(50)
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default()
    });
    let (typed, set_typed) = signal(String::new());
    let (log, set_log) = signal(Vec::<(u32, u32)>::new());
    let (outcome, set_outcome) = signal(None::<String>);

    let on_input = move |event: leptos::ev::Event| {
        let value = event_target_value(&event);
        set_log.update(|log| log.push((now_ms(), value.chars().count() as u32)));
        set_typed.set(value.clone());
        let prompt = prompt.get_untracked();
        if prompt.is_empty() || value.chars().count() < prompt.chars().count() {
            return;
        }
        let log = log.get_untracked();
        let minutes = f64::from(log.last().map_or(0, |l| l.0) - log[0].0) / 60_000.0;
        let correct = prompt
            .chars()
            .zip(value.chars())
            .filter(|(a, b)| a == b)
            .count();
        let result = Finished {
            id: uuid::Uuid::new_v4(),
            wpm: correct as f64 / 5.0 / minutes,
            accuracy: correct as f64 / value.chars().count() as f64,
            prompt,
            log,
            played_at: js_sys::Date::now() as u64,
            writes: 1,
        };
        spawn_local(async move {
            let shown = match save(result).await {
                Ok(saved) => format!(
                    "{:.1} WPM, {:.0}% accurate, saved",
                    saved.wpm,
                    saved.accuracy * 100.0
                ),
                Err(error) => format!("not saved: {error}"),
            };
            set_outcome.set(Some(shown));
        });
    };
    view! {
        <p class="prompt">
            {move || {
                let typed: Vec<char> = typed.get().chars().collect();
                prompt
                    .get()
                    .chars()
                    .enumerate()
                    .map(|(i, letter)| {
                        let class = match typed.get(i) {
                            None => "pending",
                            Some(&key) if key == letter => "correct",
                            Some(_) => "wrong",
                        };
                        view! { <span class=class>{letter.to_string()}</span> }
                    })
                    .collect_view()
            }}
        </p>
        <input on:input=on_input disabled=move || prompt.get().is_empty() />
        <Show when=move || outcome.get().is_some()>
            <p role="status">{move || outcome.get()}</p>
        </Show>
    }
}

fn main() {
    leptos::mount::mount_to_body(Game);
}
