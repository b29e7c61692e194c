//! The mode picker: one button per mode, with the personal best under it. Choosing a
//! mode starts a new game of it.

use crate::services::records::Records;
use keydo_core::Mode;
use leptos::prelude::*;

#[component]
pub fn ModePicker(
    /// The mode being played; none while a loaded text or the day's race is.
    current: Memo<Option<Mode>>,
    on_choose: impl Fn(Mode) + Copy + 'static,
) -> impl IntoView {
    view! {
        <nav class="modes" aria-label="Game mode">
            {Mode::ALL
                .into_iter()
                .map(|mode| {
                    view! {
                        <button
                            class="mode"
                            data-testid=format!("mode-{}", mode.id())
                            aria-pressed=move || (current.get() == Some(mode)).to_string()
                            on:click=move |_| on_choose(mode)
                        >
                            <span class="mode-name" lang=mode.language().tag()>{mode.name()}</span>
                            <span class="mode-hint" lang=mode.language().tag()>{mode.description()}</span>
                            <BestLine mode/>
                        </button>
                    }
                })
                .collect_view()}
        </nav>
    }
}

/// "best 52.34 WPM" once the mode has one. The line keeps its height before the bests
/// are read (and while there is none), so nothing moves when they arrive.
#[component]
fn BestLine(mode: Mode) -> impl IntoView {
    let records = expect_context::<Records>();
    view! {
        <span class="mode-best">
            {move || {
                records.best(mode).map(|best| {
                    view! {
                        "best "
                        <span data-testid=format!("best-{}", mode.id()) data-value=best>
                            {mode.format_value(best)}
                        </span>
                    }
                })
            }}
        </span>
    }
}
