//! The sync status panel: pending count, last error in words, refused results with
//! their reason, and the Retry button.

use crate::sync::{self, SyncView};
use keydo_core::Mode;
use leptos::prelude::*;

#[component]
pub fn SyncStatus(
    /// Kept up to date by the sync coordinator.
    view: RwSignal<SyncView>,
) -> impl IntoView {
    let pending = move || view.with(|v| v.pending);
    let summary = move || match pending() {
        0 => "All scores are on the leaderboards.".to_owned(),
        1 => "1 score waiting to be sent.".to_owned(),
        n => format!("{n} scores waiting to be sent."),
    };
    let last_error = move || view.with(|v| v.last_error.as_deref().map(describe));
    view! {
        <section class="sync-status" data-testid="sync-status" data-pending=pending aria-live="polite">
            <p class="sync-summary">{summary}</p>
            {move || last_error().map(|words| view! { <p class="sync-error" data-testid="sync-error">{words}</p> })}
            <ul class="sync-blocked">
                {move || view.with(|v| {
                    v.blocked
                        .iter()
                        .map(|b| {
                            let line = format!("{} {}: {}", mode_name(b.mode), b.value, describe(&b.code));
                            view! { <li data-testid="sync-blocked" data-code=b.code.clone()>{line}</li> }
                        })
                        .collect_view()
                })}
            </ul>
            <button data-testid="retry" on:click=move |_| sync::retry() disabled=move || pending() == 0>
                "Retry now"
            </button>
        </section>
    }
}

fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::Time => "Time",
        Mode::Words => "Words",
        Mode::Quote => "Quote",
        Mode::Zh => "中文",
    }
}

/// A stable error code in words a player understands.
fn describe(code: &str) -> String {
    let words = match code {
        "NETWORK_ERROR" => {
            "You are offline or the server cannot be reached; scores will be sent when the connection is back."
        }
        "INVALID_RESPONSE" => "The server sent an answer we could not read; trying again shortly.",
        "RATE_LIMITED" => "The server asked us to slow down; trying again shortly.",
        "INTERNAL" | "UNAVAILABLE" | "DATABASE_UNAVAILABLE" => {
            "The server is briefly unavailable; trying again shortly."
        }
        "VALUE_MISMATCH" => "The server could not reproduce this score from its statistics.",
        "TOO_FAST" => "The server judged this score faster than humanly possible.",
        "TOO_SHORT" => "The game was too short to count.",
        "WRONG_DURATION" => "A timed game must last 60 seconds.",
        "LOW_ACCURACY" => "Accuracy below 50 % does not count.",
        "INCONSISTENT_STATS" => "The score's statistics contradict each other.",
        other => return format!("The server refused this score ({other})."),
    };
    words.to_owned()
}
