//! The command line: `keydo-server [serve]` and `keydo-server backup <file>`.
//!
//! Every flag has an environment variable so operators and tests can script the
//! server without building argument lists; SPEC §9 fixes the names.

use crate::settings::{RateLimits, Settings};
use clap::{Args, Parser, Subcommand};
use keydo_core::review::Thresholds;
use std::net::SocketAddr;
use std::num::NonZeroU32;
use std::path::PathBuf;
use std::time::Duration;

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
    Serve(ServeArgs),
    /// Write a consistent copy of the live SQLite database to <FILE>.
    #[command(after_long_help = RESTORE_HELP)]
    Backup(BackupArgs),
    /// Moderate the live database: held and suspicious results, approvals, hidden
    /// players, name resets (docs/replay.md).
    Admin(crate::admin::AdminArgs),
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

    /// The origin browsers use to reach this server, e.g. `https://keydo.example`,
    /// when it runs behind a proxy. API requests carrying any other `Origin` are refused
    /// (403). Without it the server's origin is `http://<Host header>`.
    #[arg(long, env = "KEYDO_PUBLIC_ORIGIN")]
    pub public_origin: Option<String>,

    #[command(flatten)]
    pub rate_limits: RateLimitArgs,

    /// Seconds an API request may take before it is answered 503.
    #[arg(long, env = "KEYDO_REQUEST_TIMEOUT_SECS", default_value_t = 10)]
    pub request_timeout_secs: u64,

    /// Speeds above which a verified result waits for an operator's review before it
    /// reaches the public boards, per mode (WPM; 字/分 for zh). Modes left out keep 200.
    #[arg(
        long,
        env = "KEYDO_REVIEW_THRESHOLDS",
        default_value = "time=200,words=200,quote=200,zh=200"
    )]
    pub review_thresholds: Thresholds,
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

    /// Saves one IP address may create within any 60 seconds.
    #[arg(long, env = "KEYDO_RATE_LIMIT_SAVES", default_value = "2")]
    pub rate_limit_saves: NonZeroU32,
}

#[derive(Debug, Clone, Args)]
pub struct BackupArgs {
    /// The backup file to write; it must not exist yet.
    pub file: PathBuf,

    #[command(flatten)]
    pub database: DatabaseArgs,
}

impl ServeArgs {
    /// What the router needs from the command line.
    pub fn settings(&self) -> Settings {
        Settings {
            dist: self.dist.clone(),
            public_origin: self
                .public_origin
                .as_deref()
                .map(|origin| origin.trim_end_matches('/').to_owned()),
            rate_limits: RateLimits {
                per_ip_per_minute: self.rate_limits.rate_limit_per_ip,
                per_identity_per_minute: self.rate_limits.rate_limit_per_identity,
                save_creations_per_minute: self.rate_limits.rate_limit_saves,
            },
            request_timeout: Duration::from_secs(self.request_timeout_secs),
            review: self.review_thresholds,
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
}
