//! The top-level component and what it starts first (the services, the page's I/O):
//! it lays out the game; once it is drawn, the offline shell's status (in the header
//! `index.html` paints before the wasm runs) and (tasks later, once in view) the sync
//! status, the leaderboards and the profile. At `/r/<code>` a board entry's replay
//! takes the game's place.

use crate::appearance;
use crate::board_replay::BoardReplay;
use crate::game::{Game, Words, replay_code};
use crate::leaderboard::Leaderboard;
use crate::on_demand::{GameDrawn, OnDemand, SplitLoaderError, when_in_view};
use crate::profile_panel::ProfilePanel;
use crate::services;
use crate::shell_status::ShellStatus;
use crate::sync_status::SyncStatus;
use leptos::portal::Portal;
use leptos::prelude::*;
use std::time::Duration;
use wasm_bindgen::JsCast;

/// The panels below the game: the sync status, the profile and the leaderboards.
const PANELS: usize = 3;

/// Starts what the views share: whether the game is drawn, the services (the page's
/// I/O) and the appearance settings, as contexts of the owner it runs under. The page
/// (`main`) runs it in a task of its own before the views are built, so neither task
/// holds a key back long (docs/performance.md, "Time to playable").
pub fn start() {
    let game_drawn = GameDrawn::provide();
    services::provide(game_drawn);
    appearance::follow_settings();
}

/// The views, under the owner [`start`] ran under.
#[component]
pub fn App(
    /// The word list, read by the page (`main`): the game starts from it.
    words: Words,
) -> impl IntoView {
    let game_drawn = expect_context::<GameDrawn>();
    // The panels below the game are drawn once it is and they come into view (a
    // phone shows them only when scrolled to), each in a task of its own: their
    // modules' fetches, compiles and drawing come after the game's and never while
    // they are off screen, and they appear below everything, so nothing moves
    // (docs/performance.md, "What loads first").
    let side = NodeRef::<leptos::html::Aside>::new();
    let (panels_drawn, set_panels_drawn) = signal(0_usize);
    game_drawn.then(move || {
        if let Some(side) = side.get_untracked() {
            when_in_view(&side, move || set_panels_drawn.set(1));
        }
    });
    Effect::new(move |_| {
        let drawn = panels_drawn.get();
        if (1..PANELS).contains(&drawn) {
            set_timeout(move || set_panels_drawn.set(drawn + 1), Duration::ZERO);
        }
    });
    let status_slot: web_sys::HtmlElement = document()
        .get_element_by_id("shell-status")
        .expect("index.html has #shell-status")
        .unchecked_into();
    let replay = replay_code(&window().location().pathname().unwrap_or_default());
    let main = match replay {
        Some(code) => {
            game_drawn.mark_when_rendered();
            let load = move || board_replay(code.clone());
            view! { <OnDemand load what="replay"/> }.into_any()
        }
        None => view! { <Game words/> }.into_any(),
    };
    let status_wanted = game_drawn.in_own_task();
    view! {
        <Portal mount=status_slot>
            <Show when=move || status_wanted.get()>
                <OnDemand load=shell_status what="offline status"/>
            </Show>
        </Portal>
        {main}
        // Each panel has its slot from the start, so one drawn before another never
        // takes the other's place and then moves; the leaderboard, which grows when
        // its rows arrive, is last, so nothing sits below it.
        <aside class="side" node_ref=side>
            <div class="panel-slot">
                <Show when=move || { panels_drawn.get() >= 1 }>
                    <OnDemand load=sync_status what="sync status"/>
                </Show>
            </div>
            <div class="panel-slot">
                <Show when=move || { panels_drawn.get() >= 2 }>
                    <OnDemand load=profile_panel what="profile"/>
                </Show>
            </div>
            <div class="panel-slot">
                <Show when=move || { panels_drawn.get() >= 3 }>
                    <OnDemand load=leaderboard what="leaderboard"/>
                </Show>
            </div>
        </aside>
    }
}

// The panels the first keystroke does not need: one module, `panels`, with an entry
// point for each, so one fetch brings all three and each is drawn in a task of its
// own (docs/performance.md, "What loads first").

#[wasm_split_helpers::wasm_split(panels, fallible)]
fn sync_status() -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <SyncStatus/> }.into_any())
}

#[wasm_split_helpers::wasm_split(panels, fallible)]
fn leaderboard() -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <Leaderboard/> }.into_any())
}

#[wasm_split_helpers::wasm_split(panels, fallible)]
fn profile_panel() -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <ProfilePanel/> }.into_any())
}

// The offline shell's status, and with it the service worker's registration, which
// waits for the page to settle anyway: in the `drawn` module, with the result screen
// and the sync, fetched once the game is drawn, whatever is in view.
#[wasm_split_helpers::wasm_split(drawn, fallible)]
fn shell_status() -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <ShellStatus/> }.into_any())
}

#[wasm_split_helpers::wasm_split(replay, fallible)]
fn board_replay(code: String) -> Result<AnyView, SplitLoaderError> {
    Ok(view! { <BoardReplay code/> }.into_any())
}
