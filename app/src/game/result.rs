//! The result screen: the speed the game is scored in (WPM, or 字/分) as the headline,
//! then accuracy, raw speed, consistency and time (and for 中文 the 击键, 码长 and 回改
//! 跟打 players compare; see [`keydo_core::game::figures`]) and the chart. It shows where
//! recording the game stands (the game's finish handler records it): "Saved" appears
//! only once that write has committed ("Not saved yet" while a failed write waits for
//! its next attempt). Games the server would refuse (too short, too fast, too
//! inaccurate) are shown but not recorded, with the reason.
//!
//! Below the figures: the 成绩 line and its Copy button, the 跟打 report (computed once,
//! when the screen opens) and a Replay button that plays the game back from its own
//! log, offline too.

mod line;
mod rows;

use super::chart::SpeedChart;
use super::play::Finished;
use super::replay::ReplayPlayer;
use super::report::ReportView;
use crate::on_demand::SplitLoaderError;
use crate::practice::DrillRow;
use crate::services::db;
use crate::services::profile::ProfileService;
use crate::services::records::Saving;
use crate::services::sync::Coordinator;
use crate::services::sync_view::SyncView;
use crate::wording;
use keydo_core::game::figures::Figures;
use keydo_core::game::mode::{Language, value_digits};
use keydo_core::game::options::Test;
use keydo_core::game::playback::Playback;
use keydo_core::game::report::report;
use keydo_core::game::result_line::result_line;
use keydo_core::game::score::{self, Implausible};
use leptos::html::H2;
use leptos::prelude::*;
use line::ResultLine;
use rows::{FigureRow, figure_rows};
use uuid::Uuid;
use wasm_split_helpers::wasm_split;

/// The result screen ([`ResultScreen`]), a module loaded on demand
/// (docs/performance.md, "What loads first").
#[wasm_split(drawn, fallible)]
pub fn result_screen(
    finished: Finished,
    saving: Recording,
    on_restart: Callback<()>,
) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <ResultScreen finished saving on_restart=move || on_restart.run(())/> }.into_any())
}

/// Where recording the finished game stands: a signal that follows the write, or why
/// the game is not recorded at all.
pub type Recording = Result<ReadSignal<Saving>, Implausible>;

#[component]
fn ResultScreen(
    finished: Finished,
    saving: Recording,
    on_restart: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let Finished {
        mode,
        stats,
        samples,
        keys,
        input,
        target,
        segment,
        prompt,
    } = finished;
    let value = score::value(mode, &stats);
    let test = Test {
        mode,
        options: prompt.options(),
    };

    // Focus lands on the heading, so Tab reaches "Next game" and Enter starts it.
    let heading_ref = NodeRef::<H2>::new();
    Effect::new(move || {
        if let Some(heading) = heading_ref.get() {
            let _ = heading.focus();
        }
    });

    let figures = Figures::of(mode, &stats, &samples, keys);
    // The headline is the leaderboard's number: "126.34", the decimals set smaller.
    let digits = value_digits(value);
    let (whole, fraction) = digits.split_at(digits.find('.').unwrap_or(digits.len()));
    // The player's input method, from their settings: 跟打 results are read with it.
    let input_method = (mode.language() == Language::Chinese)
        .then(|| {
            use_context::<ProfileService>().map(|profile| {
                profile
                    .view()
                    .with_untracked(|v| v.profile.settings.input_method.clone())
            })
        })
        .flatten();
    // The report and the 成绩 line: one replay of the log, when the screen opens.
    let game_report = report(test, &target, &input);
    let target_chars: Vec<char> = target.as_str().chars().collect();
    let result_line_view = game_report.as_ref().ok().map(|game_report| {
        let game_report = StoredValue::new(game_report.clone());
        let input_method = input_method.clone();
        let verification = verification_code(&saving);
        let line = Signal::derive(move || {
            let code = verification.get();
            game_report
                .with_value(|r| result_line(r, segment, input_method.as_deref(), code.as_deref()))
        });
        view! { <ResultLine line/> }
    });
    let drills = game_report
        .as_ref()
        .ok()
        .map(|game_report| view! { <DrillRow report=game_report.clone() target=target.clone()/> });
    let report_view = match game_report {
        Ok(game_report) => {
            view! { <ReportView mode report=game_report target=target_chars.clone()/> }.into_any()
        }
        Err(error) => view! {
            <p class="saving refused" data-testid="report-error">{format!("No report: {error}")}</p>
        }
        .into_any(),
    };
    let (replaying, set_replaying) = signal(false);
    let replay = move || {
        replaying.get().then(|| match Playback::new(test, &target, &input) {
            Ok(playback) => view! {
                <ReplayPlayer playback target=target_chars.clone() language=mode.language() autoplay=true/>
            }
            .into_any(),
            Err(error) => view! { <p class="saving refused">{format!("No replay: {error}")}</p> }.into_any(),
        })
    };
    let public_notice = saving.is_ok().then(PublicNotice);
    let rows = figure_rows(mode, &stats, &figures, input_method.as_deref())
        .into_iter()
        .map(|FigureRow { id, name, figure }| {
            view! { <div><dt>{name}</dt><dd data-testid=format!("figure-{id}")>{figure}</dd></div> }
        })
        .collect_view();
    view! {
        <section
            class="result"
            aria-live="polite"
            aria-labelledby="result-heading"
            data-testid="result"
        >
            <h2 id="result-heading" class="result-heading" node_ref=heading_ref tabindex="-1">"Result"</h2>
            <button class="next" data-testid="next" on:click=move |_| on_restart()>"Next game"</button>
            <p class="score" lang=mode.language().tag()>
                <span
                    class="score-value"
                    data-testid="result-value"
                    data-value=value
                    data-duration-ms=stats.duration_ms
                    data-mode=mode.id()
                >
                    {whole.to_owned()}<span class="score-fraction">{fraction.to_owned()}</span>
                </span>
                <span class="score-unit" data-testid="result-unit">{mode.speed_unit()}</span>
            </p>
            <dl class="figures">{rows}</dl>
            {drills}
            {result_line_view}
            <SavingStatus saving/>
            {public_notice}
            <SpeedChart mode samples/>
            {report_view}
            <button
                class="replay-toggle"
                data-testid="replay-local"
                aria-expanded=move || replaying.get().to_string()
                on:click=move |_| set_replaying.update(|on| *on = !*on)
            >
                {move || if replaying.get() { "Hide replay" } else { "Replay" }}
            </button>
            {replay}
        </section>
    }
}

