//! KeyDo's browser database: IndexedDB `keydo`, through `rexie`.
//!
//! One database shared by the page and the service worker (rexie reaches
//! IndexedDB through the global scope, so both can open it). Stores:
//! - `meta`: the local profile (`profile`) and the server save (`save`), kept
//!   apart from the outbox so no outbox record ever holds the token;
//! - `history`: every finished game, by score id;
//! - `bests`: the personal best per mode;
//! - `outbox`: at most one entry per (profile, mode, week), merged best-only.
//!
//! Every write is one readwrite transaction that the caller awaits to completion,
//! so "saved" in the UI means committed. No transaction spans a network call.

mod db;
mod error;
mod records;

pub use db::Db;
pub use error::StorageError;
pub use records::{Credentials, Profile, Recorded};
