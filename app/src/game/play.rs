//! One game being played: the prompt, the typing field, the live timer and speed.
//!
//! Every input event goes synchronously into the core [`Session`] and then updates
//! only the marks of the characters it touched (and the caret, which moves the
//! prompt's window of lines when it changes line). The timer and the live speed are
//! refreshed by an interval, not by keystrokes, so a keystroke stays O(1).

use super::input::TypingInput;
use super::prompt::{Marks, PromptView};
use super::texts::Assignment;
use crate::on_demand::GameDrawn;
use keydo_core::game::mode::Language;
use keydo_core::game::options::Test;
use keydo_core::game::score::Stats;
use keydo_core::{Edit, InputLog, KeyCounts, Mode, Prompt, PromptId, Session};
use leptos::html::Input;
use leptos::prelude::*;
use std::time::Duration;

/// How often the timer, the live speed and the caret's blink refresh.
const REFRESH: Duration = Duration::from_millis(100);
/// The caret blinks once no key has come for this long, lit and dark this long each.
const BLINK_MS: u64 = 500;

/// Whether the caret is in its dark half `idle_ms` after the last key (or the start):
/// lit while keys come, then blinking.
fn caret_dark(idle_ms: u64) -> bool {
    (idle_ms / BLINK_MS) % 2 == 1
}

/// A finished game, handed to the result screen.
#[derive(Debug, Clone, PartialEq)]
pub struct Finished {
    pub mode: Mode,
    pub stats: Stats,
    /// Cumulative stats at each second (see [`Session::samples`]).
    pub samples: Vec<Stats>,
    /// The keys pressed, IME compositions included, and the corrections.
    pub keys: KeyCounts,
    /// The prompt and every edit, which the server replays to verify the result.
    pub prompt: PromptId,
    pub input: InputLog,
    /// The text `prompt` names, which the report and the replay play the log on.
    pub target: Prompt,
    /// A loaded QQ text's 段号, for the 成绩 line.
    pub segment: Option<u32>,
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
    // A word test's options (a `time` game's length) travel in its prompt identity.
    let test = Test {
        mode,
        options: assignment.id.options(),
    };
    // Ready for a key once this is rendered: what loads on demand may start.
    if let Some(drawn) = use_context::<GameDrawn>() {
        drawn.mark_when_rendered();
    }
    let session = Session::new(test, &assignment.prompt);
    let session = StoredValue::new(match assignment.time_limit_ms {
        Some(limit) => session.timed(limit),
        None => session,
    });
    let time_limit_ms = session.with_value(Session::time_limit_ms);
    let prompt_id = StoredValue::new(assignment.id.clone());
    let prompt_text = StoredValue::new(assignment.prompt.clone());
    let segment = assignment.segment;
    let marks = session.with_value(Marks::new);
    let (live, set_live) = signal(session.with_value(Session::stats));
    let (composing, set_composing) = signal(false);
    let input_ref = NodeRef::<Input>::new();
    let (caret, set_caret) = signal(0usize);
    let (caret_off, set_caret_off) = signal(false);
    let last_key_at = StoredValue::new(now());

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
                keys: s.key_counts(),
                prompt: prompt_id.get_value(),
                input: s.input_log(),
                target: prompt_text.get_value(),
                segment,
            })
        });
        match result {
            Some(finished) => on_finish(finished),
            // A `time` game ended with nothing typed: nothing to show, play again.
            None => on_restart(),
        }
    };

    let on_edit = move |edit: Edit, at: u64| {
        last_key_at.set_value(at);
        if caret_off.get_untracked() {
            set_caret_off.set(false);
        }
        let old_caret = session.with_value(Session::caret);
        session.update_value(|s| s.apply(edit, at));
        session.with_value(|s| {
            marks.sync(s, old_caret);
            let is_composing = !s.composition().is_empty();
            if composing.get_untracked() != is_composing {
                set_composing.set(is_composing);
            }
        });
        let new_caret = session.with_value(Session::caret);
        if caret.get_untracked() != new_caret {
            set_caret.set(new_caret);
        }
        report_if_finished();
    };

    let refresh = move || {
        session.update_value(|s| s.tick(now()));
        set_live.set(session.with_value(Session::stats));
        let dark = caret_dark(now().saturating_sub(last_key_at.get_value()));
        if caret_off.get_untracked() != dark {
            set_caret_off.set(dark);
        }
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
    let label = input_label(language);
    let target = session.with_value(|s| s.target().to_vec());
    view! {
        <div class="play" class:zh=language == Language::Chinese>
            <LiveStats mode time_limit_ms live/>
            <PromptView text=target marks caret caret_off composing language on_click=focus_input/>
            {assignment.attribution.map(|line| view! { <p class="attribution">{line}</p> })}
            <div class="controls">
                <TypingInput node_ref=input_ref on_edit label/>
                <button class="restart" data-testid="restart" on:click=move |_| on_restart()>
                    "Restart"
                </button>
            </div>
            <p class="hint">{HINT}</p>
        </div>
    }
}

const HINT: &str = "Tab then Enter, or Esc: new text";

/// The typing field's label, in the language typed.
fn input_label(language: Language) -> &'static str {
    match language {
        Language::Chinese => "在此输入，用输入法",
        Language::English => "Type the text here",
    }
}

/// The stage while the texts load: the game's own layout around an empty prompt, so
/// nothing on the page moves when the prompt arrives.
#[component]
pub fn Loading(mode: Mode) -> impl IntoView {
    let language = mode.language();
    view! {
        <div class="play" class:zh=language == Language::Chinese aria-busy="true">
            <div class="live" aria-hidden="true"><span class="timer">"\u{a0}"</span></div>
            <div class="prompt-box">
                <p class="prompt prompt-loading" lang="en">"Loading texts…"</p>
            </div>
            <div class="controls">
                <input class="typing-input" type="text" disabled aria-label=input_label(language) placeholder=input_label(language)/>
                <button class="restart" disabled>"Restart"</button>
            </div>
            <p class="hint">{HINT}</p>
        </div>
    }
}

/// The timer (counting down in `time`, from its length) and the speed so far.
#[component]
fn LiveStats(mode: Mode, time_limit_ms: Option<u64>, live: ReadSignal<Stats>) -> impl IntoView {
    let seconds = move || {
        let elapsed = live.get().duration_ms;
        match time_limit_ms {
            Some(limit) => limit.saturating_sub(elapsed).div_ceil(1000),
            None => elapsed / 1000,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caret_stays_lit_while_keys_come_then_blinks() {
        // Keys come at least every half second: never dark.
        assert!((0..BLINK_MS).all(|idle| !caret_dark(idle)));
        // Then dark and lit by turns.
        assert!(caret_dark(BLINK_MS));
        assert!(caret_dark(2 * BLINK_MS - 1));
        assert!(!caret_dark(2 * BLINK_MS));
        assert!(caret_dark(3 * BLINK_MS));
    }
}
