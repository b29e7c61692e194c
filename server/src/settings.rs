//! What the running server is configured with, independent of how it was given
//! (command line, environment or a test).

use crate::client::TrustedProxies;
use crate::operator_token::OperatorToken;
use crate::store::Gates;
use keydo_core::verify::review::Thresholds;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

/// The router's configuration.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The built shell.
    pub dist: PathBuf,
    /// The origin browsers reach us at, normalised (see [`crate::origin::normalise`]);
    /// `None` means `<scheme>://<Host header>`.
    pub public_origin: Option<String>,
    /// Whether this process terminates TLS itself (its own origin is then https).
    pub tls: bool,
    /// Proxies whose forwarding headers name the client.
    pub trusted_proxies: TrustedProxies,
    pub rate_limits: RateLimits,
    /// How long a request may take before it is answered 503.
    pub request_timeout: Duration,
    /// Above these values results wait for an operator's review (docs/replay.md).
    pub review: Thresholds,
    /// Whether an input log is spent once, across all saves (docs/replay.md). Always in
    /// `keydo-server`; test setups that send one simulated game under several saves
    /// turn it off.
    pub logs_spent_once: bool,
    /// The operator's token for the review page (`/admin`); without one the page is off.
    pub admin_token: Option<OperatorToken>,
    /// Results that would land where it matters wait for review too (docs/replay.md,
    /// "Places that matter").
    pub gates: Gates,
    /// Where the review queue and the database count as too large (docs/operations.md).
    pub alerts: Alerts,
}

/// Alert thresholds: at or above them the metrics say so and the log warns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Alerts {
    pub held_results: i64,
    pub database_bytes: i64,
}

/// Per-process API rate limits.
#[derive(Debug, Clone, Copy)]
pub struct RateLimits {
    pub per_ip_per_minute: NonZeroU32,
    pub per_identity_per_minute: NonZeroU32,
    /// Saves one IP (IPv6: one /64) may create within any 60 seconds.
    pub save_creations_per_minute: NonZeroU32,
    /// Saves one IPv6 /56 may create within any 60 seconds.
    pub save_creations_per_56_per_minute: NonZeroU32,
    /// Saves one IPv6 /48 may create within any 60 seconds.
    pub save_creations_per_48_per_minute: NonZeroU32,
    /// Held results one save may send per minute (docs/replay.md, "The review queue").
    pub held_per_save_per_minute: NonZeroU32,
    /// Held results one IP (IPv6: one /64) may send per minute.
    pub held_per_ip_per_minute: NonZeroU32,
    /// New texts one save may store per hour (docs/api.md, "Rate limits").
    pub texts_per_save_per_hour: NonZeroU32,
    /// New texts one IP (IPv6: one /64) may store per hour.
    pub texts_per_ip_per_hour: NonZeroU32,
}
