//! The page side of the offline shell: registers `/sw.js`, asks for persistent
//! storage, says when the game can be played offline, and runs the update flow.
//!
//! Update flow: a new version installs in the background and waits. The page
//! shows "New version — reload"; on click the waiting worker is asked to take
//! over, and when it does (`controllerchange`) the page reloads exactly once.
//! Without that click a `controllerchange` (say, the first install claiming the
//! page) never reloads, so there is no reload loop.

use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    RegistrationOptions, ServiceWorker, ServiceWorkerRegistration, ServiceWorkerState,
    ServiceWorkerUpdateViaCache,
};

/// How often an open page asks the server for a new version.
const UPDATE_CHECK_MS: i32 = 60 * 60 * 1000;

/// Shows "ready to play offline" and, when one waits, the new-version prompt.
#[component]
pub fn ShellStatus() -> impl IntoView {
    let (offline_ready, set_offline_ready) = signal(false);
    let (update_waiting, set_update_waiting) = signal(false);
    let accepted = Rc::new(Cell::new(false));
    if let Some(container) = container() {
        watch_controller_change(&container, accepted.clone());
        spawn_local(async move {
            if let Err(error) = register(&container, set_offline_ready, set_update_waiting).await {
                web_sys::console::warn_2(&"keydo: service worker unavailable".into(), &error);
            }
        });
    }
    let reload = move |_| {
        accepted.set(true);
        spawn_local(activate_waiting());
    };
    view! {
        <p class="shell-status" data-testid="offline-ready" hidden=move || !offline_ready.get()>
            "Ready to play offline"
        </p>
        <div class="update-banner" role="status" data-testid="update-banner" hidden=move || !update_waiting.get()>
            <span>"New version available"</span>
            <button data-testid="update-reload" on:click=reload>"New version — reload"</button>
        </div>
    }
}

fn container() -> Option<web_sys::ServiceWorkerContainer> {
    let navigator = window().navigator();
    // Absent on insecure origins and in some embedded browsers: the game still plays online.
    js_sys::Reflect::has(&navigator, &"serviceWorker".into())
        .unwrap_or(false)
        .then(|| navigator.service_worker())
}

async fn register(
    container: &web_sys::ServiceWorkerContainer,
    set_offline_ready: WriteSignal<bool>,
    set_update_waiting: WriteSignal<bool>,
) -> Result<(), JsValue> {
    // Imported scripts hold the worker's wasm: always revalidate them on update checks.
    let options = RegistrationOptions::new();
    options.set_update_via_cache(ServiceWorkerUpdateViaCache::None);
    let registration: ServiceWorkerRegistration =
        JsFuture::from(container.register_with_options("/sw.js", &options))
            .await?
            .unchecked_into();
    request_persistent_storage();
    watch_for_updates(&registration, set_update_waiting);
    check_periodically(&registration);
    // `ready` resolves once a worker is active, i.e. its precache is complete.
    JsFuture::from(container.ready()?).await?;
    set_offline_ready.set(true);
    Ok(())
}

/// Asks the browser not to evict our storage (the outbox lives there).
fn request_persistent_storage() {
    if let Ok(promise) = window().navigator().storage().persist() {
        spawn_local(async move {
            let _ = JsFuture::from(promise).await;
        });
    }
}

/// Raises the prompt when a new version has installed behind the current one.
fn watch_for_updates(registration: &ServiceWorkerRegistration, set_waiting: WriteSignal<bool>) {
    let has_controller = || container().and_then(|c| c.controller()).is_some();
    if registration.waiting().is_some() && has_controller() {
        set_waiting.set(true);
    }
    let on_update_found = {
        let registration = registration.clone();
        Closure::<dyn FnMut()>::new(move || {
            let Some(installing) = registration.installing() else {
                return;
            };
            let worker = installing.clone();
            let on_state_change = Closure::<dyn FnMut()>::new(move || {
                // The very first install has no controller: nothing to update from.
                if worker.state() == ServiceWorkerState::Installed && has_controller() {
                    set_waiting.set(true);
                }
            });
            installing.set_onstatechange(Some(on_state_change.as_ref().unchecked_ref()));
            on_state_change.forget();
        })
    };
    registration.set_onupdatefound(Some(on_update_found.as_ref().unchecked_ref()));
    on_update_found.forget();
}

/// Checks for a new version hourly and whenever the page becomes visible.
fn check_periodically(registration: &ServiceWorkerRegistration) {
    let update = {
        let registration = registration.clone();
        move || {
            if let Ok(promise) = registration.update() {
                // Offline or server down: the next check tries again.
                spawn_local(async move {
                    let _ = JsFuture::from(promise).await;
                });
            }
        }
    };
    let hourly = Closure::<dyn FnMut()>::new(update.clone());
    let _ = window().set_interval_with_callback_and_timeout_and_arguments_0(
        hourly.as_ref().unchecked_ref(),
        UPDATE_CHECK_MS,
    );
    hourly.forget();
    let on_visible = Closure::<dyn FnMut()>::new(move || {
        if document().visibility_state() == web_sys::VisibilityState::Visible {
            update();
        }
    });
    document().set_onvisibilitychange(Some(on_visible.as_ref().unchecked_ref()));
    on_visible.forget();
}

/// Reloads once when the accepted new version takes control.
fn watch_controller_change(container: &web_sys::ServiceWorkerContainer, accepted: Rc<Cell<bool>>) {
    let reloaded = Cell::new(false);
    let on_change = Closure::<dyn FnMut()>::new(move || {
        if accepted.get() && !reloaded.replace(true) {
            let _ = window().location().reload();
        }
    });
    container.set_oncontrollerchange(Some(on_change.as_ref().unchecked_ref()));
    on_change.forget();
}

/// Tells the waiting worker to take over.
async fn activate_waiting() {
    let Some(container) = container() else { return };
    let Ok(registration) = JsFuture::from(container.get_registration()).await else {
        return;
    };
    let waiting: Option<ServiceWorker> = registration
        .dyn_into::<ServiceWorkerRegistration>()
        .ok()
        .and_then(|r| r.waiting());
    if let Some(worker) = waiting {
        let message = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&message, &"type".into(), &"SKIP_WAITING".into());
        let _ = worker.post_message(&message);
    }
}
