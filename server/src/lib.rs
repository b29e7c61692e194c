//! KeyDo's HTTP server: serves the built shell and the `/api` (saves, scores,
//! leaderboards) in front of SQLite or PostgreSQL.
//!
//! The binary (`main.rs`) only parses the command line; everything else lives here so
//! tests can build the same router around a temporary database and a fake clock.

pub mod admin;
pub mod admin_page;
pub mod api;
pub mod auth;
pub mod backup;
pub mod capacity;
pub mod cli;
pub mod client;
pub mod clock;
pub mod connections;
pub mod device_label;
pub mod error;
pub mod in_flight;
pub mod json_body;
pub mod link_code;
pub mod metrics;
pub mod names;
pub mod operator_token;
pub mod origin;
pub mod paths;
pub mod rate_limit;
pub mod replay_view;
pub mod request_log;
pub mod router;
pub mod security_headers;
pub mod serve;
pub mod settings;
pub mod state;
pub mod static_files;
pub mod store;
pub mod tls;
