//! KeyDo's page: mounts the Leptos app.

mod app;
mod pwa;

fn main() {
    leptos::mount::mount_to_body(app::App);
}
