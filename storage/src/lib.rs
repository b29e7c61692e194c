//! KeyDo's browser database: IndexedDB `keydo`, through `idb` (docs/sync.md, "Storage").
//!
//! One database shared by the page and the service worker (`idb` reaches IndexedDB
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
//!   server last confirmed is under `meta`.
//!
//! Every write is one readwrite transaction that the caller awaits to completion, so
//! "saved" in the UI means committed; an aborted transaction is an error with its
//! reason ([`StorageError`]). No transaction spans a network call. A [`Db`] closes
//! itself when dropped and whenever another context upgrades the schema.

mod db;
mod error;
mod meta;
mod operations;
mod outbox;
mod records;

pub use db::{DATABASE, Db, SCHEMA_VERSION};
pub use error::StorageError;
pub use meta::HeldResult;
pub use records::{Credentials, Profile, Recorded, SaveStart};