/// The 验证 code the server gave this game's result once it was delivered (reactive:
/// it arrives while the screen shows); `None` until then, and for a game not recorded.
fn verification_code(saving: &Recording) -> Signal<Option<String>> {
    let Ok(saving) = *saving else {
        return Signal::derive(|| None);
    };
    let sync = expect_context::<Coordinator>().view();
    Signal::derive(move || {
        let Saving::Saved { score_id, .. } = saving.get() else {
            return None;
        };
        sync.with(|v| {
            v.verified
                .iter()
                .find(|verified| verified.score_id == score_id)
                .map(|verified| verified.code.clone())
        })
    })
}

/// Before this device's first upload (it has no save on the server yet): the boards
/// publish results with their keystroke log (docs/api.md, "Results").
#[component]
fn PublicNotice() -> impl IntoView {
    let never_uploaded = LocalResource::new(|| async { db::credentials().await.is_none() });
    move || {
        never_uploaded.get().unwrap_or(false).then(|| {
            view! {
                <p class="saving public-notice" data-testid="public-notice">
                    "Results sent to the boards are public with their keystroke log, so anyone can replay them."
                </p>
            }
        })
    }
}

/// Where a new personal best stands with the server (docs/sync.md, "The crown").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CrownState {
    /// Waiting in the outbox, or held for review.
    Pending,
    /// The server answered `improved`.
    Confirmed,
    /// Refused (the entry is blocked), or a better result stands on the server.
    NotCounted,
}

impl CrownState {
    fn of(view: &SyncView, score_id: Uuid) -> CrownState {
        if view.blocked.iter().any(|b| b.score_id == score_id) {
            return CrownState::NotCounted;
        }
        if view.held.iter().any(|h| h.score_id == score_id) {
            return CrownState::Pending;
        }
        match view.verified.iter().find(|v| v.score_id == score_id) {
            Some(verified) if verified.improved => CrownState::Confirmed,
            Some(_) => CrownState::NotCounted,
            None => CrownState::Pending,
        }
    }

    fn id(self) -> &'static str {
        match self {
            CrownState::Pending => "pending",
            CrownState::Confirmed => "confirmed",
            CrownState::NotCounted => "not-counted",
        }
    }

    fn label(self) -> &'static str {
        match self {
            CrownState::Pending => "pending",
            CrownState::Confirmed => "confirmed",
            CrownState::NotCounted => "not counted",
        }
    }
}

/// The crown of a new personal best, following its delivery; a short celebration
/// (CSS, none under `prefers-reduced-motion`) when a best that beat an earlier one is
/// confirmed.
#[component]
fn Crown(score_id: Uuid, had_best: bool) -> impl IntoView {
    let sync = expect_context::<Coordinator>().view();
    let state = Memo::new(move |_| sync.with(|v| CrownState::of(v, score_id)));
    view! {
        <span
            class="crown"
            class:celebrate=move || had_best && state.get() == CrownState::Confirmed
            data-testid="crown"
            data-state=move || state.get().id()
        >
            <span aria-hidden="true">"👑"</span>
            " "
            {move || state.get().label()}
        </span>
    }
}

/// "Saving…" (or "Not saved yet"), then "Saved" (and "New personal best"), or why not.
#[component]
fn SavingStatus(saving: Recording) -> impl IntoView {
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
        Saving::Saved {
            score_id,
            new_best,
            had_best,
        } => {
            let sync = expect_context::<Coordinator>().view();
            let held = move || sync.with(|v| v.held.iter().any(|h| h.score_id == score_id));
            view! {
                <p class="saving">
                    <span data-testid="saved">"Saved"</span>
                    {new_best.then(|| view! {
                        <strong class="new-best" data-testid="new-best">" New personal best!"</strong>
                        <Crown score_id had_best/>
                    })}
                </p>
                {move || held().then(|| view! {
                    <p class="saving held" data-testid="held">{format!("Held for review: this result {}", wording::HELD)}</p>
                })}
            }
            .into_any()
        }
        Saving::Failed(error) => view! {
            <p class="saving refused" data-testid="not-saved">{format!("Could not save: {error}")}</p>
        }
        .into_any(),
    })
    .into_any()
}
