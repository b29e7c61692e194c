//! The result screen: the value, the speeds, accuracy, duration and the chart; the
//! game is recorded in the browser database and "Saved" appears only once that write
//! has committed. Games the server would refuse (too short, too fast, too inaccurate)
//! are shown but not recorded, with the reason.

use super::chart::SpeedChart;
use super::play::Finished;
use super::records::{self, Bests};
use keydo_core::Mode;
use keydo_core::score::{self, Implausible};
use leptos::html::H2;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// Where recording the game stands.
#[derive(Debug, Clone, PartialEq)]
enum Saving {
    Pending,
    Saved { new_best: bool },
    Refused(Implausible),
    Failed(String),
}

#[component]
pub fn ResultScreen(
    finished: Finished,
    bests: Bests,
    on_restart: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let Finished {
        mode,
        stats,
        samples,
    } = finished;
    let value = score::value(mode, &stats);
    let saving = RwSignal::new(Saving::Pending);
    match score::validate(mode, &stats, value) {
        Err(refused) => saving.set(Saving::Refused(refused)),
        Ok(_) => spawn_local(async move {
            match records::record(mode, stats).await {
                Ok(recorded) => {
                    bests.update(mode, recorded.best);
                    saving.set(Saving::Saved {
                        new_best: recorded.new_best,
                    });
                    crate::sync::result_saved();
                }
                Err(error) => {
                    records::log_storage_error(&error);
                    saving.set(Saving::Failed(error.to_string()));
                }
            }
        }),
    }

    // Focus lands on the heading, so Tab reaches "Next game" and Enter starts it.
    let heading_ref = NodeRef::<H2>::new();
    Effect::new(move || {
        if let Some(heading) = heading_ref.get() {
            let _ = heading.focus();
        }
    });

    let speed_line = match mode {
        Mode::Zh => format!(
            "{:.1} 字/分 · 击键 {:.2}/s",
            score::zi_per_minute(&stats),
            score::keys_per_second(&stats)
        ),
        _ => format!(
            "{:.1} WPM · raw {:.1} WPM",
            score::net_wpm(&stats),
            score::raw_wpm(&stats)
        ),
    };
    let characters = match mode {
        Mode::Zh => format!("{} 字", stats.correct_chars + stats.errors),
        _ => format!("{} characters", stats.correct_chars + stats.errors),
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
            <SavingStatus saving=saving.read_only()/>
            <SpeedChart mode samples/>
        </section>
    }
}

/// "Saving…", then "Saved" (and "New personal best"), or why not.
#[component]
fn SavingStatus(saving: ReadSignal<Saving>) -> impl IntoView {
    move || {
        match saving.get() {
        Saving::Pending => view! { <p class="saving">"Saving…"</p> }.into_any(),
        Saving::Saved { new_best } => view! {
            <p class="saving">
                <span data-testid="saved">"Saved"</span>
                {new_best.then(|| view! { <strong class="new-best" data-testid="new-best">" New personal best!"</strong> })}
            </p>
        }
        .into_any(),
        Saving::Refused(reason) => view! {
            <p class="saving refused" data-testid="not-saved">{format!("Not saved: {}", reason.message())}</p>
        }
        .into_any(),
        Saving::Failed(error) => view! {
            <p class="saving refused" data-testid="not-saved">{format!("Could not save: {error}")}</p>
        }
        .into_any(),
    }
    }
}
