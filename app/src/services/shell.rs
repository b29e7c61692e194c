//! The page side of the offline shell (docs/architecture.md): registers `/sw.js`,
//! asks for persistent storage, says when the game can be played offline, and runs
//! the update flow.
//!
//! Persistent storage keeps the browser from evicting the outbox when space runs low.
//! If the browser refuses it, the page says so in a note until the player dismisses
//! it; the dismissal is remembered in `localStorage`, so the note is shown once.
//!
//! Update flow: a new version installs in the background and waits. The page shows
//! "New version — reload"; on [`Shell::accept_update`] the waiting worker is asked to
//! take over, and when it does (`controllerchange`) the page reloads exactly once.
//! Without that acceptance a `controllerchange` (say, the first install claiming the
//! page) never reloads, so there is no reload loop. Open pages check for a new version
//! hourly and whenever they become visible.

use gloo_events::EventListener;
use leptos::prelude::*;
use leptos::reactive::owner::LocalStorage;
use leptos::task::spawn_local;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{
    AddEventListenerOptions, IdleRequestOptions, RegistrationOptions, ServiceWorker,
    ServiceWorkerContainer, ServiceWorkerRegistration, ServiceWorkerState,
    ServiceWorkerUpdateViaCache,
};

/// The `localStorage` key remembering that the player dismissed the note about a
/// refused persistent storage.
const PERSIST_NOTE_DISMISSED: &str = "keydo.persistNoteDismissed";

/// How long after `load` the worker's registration waits for the page to go idle.
const IDLE_WAIT_MS: u32 = 3_000;

/// How often an open page asks the server for a new version.
const UPDATE_CHECK: Duration = Duration::from_secs(60 * 60);

/// Whether the browser keeps the site's storage for good.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Persistence {
    /// Not known yet.
    Asking,
    Granted,
    /// Refused, and the player has not dismissed the note about it yet.
    Refused,
    /// Refused, and the player has read the note (now or in an earlier visit).
    RefusalDismissed,
}

impl Persistence {
    /// A stable name, for the page's test hooks.
    pub fn id(self) -> &'static str {
        match self {
            Persistence::Asking => "asking",
            Persistence::Granted => "granted",
            Persistence::Refused => "refused",
            Persistence::RefusalDismissed => "dismissed",
        }
    }
}

/// A handle to the shell's state, held by the shell's status.
#[derive(Clone, Copy)]
pub struct Shell {
    offline_ready: RwSignal<bool>,
    update_waiting: RwSignal<bool>,
    persistence: RwSignal<Persistence>,
    /// The player accepted the waiting version: its takeover reloads the page.
    accepted: StoredValue<bool>,
    /// The worker events the page listens to, for as long as the page lives.
    listeners: StoredValue<Vec<EventListener>, LocalStorage>,
}

impl Shell {
    /// Registers the service worker, where the browser has them.
    pub fn start() -> Shell {
        let shell = Shell {
            offline_ready: RwSignal::new(false),
            update_waiting: RwSignal::new(false),
            persistence: RwSignal::new(Persistence::Asking),
            accepted: StoredValue::new(false),
            listeners: StoredValue::new_local(Vec::new()),
        };
        spawn_local(shell.request_persistent_storage());
        if let Some(container) = container() {
            shell.reload_on_accepted_takeover(&container);
            spawn_local(async move {
                page_settled().await;
                if let Err(error) = shell.register(&container).await {
                    web_sys::console::warn_2(&"keydo: service worker unavailable".into(), &error);
                }
            });
        }
        shell
    }

    /// Whether a worker is active, i.e. its precache is complete (reactive).
    pub fn offline_ready(&self) -> Signal<bool> {
        self.offline_ready.into()
    }

    /// Whether a new version waits to take over (reactive).
    pub fn update_waiting(&self) -> Signal<bool> {
        self.update_waiting.into()
    }

    /// Where persistent storage stands (reactive).
    pub fn persistence(&self) -> Signal<Persistence> {
        self.persistence.into()
    }

    /// The player read the note: it is not shown again, in this or later visits.
    pub fn dismiss_persist_note(&self) {
        self.persistence.set(Persistence::RefusalDismissed);
        if let Some(storage) = local_storage() {
            let _ = storage.set_item(PERSIST_NOTE_DISMISSED, "1");
        }
    }

    /// Asks the browser not to evict our storage (the outbox lives there), unless it
    /// already granted that.
    async fn request_persistent_storage(self) {
        let storage = window().navigator().storage();
        let granted =
            resolves_true(storage.persisted()).await || resolves_true(storage.persist()).await;
        let dismissed = local_storage()
            .and_then(|s| s.get_item(PERSIST_NOTE_DISMISSED).ok().flatten())
            .is_some();
        self.persistence.try_set(match (granted, dismissed) {
            (true, _) => Persistence::Granted,
            (false, false) => Persistence::Refused,
            (false, true) => Persistence::RefusalDismissed,
        });
    }

