//! The command line: `keydo-server [serve]` and `keydo-server backup <file>`.
//!
//! Every flag has an environment variable so operators and tests can script the
//! server without building argument lists; docs/operations.md fixes the names.

use crate::client::{TrustedProxies, parse_network};
use crate::connections::ConnectionLimits;
use crate::operator_token::OperatorToken;
use crate::origin;
use crate::settings::{Alerts, RateLimits, Settings};
use crate::store::{Gates, StoreOptions, TopPlaces};
use clap::{Args, Parser, Subcommand};
use ipnet::IpNet;
use keydo_core::verify::review::Thresholds;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;
use uuid::Uuid;

const RESTORE_HELP: &str = "\
Backups and restore:
  `keydo-server backup <file>` writes a consistent copy of the SQLite database while the
  server keeps running (it uses `VACUUM INTO`, so writers are not blocked). With a
  PostgreSQL database use `pg_dump` instead.

  To restore: stop the server, copy the backup file to `<data-dir>/keydo.sqlite3`
  (removing any `keydo.sqlite3-wal` and `keydo.sqlite3-shm` files next to it), then
  start the server again. Players whose saves are newer than the backup get a 401 on
  their next score and their game creates a new save and resends.";

/// KeyDo's server: serves the built game shell and the /api (saves, scores, leaderboards).
#[derive(Debug, Parser)]
#[command(name = "keydo-server", version, about, after_long_help = RESTORE_HELP)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Cli {
    /// Without a subcommand the server serves, with these options.
    #[command(flatten)]
    pub serve: ServeArgs,

    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve the shell and the API (the default).
    Serve(Box<ServeArgs>),
    /// Write a consistent copy of the live SQLite database to <FILE>.
    #[command(after_long_help = RESTORE_HELP)]
    Backup(BackupArgs),
    /// Moderate the live database: held and suspicious results, approvals, hidden
    /// players, name resets (docs/replay.md).
    Admin(AdminArgs),
}

#[derive(Debug, Clone, Args)]
pub struct ServeArgs {
    /// Address to listen on.
    #[arg(long, env = "KEYDO_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: SocketAddr,

    /// Directory holding the built shell (`trunk build --release` output).
    #[arg(long, env = "KEYDO_DIST", default_value = "dist")]
    pub dist: PathBuf,

    #[command(flatten)]
    pub database: DatabaseArgs,

    /// The origin browsers use to reach this server, e.g. `https://keydo.example`
    /// (case, a default port and a trailing slash do not matter). API requests carrying
    /// any other `Origin` are refused (403). Required when --addr is not a loopback
    /// address; without it the server's origin is `http(s)://<Host header>`.
    #[arg(long, env = "KEYDO_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,

    /// Reverse proxies (addresses or networks, comma-separated, e.g.
    /// `127.0.0.1,10.0.0.0/8`) whose `Forwarded` / `X-Forwarded-For` headers name the
    /// client. Requests from anyone else are attributed to their TCP peer.
    #[arg(long, env = "KEYDO_TRUSTED_PROXIES", value_delimiter = ',', value_parser = parse_network)]
    pub trusted_proxies: Vec<IpNet>,

    #[command(flatten)]
    pub tls: TlsArgs,

    /// Address for Prometheus metrics (`GET /metrics`), e.g. `127.0.0.1:9090`. Keep it
    /// private: it is served without authentication. Off when unset.
    #[arg(long, env = "KEYDO_METRICS_ADDR")]
    pub metrics_addr: Option<SocketAddr>,

    #[command(flatten)]
    pub rate_limits: RateLimitArgs,

    /// Seconds an API request may take before it is answered 503.
    #[arg(long, env = "KEYDO_REQUEST_TIMEOUT_SECS", default_value_t = 10)]
    pub request_timeout_secs: u64,

    #[command(flatten)]
    pub connections: ConnectionArgs,

    /// PostgreSQL: seconds a statement may run before the answer is 503
    /// DATABASE_UNAVAILABLE. A request waits for a free database connection for at
    /// most 80 % of --request-timeout-secs, then gets the same answer.
    #[arg(long, env = "KEYDO_DATABASE_TIMEOUT_SECS", default_value_t = 5)]
    pub database_timeout_secs: u64,

    /// PostgreSQL: the most connections this server keeps open to the database
    /// (docs/operations.md, "PostgreSQL": size it to the database's cores, not to the
    /// load).
    #[arg(long, env = "KEYDO_DATABASE_CONNECTIONS", default_value_t = 8,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub database_connections: u32,

