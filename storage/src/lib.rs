//! KeyDo's browser database: IndexedDB `keydo`, through rexie (docs/sync.md, "Storage").
//!
//! One database shared by the page and the service worker (rexie reaches IndexedDB
//! through the global scope, so both can open it). Stores:
//! - `meta`: the local profile, the server save and the `Idempotency-Key` of a save
//!   being created, the last restore heal and the delivered bests; kept apart from
//!   the outbox so no outbox record ever holds the token;
//! - `history`: every finished game, by score id;
//! - `bests`: the personal best per mode;
//! - `outbox`: per (profile, mode, week) at most one sendable entry, merged best-only,
//!   and beside it the entries the API refused;
//! - `operations`: the profile changes not yet answered, and those answered with a
//!   conflict or refused, by their place in line (docs/profile.md); the profile the
//!   server last confirmed and the line's summary are under `meta`, so a step reads
//!   only the ends of the line;
//! - `practice`: every game as the practice statistics read it, and those statistics
//!   (one record: a few hundred letters and 字 of integers, tens of kilobytes at most,
//!   read and written whole, docs/practice.md); the custom text and its bests are
//!   under `meta`.
//!
//! Every write is one readwrite transaction that the caller awaits to completion, so
//! "saved" in the UI means committed; an aborted transaction is an error with its
//! reason ([`StorageError`]). No transaction spans a network call, and no connection
//! either: a [`Db`] is opened for an operation (or a few in a row) and closes itself
//! when dropped, so a newer release's schema upgrade in another tab waits at most
//! for one operation. An open held up longer than [`OPEN_WAIT`] (by a tab of an
//! older release) fails as [`StorageError::Blocked`], and its connection, when it
//! comes, is closed at once.

mod custom;
mod db;
mod error;
mod meta;
mod operations;
mod outbox;
mod practice;
mod records;

pub use db::{DATABASE, Db, OPEN_WAIT, SCHEMA_VERSION};
pub use error::StorageError;
pub use meta::{HeldResult, VerifiedResult};
pub use outbox::SyncStatus;
pub use practice::{Practice, PracticeGame};
pub use records::{Credentials, Profile, Recorded, SaveStart};
