//! The top-level component: title, mode picker and the offline shell's status.

use crate::pwa::ShellStatus;
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
pub fn App() -> impl IntoView {
    let (mode, set_mode) = signal(Mode::Time);
    view! {
        <header class="top">
            <h1 class="brand">"KeyDo " <span lang="zh">"键道"</span></h1>
            <ShellStatus/>
        </header>
        <main>
            <nav class="modes" aria-label="Game mode">
                {Mode::ALL
                    .into_iter()
                    .map(|m| {
                        let (name, hint) = mode_label(m);
                        view! {
                            <button
                                class="mode"
                                data-testid=format!("mode-{}", m.id())
                                aria-pressed=move || (mode.get() == m).to_string()
                                on:click=move |_| set_mode.set(m)
                            >
                                <span class="mode-name">{name}</span>
                                <span class="mode-hint">{hint}</span>
                            </button>
                        }
                    })
                    .collect_view()}
            </nav>
        </main>
    }
}
