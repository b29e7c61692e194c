//! The page's sync coordinator (docs/sync.md): when to flush the outbox.
//!
//! Triggers go through `core`'s [`Coalescer`] with the kind of flush they ask for
//! (docs/sync.md, "Triggers"): app start and `online` a [`FlushKind::Reconnect`] (what
//! failed for want of a network is due at once; a daily restore heal runs inside the
//! flush), a saved result, the page becoming visible and the backoff timer an
//! [`FlushKind::Automatic`], the Retry button a [`FlushKind::Manual`]. Triggers
//! within 250 ms make one flush, and only one flush runs at a time in this page
//! (across tabs and the service worker, `keydo-sync` also holds a Web Lock). After a
//! result is saved the page also registers Background Sync, so the service worker
//! delivers even if this page is closed; the foreground flush runs regardless.
//! Neither path alone is trusted.
//!
//! [`Coordinator`] is a copyable handle to this state, provided in Leptos context; it
//! publishes what the sync status shows as a [`SyncView`] signal.

use super::sync_engine::{self, SyncFailure};
use super::sync_view::SyncView;
use crate::on_demand::GameDrawn;
use keydo_core::sync::backoff::timer_delay_ms;
use keydo_core::sync::coalesce::{CHANGE_WINDOW_MS, COALESCE_WINDOW_MS, Coalescer, FlushKind};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;
use uuid::Uuid;

/// How long after the flush's module failed to load the flush is tried again.
const MODULE_RETRY_MS: u64 = 5_000;

/// The coordinator's state.
#[derive(Default)]
struct State {
    coalescer: Coalescer,
    backoff: Option<TimeoutHandle>,
}

/// A handle to the page's sync coordinator.
#[derive(Clone, Copy)]
pub struct Coordinator {
    state: StoredValue<State>,
    view: RwSignal<SyncView>,
    /// Counts finished flushes, for what follows their answers (the profile).
    flushes: RwSignal<u64>,
    /// Counts deliveries seen (a flush's report, or fewer results pending), for what
    /// shows the server's boards.
    delivered: RwSignal<u64>,
}

impl Coordinator {
    /// Starts syncing: listens for `online` and visibility, and flushes whatever an
    /// earlier session left behind once the game is `drawn`.
    pub fn start(drawn: GameDrawn) -> Coordinator {
        let coordinator = Coordinator {
            state: StoredValue::new(State::default()),
            view: RwSignal::new(SyncView::default()),
            flushes: RwSignal::new(0),
            delivered: RwSignal::new(0),
        };
        let on_online = window_event_listener_untyped("online", move |_| {
            coordinator.request(FlushKind::Reconnect);
        });
        on_cleanup(move || on_online.remove());
        // Kept, and dropped (removed), with the owner that started the coordinator.
        StoredValue::new_local(super::when_visible(move || coordinator.trigger()));
        // No recount first, unlike later triggers: the flush counts the outbox when it
        // ends, so the flush's module is fetched once the game is drawn and the trigger
        // window has passed, not beside the page's first requests.
        drawn.then(move || coordinator.schedule(FlushKind::Reconnect, COALESCE_WINDOW_MS));
        coordinator
    }

    /// What the sync status shows (reactive).
    pub fn view(&self) -> Signal<SyncView> {
        self.view.into()
    }

    /// Grows by one after every flush (reactive).
    pub fn flushes(&self) -> Signal<u64> {
        self.flushes.into()
    }

    /// Grows by one whenever results were seen delivered: by this page's flush, or by
    /// the service worker or another tab, seen as fewer results pending (reactive).
    pub fn delivered(&self) -> Signal<u64> {
        self.delivered.into()
    }

    /// A result was durably saved: ask the service worker to deliver it too, and flush.
    pub fn saved(&self) {
        spawn_local(sync_engine::register_background_sync());
        self.trigger();
    }

    /// A profile change was durably queued: flush within a second, with the changes
    /// made around it. The service worker is asked to deliver it too only while the
    /// browser is offline, when its `sync` event waits for the network: online, this
    /// page's flush follows, and a service-worker flush for each click of a player
    /// changing settings took turns with the next click's write (docs/profile.md,
    /// "Where a write's time goes").
    pub fn changed(&self) {
        if !window().navigator().on_line() {
            spawn_local(sync_engine::register_background_sync());
        }
        // No recount: the results' outbox is as it was.
        self.schedule(FlushKind::Automatic, CHANGE_WINDOW_MS);
    }

