//! The replay player: a recorded game played back key by key from its input log, with
//! play/pause, 0.5×/1×/2× and a seek slider (docs/replay.md, "Playback").
//!
//! Core's [`Playback`] replays the log once; each tick asks it for the frame at the
//! player's position ([`Playback::state_at`]), so seeking anywhere costs the same as
//! playing on. The prompt is drawn as runs of characters in one state
//! ([`frame::frame_runs`]), a handful of elements whatever the text's length.

mod frame;

pub use frame::replay_code;

use frame::{RATES, Run, advance, clock, frame_runs};
use keydo_core::game::mode::Language;
use keydo_core::game::playback::Playback;
use leptos::prelude::*;
use std::time::Duration;

/// How often a playing replay moves on: about 30 frames a second.
const TICK: Duration = Duration::from_millis(33);

/// The page's clock, for the wall time between ticks.
fn now() -> f64 {
    window()
        .performance()
        .map_or(0.0, |performance| performance.now())
}

#[component]
pub fn ReplayPlayer(
    playback: Playback,
    /// The prompt's characters.
    target: Vec<char>,
    language: Language,
    /// Starts playing as soon as it shows.
    #[prop(optional)]
    autoplay: bool,
) -> impl IntoView {
    let duration = playback.duration_ms();
    let playback = StoredValue::new(playback);
    let target = StoredValue::new(target);
    let (position, set_position) = signal(0u64);
    let (playing, set_playing) = signal(autoplay);
    let (rate, set_rate) = signal(1.0_f64);
    let last_tick = StoredValue::new(now());
    let frame = Memo::new(move |_| playback.with_value(|p| p.state_at(position.get())));

    let tick = move || {
        let at = now();
        let elapsed = at - last_tick.get_value();
        last_tick.set_value(at);
        if !playing.get_untracked() {
            return;
        }
        let (next, ended) = advance(
            position.get_untracked(),
            elapsed,
            rate.get_untracked(),
            duration,
        );
        set_position.set(next);
        if ended {
            set_playing.set(false);
        }
    };
    if let Ok(interval) = set_interval_with_handle(tick, TICK) {
        on_cleanup(move || interval.clear());
    }
    let toggle = move |_| {
        if !playing.get_untracked() && position.get_untracked() >= duration {
            set_position.set(0);
        }
        last_tick.set_value(now());
        set_playing.update(|playing| *playing = !*playing);
    };
    let seek = move |event: leptos::ev::Event| {
        if let Ok(ms) = event_target_value(&event).parse::<u64>() {
            set_position.set(ms.min(duration));
        }
    };

    let runs = move |runs: Vec<Run>| {
        runs.into_iter()
            .map(|run| view! { <span class=format!("ch {}", run.kind.class())>{run.text}</span> })
            .collect_view()
    };
    let prompt = move || {
        let (typed, pending) = frame.with(|f| target.with_value(|t| frame_runs(t, f)));
        let composing = frame.with(|f| f.composing.clone());
        view! {
            {runs(typed)}
            <span class="replay-caret" aria-hidden="true"></span>
            {composing.map(|text| view! { <span class="replay-composing">{text}</span> })}
            {runs(pending)}
        }
    };
    let rate_buttons = RATES
        .into_iter()
        .map(|(label, value)| {
            view! {
                <button
                    class="replay-rate"
                    data-testid=format!("replay-rate-{value}")
                    aria-pressed=move || (rate.get() == value).to_string()
                    on:click=move |_| set_rate.set(value)
                >
                    {label}
                </button>
            }
        })
        .collect_view();
    view! {
        <div
            class="replay"
            data-testid="replay"
            data-typed=move || frame.with(|f| f.typed.clone())
            data-position=position
            data-duration=duration
            data-playing=move || playing.get().to_string()
        >
            <p class="replay-prompt" class:zh=language == Language::Chinese lang=language.tag()>
                {prompt}
            </p>
            <div class="replay-controls">
                <button class="replay-play" data-testid="replay-play" on:click=toggle>
                    {move || if playing.get() { "Pause" } else { "Play" }}
                </button>
                {rate_buttons}
                <input
                    type="range"
                    class="replay-seek"
                    data-testid="replay-seek"
                    aria-label="Position in the replay"
                    min="0"
                    max=duration
                    step="10"
                    prop:value=move || position.get().to_string()
                    on:input=seek
                />
                <span class="replay-clock">
                    {move || clock(position.get())}" / "{clock(duration)}
                </span>
            </div>
        </div>
    }
}
