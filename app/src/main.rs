//! KeyDo's page: mounts the Leptos app.

mod app;
mod appearance;
mod devices;
mod game;
mod leaderboard;
mod profile_panel;
mod services;
mod shell_status;
mod sync_status;
mod wording;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
