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

use wasm_bindgen::JsCast;

fn main() {
    // Mounted in a task of its own: the task that compiled and instantiated the wasm
    // ends first, so neither blocks the page for long (docs/performance.md).
    leptos::prelude::set_timeout(
        || {
            let root = leptos::prelude::document()
                .get_element_by_id("app")
                .expect("index.html has #app");
            leptos::mount::mount_to(root.unchecked_into(), app::App).forget();
        },
        std::time::Duration::ZERO,
    );
}
