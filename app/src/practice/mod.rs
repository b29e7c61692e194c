//! 练习 · Practice (docs/practice.md): the panel that starts adaptive lessons, plays the
//! player's custom text and shows progress, and what a practice game shows when it
//! ends. The rules are core's
//! (`keydo_core::practice`); the course and the statistics come from
//! [`PracticeService`]. A practice game is typed in the game's own `Play`, and is never
//! recorded for a board.

mod chart;
mod custom;
mod progress;
mod result;

use crate::on_demand::{OnDemand, SplitLoaderError};
use crate::services::practice::{CourseState, PracticeService};
use custom::CustomTextForm;
use keydo_core::game::mode::Language;
use keydo_core::practice::Course;
use keydo_core::practice::custom::CustomText;
use keydo_core::practice::drill::{Drill, DrillKind, practice_mode};
use keydo_core::practice::stats::Target;
use keydo_core::text::{LoadedText, TextError};
use keydo_core::{Mode, Prompt, PromptId};
use leptos::prelude::*;
use progress::Progress;
pub use result::{DrillRow, practice_result};

/// A practice game to play: its text, and what it practises.
#[derive(Debug, Clone, PartialEq)]
pub struct PracticeText {
    pub prompt: Prompt,
    /// The game's prompt identity, the prompt as a loaded text (never sent: a practice
    /// game is recorded for no board), or why it cannot be one. Made with the text, in
    /// the modules loaded on demand that make practice texts, so the main module never
    /// normalises (docs/performance.md, "What loads first").
    pub id: Result<PromptId, TextError>,
    pub kind: PracticeKind,
}

#[derive(Debug, Clone, PartialEq)]
pub enum PracticeKind {
    /// An adaptive lesson of a language, stressing these letters or 字.
    Lesson { language: Language, focus: String },
    /// 练错字 or 练慢字 after a game.
    Drill { kind: DrillKind, language: Language },
    /// The player's own text, which keeps a personal best on the device.
    Custom(CustomText),
}

impl PracticeText {
    fn new(prompt: Prompt, kind: PracticeKind) -> PracticeText {
        PracticeText {
            id: LoadedText::new(prompt.as_str()).map(|text| PromptId::Text { text }),
            prompt,
            kind,
        }
    }

    pub fn language(&self) -> Language {
        match &self.kind {
            PracticeKind::Lesson { language, .. } | PracticeKind::Drill { language, .. } => {
                *language
            }
            PracticeKind::Custom(custom) => custom.language(),
        }
    }

    /// How long a game lasts from its first key, for a timed custom text.
    pub fn time_limit_ms(&self) -> Option<u64> {
        match &self.kind {
            PracticeKind::Custom(custom) => custom.time_limit_ms(),
            PracticeKind::Lesson { .. } | PracticeKind::Drill { .. } => None,
        }
    }

    /// The mode it is played and measured in.
    pub fn mode(&self) -> Mode {
        practice_mode(self.language())
    }

    /// The line shown under the prompt.
    pub fn label(&self) -> String {
        match &self.kind {
            PracticeKind::Lesson { focus, .. } => {
                format!("练习 · Practice, focus {focus}: not sent to any board")
            }
            PracticeKind::Drill { kind, .. } => format!(
                "{}: not sent to any board",
                match kind {
                    DrillKind::Missed => "练错字 · Missed",
                    DrillKind::Slowest => "练慢字 · Slowest",
                }
            ),
            PracticeKind::Custom(custom) => {
                format!("Custom text · {custom}: a personal best only, not sent to any board")
            }
        }
    }

    /// A game on `custom`, drawn with a new seed (a shuffled text differs each game).
    pub fn of_custom(custom: CustomText) -> PracticeText {
        PracticeText::new(custom.prompt(random_seed()), PracticeKind::Custom(custom))
    }

    /// The practice of a drill, if it has anything to practise.
    pub fn of_drill(drill: &Drill) -> Option<PracticeText> {
        Some(PracticeText::new(
            drill.prompt()?,
            PracticeKind::Drill {
                kind: drill.kind,
                language: drill.language,
            },
        ))
    }
}

/// How a component starts a practice game in the game above (provided by the game).
#[derive(Clone, Copy)]
pub struct StartPractice(pub Callback<PracticeText>);

/// A new lesson of `language` for the stored statistics, timed as the performance
/// measure `keydo:lesson` (scripts/bench-practice.mjs reads it).
pub fn new_lesson(course: &Course, service: PracticeService, language: Language) -> PracticeText {
    let practice = service.practice().get_untracked();
    let seed = random_seed();
    let performance = window().performance();
    if let Some(performance) = &performance {
        let _ = performance.mark(LESSON_START);
    }
    let text = match language {
        Language::English => {
            let lesson = course
                .english
                .lesson(&practice.stats, practice.target, seed);
            PracticeText::new(
                lesson.prompt,
                PracticeKind::Lesson {
                    language,
                    focus: lesson.focus.to_string(),
                },
            )
        }
        Language::Chinese => {
            let lesson = course
                .chinese
                .lesson(&practice.stats, practice.target, seed);
            PracticeText::new(
                lesson.prompt,
                PracticeKind::Lesson {
                    language,
                    focus: lesson.focus.iter().collect(),
                },
            )
        }
    };
    if let Some(performance) = &performance {
        let _ = performance.measure_with_start_mark(LESSON_MEASURE, LESSON_START);
    }
    text
}

