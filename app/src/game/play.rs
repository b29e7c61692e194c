//! One game being played: the prompt, the typing field, the live timer and speed.
//!
//! Every input event goes synchronously into the core [`Session`] and then updates
//! only the marks of the characters it touched. The timer and the live speed are
//! refreshed by an interval, not by keystrokes, so a keystroke stays O(1).

use super::input::TypingInput;
use super::prompt::{Marks, PromptView};
use super::texts::Assignment;
use keydo_core::mode::Language;
use keydo_core::score::{Stats, TIME_MODE_DURATION_MS};
use keydo_core::{Edit, Mode, Session};
use leptos::html::{Div, Input};
use leptos::prelude::*;
use std::time::Duration;

/// How often the timer and live speed refresh.
const REFRESH: Duration = Duration::from_millis(100);

/// A finished game, handed to the result screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub mode: Mode,
    pub stats: Stats,
    /// Cumulative stats at each second (see [`Session::samples`]).
    pub samples: Vec<Stats>,
}

/// The page's clock, the same one input events are stamped with.
fn now() -> u64 {
    window()
        .performance()
        .map_or(0.0, |performance| performance.now())
        .round() as u64
}

#[component]
pub fn Play(
    mode: Mode,
    assignment: Assignment,
    on_finish: impl Fn(Finished) + Copy + 'static,
    on_restart: impl Fn() + Copy + 'static,
) -> impl IntoView {
    let session = StoredValue::new(Session::new(mode, &assignment.prompt));
    let marks = session.with_value(Marks::new);
    let (live, set_live) = signal(session.with_value(Session::stats));
    let (composing, set_composing) = signal(false);
    let input_ref = NodeRef::<Input>::new();
    let prompt_ref = NodeRef::<Div>::new();

    // Hands the result over once, whichever of a keystroke or the timer ends the game.
    let reported = StoredValue::new(false);
    let report_if_finished = move || {
        if reported.get_value() || !session.with_value(Session::is_finished) {
            return;
        }
        reported.set_value(true);
        let result = session.with_value(|s| {
            s.result().map(|stats| Finished {
                mode,
                stats,
                samples: s.samples().to_vec(),
            })
        });
        match result {
            Some(finished) => on_finish(finished),
            // A `time` game ended with nothing typed: nothing to show, play again.
            None => on_restart(),
        }
    };

    let on_edit = move |edit: Edit, at: u64| {
        let old_caret = session.with_value(Session::caret);
        session.update_value(|s| s.apply(edit, at));
        session.with_value(|s| {
            marks.sync(s, old_caret);
            let is_composing = !s.composition().is_empty();
            if composing.get_untracked() != is_composing {
                set_composing.set(is_composing);
            }
        });
        if let Some(prompt) = prompt_ref.get_untracked() {
            keep_caret_in_view(&prompt, session.with_value(Session::caret));
        }
        report_if_finished();
    };

    let refresh = move || {
        session.update_value(|s| s.tick(now()));
        set_live.set(session.with_value(Session::stats));
        report_if_finished();
    };
    if let Ok(interval) = set_interval_with_handle(refresh, REFRESH) {
        on_cleanup(move || interval.clear());
    }

    let focus_input = move || {
        if let Some(input) = input_ref.get_untracked() {
            let _ = input.focus();
        }
    };
    Effect::new(move || {
        if input_ref.get().is_some() {
            focus_input();
        }
    });

    let language = mode.language();
    let label = match language {
        Language::Chinese => "在此输入，用输入法",
        Language::English => "Type the text here",
    };
    let target = session.with_value(|s| s.target().to_vec());
    view! {
        <div class="play" class:zh=language == Language::Chinese>
            <LiveStats mode live/>
            <PromptView text=target marks node_ref=prompt_ref composing lang=language.tag() on_click=focus_input/>
            {assignment.attribution.map(|line| view! { <p class="attribution">{line}</p> })}
            <div class="controls">
                <TypingInput node_ref=input_ref on_edit label/>
                <button class="restart" data-testid="restart" on:click=move |_| on_restart()>
                    "Restart"
                </button>
            </div>
            <p class="hint">"Tab then Enter, or Esc: new text"</p>
        </div>
    }
}

/// Scrolls the prompt so the caret's line is its first or second visible line.
fn keep_caret_in_view(prompt: &web_sys::HtmlDivElement, caret: usize) {
    let Some(current) = prompt.children().item(caret as u32) else {
        return;
    };
    let Some(current) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&current) else {
        return;
    };
    // The prompt is the spans' offset parent (it is positioned).
    let wanted = (current.offset_top() - current.offset_height()).max(0);
    if prompt.scroll_top() != wanted {
        prompt.set_scroll_top(wanted);
    }
}

/// The timer (counting down in `time`) and the speed so far.
#[component]
fn LiveStats(mode: Mode, live: ReadSignal<Stats>) -> impl IntoView {
    let seconds = move || {
        let elapsed = live.get().duration_ms;
        match mode {
            Mode::Time => TIME_MODE_DURATION_MS.saturating_sub(elapsed).div_ceil(1000),
            _ => elapsed / 1000,
        }
    };
    let speed = move || {
        let stats = live.get();
        // Over a fraction of a second a speed is noise.
        if stats.duration_ms < 1_000 {
            return String::from("—");
        }
        format!("{:.0} {}", mode.speed(&stats), mode.speed_unit())
    };
    view! {
        <div class="live" aria-hidden="true">
            <span class="timer" data-testid="timer">{seconds}</span>
            <span class="speed" data-testid="live-speed">{speed}</span>
        </div>
    }
}