    /// Counts what the outbox holds now, so a result shown "Saved" is never missing
    /// from the pending count that follows it.
    pub async fn recount(self) {
        self.reread().await;
    }

    /// The Retry button: every entry now, ignoring waits, blocked ones included.
    pub fn retry(&self) {
        self.request(FlushKind::Manual);
    }

    /// The player gives up on a blocked result: it leaves the outbox for good.
    pub async fn discard(self, score_id: Uuid) {
        if let Err(error) = sync_engine::discard_blocked(score_id).await {
            web_sys::console::error_1(&format!("keydo: discard failed: {error}").into());
        }
        self.recount().await;
    }

    /// An automatic flush: only entries whose backoff has passed.
    fn trigger(&self) {
        self.request(FlushKind::Automatic);
    }

    fn request(&self, kind: FlushKind) {
        spawn_local(self.recount());
        self.schedule(kind, COALESCE_WINDOW_MS);
    }

    /// Runs a flush of `kind` within `window_ms`, once the triggers around this one are in.
    fn schedule(&self, kind: FlushKind, window_ms: u64) {
        if let Some(at) = self
            .with(|s| s.coalescer.on_trigger(now_ms(), kind, window_ms))
            .flatten()
        {
            self.wake_at(at);
        }
    }

    fn wake_at(&self, at: u64) {
        let coordinator = *self;
        set_timeout(
            move || coordinator.wake(),
            Duration::from_millis(timer_delay_ms(at, now_ms())),
        );
    }

    fn wake(&self) {
        let Some(kind) = self.with(|s| s.coalescer.on_wake()).flatten() else {
            return;
        };
        let coordinator = *self;
        spawn_local(async move {
            let report = sync_engine::flush_outbox(kind).await;
            if let Err(error) = &report {
                web_sys::console::error_1(&format!("keydo: sync failed: {error}").into());
            }
            // The flush's own code could not be fetched: try again soon.
            let not_loaded = matches!(report, Err(SyncFailure::NotLoaded));
            let fewer_pending = coordinator.reread().await;
            coordinator.flushes.try_update(|n| *n += 1);
            if !fewer_pending && report.as_ref().is_ok_and(|report| report.delivered > 0) {
                coordinator.delivered.try_update(|n| *n += 1);
            }
            if let Some(at) = coordinator
                .with(|s| s.coalescer.on_flush_finished(now_ms()))
                .flatten()
            {
                coordinator.wake_at(at);
            }
            match report {
                Ok(report) => coordinator.schedule_backoff(report.next_retry_at),
                Err(_) if not_loaded => {
                    coordinator.schedule_backoff(Some(now_ms() + MODULE_RETRY_MS));
                }
                Err(_) => {}
            }
        });
    }

    /// One timer for the earliest entry waiting out its backoff.
    fn schedule_backoff(&self, next_retry_at: Option<u64>) {
        if let Some(previous) = self.with(|s| s.backoff.take()).flatten() {
            previous.clear();
        }
        if let Some(at) = next_retry_at {
            let coordinator = *self;
            let delay = Duration::from_millis(timer_delay_ms(at, now_ms()));
            if let Ok(handle) = set_timeout_with_handle(move || coordinator.trigger(), delay) {
                self.with(|s| s.backoff = Some(handle));
            }
        }
    }

    /// Re-reads the outbox into the view. Fewer results pending than the view showed
    /// means some were delivered, by this page or by the service worker, which tells
    /// the page nothing else: that bumps `delivered` too. Returns whether it did.
    async fn reread(self) -> bool {
        let Ok(read) = sync_engine::sync_view().await else {
            return false;
        };
        let pending = read.pending;
        let before = self.view.try_get_untracked().map(|shown| shown.pending);
        self.view.try_set(read);
        let fewer_pending = before.is_some_and(|before| pending < before);
        if fewer_pending {
            self.delivered.try_update(|n| *n += 1);
        }
        fewer_pending
    }

    /// Runs `f` on the state; `None` once the page's owner is gone.
    fn with<T>(&self, f: impl FnOnce(&mut State) -> T) -> Option<T> {
        self.state.try_update_value(f)
    }
}

fn now_ms() -> u64 {
    js_sys::Date::now() as u64
}
