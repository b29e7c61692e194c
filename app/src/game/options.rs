//! The options of the word tests (docs/scoring.md, "Options"): a length for `time`
//! (seconds) and `words` (words), and punctuation and numbers. Shown under the mode
//! picker while a word mode is played; a change starts a new game with it and is kept
//! in the browser database for the next visit. It says whether the chosen test is
//! ranked on the public boards or keeps a personal best only.

use crate::services::db;
use keydo_core::Mode;
use keydo_core::game::options::TestOptions;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The options chosen for each word mode.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Chosen {
    time: TestOptions,
    words: TestOptions,
}

impl Chosen {
    /// The options `mode` is played with: the public test in the passage modes.
    pub fn of(&self, mode: Mode) -> TestOptions {
        match mode {
            Mode::Time => self.time,
            Mode::Words => self.words,
            Mode::Quote | Mode::Zh => TestOptions::default(),
        }
    }

    fn set(&mut self, mode: Mode, options: TestOptions) {
        match mode {
            Mode::Time => self.time = options,
            Mode::Words => self.words = options,
            Mode::Quote | Mode::Zh => {}
        }
    }
}

/// The chosen options, read from the browser database once it answers.
pub fn load_chosen() -> RwSignal<Chosen> {
    let chosen = RwSignal::new(Chosen::default());
    spawn_local(async move {
        for mode in [Mode::Time, Mode::Words] {
            // Only a change restarts the game being shown.
            if let Ok(options) = db::test_options(mode).await
                && chosen
                    .try_get_untracked()
                    .is_some_and(|now| now.of(mode) != options)
            {
                chosen.try_update(|chosen| chosen.set(mode, options));
            }
        }
    });
    chosen
}

/// Keeps `options` as `mode`'s choice, here and in the browser database.
fn choose(chosen: RwSignal<Chosen>, mode: Mode, options: TestOptions) {
    chosen.update(|chosen| chosen.set(mode, options));
    spawn_local(async move {
        if let Err(error) = db::set_test_options(mode, options).await {
            web_sys::console::warn_1(&format!("keydo: {error}").into());
        }
    });
}

#[component]
pub fn OptionsBar(
    /// The mode being played; none while a loaded text or the day's race is.
    current: Memo<Option<Mode>>,
    chosen: RwSignal<Chosen>,
    /// A new game starts with the changed options.
    on_change: impl Fn() + Copy + Send + Sync + 'static,
) -> impl IntoView {
    move || {
        let mode = current
            .get()
            .filter(|mode| !TestOptions::lengths(*mode).is_empty())?;
        let options = move || chosen.get().of(mode);
        let change = move |options: TestOptions| {
            choose(chosen, mode, options);
            on_change();
        };
        let unit = if mode == Mode::Time { "s" } else { "words" };
        let lengths = TestOptions::lengths(mode)
            .iter()
            .map(|&length| {
                view! {
                    <button
                        class="option"
                        data-testid=format!("length-{length}")
                        aria-pressed=move || (options().length(mode) == Some(length)).to_string()
                        on:click=move |_| change(options().with_length(mode, length))
                    >
                        {length}
                    </button>
                }
            })
            .collect_view();
        let toggle =
            move |name: &'static str, on: fn(&TestOptions) -> bool, flip: fn(&mut TestOptions)| {
                view! {
                    <button
                        class="option"
                        data-testid=format!("option-{name}")
                        aria-pressed=move || on(&options()).to_string()
                        on:click=move |_| {
                            let mut flipped = options();
                            flip(&mut flipped);
                            change(flipped);
                        }
                    >
                        {name}
                    </button>
                }
            };
        let ranked = move || {
            if options().is_default() {
                "Ranked on the public boards.".to_owned()
            } else {
                format!(
                    "{}: personal best only. The public boards rank the default test ({}).",
                    options().label(mode),
                    TestOptions::default().label(mode)
                )
            }
        };
        Some(view! {
            <div class="options" role="group" aria-label="Test options" data-testid="options">
                <span class="options-lengths">{lengths}<span class="muted">{unit}</span></span>
                {toggle("punctuation", |o| o.punctuation, |o| o.punctuation = !o.punctuation)}
                {toggle("numbers", |o| o.numbers, |o| o.numbers = !o.numbers)}
                <p class="options-ranked muted" data-testid="options-ranked">{ranked}</p>
            </div>
        })
    }
}
