//! The result screen: the value, the speeds, accuracy, duration and the chart; the
//! game is recorded in the browser database and "Saved" appears only once that write
//! has committed ("Not saved yet" while a failed write waits for its next attempt). Games the server would refuse (too short, too fast, too inaccurate)
//! are shown but not recorded, with the reason.

use super::chart::SpeedChart;
use super::play::Finished;
use crate::services::records::{Records, Saving};
use keydo_core::mode::Language;
use keydo_core::score::{self, Implausible};
use leptos::html::H2;
use leptos::prelude::*;

#[component]
pub fn ResultScreen(finished: Finished, on_restart: impl Fn() + Copy + 'static) -> impl IntoView {
    let Finished {
        mode,
        stats,
        samples,
    } = finished;
    let value = score::value(mode, &stats);
    let saving = match score::validate(mode, &stats, value) {
        Err(refused) => Err(refused),
        Ok(_) => Ok(expect_context::<Records>().record(mode, stats)),
    };

    // Focus lands on the heading, so Tab reaches "Next game" and Enter starts it.
    let heading_ref = NodeRef::<H2>::new();
    Effect::new(move || {
        if let Some(heading) = heading_ref.get() {
            let _ = heading.focus();
        }
    });

    let speed_line = match mode.language() {
        Language::Chinese => format!(
            "{:.1} {} · 击键 {:.2}/s",
            mode.speed(&stats),
            mode.speed_unit(),
            score::keys_per_second(&stats)
        ),
        Language::English => format!(
            "{:.1} {unit} · raw {:.1} {unit}",
            mode.speed(&stats),
            score::raw_wpm(&stats),
            unit = mode.speed_unit()
        ),
    };
    let typed = stats.correct_chars + stats.errors;
    let characters = match mode.language() {
        Language::Chinese => format!("{typed} 字"),
        Language::English => format!("{typed} characters"),
    };
    view! {
        <section
            class="result"
            aria-live="polite"
            aria-labelledby="result-heading"
            data-testid="result"
        >
            <h2 id="result-heading" class="result-heading" node_ref=heading_ref tabindex="-1">"Result"</h2>
            <button class="next" data-testid="next" on:click=move |_| on_restart()>"Next game"</button>
            <p class="score">
                <span class="score-label">"Score "</span>
                <span
                    class="score-value"
                    data-testid="result-value"
                    data-duration-ms=stats.duration_ms
                    data-mode=mode.id()
                >
                    {value}
                </span>
            </p>
            <p class="speed-line">{speed_line}</p>
            <dl class="figures">
                <div><dt>"Accuracy"</dt><dd>{format!("{:.1} %", score::accuracy(&stats) * 100.0)}</dd></div>
                <div><dt>"Time"</dt><dd>{format!("{:.1} s", stats.duration_ms as f64 / 1000.0)}</dd></div>
                <div><dt>"Typed"</dt><dd>{characters}</dd></div>
                <div><dt>"Errors"</dt><dd>{stats.errors}</dd></div>
            </dl>
            <SavingStatus saving/>
            <SpeedChart mode samples/>
        </section>
    }
}

/// "Saving…" (or "Not saved yet"), then "Saved" (and "New personal best"), or why not.
#[component]
fn SavingStatus(saving: Result<ReadSignal<Saving>, Implausible>) -> impl IntoView {
    let saving = match saving {
        Err(refused) => {
            return view! {
                <p class="saving refused" data-testid="not-saved">{format!("Not saved: {}", refused.message())}</p>
            }
            .into_any();
        }
        Ok(saving) => saving,
    };
    (move || match saving.get() {
        Saving::Pending => view! { <p class="saving">"Saving…"</p> }.into_any(),
        Saving::NotSavedYet(reason) => view! {
            <p class="saving refused" data-testid="not-saved-yet">
                {format!("Not saved yet: {reason}. KeyDo keeps this result in this tab and tries again.")}
            </p>
        }
        .into_any(),
        Saving::Saved { new_best } => view! {
            <p class="saving">
                <span data-testid="saved">"Saved"</span>
                {new_best.then(|| view! { <strong class="new-best" data-testid="new-best">" New personal best!"</strong> })}
            </p>
        }
        .into_any(),
        Saving::Failed(error) => view! {
            <p class="saving refused" data-testid="not-saved">{format!("Could not save: {error}")}</p>
        }
        .into_any(),
    })
    .into_any()
}