    /// PostgreSQL: a PEM file of the certificate authority the database's certificate
    /// must chain to (its host name is then checked too). Without it, TLS to the
    /// database (`?sslmode=require` in the URL) encrypts but does not authenticate.
    #[arg(long, env = "KEYDO_DATABASE_CA_FILE")]
    pub database_ca_file: Option<PathBuf>,

    /// Seconds a device's token, once checked, is trusted without asking the database.
    /// After a database restore, or a device revoked through another server process,
    /// tokens the database no longer accepts stop working within this.
    #[arg(long, env = "KEYDO_TOKEN_CACHE_SECS", default_value_t = 60)]
    pub token_cache_secs: u64,

    /// Speeds at or above which a verified result waits for an operator's review before
    /// it reaches the public boards, per mode (WPM; 字/分 for zh). Modes left out keep 200.
    #[arg(
        long,
        env = "KEYDO_REVIEW_THRESHOLDS",
        default_value = "time=200,words=200,quote=200,zh=200"
    )]
    pub review_thresholds: Thresholds,

    /// The operator's token for the review page at `/admin` (at least 32 characters,
    /// e.g. `openssl rand -hex 32`), given there as the password of the browser's
    /// login prompt. Prefer the environment variable: arguments show in process lists.
    /// Without it the page is off. Serve it over HTTPS only.
    #[arg(long, env = "KEYDO_ADMIN_TOKEN", hide_env_values = true)]
    pub admin_token: Option<String>,

    #[command(flatten)]
    pub gates: GateArgs,

    #[command(flatten)]
    pub alerts: AlertArgs,
}

/// Which results wait for review for where they would land (docs/replay.md, "Places
/// that matter" and "The review queue"). Every rule compares with "at least".
#[derive(Debug, Clone, Args)]
pub struct GateArgs {
    /// Board places that wait for review, per mode: a result that would place N-th or
    /// better on the all-time or this week's board (a tie counting for it) is held.
    /// Modes left out keep 10; 0 turns the rule off for a mode.
    #[arg(
        long,
        env = "KEYDO_REVIEW_TOP_PLACES",
        default_value = "time=10,words=10,quote=10,zh=10"
    )]
    pub review_top_places: TopPlaces,

    /// A result at least this many percent above its player's public best in its mode
    /// is held; 0 turns the rule off.
    #[arg(long, env = "KEYDO_REVIEW_LEAP_PERCENT", default_value_t = 25)]
    pub review_leap_percent: u32,

    /// A save's results are held until it has this many seconds of verified typing
    /// (never more than the time since the server created it); 0 turns the rule off.
    #[arg(long, env = "KEYDO_REVIEW_MIN_TYPING_SECS", default_value_t = 300)]
    pub review_min_typing_secs: u32,

    /// Held results one save keeps waiting per mode, the best ones; a worse one is
    /// kept without its log and waits for no one.
    #[arg(long, env = "KEYDO_REVIEW_PENDING_PER_MODE", default_value = "3")]
    pub review_pending_per_mode: NonZeroU32,
}

/// Where what fills the disk counts as too much: the metrics show the thresholds next
/// to the sizes and the log warns (docs/operations.md, "Alerts").
#[derive(Debug, Clone, Args)]
pub struct AlertArgs {
    /// Results waiting for review at which to alert.
    #[arg(long, env = "KEYDO_ALERT_REVIEW_QUEUE", default_value_t = 1_000)]
    pub alert_review_queue: u32,

    /// The database's size, in MiB, at which to alert.
    #[arg(long, env = "KEYDO_ALERT_DATABASE_MIB", default_value_t = 8_192)]
    pub alert_database_mib: u32,
}

/// TLS terminated by the server itself (instead of a reverse proxy).
#[derive(Debug, Clone, Args)]
pub struct TlsArgs {
    /// PEM certificate chain to serve HTTPS with (needs --tls-key).
    #[arg(long, env = "KEYDO_TLS_CERT", requires = "tls_key")]
    pub tls_cert: Option<PathBuf>,

    /// PEM private key of --tls-cert.
    #[arg(long, env = "KEYDO_TLS_KEY", requires = "tls_cert")]
    pub tls_key: Option<PathBuf>,
}

