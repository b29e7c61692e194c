//! KeyDo's pure rules, shared by the app, the service worker and the server.
//!
//! Nothing here touches a browser, a clock or a network: callers pass time in,
//! so every rule is tested natively with `cargo test`.

pub mod mode;
pub mod week;

pub use mode::Mode;
