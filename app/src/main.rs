//! KeyDo's page: mounts the Leptos app.

mod app;
mod game;
mod leaderboard;
mod services;
mod shell_status;
mod sync_status;
mod wording;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
