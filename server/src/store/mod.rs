//! The database: saves and scores on SQLite (a file, the default) or PostgreSQL.
//!
//! Both drivers are synchronous; their work runs off the async workers (writes on
//! writer threads, reads on tokio's blocking pool), so a slow disk never stalls request
//! handling. Writes are committed in batches, each in its own savepoint
//! (`write_batches`): on SQLite every write, on PostgreSQL a game's record (the hot
//! path) while every other write is a transaction of its own. Reads run on a pooled
//! connection.
//! Errors that mean the database is unreachable, full or too slow are told apart
//! ([`StoreError::is_unavailable`]): the API answers them 503, not 500.
//!
//! The statements live in one file per table (`players`, `creations`, `boards`,
//! `rank_counts`, `results`, `names`, `log_digests`, `texts`, `board_scores`,
//! `result_codes`), written once for both databases ([`sql::Sql`]); `board_fixture`
//! generates seeded boards for load runs and tests, which `ranks` loads and checks; the
//! transactions that span tables are `Store` methods, here and in `devices`,
//! `profiles` and `verified` (which `gates` serves). Ids are `Uuid`s, stored as text.

mod board_fixture;
mod board_scores;
mod boards;
mod creations;
mod devices;
mod gates;
mod log_digests;
mod names;
mod players;
mod postgres;
mod postgres_tls;
mod profiles;
mod rank_counts;
mod ranks;
mod result_codes;
mod results;
pub mod sql;
mod sqlite;
mod texts;
mod verified;
mod write_batches;

use self::postgres::Postgres;
use self::sqlite::Sqlite;
use crate::metrics::{DatabaseErrorKind, metrics};
pub use board_fixture::BoardFixture;
pub use board_scores::{BoardBest, BoardEntry, StoredBoard};
pub use boards::{Best, Board, Entry, Game, Recorded, Standing};
pub use creations::{RememberedCreation, SaveCreation};
pub use devices::{LinkRequest, Linking, ListedDevice};
pub use gates::{Gate, Gates, TopPlaces};
use keydo_core::Mode;
use keydo_core::api::{OptionsBest, ServerBest};
pub use log_digests::log_sha256;
pub use players::{Caller, NewSave, Player};
pub use profiles::{KeyedOperation, Operation};
pub use result_codes::is_code;
pub use results::{
    KeptLog, ListedResult, Listing, NewResult, ResultBoards, ResultState, StoredReplay,
    StoredResult,
};
use sql::Sql;
use std::error::Error as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};
pub use texts::StoredText;
use uuid::Uuid;
pub use verified::{Approval, NameTaken, Receipt, Recording};

mod migrations {
    //! The schema's versioned migrations (`server/migrations/V<n>__<name>.sql`),
    //! compiled in and applied at start.
    refinery::embed_migrations!("migrations");
    pub use migrations::runner;
}