/// Bounds on client connections.
#[derive(Debug, Clone, Args)]
pub struct ConnectionArgs {
    /// Connections served at once; further ones wait to be accepted.
    #[arg(long, env = "KEYDO_MAX_CONNECTIONS", default_value_t = 10_000,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_connections: u32,

    /// Seconds a client has to send a request's head, from when the server starts
    /// waiting for it; an idle keep-alive connection is closed after this too.
    #[arg(long, env = "KEYDO_HEADER_TIMEOUT_SECS", default_value_t = 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub header_timeout_secs: u64,

    /// Seconds a response may wait on a client that does not read it.
    #[arg(long, env = "KEYDO_SEND_TIMEOUT_SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub send_timeout_secs: u64,

    /// Seconds to let in-flight requests finish after SIGTERM/SIGINT.
    #[arg(long, env = "KEYDO_SHUTDOWN_TIMEOUT_SECS", default_value_t = 10)]
    pub shutdown_timeout_secs: u64,
}

/// `keydo-server admin ...`, run by [`crate::admin::run`].
#[derive(Debug, Args)]
pub struct AdminArgs {
    #[command(flatten)]
    pub database: DatabaseArgs,

    #[command(subcommand)]
    pub command: AdminCommand,
}

#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// List results waiting for review, oldest first.
    Held {
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// The review queue: held results grouped by player, the best first, with each
    /// player's public best and how many verified results they have.
    Queue {
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Show what a held result's kept input log typed, and when.
    Replay { player_id: Uuid, score_id: Uuid },
    /// List results whose timing no person produces (held or approved), newest first.
    Suspicious {
        #[arg(long, default_value_t = 100)]
        limit: u32,
    },
    /// Approve a held result: it joins the public boards.
    Approve { player_id: Uuid, score_id: Uuid },
    /// Hide a player from the public boards; their results still count for them.
    Hide { player_id: Uuid },
    /// Show a hidden player on the public boards again.
    Unhide { player_id: Uuid },
    /// Reset a player's display name to NAME, or to a generated one. The player's own
    /// later changes do not override it.
    ResetName {
        player_id: Uuid,
        name: Option<String>,
    },
}

/// Where the database lives.
#[derive(Debug, Clone, Args)]
pub struct DatabaseArgs {
    /// Directory for the SQLite database file `keydo.sqlite3` (created if missing).
    #[arg(long, env = "KEYDO_DATA_DIR", default_value = "data")]
    pub data_dir: PathBuf,

    /// Database URL; overrides --data-dir. `postgres://user@host/db` selects PostgreSQL,
    /// `sqlite://path/to/file.sqlite3` a specific SQLite file.
    #[arg(long, env = "KEYDO_DATABASE_URL")]
    pub database_url: Option<String>,
}

/// Per-process rate limits on /api. Over a limit the answer is 429 with `Retry-After: 60`.
#[derive(Debug, Clone, Args)]
pub struct RateLimitArgs {
    /// API requests per minute from one IP address (IPv6: one /64). Failed
    /// authentications count here too.
    #[arg(long, env = "KEYDO_RATE_LIMIT_PER_IP", default_value = "300")]
    pub rate_limit_per_ip: NonZeroU32,

    /// API requests per minute from one save (bearer token).
    #[arg(long, env = "KEYDO_RATE_LIMIT_PER_IDENTITY", default_value = "60")]
    pub rate_limit_per_identity: NonZeroU32,

    /// Saves one IP address (IPv6: one /64) may create within any 60 seconds.
    #[arg(long, env = "KEYDO_RATE_LIMIT_SAVES", default_value = "2")]
    pub rate_limit_saves: NonZeroU32,

    /// Held results per minute from one save; over it a held result is refused 429
    /// and not stored.
    #[arg(long, env = "KEYDO_RATE_LIMIT_HELD_PER_SAVE", default_value = "5")]
    pub rate_limit_held_per_save: NonZeroU32,

    /// Held results per minute from one IP address (IPv6: one /64).
    #[arg(long, env = "KEYDO_RATE_LIMIT_HELD_PER_IP", default_value = "10")]
    pub rate_limit_held_per_ip: NonZeroU32,

    /// New texts one save may store per hour (a result on a loaded text the server
    /// has not stored); over it the result is refused 429 TOO_MANY_TEXTS.
    #[arg(long, env = "KEYDO_RATE_LIMIT_TEXTS_PER_SAVE", default_value = "20")]
    pub rate_limit_texts_per_save: NonZeroU32,

    /// New texts one IP address (IPv6: one /64) may store per hour.
    #[arg(long, env = "KEYDO_RATE_LIMIT_TEXTS_PER_IP", default_value = "60")]
    pub rate_limit_texts_per_ip: NonZeroU32,

    /// Saves one IPv6 /56 (a home's usual delegation: 256 /64s) may create within any
    /// 60 seconds.
    #[arg(long, env = "KEYDO_RATE_LIMIT_SAVES_PER_56", default_value = "4")]
    pub rate_limit_saves_per_56: NonZeroU32,

    /// Saves one IPv6 /48 (a site's usual delegation: 65,536 /64s) may create within
    /// any 60 seconds.
    #[arg(long, env = "KEYDO_RATE_LIMIT_SAVES_PER_48", default_value = "8")]
    pub rate_limit_saves_per_48: NonZeroU32,
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The backup file to write; it must not exist yet.
    pub file: PathBuf,

    #[command(flatten)]
    pub database: DatabaseArgs,
}

impl ServeArgs {
    /// What the router needs from the command line, checked: a public origin that is
    /// one, and one at all when listening beyond loopback.
    pub fn settings(&self) -> anyhow::Result<Settings> {
        let public_origin = self
            .public_origin
            .as_deref()
            .map(origin::normalise)
            .transpose()
            .map_err(|error| anyhow::anyhow!("--public-origin: {error}"))?;
        if public_origin.is_none() && !self.addr.ip().is_loopback() {
            anyhow::bail!(
                "--addr {} is not a loopback address, so browsers will reach this server \
                 by a name: set --public-origin (or KEYDO_PUBLIC_ORIGIN) to the URL they \
                 use, e.g. --public-origin https://keydo.example",
                self.addr
            );
        }
        Ok(Settings {
            dist: self.dist.clone(),
            public_origin,
            tls: self.tls.tls_cert.is_some(),
            trusted_proxies: TrustedProxies::new(self.trusted_proxies.clone()),
            rate_limits: RateLimits {
                per_ip_per_minute: self.rate_limits.rate_limit_per_ip,
                per_identity_per_minute: self.rate_limits.rate_limit_per_identity,
                save_creations_per_minute: self.rate_limits.rate_limit_saves,
                held_per_save_per_minute: self.rate_limits.rate_limit_held_per_save,
                held_per_ip_per_minute: self.rate_limits.rate_limit_held_per_ip,
                texts_per_save_per_hour: self.rate_limits.rate_limit_texts_per_save,
                texts_per_ip_per_hour: self.rate_limits.rate_limit_texts_per_ip,
                save_creations_per_56_per_minute: self.rate_limits.rate_limit_saves_per_56,
                save_creations_per_48_per_minute: self.rate_limits.rate_limit_saves_per_48,
            },
            request_timeout: Duration::from_secs(self.request_timeout_secs),
            review: self.review_thresholds,
            gates: Gates {
                top_places: self.gates.review_top_places,
                leap_percent: self.gates.review_leap_percent,
                min_typing_ms: i64::from(self.gates.review_min_typing_secs) * 1_000,
                pending_per_mode: self.gates.review_pending_per_mode,
            },
            alerts: Alerts {
                held_results: i64::from(self.alerts.alert_review_queue),
                database_bytes: i64::from(self.alerts.alert_database_mib) << 20,
            },
            logs_spent_once: true,
            admin_token: self
                .admin_token
                .as_deref()
                .map(OperatorToken::new)
                .transpose()
                .map_err(|error| anyhow::anyhow!("--admin-token: {error}"))?,
        })
    }

    pub fn connection_limits(&self) -> ConnectionLimits {
        let connections = &self.connections;
        ConnectionLimits {
            max_connections: connections.max_connections as usize,
            header_timeout: Duration::from_secs(connections.header_timeout_secs),
            send_timeout: Duration::from_secs(connections.send_timeout_secs),
            shutdown_timeout: Duration::from_secs(connections.shutdown_timeout_secs),
        }
    }

    pub fn store_options(&self) -> StoreOptions {
        StoreOptions {
            token_ttl: Duration::from_secs(self.token_cache_secs),
            database_timeout: Duration::from_secs(self.database_timeout_secs),
            pool_wait: Duration::from_secs(self.request_timeout_secs) * 4 / 5,
            connections: self.database_connections,
            database_ca_file: self.database_ca_file.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    #[test]
    fn serve_is_the_default_and_backup_takes_a_file() {
        let cli = Cli::try_parse_from(["keydo-server", "--addr", "127.0.0.1:0"]).unwrap();
        assert!(cli.command.is_none());
        assert_eq!(cli.serve.addr.port(), 0);

        let cli = Cli::try_parse_from(["keydo-server", "backup", "b.sqlite3", "--data-dir", "d"])
            .unwrap();
        let Some(Command::Backup(backup)) = cli.command else {
            panic!("expected the backup subcommand");
        };
        assert_eq!(backup.file, PathBuf::from("b.sqlite3"));
        assert_eq!(backup.database.data_dir, PathBuf::from("d"));
    }

    fn serve_args(args: &[&str]) -> ServeArgs {
        let cli = Cli::try_parse_from(["keydo-server"].iter().chain(args)).unwrap();
        cli.serve
    }

    #[test]
    fn off_loopback_a_public_origin_is_required() {
        let error = serve_args(&["--addr", "0.0.0.0:8080"])
            .settings()
            .unwrap_err()
            .to_string();
        assert!(error.contains("--public-origin"), "{error}");
        assert!(error.contains("KEYDO_PUBLIC_ORIGIN"), "{error}");
        for loopback in ["127.0.0.1:8080", "[::1]:8080"] {
            assert!(serve_args(&["--addr", loopback]).settings().is_ok());
        }
        let settings = serve_args(&[
            "--addr",
            "0.0.0.0:8080",
            "--public-origin",
            "HTTPS://KeyDo.Example:443/",
        ])
        .settings()
        .unwrap();
        assert_eq!(
            settings.public_origin.as_deref(),
            Some("https://keydo.example")
        );
        let error = serve_args(&["--public-origin", "keydo.example"])
            .settings()
            .unwrap_err();
        assert!(
            error.to_string().starts_with("--public-origin: "),
            "{error}"
        );
    }

    #[test]
    fn the_database_pool_size_reaches_the_store_and_is_at_least_one() {
        assert_eq!(serve_args(&[]).store_options().connections, 8);
        let sized = serve_args(&["--database-connections", "3"]);
        assert_eq!(sized.store_options().connections, 3);
        assert!(Cli::try_parse_from(["keydo-server", "--database-connections", "0"]).is_err());
    }

    #[test]
    fn the_gates_default_to_the_documented_values() {
        let settings = serve_args(&[]).settings().unwrap();
        assert_eq!(settings.gates, Gates::default());
        assert_eq!(settings.alerts.database_bytes, 8 << 30);
        let settings = serve_args(&["--review-top-places", "zh=0", "--review-leap-percent", "0"])
            .settings()
            .unwrap();
        assert_eq!(settings.gates.top_places.get(keydo_core::Mode::Zh), 0);
        assert_eq!(settings.gates.leap_percent, 0);
        assert!(Cli::try_parse_from(["keydo-server", "--review-pending-per-mode", "0"]).is_err());
    }

    #[test]
    fn trusted_proxies_and_tls_files_parse() {
        let args = serve_args(&["--trusted-proxies", "127.0.0.1,10.0.0.0/8, ::1"]);
        assert_eq!(args.trusted_proxies.len(), 3);
        assert!(Cli::try_parse_from(["keydo-server", "--trusted-proxies", "proxy"]).is_err());
        assert!(Cli::try_parse_from(["keydo-server", "--tls-cert", "c.pem"]).is_err());
        let args = serve_args(&["--tls-cert", "c.pem", "--tls-key", "k.pem"]);
        assert!(args.settings().unwrap().tls);
        assert!(Cli::try_parse_from(["keydo-server", "--max-connections", "0"]).is_err());
    }

    #[test]
    fn the_admin_token_must_be_long_and_prefix_limits_have_defaults() {
        let error = serve_args(&["--admin-token", "short"])
            .settings()
            .unwrap_err();
        assert!(error.to_string().starts_with("--admin-token: "), "{error}");
        let token = "x".repeat(crate::operator_token::MIN_TOKEN_CHARS);
        let settings = serve_args(&["--admin-token", &token]).settings().unwrap();
        assert!(settings.admin_token.is_some() && settings.logs_spent_once);
        let limits = serve_args(&[]).settings().unwrap().rate_limits;
        assert_eq!(
            (
                limits.save_creations_per_minute.get(),
                limits.save_creations_per_56_per_minute.get(),
                limits.save_creations_per_48_per_minute.get()
            ),
            (2, 4, 8)
        );
    }
}
