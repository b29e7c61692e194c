//! The page's one boundary for I/O. Components render and dispatch; everything that
//! leaves the page's memory goes through here:
//! - [`records`]: finished games recorded in the browser database (IndexedDB `keydo`,
//!   through `keydo-storage`), and the personal bests;
//! - [`db`]: the database reads the other services share: the save's credentials,
//!   the word tests' chosen options;
//! - [`api`]: every `/api` call the page makes itself (the leaderboards, the
//!   devices), through `keydo-sync`'s one HTTP client, and their failures in words;
//! - [`profile`]: the name and settings, changed through the operation outbox, and
//!   linking this device to the player's other one;
//! - [`profile_view`]: what the profile panel shows of the stored queue;
//! - [`sync`]: the coordinator that decides when `keydo-sync` flushes the outbox;
//! - [`sync_engine`]: `keydo-sync`'s flushes, loaded on demand;
//! - [`sync_view`]: what the sync status shows of the outbox;
//! - [`shell`]: the service worker (registration, updates) and persistent storage,
//!   started by the offline status in a module loaded once the game is drawn;
//! - [`texts`]: the text corpora the prompts are made from;
//! - [`practice`]: the practice course (fetched on demand) and the per-unit
//!   statistics in the browser database.
//!
//! [`provide`] starts them once and puts the stateful ones in Leptos context.

pub mod api;
pub mod db;
pub mod practice;
pub mod profile;
pub mod profile_view;
pub mod records;
pub mod shell;
pub mod sync;
pub mod sync_engine;
pub mod sync_view;
pub mod texts;

use crate::on_demand::GameDrawn;
use gloo_events::EventListener;
use leptos::prelude::*;
use web_sys::VisibilityState;

/// Starts every service the game uses and provides [`sync::Coordinator`],
/// [`records::Records`], [`practice::PracticeService`] and [`profile::ProfileService`]
/// to the components below. [`shell::Shell`] is started by the shell's status, in a
/// module loaded once the game is drawn (docs/performance.md, "What loads first"),
/// and what the others do at start that the first keystroke does not need (the first
/// flush, a first visit's read of the profile queue) waits for `drawn` too.
pub fn provide(drawn: GameDrawn) {
    let coordinator = sync::Coordinator::start(drawn);
    provide_context(coordinator);
    let practice = practice::PracticeService::start();
    provide_context(practice);
    provide_context(records::Records::start(coordinator, practice));
    provide_context(profile::ProfileService::start(coordinator, drawn));
}

/// Calls `on_visible` whenever the page becomes visible again, for as long as the
/// returned listener lives. It listens on the document, where the browser fires
/// `visibilitychange`.
fn when_visible(on_visible: impl Fn() + 'static) -> EventListener {
    EventListener::new(&document(), "visibilitychange", move |_| {
        if document().visibility_state() == VisibilityState::Visible {
            on_visible();
        }
    })
}