/// Why the database could not do something. Never shown to clients.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("SQLite: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error("PostgreSQL: {0}")]
    Postgres(#[from] ::postgres::Error),
    #[error("connection pool: {0}")]
    Pool(#[from] r2d2::Error),
    #[error("migrating the schema: {0}")]
    Migration(#[from] refinery::Error),
    #[error("opening {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("creating the data directory {dir}: {source}")]
    CreateDir {
        dir: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "backups of PostgreSQL are taken with pg_dump, e.g. `pg_dump --format=custom --file=keydo.dump <url>`"
    )]
    BackupOfPostgres,
    #[error("the path {0} is not UTF-8")]
    NonUtf8Path(PathBuf),
    #[error("unsupported database URL {0:?}: use postgres://... or sqlite://...")]
    UnsupportedUrl(String),
    #[error("unexpected value: {0}")]
    UnexpectedValue(String),
    #[error("the database task stopped: {0}")]
    TaskFailed(#[from] tokio::task::JoinError),
    #[error("starting a writer thread: {0}")]
    WriterThread(std::io::Error),
    #[error("the writer threads stopped")]
    WriterStopped,
    #[error("committing a batch of writes: {0}")]
    Commit(String),
    #[error("TLS to PostgreSQL: {0}")]
    Tls(String),
}

impl StoreError {
    /// Whether the database cannot be reached, is full, read-only, busy or too slow:
    /// a moment to retry later, not a bug.
    pub fn is_unavailable(&self) -> bool {
        use rusqlite::ErrorCode::{
            CannotOpen, DatabaseBusy, DatabaseLocked, DiskFull, OutOfMemory, ReadOnly,
            SystemIoFailure,
        };
        match self {
            StoreError::Sqlite(error) => matches!(
                error.sqlite_error_code(),
                Some(
                    CannotOpen
                        | DatabaseBusy
                        | DatabaseLocked
                        | DiskFull
                        | OutOfMemory
                        | ReadOnly
                        | SystemIoFailure
                )
            ),
            StoreError::Postgres(error) => postgres_unavailable(error),
            StoreError::Pool(_)
            | StoreError::Open { .. }
            | StoreError::CreateDir { .. }
            | StoreError::WriterStopped
            | StoreError::Commit(_) => true,
            _ => false,
        }
    }
}

/// Connection failures, SQLSTATE classes 08 (connection), 40 (transaction rollback: a
/// deadlock PostgreSQL broke, whose write is answered to be resent), 53 (insufficient
/// resources: disk full, too many connections), 57 (operator intervention: shutdown,
/// statement timeout) and 25006 (a read-only standby).
fn postgres_unavailable(error: &::postgres::Error) -> bool {
    if error.is_closed() {
        return true;
    }
    match error.code() {
        Some(state) => {
            let code = state.code();
            ["08", "40", "53", "57"]
                .iter()
                .any(|class| code.starts_with(class))
                || code == "25006"
        }
        None => error
            .source()
            .is_some_and(|source| source.is::<std::io::Error>()),
    }
}

/// Where the database lives, from `--data-dir` / `--database-url`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Sqlite(PathBuf),
    Postgres(String),
}

impl Location {
    /// `--database-url` wins over `--data-dir`.
    pub fn new(data_dir: &Path, database_url: Option<&str>) -> Result<Self, StoreError> {
        let Some(url) = database_url else {
            return Ok(Location::Sqlite(data_dir.join("keydo.sqlite3")));
        };
        if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Location::Postgres(url.to_owned()))
        } else if let Some(path) = url
            .strip_prefix("sqlite://")
            .or_else(|| url.strip_prefix("sqlite:"))
        {
            Ok(Location::Sqlite(PathBuf::from(path)))
        } else {
            Err(StoreError::UnsupportedUrl(url.to_owned()))
        }
    }
}

enum Database {
    Sqlite(Sqlite),
    Postgres(Postgres),
}

/// The database, cheap to clone.
#[derive(Clone)]
pub struct Store {
    database: Arc<Database>,
    /// Devices by token hash, with when they were read. A device's player never
    /// changes, so a fresh hit is as good as a read; this process forgets a token the
    /// moment it revokes its device or folds its save away, and entries expire after
    /// [`StoreOptions::token_ttl`], so after a restore (which may drop saves) or a
    /// revocation by another server no server goes on accepting the token for longer.
    known_tokens: Arc<quick_cache::sync::Cache<String, (Caller, Instant)>>,
    token_ttl: Duration,
}

/// How many saves' tokens stay cached (about 100 bytes each).
const KNOWN_TOKENS: usize = 100_000;

/// How many expired idempotency records each keyed save creation forgets: more than
/// the one it adds, so the table drains back to about a day of creations.
const FORGET_PER_CREATION: usize = 4;

/// What creating a save did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Creation {
    /// The save was created (and its idempotency key, if any, now names it).
    Created,
    /// The idempotency key already named a save (an earlier or concurrent request made
    /// it).
    Remembered(RememberedCreation),
    /// Another save has the name's key (docs/replay.md): nothing was created or claimed.
    NameTaken,
}

/// A save creation's idempotency key, as stored, and the instant before which older
/// records no longer count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyedCreation {
    pub creation: SaveCreation,
    pub expired_before: i64,
}

/// How the store connects and caches.
#[derive(Debug, Clone)]
pub struct StoreOptions {
    /// How long a cached token is trusted without asking the database.
    pub token_ttl: Duration,
    /// PostgreSQL: the longest a statement may run before the database counts as
    /// unavailable.
    pub database_timeout: Duration,
    /// PostgreSQL: the longest a request waits for a pooled connection (all busy, or
    /// none can be made) before the database counts as unavailable.
    pub pool_wait: Duration,
    /// PostgreSQL: the most pooled connections.
    pub connections: u32,
    /// PostgreSQL: the certificate authority the server's certificate must chain to
    /// (then its host name is checked too). Without it, TLS (when the server offers
    /// it, or `sslmode=require` demands it) encrypts without authenticating the
    /// server, as libpq's `sslmode=require` does.
    pub database_ca_file: Option<PathBuf>,
}

