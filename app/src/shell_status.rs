//! The offline shell's status in the header: "Ready to play offline" once the service
//! worker's precache is complete, and the new-version prompt when one waits.

use crate::services::shell::Shell;
use leptos::prelude::*;

#[component]
pub fn ShellStatus() -> impl IntoView {
    let shell = expect_context::<Shell>();
    let offline_ready = shell.offline_ready();
    let update_waiting = shell.update_waiting();
    view! {
        <p class="shell-status" data-testid="offline-ready" hidden=move || !offline_ready.get()>
            "Ready to play offline"
        </p>
        <div class="update-banner" role="status" data-testid="update-banner" hidden=move || !update_waiting.get()>
            <span>"New version available"</span>
            <button data-testid="update-reload" on:click=move |_| shell.accept_update()>"New version — reload"</button>
        </div>
    }
}
