//! The typing game: pick a mode (and a word mode's options), load a text (载文), race
//! the day's text or practise (练习, `crate::practice`), type the prompt, see the result.
//!
//! [`Game`] owns what outlives one game (the mode, the corpora, the seeds) and shows
//! either the game in play or the last result; when a game ends it has the records
//! service record it, and the personal bests come from there. A restart
//! (the Restart or Next button, Tab then Enter onto them, or Esc anywhere) starts a
//! new game of the same mode with the next seed.

mod chart;
mod input;
mod loader;
mod modes;
mod options;
mod play;
mod prompt;
mod replay;
mod report;
mod result;
mod seed;
mod source;
mod texts;

use crate::on_demand::{GameDrawn, OnDemand};
use crate::practice::{PracticeKind, PracticePanel, PracticeText, StartPractice, practice_result};
use crate::services::practice::{PracticeService, Saved};
use crate::services::profile::ProfileService;
use crate::services::records::Records;
use keydo_core::Mode;
use keydo_core::game::board::boards_of;
use keydo_core::game::options::Test;
use keydo_core::game::score;
use keydo_core::text::daily::race_day;
use keydo_storage::PracticeGame;
use leptos::ev;
use leptos::prelude::*;
use loader::TextLoader;
use modes::ModePicker;
use options::OptionsBar;
pub use play::Finished;
use play::{Loading, Play};
pub use replay::{ReplayPlayer, replay_code};
use result::{Recording, result_screen};
use source::Source;
pub use texts::{Corpora, Words, read_words};