impl Default for StoreOptions {
    fn default() -> Self {
        StoreOptions {
            token_ttl: Duration::from_secs(60),
            database_timeout: Duration::from_secs(5),
            pool_wait: Duration::from_secs(30),
            connections: 8,
            database_ca_file: None,
        }
    }
}

/// What the disk holds: see [`Store::capacity`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capacity {
    pub held_results: i64,
    pub database_bytes: i64,
}

impl Store {
    /// Opens the database with the default [`StoreOptions`] and applies pending
    /// migrations. Blocking.
    pub fn open(location: &Location) -> Result<Self, StoreError> {
        Self::open_with(location, &StoreOptions::default())
    }

    /// Opens the database and applies pending migrations. Blocking.
    pub fn open_with(location: &Location, options: &StoreOptions) -> Result<Self, StoreError> {
        let database = match location {
            Location::Sqlite(path) => Database::Sqlite(Sqlite::open(path)?),
            Location::Postgres(url) => Database::Postgres(Postgres::open(url, options)?),
        };
        Ok(Store {
            database: Arc::new(database),
            known_tokens: Arc::new(quick_cache::sync::Cache::new(KNOWN_TOKENS)),
            token_ttl: options.token_ttl,
        })
    }

    /// Creates a save unless another save has its name's key (docs/replay.md), in one
    /// transaction. Under an idempotency key it first forgets a few expired records,
    /// and creates nothing when the key already names a live save.
    pub async fn create_save(
        &self,
        save: NewSave,
        keyed: Option<KeyedCreation>,
    ) -> Result<Creation, StoreError> {
        self.write(move |sql| {
            if let Some(KeyedCreation {
                creation,
                expired_before,
            }) = &keyed
            {
                creations::forget_expired_creations(sql, *expired_before, FORGET_PER_CREATION)?;
                if let Some(remembered) =
                    creations::remembered_creation(sql, &creation.key_sha256, *expired_before)?
                {
                    return Ok(Creation::Remembered(remembered));
                }
            }
            if verified::name_taken(sql, &save.name_key, None)? {
                return Ok(Creation::NameTaken);
            }
            if let Some(KeyedCreation {
                creation,
                expired_before,
            }) = &keyed
                && !creations::claim_save_creation(
                    sql,
                    creation,
                    save.player.player_id,
                    save.created_at,
                    *expired_before,
                )?
            {
                return creations::remembered_creation(sql, &creation.key_sha256, *expired_before)?
                    .map(Creation::Remembered)
                    .ok_or_else(|| {
                        StoreError::UnexpectedValue(
                            "a key's record vanished inside its transaction".into(),
                        )
                    });
            }
            players::insert_named_player(sql, &save)?;
            Ok(Creation::Created)
        })
        .await
    }

    /// The save a key created, if its record is live (made at or after `expired_before`).
    pub async fn remembered_creation(
        &self,
        key_sha256: String,
        expired_before: i64,
    ) -> Result<Option<RememberedCreation>, StoreError> {
        self.read(move |sql| creations::remembered_creation(sql, &key_sha256, expired_before))
            .await
    }

    /// The player's bests per mode, with those of `week`, and their best of each test
    /// with options.
    pub async fn bests(
        &self,
        player_id: Uuid,
        week: i64,
    ) -> Result<(Vec<ServerBest>, Vec<OptionsBest>), StoreError> {
        self.read(move |sql| {
            Ok((
                boards::bests(sql, player_id, week)?,
                board_scores::options_bests(sql, player_id)?,
            ))
        })
        .await
    }

    /// The unrevoked device a token names.
    pub async fn caller_by_token(
        &self,
        token_sha256: String,
    ) -> Result<Option<Caller>, StoreError> {
        if let Some((caller, read_at)) = self.known_tokens.get(&token_sha256)
            && read_at.elapsed() < self.token_ttl
        {
            return Ok(Some(caller));
        }
        let key = token_sha256.clone();
        let caller = self
            .read(move |sql| players::caller_by_token(sql, &token_sha256))
            .await?;
        match &caller {
            Some(caller) => self.known_tokens.insert(key, (*caller, Instant::now())),
            None => {
                self.known_tokens.remove(&key);
            }
        }
        Ok(caller)
    }

