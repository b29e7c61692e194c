//! KeyDo's pure rules, shared by the app, the service worker and the server.
//!
//! Nothing here touches a browser, a clock or a network: callers pass time and
//! randomness in, so every rule is tested natively with `cargo test` and builds
//! unchanged for `wasm32-unknown-unknown`.

pub mod api;
pub mod backoff;
pub mod classify;
pub mod coalesce;
pub mod corpora;
pub mod figures;
pub mod heal;
pub mod input_log;
pub mod lines;
pub mod mode;
pub mod names;
pub mod outbox;
pub mod profile;
pub mod prompt;
pub mod prompt_id;
pub mod replay;
pub mod review;
mod rng;
pub mod score;
#[cfg(feature = "simulate")]
pub mod simulate;
pub mod texts;
pub mod typing;
pub mod verify;
pub mod week;

pub use classify::{Disposition, ErrorCode, Failure, Request, classify};
pub use coalesce::{Coalescer, FlushKind};
pub use input_log::InputLog;
pub use mode::Mode;
pub use outbox::{Merge, OutboxEntry, OutboxKey, Slots, SyncState};
pub use prompt::Prompt;
pub use prompt_id::{Corpus, PromptId, Seed};
pub use score::{Implausible, Stats};
pub use texts::{Passage, Passages, WordList};
pub use typing::{CharState, Edit, KeyCounts, Session};
