//! 载文: the ways a text reaches a game (docs/genda.md), and the day's race buttons.
//!
//! A text comes from the "Load a text" field, from Ctrl/Cmd+V anywhere outside a text
//! field, or from the system's share sheet (the manifest's `share_target` opens
//! `/?title=…&text=…`), or from a `/t/<short>` link to a text the server stored. Each
//! is read by [`Loaded::parse`] (a module loaded on demand, which also fetches a
//! linked text); one the rules refuse is shown with why, and the game in play is left
//! alone.

use super::source::{Loaded, Source};
use crate::on_demand::{SplitLoaderError, once_loaded};
use crate::services::api;
use keydo_core::api::StoredTextAnswer;
use keydo_core::game::mode::Language;
use keydo_core::text::TextError;
use leptos::ev;
use leptos::html::{Details, Textarea};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::future::Future;
use std::pin::Pin;
use wasm_bindgen::JsCast;
use wasm_split_helpers::wasm_split;

/// Why a text waits in the field: the code that reads texts could not be fetched.
const NOT_LOADED: &str = "KeyDo could not fetch the part that reads texts. The text is kept in the field: press “Type this text” to try again.";

#[component]
pub fn TextLoader(on_load: impl Fn(Source) + Copy + 'static) -> impl IntoView {
    let (error, set_error) = signal(None::<String>);
    let field = NodeRef::<Textarea>::new();
    let panel = NodeRef::<Details>::new();
    // Reading a text (normalising, splitting into 段) is a module of its own, fetched
    // on the first text. Until it is in, nothing pasted is lost: a text that cannot be
    // read yet waits in the field for the player to try again.
    let load = move |raw: String, title: Option<String>, from_field: bool| {
        spawn_local(async move {
            match read_text(raw.clone(), title).await {
                Ok(Ok(loaded)) => {
                    set_error.set(None);
                    if from_field && let Some(field) = field.get_untracked() {
                        field.set_value("");
                    }
                    on_load(Source::Text(loaded));
                }
                Ok(Err(refused)) => set_error.set(Some(refused.to_string())),
                Err(_) => {
                    if let (Some(field), Some(panel)) =
                        (field.get_untracked(), panel.get_untracked())
                    {
                        field.set_value(&raw);
                        panel.set_open(true);
                    }
                    set_error.set(Some(NOT_LOADED.to_owned()));
                }
            }
        });
    };

    // Ctrl/Cmd+V outside any text field loads what was pasted.
    let on_paste = window_event_listener(ev::paste, move |event| {
        if event.default_prevented() || is_text_field(event.target()) {
            return;
        }
        let text = event
            .clipboard_data()
            .and_then(|data| data.get_data("text").ok())
            .unwrap_or_default();
        if !text.trim().is_empty() {
            event.prevent_default();
            load(text, None, false);
        }
    });
    on_cleanup(move || on_paste.remove());

    // A share opens `/?title=…&text=…`: load it once, then drop the query so a
    // reload does not load it again.
    if let Some(shared) = shared_text() {
        load(shared.text, shared.title, false);
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("/"));
        }
    }

    // A `/t/<short>` link names a text the server stored: fetch it once and load it.
    if let Some(short) = linked_text() {
        spawn_local(async move {
            match once_loaded(|| fetch_linked_text(short.clone())).await.await {
                Ok(stored) => load(stored.text, None, false),
                Err(why) => set_error.set(Some(why)),
            }
        });
        if let Ok(history) = window().history() {
            let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some("/"));
        }
    }

    let submit = move |_| {
        let Some(field) = field.get_untracked() else {
            return;
        };
        load(field.value(), None, true);
    };
    view! {
        <div class="loader">
            <details class="load-text" data-testid="load-text-panel" node_ref=panel>
                <summary lang="zh-Hans">"载文 · Load a text"</summary>
                <label class="load-text-label" for="load-text-field">
                    "Paste any text (a QQ 发文 message too), or press Ctrl+V anywhere outside a field."
                </label>
                <textarea
                    id="load-text-field"
                    class="load-text-field"
                    rows="4"
                    node_ref=field
                    data-testid="load-text-field"
                ></textarea>
                <button class="load-text-button" data-testid="load-text" on:click=submit>"Type this text"</button>
            </details>
            <div class="daily" role="group" aria-label="The day's race">
                <button
                    class="daily-button"
                    lang="zh-Hans"
                    data-testid="daily-zh"
                    on:click=move |_| on_load(Source::Daily(Language::Chinese))
                >"今日赛文"</button>
                <button
                    class="daily-button"
                    data-testid="daily-en"
                    on:click=move |_| on_load(Source::Daily(Language::English))
                >"Today's race"</button>
            </div>
            {move || error.get().map(|error| view! {
                <p class="load-text-error" role="alert" data-testid="load-text-error">
                    {format!("This text cannot be loaded: {error}")}
                </p>
            })}
        </div>
    }
}

/// Whether a paste lands in a field of its own (the typing field, the load field,
/// the profile's name): such a paste is the field's.
fn is_text_field(target: Option<web_sys::EventTarget>) -> bool {
    target
        .and_then(|target| target.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|element| {
            matches!(element.tag_name().as_str(), "INPUT" | "TEXTAREA")
                || element
                    .dyn_ref::<web_sys::HtmlElement>()
                    .is_some_and(|e| e.is_content_editable())
        })
}

/// The short hash of a `/t/<short>` link the page was opened at.
fn linked_text() -> Option<String> {
    let path = window().location().pathname().ok()?;
    let short = path.strip_prefix("/t/")?.trim_end_matches('/');
    (!short.is_empty()).then(|| short.to_owned())
}

/// What a share target delivered in the page's query string.
struct Shared {
    text: String,
    title: Option<String>,
}

/// The shared text (and title) in `location.search`. A shared link alone (`url`) is
/// not a text to type.
fn shared_text() -> Option<Shared> {
    let search = window().location().search().ok()?;
    let params = web_sys::UrlSearchParams::new_with_str(&search).ok()?;
    let text = params.get("text").filter(|t| !t.trim().is_empty())?;
    Some(Shared {
        text,
        title: params.get("title"),
    })
}

/// A linked text's fetch, once its module is in.
type Fetching = Pin<Box<dyn Future<Output = Result<StoredTextAnswer, String>>>>;

/// Fetches a linked text (`api::stored_text`) from the module that reads texts, which
/// the text is read by next: the API's JSON reading is not in the main module.
#[wasm_split(loader, fallible)]
fn fetch_linked_text(short: String) -> Result<Fetching, SplitLoaderError> {
    Ok(Box::pin(async move { api::stored_text(&short).await }))
}

/// Reads a text ([`Loaded::parse`]) in the module that holds the text rules.
#[wasm_split(loader, fallible)]
fn read_text(
    raw: String,
    title: Option<String>,
) -> Result<Result<Loaded, TextError>, SplitLoaderError> {
    Ok(Loaded::parse(&raw, title.as_deref()))
}
