//! The top-level component: starts the services (the page's I/O), then lays out the
//! title, the offline shell's status, the game, and (a task later) the sync status, the
//! leaderboards and the profile.

use crate::appearance;
use crate::game::Game;
use crate::leaderboard::Leaderboard;
use crate::profile_panel::ProfilePanel;
use crate::services;
use crate::shell_status::ShellStatus;
use crate::sync_status::SyncStatus;
use leptos::prelude::*;
use std::time::Duration;

#[component]
pub fn App() -> impl IntoView {
    services::provide();
    appearance::follow_settings();
    // The panels below the game are drawn in a task of their own, after the first one
    // has drawn the game: the page's first long task is shorter, and they appear below
    // everything, so nothing moves.
    let (panels, set_panels) = signal(false);
    set_timeout(move || set_panels.set(true), Duration::ZERO);
    view! {
        <header class="top">
            <h1 class="brand">"KeyDo " <span lang="zh">"键道"</span></h1>
            <ShellStatus/>
        </header>
        <main>
            <Game/>
            <aside class="side">
                {move || panels.get().then(|| view! { <SyncStatus/> <Leaderboard/> <ProfilePanel/> })}
            </aside>
        </main>
    }
}
