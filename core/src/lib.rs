//! KeyDo's pure rules, shared by the app, the service worker and the server.
//!
//! Nothing here touches a browser, a clock or a network: callers pass time and
//! randomness in, so every rule is tested natively with `cargo test` and builds
//! unchanged for `wasm32-unknown-unknown`.
//!
//! # Layout
//!
//! The modules are grouped by what they serve (docs/architecture.md, "Where the rules
//! are"):
//!
//! * `game`: one game, from the prompt to its score: modes, prompts and the corpora
//!   they come from, the typing session and its input log, scoring, the figures, and
//!   after the game: the 跟打 report (`game::report`), the 成绩 line and verification
//!   code (`game::result_line`), and the frames of its playback (`game::playback`).
//! * `practice`: practice that adapts (docs/practice.md): per-letter and per-字
//!   statistics read from the input logs (`practice::stats`), and lessons that unlock
//!   letters (`practice::english`) or pools of common 字 (`practice::chinese`) as the
//!   player reaches a target speed, stressing the weakest.
//! * `names`: display names: what a name may be, and when two names are the same.
//! * `api`: the wire: the JSON bodies of `/api`, its error codes (`api::code`), and the
//!   UTC+8 weeks client and server must agree on (`api::week`).
//! * `sync`: delivering results exactly once: the outbox, what a failed request means,
//!   backoff, trigger coalescing, and restore healing.
//! * `profile`: the profile that follows the player: its fields and settings, the
//!   server's conflict policies, and the client's queue of changes.
//! * `verify`: how the server checks a submitted result: what a log may hold
//!   (`verify::bounds`), the replay of its input log (`verify::replay`), the review
//!   rules (`verify::review`), and the simulated typist tests and benchmarks play with
//!   (`verify::simulate`, feature `simulate`).
//! * `text`: texts a player brings (跟打, docs/genda.md): the one normalisation page and
//!   server share, QQ 发文 messages, caps and 段, the text's hash, the loaded text a
//!   game types, and the day's race of each UTC+8 day (`text::daily`).
//!
//! The types nearly every caller needs are re-exported here.

pub mod api;
pub mod game;
pub mod names;
pub mod practice;
pub mod profile;
pub mod sync;
pub mod text;
pub mod verify;

pub use game::input_log::InputLog;
pub use game::mode::Mode;
pub use game::prompt::Prompt;
pub use game::prompt_id::{Corpus, PromptId, Seed};
pub use game::score::{Implausible, Stats};
pub use game::texts::{Passage, Passages, WordList};
pub use game::typing::{CharState, Edit, KeyCounts, Session};
pub use sync::classify::{Disposition, ErrorCode, Failure, Request, classify};
pub use sync::coalesce::{Coalescer, FlushKind};
pub use sync::outbox::{Merge, OutboxEntry, OutboxKey, Slots, SyncState};