    /// This process stops trusting these tokens at once (their devices are gone).
    fn forget_tokens(&self, token_sha256s: &[String]) {
        for token_sha256 in token_sha256s {
            self.known_tokens.remove(token_sha256);
        }
    }

    /// Records a validated game on the all-time board and, when `current_week` is
    /// given, on that week's board, in one transaction.
    pub async fn record_game(
        &self,
        game: Game,
        current_week: Option<i64>,
    ) -> Result<Recorded, StoreError> {
        self.write(move |sql| boards::record_mode(sql, &game, current_week))
            .await
    }

    /// The top of a text's or a day's board and, for a known player, their own
    /// standing.
    pub async fn board(
        &self,
        board: String,
        limit: i64,
        player_id: Option<Uuid>,
    ) -> Result<(Vec<BoardEntry>, Option<Standing>), StoreError> {
        self.read(move |sql| {
            let entries = board_scores::top(sql, &board, limit)?;
            let standing = match player_id {
                Some(player_id) => board_scores::standing(sql, &board, player_id)?,
                None => None,
            };
            Ok((entries, standing))
        })
        .await
    }

    /// The top of a board and, for a known player, their own standing.
    pub async fn leaderboard(
        &self,
        board: Board,
        mode: Mode,
        limit: i64,
        player_id: Option<Uuid>,
    ) -> Result<(Vec<Entry>, Option<Standing>), StoreError> {
        self.read(move |sql| {
            let entries = boards::top(sql, board, mode, limit)?;
            let standing = match player_id {
                Some(player_id) => boards::standing(sql, board, mode, player_id)?,
                None => None,
            };
            Ok((entries, standing))
        })
        .await
    }

    /// How many results wait for review, and how many bytes the database takes (on
    /// SQLite its pages, on PostgreSQL `pg_database_size`).
    pub async fn capacity(&self) -> Result<Capacity, StoreError> {
        let size = match &*self.database {
            Database::Sqlite(_) => {
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
            }
            Database::Postgres(_) => "SELECT pg_database_size(current_database())",
        };
        self.read(move |sql| {
            let database_bytes = sql.query_opt(size, &[])?.map_or(Ok(0), |row| row.int(0))?;
            Ok(Capacity {
                held_results: results::held_count(sql)?,
                database_bytes,
            })
        })
        .await
    }

    pub async fn ping(&self) -> Result<(), StoreError> {
        self.read(|sql| sql.query("SELECT 1", &[]).map(drop)).await
    }

    /// Readiness: runs a write transaction the way every write does and commits it.
    /// On SQLite it goes through the writer thread and takes the write lock; on
    /// PostgreSQL it takes a transaction id, which a read-only standby refuses.
    pub async fn check_writable(&self) -> Result<(), StoreError> {
        let statement = match &*self.database {
            Database::Sqlite(_) => "SELECT 1",
            Database::Postgres(_) => "SELECT txid_current()",
        };
        self.write(move |sql| sql.query(statement, &[]).map(drop))
            .await
    }

    async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let result = match &*self.database {
            Database::Sqlite(sqlite) => sqlite.read(f).await,
            Database::Postgres(postgres) => postgres.read(f).await,
        };
        result.inspect_err(count_error)
    }

    /// Runs `f` as a write of its own (on PostgreSQL, its own transaction).
    async fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        self.write_for(None, f).await
    }

    /// Runs `f`, which locks no player's rows but `player`'s (if given), so on
    /// PostgreSQL it may share a batch with other players' such writes.
    async fn write_for<R: Send + 'static>(
        &self,
        player: Option<Uuid>,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let result = match &*self.database {
            Database::Sqlite(sqlite) => sqlite.write(f).await,
            Database::Postgres(postgres) => postgres.write(player, f).await,
        };
        result.inspect_err(count_error)
    }
}

fn count_error(error: &StoreError) {
    metrics().database_error(if error.is_unavailable() {
        DatabaseErrorKind::Unavailable
    } else {
        DatabaseErrorKind::Other
    });
}

/// Writes a consistent copy of the live database into `file`, which must not exist or
/// be empty (SQLite only; [`crate::backup`] is the safe way to write one).
pub fn backup(location: &Location, file: &Path) -> Result<(), StoreError> {
    match location {
        Location::Sqlite(path) => sqlite::backup(path, file),
        Location::Postgres(_) => Err(StoreError::BackupOfPostgres),
    }
}
