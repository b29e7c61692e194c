//! The sync status panel: pending count, last error in words, refused results with
//! their reason, and the Retry button.

use crate::services::sync::{BlockedResult, Coordinator};
use crate::wording;
use leptos::prelude::*;

#[component]
pub fn SyncStatus() -> impl IntoView {
    let coordinator = expect_context::<Coordinator>();
    let view = coordinator.view();
    let pending = move || view.with(|v| v.pending);
    let summary = move || match pending() {
        0 => "All scores are on the leaderboards.".to_owned(),
        1 => "1 score waiting to be sent.".to_owned(),
        n => format!("{n} scores waiting to be sent."),
    };
    let last_error = move || {
        view.with(|v| {
            v.last_error
                .as_ref()
                .map(|code| wording::explain(code.as_str()).sentence())
        })
    };
    view! {
        <section class="sync-status" data-testid="sync-status" data-pending=pending aria-live="polite">
            <p class="sync-summary">{summary}</p>
            {move || last_error().map(|words| view! { <p class="sync-error" data-testid="sync-error">{words}</p> })}
            <ul class="sync-blocked">
                {move || view.with(|v| v.blocked.iter().map(blocked_line).collect_view())}
            </ul>
            <button data-testid="retry" on:click=move |_| coordinator.retry() disabled=move || pending() == 0>
                "Retry now"
            </button>
        </section>
    }
}

/// "Quote 52.34 WPM: why the server refused it."
fn blocked_line(blocked: &BlockedResult) -> impl IntoView + use<> {
    let code = blocked.code.as_ref().map_or("", |c| c.as_str()).to_owned();
    let line = format!(
        "{} {}: {}",
        blocked.mode.name(),
        blocked.mode.format_value(blocked.value),
        wording::explain(&code).sentence()
    );
    view! { <li data-testid="sync-blocked" data-code=code>{line}</li> }
}
