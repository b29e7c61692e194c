//! KeyDo's page: mounts the Leptos app.

mod app;
mod game;
mod leaderboard;
mod pwa;
mod sync;
mod sync_status;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
