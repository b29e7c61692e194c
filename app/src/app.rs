//! The top-level component: starts the services (the page's I/O), then lays out the
//! title, the offline shell's status, the game, the sync status and the leaderboards.

use crate::game::Game;
use crate::leaderboard::Leaderboard;
use crate::services;
use crate::shell_status::ShellStatus;
use crate::sync_status::SyncStatus;
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    services::provide();
    view! {
        <header class="top">
            <h1 class="brand">"KeyDo " <span lang="zh">"键道"</span></h1>
            <ShellStatus/>
        </header>
        <main>
            <Game/>
            <aside class="side">
                <SyncStatus/>
                <Leaderboard/>
            </aside>
        </main>
    }
}
