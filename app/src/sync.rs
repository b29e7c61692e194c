//! The page's sync coordinator (SPEC §5): when to flush the outbox.
//!
//! Triggers — app start, a saved result, `online`, the page becoming visible, the
//! Retry button and the backoff timer — go through `core`'s [`Coalescer`]: those
//! within 250 ms make one flush, and only one flush runs at a time (across tabs and
//! the service worker, `keydo-sync` also holds a Web Lock). After a result is saved
//! the page also registers Background Sync, so the service worker delivers even if
//! this page is closed; the foreground flush runs regardless. Neither path alone is
//! trusted.

use keydo_core::Mode;
use keydo_core::coalesce::{Coalescer, FlushKind};
use keydo_storage::Db;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::cell::RefCell;
use std::time::Duration;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

/// The Background Sync tag the service worker listens for.
const SYNC_TAG: &str = "flush-outbox";

/// What the sync status shows.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SyncView {
    /// Results waiting to reach the server, blocked ones included.
    pub pending: usize,
    /// Why the last attempt failed, as a stable code.
    pub last_error: Option<String>,
    /// Results the server refused: only Retry sends them again.
    pub blocked: Vec<BlockedResult>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BlockedResult {
    pub mode: Mode,
    pub value: i64,
    pub code: String,
}

#[derive(Default)]
struct Coordinator {
    coalescer: Coalescer,
    backoff: Option<TimeoutHandle>,
    view: Option<RwSignal<SyncView>>,
}

thread_local! {
    static COORDINATOR: RefCell<Coordinator> = RefCell::default();
}

fn with<T>(f: impl FnOnce(&mut Coordinator) -> T) -> T {
    COORDINATOR.with(|c| f(&mut c.borrow_mut()))
}

/// Starts syncing: publishes state to `view`, listens for `online` and visibility,
/// and flushes whatever an earlier session left behind.
pub fn start(view: RwSignal<SyncView>) {
    with(|c| c.view = Some(view));
    let window = window();
    let on_online = Closure::<dyn FnMut()>::new(reconnect);
    let _ = window.add_event_listener_with_callback("online", on_online.as_ref().unchecked_ref());
    on_online.forget();
    let on_visible = Closure::<dyn FnMut()>::new(|| {
        if document().visibility_state() == web_sys::VisibilityState::Visible {
            trigger();
        }
    });
    let _ = document()
        .add_event_listener_with_callback("visibilitychange", on_visible.as_ref().unchecked_ref());
    on_visible.forget();
    reconnect();
}

/// A result was durably saved: ask the service worker to deliver it too, and flush.
pub fn result_saved() {
    spawn_local(register_background_sync());
    trigger();
}

/// An automatic flush: only entries whose backoff has passed.
pub fn trigger() {
    request(FlushKind::Automatic);
}

/// Connectivity may be back (`online`, app start): entries that failed only for want
/// of a network are due at once.
fn reconnect() {
    request(FlushKind::Reconnect);
}

/// The Retry button: every entry now, ignoring waits, blocked ones included.
pub fn retry() {
    request(FlushKind::Manual);
}

fn request(kind: FlushKind) {
    spawn_local(refresh_view());
    if let Some(at) = with(|c| c.coalescer.on_trigger(now_ms(), kind)) {
        wake_at(at);
    }
}

fn wake_at(at: u64) {
    set_timeout(wake, Duration::from_millis(at.saturating_sub(now_ms())));
}

fn wake() {
    let Some(kind) = with(|c| c.coalescer.on_wake()) else {
        return;
    };
    spawn_local(async move {
        let report = keydo_sync::flush_outbox(kind).await;
        if let Err(error) = &report {
            web_sys::console::error_1(&format!("keydo: sync failed: {error}").into());
        }
        refresh_view().await;
        if let Some(at) = with(|c| c.coalescer.on_flush_finished(now_ms())) {
            wake_at(at);
        }
        if let Ok(report) = report {
            schedule_backoff(report.next_retry_at);
        }
    });
}

/// One timer for the earliest entry waiting out its backoff.
fn schedule_backoff(next_retry_at: Option<u64>) {
    if let Some(previous) = with(|c| c.backoff.take()) {
        previous.clear();
    }
    if let Some(at) = next_retry_at {
        let delay = Duration::from_millis(at.saturating_sub(now_ms()));
        if let Ok(handle) = set_timeout_with_handle(trigger, delay) {
            with(|c| c.backoff = Some(handle));
        }
    }
}

/// Re-reads the outbox into the view.
async fn refresh_view() {
    let Some(view) = with(|c| c.view) else { return };
    let outbox = match Db::open().await {
        Ok(db) => db.outbox().await,
        Err(error) => Err(error),
    };
    let Ok(outbox) = outbox else { return };
    let last_error = outbox
        .iter()
        .filter(|e| !e.sync.blocked)
        .find_map(|e| e.sync.last_error.as_ref().map(|c| c.as_str().to_owned()));
    let blocked = outbox
        .iter()
        .filter(|e| e.sync.blocked)
        .map(|e| BlockedResult {
            mode: e.mode,
            value: e.value,
            code: e
                .sync
                .last_error
                .as_ref()
                .map_or_else(String::new, |c| c.as_str().to_owned()),
        })
        .collect();
    view.set(SyncView {
        pending: outbox.len(),
        last_error,
        blocked,
    });
}

/// Registers the `flush-outbox` Background Sync where the browser has it.
async fn register_background_sync() {
    let navigator = window().navigator();
    if !js_sys::Reflect::has(&navigator, &"serviceWorker".into()).unwrap_or(false) {
        return;
    }
    let Ok(ready) = navigator.service_worker().ready() else {
        return;
    };
    let Ok(registration) = JsFuture::from(ready).await else {
        return;
    };
    // Only Chromium browsers have `registration.sync`; elsewhere the foreground flush delivers.
    let Ok(sync) = js_sys::Reflect::get(&registration, &"sync".into()) else {
        return;
    };
    if sync.is_undefined() {
        return;
    }
    let register = js_sys::Reflect::get(&sync, &"register".into())
        .ok()
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok());
    if let Some(register) = register
        && let Ok(promise) = register.call1(&sync, &SYNC_TAG.into())
        && let Ok(promise) = promise.dyn_into::<js_sys::Promise>()
    {
        // Refused without a window or permission: the foreground flush still runs.
        let _ = JsFuture::from(promise).await;
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
