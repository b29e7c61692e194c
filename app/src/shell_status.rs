//! The offline shell's status in the header: "Ready to play offline" once the service
//! worker's precache is complete; and, floating at the bottom of the window so their
//! arrival shifts nothing, the new-version prompt when one waits and a note (until
//! dismissed) when the browser refused persistent storage while a result is still to
//! be sent: that is all an eviction could lose, so a first visit is not greeted with
//! a warning about nothing.

use crate::services::shell::{Persistence, Shell};
use crate::services::sync::Coordinator;
use leptos::prelude::*;

/// Starts the shell's service ([`Shell::start`]) and shows its status.
#[component]
pub fn ShellStatus() -> impl IntoView {
    let shell = Shell::start();
    let offline_ready = shell.offline_ready();
    let update_waiting = shell.update_waiting();
    let persistence = shell.persistence();
    let sync_view = expect_context::<Coordinator>().view();
    let at_risk =
        move || persistence.get() == Persistence::Refused && sync_view.with(|v| v.pending > 0);
    view! {
        <p class="shell-status" data-testid="offline-ready" hidden=move || !offline_ready.get()>
            "Ready to play offline"
        </p>
        // Notices float at the bottom of the window: appearing, they move nothing.
        <div class="notices">
        <div class="update-banner" role="status" data-testid="update-banner" hidden=move || !update_waiting.get()>
            <span>"New version available"</span>
            <button data-testid="update-reload" on:click=move |_| shell.accept_update()>"New version — reload"</button>
        </div>
        <div
            class="persist-note"
            role="note"
            data-testid="persist-note"
            data-state=move || persistence.get().id()
            hidden=move || !at_risk()
        >
            <span>
                "This browser did not grant KeyDo persistent storage: when space runs low it may \
                 clear scores not sent yet. They are sent whenever you are online."
            </span>
            <button data-testid="persist-dismiss" on:click=move |_| shell.dismiss_persist_note()>"Got it"</button>
        </div>
        </div>
    }
}
