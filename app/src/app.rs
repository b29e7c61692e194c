//! The top-level component: title, the offline shell's status, the game, the sync
//! status and the leaderboards.

use crate::game::Game;
use crate::leaderboard::Leaderboard;
use crate::pwa::ShellStatus;
use crate::sync::{self, SyncView};
use crate::sync_status::SyncStatus;
use leptos::prelude::*;

#[component]
pub fn App() -> impl IntoView {
    let sync_view = RwSignal::new(SyncView::default());
    sync::start(sync_view);
    let pending = Signal::derive(move || sync_view.with(|v| v.pending));
    view! {
        <header class="top">
            <h1 class="brand">"KeyDo " <span lang="zh">"键道"</span></h1>
            <ShellStatus/>
        </header>
        <main>
            <Game/>
            <aside class="side">
                <SyncStatus view=sync_view/>
                <Leaderboard outbox_changed=pending/>
            </aside>
        </main>
    }
}
