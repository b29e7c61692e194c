//! Delivers the outbox to the leaderboards: every result exactly once.
//!
//! Shared by the page (foreground flushes) and the service worker (Background
//! Sync). Data flows one way: [`flush_outbox`] reads the outbox from storage,
//! closes that transaction, sends each due entry ([`client`]), then opens a new
//! transaction to delete what the server acknowledged — only if it is still the
//! entry that was sent — or to record the failure. [`lock`] makes it one flush at
//! a time across tabs and the worker.

pub mod client;
mod flush;
mod lock;

pub use flush::{FlushReport, SyncError, flush_outbox};