/// Any seed: a lesson or a shuffled custom text is deterministic for its seed (core's
/// golden tests), and each one should differ.
fn random_seed() -> u64 {
    (js_sys::Math::random() * 9_007_199_254_740_991.0) as u64
}

const LESSON_MEASURE: &str = "keydo:lesson";
const LESSON_START: &str = "keydo:lesson:start";

/// The 练习 panel: lessons in both languages, the target speeds and the progress.
/// Its code and its lists load when it is first opened (docs/performance.md).
#[component]
pub fn PracticePanel() -> impl IntoView {
    let service = expect_context::<PracticeService>();
    let (open, set_open) = signal(false);
    let on_toggle = move |event: leptos::ev::Event| {
        set_open.set(event_target::<web_sys::HtmlDetailsElement>(&event).open());
    };
    view! {
        <details class="practice-panel" data-testid="practice-panel" on:toggle=on_toggle>
            <summary><span lang="zh-Hans">"练习"</span>" · Practice"</summary>
            {move || service.error().get().map(|error| view! {
                <p class="load-text-error" role="alert">{format!("Practice could not be saved: {error}")}</p>
            })}
            {move || open.get().then(|| view! { <OnDemand load=practice_lessons what="practice"/> })}
        </details>
    }
}

#[wasm_split_helpers::wasm_split(practice, fallible)]
fn practice_lessons() -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <Lessons/><CustomTextForm/> }.into_any())
}

/// The opened 练习 panel: the lessons once the course is loaded.
#[component]
fn Lessons() -> impl IntoView {
    let service = expect_context::<PracticeService>();
    // The panel's module is in: the course loads with it, once.
    service.load_course();
    let on_start = expect_context::<StartPractice>().0;
    let course = service.course();
    let practice = service.practice();
    let start = move |language| {
        if let CourseState::Loaded(course) = course.get_untracked() {
            on_start.run(new_lesson(&course, service, language));
        }
    };
    move || match course.get() {
        CourseState::NotLoaded | CourseState::Loading => {
            view! { <p class="practice-loading">"Loading the practice lists…"</p> }.into_any()
        }
        CourseState::Failed(error) => {
            view! { <p class="load-text-error" role="alert">{error}</p> }.into_any()
        }
        CourseState::Loaded(course) => {
            let english = course.english.clone();
            let chinese = course.chinese.clone();
            let letters = {
                let english = english.clone();
                move || {
                    practice.with(|p| {
                            let focus = english.focus(&p.stats, p.target);
                            english
                                .unlocked(&p.stats)
                                .iter()
                                .map(|&l| {
                                    view! { <span class="letter" class:focus=l == focus>{l.to_string()}</span> }
                                })
                                .collect_view()
                        })
                }
            };
            let focus_letter = {
                let english = english.clone();
                move || practice.with(|p| english.focus(&p.stats, p.target).to_string())
            };
            let zh_focus = {
                let chinese = chinese.clone();
                move || {
                    practice.with(|p| chinese.focus(&p.stats, p.target).iter().collect::<String>())
                }
            };
            let pools = {
                let chinese = chinese.clone();
                move || {
                    practice.with(|p| {
                        format!(
                            "{} of {} pools of 500 common 字 unlocked",
                            p.stats.pools_unlocked.min(chinese.pools()),
                            chinese.pools()
                        )
                    })
                }
            };
            view! {
                    <div class="practice-lesson">
                        <h3>"English"</h3>
                        <p class="letters" data-testid="practice-letters">{letters}</p>
                        <p>"Focus: " <strong data-testid="practice-focus">{focus_letter}</strong></p>
                        <TargetField/>
                        <button data-testid="practice-english" on:click=move |_| start(Language::English)>
                            "Start an English lesson"
                        </button>
                    </div>
                    <div class="practice-lesson" lang="zh-Hans">
                        <h3>"中文"</h3>
                        <p data-testid="practice-pools">{pools}</p>
                        <p>"弱字: " <strong data-testid="practice-zh-focus">{zh_focus}</strong></p>
                        <button data-testid="practice-chinese" on:click=move |_| start(Language::Chinese)>
                            "开始中文练习"
                        </button>
                    </div>
                    <Progress course=course.clone()/>
                }
                .into_any()
        }
    }
}

/// The English target speed, in WPM (Chinese keeps its own).
#[component]
fn TargetField() -> impl IntoView {
    let service = expect_context::<PracticeService>();
    let practice = service.practice();
    let on_change = move |event: leptos::ev::Event| {
        let value = event_target_value(&event);
        if let Ok(wpm) = value.trim().parse::<u32>()
            && (10..=250).contains(&wpm)
        {
            service.set_target(Target {
                wpm,
                ..service.target()
            });
        }
    };
    view! {
        <label class="practice-target">
            "Target speed (WPM) "
            <input
                type="number"
                min="10"
                max="250"
                data-testid="practice-target"
                prop:value=move || practice.with(|p| p.target.wpm.to_string())
                on:change=on_change
            />
        </label>
    }
}