#[component]
pub fn Game(
    /// The word list, read by the page (`main`), usually before it mounted the game.
    words: Words,
) -> impl IntoView {
    let first_seed = seed::first_seed();
    let (source, set_source) = signal(Source::Mode(Mode::Time));
    let drawn = expect_context::<GameDrawn>();
    // The passages wait until the game is drawn, unless the game itself plays one.
    let passages_wanted = drawn.in_own_task();
    let corpora = Corpora::load_passages_when(
        words,
        Signal::derive(move || {
            passages_wanted.get() || matches!(source.with(Source::mode), Mode::Quote | Mode::Zh)
        }),
    );
    let (round, set_round) = signal(0u64);
    let (finished, set_finished) = signal(None::<(Finished, Ended)>);
    let chosen = options::load_chosen();
    let records = expect_context::<Records>();
    let practice = expect_context::<PracticeService>();
    // A result's recording belongs to the game, not to `Play` (gone once the result
    // shows): each one is owned until the next game ends.
    let game_owner = StoredValue::new(Owner::current().unwrap_or_default());
    let recording = StoredValue::new(None::<Owner>);
    let finish = move |done: Finished| {
        let owner = game_owner.with_value(Owner::child);
        // A practice game only updates the practice statistics: no board sees it.
        let ended = match source.get_untracked() {
            Source::Practice(text) => {
                let game = PracticeGame {
                    mode: done.mode,
                    prompt: done.target.as_str().to_owned(),
                    input: done.input.clone(),
                    target: practice.target(),
                    played_at: js_sys::Date::now() as u64,
                };
                // A custom text's game also counts against its setting's own best.
                let custom = match &text.kind {
                    PracticeKind::Custom(custom) => {
                        Some((custom.clone(), score::value(done.mode, &done.stats)))
                    }
                    PracticeKind::Lesson { .. } | PracticeKind::Drill { .. } => None,
                };
                Ended::Practised(text, owner.with(|| practice.record(game, custom)))
            }
            _ => Ended::Recorded(owner.with(|| record(records, corpora, &done))),
        };
        recording.set_value(Some(owner));
        set_finished.set(Some((done, ended)));
    };

    let restart = move || {
        set_finished.set(None);
        set_round.update(|round| *round += 1);
    };
    let play = move |chosen: Source| {
        set_source.set(chosen);
        restart();
    };
    // "Next game": a loaded text's next 段, or the same source again.
    let next_game = move || play(source.with_untracked(Source::after_finish));
    provide_context(StartPractice(Callback::new(move |text: PracticeText| {
        practice.open();
        play(Source::Practice(text))
    })));
    // The page opens in the player's preferred mode, once the profile is read, unless
    // a game was already played or another mode or a text picked.
    if let Some(profile) = use_context::<ProfileService>() {
        let view = profile.view();
        let preferred = Memo::new(move |_| {
            view.with(|v| v.loaded.then_some(v.profile.settings.preferred_mode))
        });
        Effect::new(move || {
            if let Some(preferred) = preferred.get()
                && round.get_untracked() == 0
                && finished.with_untracked(Option::is_none)
                && preferred != Mode::Time
                && source.with_untracked(|s| *s == Source::Mode(Mode::Time))
            {
                // Setting the same mode would still restart the game shown and take the
                // focus back from wherever the player put it (a paste outside the field).
                set_source.set(Source::Mode(preferred));
            }
        });
    }
    let on_escape = window_event_listener(ev::keydown, move |event| {
        // Esc also cancels an IME composition: that one is the IME's.
        if event.key() == "Escape" && !event.is_composing() {
            event.prevent_default();
            restart();
        }
    });
    on_cleanup(move || on_escape.remove());

    // The result's module, `drawn` (its screen, the durable write, the bests' read), is
    // fetched once the game is drawn, so that it is in before a game ends
    // (docs/performance.md, "What loads first"): reading the bests fetches it.
    drawn.then(move || records.read_bests());
    let on_next = Callback::new(move |()| next_game());
    let stage = move || {
        match finished.get() {
            Some((finished, Ended::Recorded(saving))) => {
                let load = move || result_screen(finished.clone(), saving, on_next);
                return view! { <OnDemand load what="result"/> }.into_any();
            }
            Some((finished, Ended::Practised(practice, saved))) => {
                let load =
                    move || practice_result(finished.clone(), practice.clone(), saved, on_next);
                return view! { <OnDemand load what="practice result"/> }.into_any();
            }
            None => {}
        }
        let source = source.get();
        let mode = source.mode();
        let seed = seed::seed_of_round(first_seed, round.get());
        let today = race_day(js_sys::Date::now() as i64);
        let options = chosen.get().of(mode);
        match corpora.assignment_of(&source, seed, options, today) {
            None => view! { <Loading mode/> }.into_any(),
            Some(Err(error)) => {
                drawn.mark_when_rendered();
                view! {
                    <p class="texts-error" role="alert" data-testid="texts-error">{error.to_string()}</p>
                }
                .into_any()
            }
            Some(Ok(assignment)) => view! {
                <Play
                    mode
                    assignment
                    on_finish=finish
                    on_restart=restart
                />
            }
            .into_any(),
        }
    };
    let picked = Memo::new(move |_| source.with(Source::picked_mode));
    view! {
        <ModePicker current=picked on_choose=move |mode| play(Source::Mode(mode))/>
        <OptionsBar current=picked chosen on_change=restart/>
        <TextLoader on_load=play/>
        <PracticePanel/>
        <section class="stage" aria-label="Game">{stage}</section>
    }
}

/// How a finished game was kept: recorded for its boards, or as practice only (with
/// whether its statistics were saved).
#[derive(Clone)]
enum Ended {
    Recorded(Recording),
    Practised(PracticeText, Saved),
}

/// Records a game the server would take, on every board it counts on; one it would
/// refuse is only shown, with why.
fn record(records: Records, corpora: Corpora, done: &Finished) -> Recording {
    let value = score::value(done.mode, &done.stats);
    let test = Test {
        mode: done.mode,
        options: done.prompt.options(),
    };
    score::validate(test, &done.stats, value)?;
    // The corpus of a passage game is loaded: the game was played on it.
    let passages = corpora.passages(done.mode).and_then(Result::ok);
    let prompt = done.prompt.clone();
    Ok(records.record(
        done.mode,
        done.stats,
        (done.prompt.clone(), &done.target),
        done.input.clone(),
        move |played_at| boards_of(&prompt, played_at, passages.as_ref()),
    ))
}
