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

fn main() {
    // Mounted once the word list is read (index.html preloads it; it is usually in
    // before the wasm), in a task after the one that compiled and instantiated the
    // wasm: the game and its first prompt are rendered in one task and drawn in one
    // frame, not the game first and its prompt a frame later. A word list that is
    // late or never comes holds the game back WORDS_WAIT at most: the game then shows
    // its prompt's loading state, and the other modes play (docs/performance.md,
    // "Time to playable: the work after the download").
    let words = RwSignal::new(None);
    let mounted = Rc::new(Cell::new(false));
    let on_time = Rc::clone(&mounted);
    set_timeout(move || mount_once(&on_time, words), WORDS_WAIT);
    wasm_bindgen_futures::spawn_local(async move {
        words.set(Some(game::read_words().await));
        mount_once(&mounted, words);
    });
}

/// Mounts the app unless `mounted` says it is. Never inlined: its two callers share
/// one copy of the whole app's build (docs/performance.md).
#[inline(never)]
fn mount_once(mounted: &Cell<bool>, words: game::Words) {
    if !mounted.replace(true) {
        let root = document()
            .get_element_by_id("app")
            .expect("index.html has #app");
        leptos::mount::mount_to(root.unchecked_into(), move || view! { <app::App words/> })
            .forget();
    }
}
