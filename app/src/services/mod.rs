//! The page's one boundary for I/O. Components render and dispatch; everything that
//! leaves the page's memory goes through here:
//! - [`records`]: the browser database (IndexedDB `keydo`, through `keydo-storage`):
//!   finished games, personal bests, what the sync status shows of the outbox;
//! - [`api`]: every `/api` call the page makes itself (the leaderboards, the
//!   devices), with the token, a timeout and the API's error body read in one place;
//! - [`profile`]: the name and settings, changed through the operation outbox;
//! - [`sync`]: the coordinator that decides when `keydo-sync` flushes the outbox;
//! - [`shell`]: the service worker (registration, updates) and persistent storage;
//! - [`texts`]: the text corpora the prompts are made from.
//!
//! [`provide`] starts them once and puts the stateful ones in Leptos context.

pub mod api;
pub mod profile;
pub mod records;
pub mod shell;
pub mod sync;
pub mod texts;

use gloo_events::EventListener;
use leptos::prelude::*;
use web_sys::VisibilityState;

/// Starts every service and provides [`sync::Coordinator`], [`records::Records`],
/// [`profile::ProfileService`] and [`shell::Shell`] to the components below.
pub fn provide() {
    let coordinator = sync::Coordinator::start();
    provide_context(coordinator);
    provide_context(records::Records::start(coordinator));
    provide_context(profile::ProfileService::start(coordinator));
    provide_context(shell::Shell::start());
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
