//! The player's profile as the page uses it (docs/profile.md): the name and settings
//! shown (what the server last confirmed, with this device's queued changes on top),
//! the changes the player makes, and the conflicts and refusals to read.
//!
//! A change is validated, then queued in the operation outbox in one committed
//! transaction, and only then shown, so a change on screen is a change that survives
//! a restart; the coordinator delivers it (and registers Background Sync). The page
//! asks the server for changes made on the player's other devices every
//! [`POLL_INTERVAL`] while it is visible and online, and whenever it becomes visible:
//! there is no push channel, and a profile changes rarely. Linking this device to the
//! player's other device ([`ProfileService::link_device`]) makes that player's profile
//! this device's.

use super::api;
use super::profile_view::ProfileView;
use super::sync::Coordinator;
use super::sync_engine;
use crate::on_demand::GameDrawn;
use keydo_core::profile::{Changes, LocalProfile, Profile, ProfileQueue};
use keydo_storage::{Db, StorageError};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::time::Duration;
use uuid::Uuid;

/// How often a visible page asks the server for the profile.
pub const POLL_INTERVAL: Duration = Duration::from_secs(10);

const PROFILE_WRITE: &str = "keydo:profile-write";

/// A handle to the page's profile.
#[derive(Clone, Copy)]
pub struct ProfileService {
    view: RwSignal<ProfileView>,
    /// Reads of the queue take a ticket when they start; a read shows only if it
    /// started after the one shown, so a slow read never hides a later change.
    tickets: StoredValue<Tickets>,
    coordinator: Coordinator,
}

#[derive(Default)]
struct Tickets {
    issued: u64,
    shown: u64,
}

impl ProfileService {
    /// Reads the stored profile, follows every flush, and polls the server.
    pub fn start(coordinator: Coordinator, drawn: GameDrawn) -> ProfileService {
        let service = ProfileService {
            view: RwSignal::new(ProfileView {
                profile: Profile::named(""),
                version: 0,
                queued: 0,
                notices: Vec::new(),
                loaded: false,
            }),
            tickets: StoredValue::new(Tickets::default()),
            coordinator,
        };
        // At start, the local profile alone, one record the main module reads: the game
        // opens in its mode and looks as it says without the queue, which the sync
        // module reads after the first flush, as after every other (docs/performance.md,
        // "What loads first"). Without one (a first visit, or operations an earlier
        // release stored), the queue once the game is drawn.
        let ticket = service.ticket();
        let owner = Owner::current().unwrap_or_default();
        spawn_local(async move {
            let local = match super::db::open_in_next_task().await {
                Ok(db) => db.local_profile().await,
                Err(error) => Err(error),
            };
            match local {
                Ok(Some(local)) => service.show_local(ticket, local),
                unread => {
                    if let Err(error) = unread {
                        log(&error);
                    }
                    owner.with(|| drawn.then(move || service.reload()));
                }
            }
        });
        // After every flush: its answers changed the queue.
        let flushes = coordinator.flushes();
        Effect::new(move |started: Option<()>| {
            flushes.track();
            if started.is_some() {
                service.reload();
            }
        });
        let poll = set_interval_with_handle(move || service.poll(), POLL_INTERVAL);
        if let Ok(poll) = poll {
            on_cleanup(move || poll.clear());
        }
        StoredValue::new_local(super::when_visible(move || service.poll()));
        service
    }

    /// What is shown (reactive).
    pub fn view(&self) -> Signal<ProfileView> {
        self.view.into()
    }