    /// The player chose the new version: the waiting worker takes over, and the page
    /// reloads when it has.
    pub fn accept_update(&self) {
        self.accepted.set_value(true);
        spawn_local(activate_waiting());
    }

    async fn register(&self, container: &ServiceWorkerContainer) -> Result<(), JsValue> {
        // Imported scripts hold the worker's wasm: always revalidate them on update checks.
        let options = RegistrationOptions::new();
        options.set_update_via_cache(ServiceWorkerUpdateViaCache::None);
        let registration: ServiceWorkerRegistration =
            JsFuture::from(container.register_with_options("/sw.js", &options))
                .await?
                .unchecked_into();
        self.watch_for_updates(&registration);
        self.check_for_updates_periodically(registration);
        // `ready` resolves once a worker is active, i.e. its precache is complete.
        JsFuture::from(container.ready()?).await?;
        self.offline_ready.try_set(true);
        Ok(())
    }

    /// Raises the prompt when a new version has installed behind the current one.
    fn watch_for_updates(&self, registration: &ServiceWorkerRegistration) {
        if registration.waiting().is_some() && has_controller() {
            self.update_waiting.try_set(true);
        }
        let shell = *self;
        let found = registration.clone();
        self.listen(EventListener::new(registration, "updatefound", move |_| {
            let Some(installing) = found.installing() else {
                return;
            };
            let worker = installing.clone();
            shell.listen(EventListener::new(&installing, "statechange", move |_| {
                // The very first install has no controller: nothing to update from.
                if worker.state() == ServiceWorkerState::Installed && has_controller() {
                    shell.update_waiting.try_set(true);
                }
            }));
        }));
    }

    /// Reloads once when the accepted new version takes control.
    fn reload_on_accepted_takeover(&self, container: &ServiceWorkerContainer) {
        let accepted = self.accepted;
        let mut reloaded = false;
        self.listen(EventListener::new(
            container,
            "controllerchange",
            move |_| {
                if accepted.try_get_value() == Some(true) && !reloaded {
                    reloaded = true;
                    let _ = window().location().reload();
                }
            },
        ));
    }

    /// Checks for a new version hourly and whenever the page becomes visible.
    fn check_for_updates_periodically(&self, registration: ServiceWorkerRegistration) {
        let update = move || {
            if let Ok(promise) = registration.update() {
                // Offline or server down: the next check tries again.
                spawn_local(async move {
                    let _ = JsFuture::from(promise).await;
                });
            }
        };
        set_interval(update.clone(), UPDATE_CHECK);
        self.listen(super::when_visible(update));
    }

    fn listen(&self, listener: EventListener) {
        self.listeners.try_update_value(|all| all.push(listener));
    }
}

/// The service worker container; absent on insecure origins and in some embedded
/// browsers, where the game still plays online.
fn container() -> Option<ServiceWorkerContainer> {
    let navigator = window().navigator();
    js_sys::Reflect::has(&navigator, &"serviceWorker".into())
        .unwrap_or(false)
        .then(|| navigator.service_worker())
}

fn has_controller() -> bool {
    container().and_then(|c| c.controller()).is_some()
}

/// Resolves once the page has loaded and its main thread has gone idle (or
/// [`IDLE_WAIT_MS`] after `load`). Installing the worker compiles its wasm and fetches
/// and hashes the whole precache; begun at once, that took CPU from the first paint
/// and doubled its layout time (docs/performance.md).
async fn page_settled() {
    let window = window();
    if window
        .document()
        .is_some_and(|d| d.ready_state() != "complete")
    {
        let loaded = js_sys::Promise::new(&mut |resolve, _| {
            let options = AddEventListenerOptions::new();
            options.set_once(true);
            let listening = window.add_event_listener_with_callback_and_add_event_listener_options(
                "load", &resolve, &options,
            );
            if listening.is_err() {
                let _ = resolve.call0(&JsValue::NULL);
            }
        });
        let _ = JsFuture::from(loaded).await;
    }
    let idle = js_sys::Promise::new(&mut |resolve, _| {
        let options = IdleRequestOptions::new();
        options.set_timeout(IDLE_WAIT_MS);
        // Safari has no requestIdleCallback: there `load` is enough.
        if window
            .request_idle_callback_with_options(&resolve, &options)
            .is_err()
        {
            let _ = resolve.call0(&JsValue::NULL);
        }
    });
    let _ = JsFuture::from(idle).await;
}

/// Whether a `Promise<boolean>` resolved to `true` (a failed call counts as `false`).
async fn resolves_true(promise: Result<js_sys::Promise, JsValue>) -> bool {
    match promise {
        Ok(promise) => JsFuture::from(promise)
            .await
            .is_ok_and(|value| value.as_bool() == Some(true)),
        Err(_) => false,
    }
}

/// `localStorage`, where the browser allows it.
fn local_storage() -> Option<web_sys::Storage> {
    window().local_storage().ok().flatten()
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
