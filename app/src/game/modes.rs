//! The mode picker: one button per mode, with the personal best under it. Choosing a
//! mode starts a new game of it.

use super::records::Bests;
use keydo_core::Mode;
use leptos::prelude::*;

/// What each mode asks of the player, shown on its button.
fn mode_label(mode: Mode) -> (&'static str, &'static str) {
    match mode {
        Mode::Time => ("time", "60 seconds of common words"),
        Mode::Words => ("words", "50 common words"),
        Mode::Quote => ("quote", "one English passage"),
        Mode::Zh => ("中文", "一段中文，用输入法"),
    }
}

#[component]
pub fn ModePicker(
    current: ReadSignal<Mode>,
    bests: Bests,
    on_choose: impl Fn(Mode) + Copy + 'static,
) -> impl IntoView {
    view! {
        <nav class="modes" aria-label="Game mode">
            {Mode::ALL
                .into_iter()
                .map(|mode| {
                    let (name, hint) = mode_label(mode);
                    view! {
                        <button
                            class="mode"
                            data-testid=format!("mode-{}", mode.id())
                            aria-pressed=move || (current.get() == mode).to_string()
                            on:click=move |_| on_choose(mode)
                        >
                            <span class="mode-name">{name}</span>
                            <span class="mode-hint">{hint}</span>
                            <BestLine mode bests/>
                        </button>
                    }
                })
                .collect_view()}
        </nav>
    }
}

/// "best 5234", once the mode has one.
#[component]
fn BestLine(mode: Mode, bests: Bests) -> impl IntoView {
    move || {
        bests.of(mode).map(|best| {
            view! {
                <span class="mode-best">
                    "best " <span data-testid=format!("best-{}", mode.id())>{best}</span>
                </span>
            }
        })
    }
}