    /// Validates `changes` and queues them; `Err` says in words what is wrong. The
    /// view follows once the change is stored.
    pub fn change(&self, changes: Changes) -> Result<(), String> {
        let changes = changes.checked().map_err(|error| error.to_string())?;
        let service = *self;
        spawn_local(async move {
            let ticket = service.ticket();
            let id = Uuid::new_v4();
            let now = js_sys::Date::now() as u64;
            // A `keydo:profile-write` performance measure spans the commit, for benchmarks.
            // Each write has its own start mark: writes may overlap (docs/profile.md).
            let performance = window().performance();
            let start_mark = format!("{PROFILE_WRITE}:start:{id}");
            if let Some(performance) = &performance {
                let _ = performance.mark(&start_mark);
            }
            let queued = update(|queue| {
                let writes = queue.queue(&changes, id, now);
                (!writes.is_empty(), writes)
            })
            .await;
            if let Some(performance) = &performance {
                let _ = performance.measure_with_start_mark(PROFILE_WRITE, &start_mark);
                performance.clear_marks_with_mark_name(&start_mark);
            }
            match queued {
                Ok((true, queue)) => {
                    service.show(ticket, ProfileView::of(&queue));
                    service.coordinator.changed();
                }
                Ok((false, queue)) => service.show(ticket, ProfileView::of(&queue)),
                Err(error) => log(&error),
            }
        });
        Ok(())
    }

    /// This device joins the player whose other device shows `code` (docs/profile.md,
    /// "Devices"): it plays as that player's save from now on, with that profile, and
    /// the bests earned here go to that player too. Resolves to the player's name, or
    /// to what went wrong in words. A resend after a lost answer uses the same
    /// `idempotency_key`.
    pub async fn link_device(self, code: String, idempotency_key: Uuid) -> Result<String, String> {
        let save = api::link_device(&code, idempotency_key).await?;
        sync_engine::adopt_save(save.clone())
            .await
            .map_err(|error| error.to_string())?;
        self.coordinator.saved();
        self.reload();
        Ok(save.profile.display_name)
    }

    /// The player read a notice.
    pub fn dismiss(&self, operation_id: Uuid) {
        let service = *self;
        spawn_local(async move {
            let ticket = service.ticket();
            match update(|queue| ((), queue.dismiss(operation_id).into_iter().collect())).await {
                Ok(((), queue)) => service.show(ticket, ProfileView::of(&queue)),
                Err(error) => log(&error),
            }
        });
    }

    /// Re-reads the stored queue (in the `drawn` module).
    pub fn reload(&self) {
        let service = *self;
        spawn_local(async move {
            let ticket = service.ticket();
            match sync_engine::profile_view().await {
                Ok(view) => service.show(ticket, view),
                Err(error) => log(&error),
            }
        });
    }

    /// Asks the server for the profile, if the page is visible and online.
    fn poll(&self) {
        let visible = document().visibility_state() == web_sys::VisibilityState::Visible;
        if !visible || !window().navigator().on_line() {
            return;
        }
        let service = *self;
        spawn_local(async move {
            // Taken now: a change the player makes while the request is out wins the view.
            let ticket = service.ticket();
            match sync_engine::refresh_profile().await {
                Ok(Some(view)) => service.show(ticket, view),
                Ok(None) => {}
                Err(error) => log(&error),
            }
        });
    }

    fn ticket(&self) -> u64 {
        self.tickets
            .try_update_value(|t| {
                t.issued += 1;
                t.issued
            })
            .unwrap_or(0)
    }

    /// Whether a read that took `ticket` is the newest shown yet (then it is shown).
    fn newest(&self, ticket: u64) -> bool {
        self.tickets
            .try_update_value(|t| {
                let newest = ticket > t.shown;
                t.shown = t.shown.max(ticket);
                newest
            })
            .unwrap_or(false)
    }

    fn show(&self, ticket: u64, view: ProfileView) {
        if self.newest(ticket) {
            self.view.try_set(view);
        }
    }

    /// Shows the local profile read at start; the notices wait for the queue.
    fn show_local(&self, ticket: u64, local: LocalProfile) {
        if !self.newest(ticket) {
            return;
        }
        self.view.try_update(|view| {
            view.profile = local.profile;
            view.version = local.version;
            view.queued = local.in_line;
            view.loaded = true;
        });
    }
}

/// One step on the stored queue, committed.
async fn update<R>(
    step: impl FnOnce(&mut ProfileQueue) -> (R, Vec<keydo_core::profile::Write>),
) -> Result<(R, ProfileQueue), StorageError> {
    Db::open().await?.update_profile_queue(step).await
}

fn log(error: &impl std::fmt::Display) {
    web_sys::console::warn_1(&format!("keydo: profile: {error}").into());
}
