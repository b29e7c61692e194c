//! KeyDo's page: mounts the Leptos app into the frame `index.html` paints first.

mod app;
mod appearance;
mod board_replay;
mod devices;
mod game;
mod leaderboard;
mod on_demand;
mod practice;
mod profile_panel;
mod services;
mod shell_status;
mod sync_status;
mod wording;

use leptos::prelude::*;
use std::cell::Cell;
use std::rc::Rc;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// How long the page waits for the word list before it mounts the game without it.
const WORDS_WAIT: Duration = Duration::from_secs(1);

/// The page's start, in two tasks after the one that compiled and instantiated the
/// wasm: the services ([`app::start`]) in the first, the views once the word list is
/// read (index.html preloads it; it is usually in before the wasm). So the game and
/// its first prompt are rendered in one task and drawn in one frame, not the game first
/// and its prompt a frame later, and that task does not start the services too. A word
/// list that is late or never comes holds the views back WORDS_WAIT at most: the game
/// then shows its prompt's loading state, and the other modes play
/// (docs/performance.md, "Time to playable: the work after the download").
struct Start {
    /// The root of the page's reactive tree: the services' contexts, the views below.
    owner: Owner,
    words: game::Words,
    started: Cell<bool>,
    mounted: Cell<bool>,
}

impl Start {
    /// Starts the services, unless they are.
    fn services(&self) {
        if !self.started.replace(true) {
            self.owner.with(app::start);
        }
    }

    /// Mounts the views, unless they are, the services first. Never inlined: its two
    /// callers share one copy of the whole app's build (docs/performance.md).
    #[inline(never)]
    fn views(&self) {
        self.services();
        if !self.mounted.replace(true) {
            let root = document()
                .get_element_by_id("app")
                .expect("index.html has #app");
            let words = self.words;
            self.owner.with(|| {
                leptos::mount::mount_to(root.unchecked_into(), move || view! { <app::App words/> })
                    .forget()
            });
        }
    }
}

fn main() {
    // Effects and tasks run on wasm-bindgen's executor; `mount_to` would start it,
    // but the services start before the views.
    _ = any_spawner::Executor::init_wasm_bindgen();
    let owner = Owner::new();
    // The page's root lives as long as the page: one handle to it is never dropped.
    std::mem::forget(owner.clone());
    let start = Rc::new(Start {
        words: owner.with(|| RwSignal::new(None)),
        owner,
        started: Cell::new(false),
        mounted: Cell::new(false),
    });
    let services = Rc::clone(&start);
    set_timeout(move || services.services(), Duration::ZERO);
    let late = Rc::clone(&start);
    set_timeout(move || late.views(), WORDS_WAIT);
    wasm_bindgen_futures::spawn_local(async move {
        start.words.set(Some(game::read_words().await));
        start.views();
    });
}
