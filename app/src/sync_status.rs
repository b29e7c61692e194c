//! The sync status panel: pending count, games not yet saved in this tab, the last
//! error in words, refused results with their reason and a Discard button each, and
//! the Retry button while something is pending (it sends refused results again too).

use crate::services::records::Records;
use crate::services::sync::Coordinator;
use crate::services::sync_view::BlockedResult;
use crate::wording;
use keydo_storage::HeldResult;
use leptos::prelude::*;
use uuid::Uuid;

#[component]
pub fn SyncStatus() -> impl IntoView {
    let coordinator = expect_context::<Coordinator>();
    let unsaved = expect_context::<Records>().unsaved();
    let view = coordinator.view();
    let pending = move || view.with(|v| v.pending);
    // No count before the outbox is read: a page opened with results waiting must not
    // say they are on the boards (tests wait on `data-pending` for the same reason).
    let read_pending = move || view.with(|v| v.read.then_some(v.pending));
    let summary = move || match read_pending() {
        None => "Checking for scores waiting to be sent…".to_owned(),
        Some(0) => "All scores are on the leaderboards.".to_owned(),
        Some(1) => "1 score waiting to be sent.".to_owned(),
        Some(n) => format!("{n} scores waiting to be sent."),
    };
    let unsaved_line = move || match unsaved.get() {
        0 => None,
        n => Some(format!(
            "{n} {} not saved yet: kept in this tab while KeyDo tries again. Keep it open.",
            if n == 1 { "result" } else { "results" }
        )),
    };
    let last_error = move || {
        view.with(|v| {
            v.last_error
                .as_ref()
                .map(|code| wording::explain(code.as_str()).sentence())
        })
    };
    let discard = Action::new_local(move |score_id: &Uuid| coordinator.discard(*score_id));
    view! {
        <section class="sync-status" data-testid="sync-status" data-pending=read_pending aria-live="polite">
            <p class="sync-summary">{summary}</p>
            {move || unsaved_line().map(|line| view! { <p class="sync-error" data-testid="unsaved">{line}</p> })}
            {move || last_error().map(|words| view! { <p class="sync-error" data-testid="sync-error">{words}</p> })}
            <ul class="sync-blocked">
                {move || view.with(|v| {
                    v.blocked.iter().map(|blocked| blocked_line(blocked, discard)).collect_view()
                })}
            </ul>
            <ul class="sync-held">
                {move || view.with(|v| v.held.iter().map(held_line).collect_view())}
            </ul>
            {move || (pending() > 0).then(|| view! {
                <button data-testid="retry" on:click=move |_| coordinator.retry()>"Retry now"</button>
            })}
        </section>
    }
}

/// "Words 212.40 WPM: counts for you; on the public board once reviewed."
fn held_line(held: &HeldResult) -> impl IntoView + use<> {
    let line = format!(
        "{} {}: {}",
        held.mode.name(),
        held.mode.format_value(held.value),
        wording::HELD
    );
    view! { <li data-testid="sync-held" data-score-id=held.score_id.to_string()>{line}</li> }
}

/// "Quote 52.34 WPM: why the API refused it." and its Discard button.
fn blocked_line(blocked: &BlockedResult, discard: Action<Uuid, ()>) -> impl IntoView + use<> {
    let code = blocked.code.as_ref().map_or("", |c| c.as_str()).to_owned();
    let result = format!(
        "{} {}",
        blocked.mode.name(),
        blocked.mode.format_value(blocked.value)
    );
    let line = format!("{result}: {}", wording::explain(&code).sentence());
    let score_id = blocked.score_id;
    view! {
        <li data-testid="sync-blocked" data-code=code>
            <span>{line}</span>
            " "
            <button
                class="discard"
                data-testid="discard"
                aria-label=format!("Discard {result}")
                disabled=move || discard.pending().get()
                on:click=move |_| {
                    discard.dispatch(score_id);
                }
            >
                "Discard"
            </button>
        </li>
    }
}
