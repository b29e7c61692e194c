//! The end of a practice game, and the 练错字 / 练慢字 row every result screen shows.

use super::{PracticeKind, PracticeText, StartPractice, new_lesson};
use crate::game::Finished;
use crate::on_demand::SplitLoaderError;
use crate::services::practice::{CourseState, PracticeService, Saved};
use keydo_core::Prompt;
use keydo_core::game::report::{self, Report};
use keydo_core::game::score;
use keydo_core::practice::drill::{Drill, DrillKind};
use leptos::prelude::*;
use leptos::task::spawn_local;
use wasm_split_helpers::wasm_split;

/// What a finished practice game shows ([`PracticeResult`]), from the same module as
/// the opened panel: a drill started from a result screen can come before the panel.
#[wasm_split(practice, fallible)]
pub fn practice_result(
    finished: Finished,
    practice: PracticeText,
    saved: Saved,
    on_again: Callback<()>,
) -> Result<AnyView, SplitLoaderError> {
    Ok(
        view! { <PracticeResult finished practice saved on_again=move || on_again.run(())/> }
            .into_any(),
    )
}

/// A practice game's speed and accuracy, whether its statistics were saved (and a
/// custom text's personal best), and what to practise next. Nothing here is sent
/// anywhere.
#[component]
fn PracticeResult(
    finished: Finished,
    practice: PracticeText,
    saved: Saved,
    on_again: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let service = expect_context::<PracticeService>();
    let start = expect_context::<StartPractice>();
    let mode = finished.mode;
    let speed = mode.format_speed(mode.speed(&finished.stats));
    let accuracy = format!("{:.0}%", score::accuracy(&finished.stats) * 100.0);
    let report = report::report(mode, &finished.target, &finished.input).ok();
    let language = practice.language();
    let heading = match &practice.kind {
        PracticeKind::Custom(_) => "Custom text",
        PracticeKind::Lesson { .. } | PracticeKind::Drill { .. } => "练习 · Practice",
    };
    let next = move |_| match (&practice.kind, service.course().get_untracked()) {
        (PracticeKind::Lesson { .. }, CourseState::Loaded(course)) => {
            start.0.run(new_lesson(&course, service, language));
        }
        (PracticeKind::Custom(custom), _) => start.0.run(PracticeText::of_custom(custom.clone())),
        _ => on_again(),
    };
    let status = move || match saved.get() {
        None => "Saving…".to_owned(),
        Some(Ok(_)) => "Practice saved: your letters and 字 are updated.".to_owned(),
        Some(Err(error)) => format!("Practice not saved: {error}"),
    };
    // A custom text's own best, once the game is saved against it.
    let best = move || {
        let best = saved.get()?.ok()??;
        let text = if best.new_best && best.had_best {
            format!(
                "New personal best for this text: {}",
                mode.format_value(best.best)
            )
        } else if best.new_best {
            format!(
                "Your first best for this text: {}",
                mode.format_value(best.best)
            )
        } else {
            format!("Your best for this text: {}", mode.format_value(best.best))
        };
        Some(view! { <p class="custom-best" data-testid="custom-result-best">{text}</p> })
    };
    view! {
        <section class="result practice-result" aria-live="polite" data-testid="practice-result">
            <h2 class="result-heading">{heading}</h2>
            <p class="score">
                <span class="score-value" data-testid="practice-speed">{speed}</span>
                " "<span class="score-unit">{mode.speed_unit()}</span>
            </p>
            <p>{format!("Accuracy {accuracy}. Practice is never sent to a board.")}</p>
            <p class="saving" data-testid="practice-saved">{status}</p>
            {best}
            <button class="next" data-testid="practice-next" on:click=next>"Next practice"</button>
            {report.map(|report| view! { <DrillRow report target=finished.target.clone()/> })}
        </section>
    }
}

/// 练错字 / 练慢字: a button for each drill the game gives (at most 20 words / 50 字),
/// with the words or 字 it would practise. A drill's text is made in the practice
/// module ([`drill_text`]), which a drill needs anyway, so the result screen's own
/// module never normalises (docs/performance.md, "What loads first"); if that module
/// cannot be fetched, a line says so and the button tries again.
#[component]
pub fn DrillRow(report: Report, target: Prompt) -> impl IntoView {
    let start = use_context::<StartPractice>();
    let (not_loaded, set_not_loaded) = signal(false);
    let buttons = [DrillKind::Missed, DrillKind::Slowest]
        .into_iter()
        .filter_map(|kind| {
            let drill = Drill::of(kind, &report, &target);
            drill.prompt()?;
            let (id, name) = match kind {
                DrillKind::Missed => ("missed", "练错字 · Practise missed"),
                DrillKind::Slowest => ("slowest", "练慢字 · Practise slowest"),
            };
            let start = start?;
            let units = drill.units_text();
            let on_click = move |_| {
                let drill = drill.clone();
                spawn_local(async move {
                    match drill_text(drill).await {
                        Ok(text) => {
                            set_not_loaded.set(false);
                            // A drill with a button has a prompt, so always a text.
                            if let Some(text) = text {
                                start.0.run(text);
                            }
                        }
                        Err(_) => set_not_loaded.set(true),
                    }
                });
            };
            Some(view! {
                <div class="drill">
                    <button data-testid=format!("drill-{id}") on:click=on_click>{name}</button>
                    " "
                    <span class="drill-units" data-testid=format!("drill-{id}-units")>{units}</span>
                </div>
            })
        })
        .collect_view();
    view! {
        <div class="drills" role="group" aria-label="Practise this game's words">
            {buttons}
            {move || not_loaded.get().then(|| view! {
                <p class="load-text-error" role="alert" data-testid="drill-error">
                    "The practice could not be loaded; press the button to try again."
                </p>
            })}
        </div>
    }
}

/// The practice of a drill, in the practice module.
#[wasm_split(practice, fallible)]
fn drill_text(drill: Drill) -> Result<Option<PracticeText>, SplitLoaderError> {
    Ok(PracticeText::of_drill(&drill))
}
