//! KeyDo's pure rules, shared by the app, the service worker and the server.
//!
//! Nothing here touches a browser, a clock or a network: callers pass time and
//! randomness in, so every rule is tested natively with `cargo test` and builds
//! unchanged for `wasm32-unknown-unknown`.

pub mod api;
pub mod backoff;
pub mod classify;
pub mod coalesce;
pub mod heal;
pub mod mode;
pub mod outbox;
pub mod prompt;
mod rng;
pub mod score;
pub mod texts;
pub mod typing;
pub mod week;

pub use classify::{Disposition, ErrorCode, Failure, Request, classify};
pub use coalesce::{Coalescer, FlushKind};
pub use mode::Mode;
pub use outbox::{Merge, OutboxEntry, OutboxKey, Slots, SyncState};
pub use prompt::Prompt;
pub use score::{Implausible, Stats};
pub use texts::{Passage, Passages, WordList};
pub use typing::{CharState, Edit, Session};
