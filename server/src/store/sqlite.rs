//! SQLite: one file, WAL, one writer connection and a few readers.
//!
//! SQLite allows one writer at a time. Giving writes a single pooled connection makes
//! them queue in the pool (first come, first served) instead of spinning in SQLite's
//! busy handler, whose sleeps would dominate tail latency; `BEGIN IMMEDIATE` still takes
//! the write lock up front so another process (a backup, an operator's shell) can never
//! turn a read transaction into a failed upgrade. WAL lets readers and the backup run
//! alongside the writer; `synchronous = NORMAL` is durable across application crashes
//! and only risks the last commits on power loss, the usual trade for WAL.

use super::sql::{Param, Row, Sql, Value};
use super::{StoreError, migrations};
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql, TransactionBehavior};
use std::path::Path;
use std::time::Duration;

/// How long a statement waits for a lock held by another process before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Readers serve leaderboards and token lookups concurrently with the writer.
const READERS: u32 = 4;

pub struct Sqlite {
    writer: Pool<SqliteConnectionManager>,
    readers: Pool<SqliteConnectionManager>,
}

impl Sqlite {
    /// Opens (creating if missing) the database file and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                dir: dir.to_owned(),
                source,
            })?;
        }
        let connections = || SqliteConnectionManager::file(path).with_init(configure);
        let writer = Pool::builder().max_size(1).build(connections())?;
        migrations::runner().run(&mut *writer.get()?)?;
        let readers = Pool::builder().max_size(READERS).build(connections())?;
        Ok(Sqlite { writer, readers })
    }

    pub fn read<R>(&self, f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError>) -> Result<R, StoreError> {
        let connection = self.readers.get()?;
        f(&mut SqliteSql(&connection))
    }

    pub fn write<R>(&self, f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError>) -> Result<R, StoreError> {
        let mut connection = self.writer.get()?;
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let result = f(&mut SqliteSql(&transaction))?;
        transaction.commit()?;
        Ok(result)
    }
}

/// Per-connection settings (journal mode is stored in the file, the rest is not).
fn configure(connection: &mut Connection) -> rusqlite::Result<()> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "NORMAL")?;
    connection.pragma_update(None, "foreign_keys", "ON")
}

/// Writes a consistent copy of the live database at `path` into `file`.
///
/// `VACUUM INTO` reads one snapshot in a read transaction, so it neither blocks the
/// server's writer nor sees half of a write. The file must not exist yet.
pub fn backup(path: &Path, file: &Path) -> Result<(), StoreError> {
    if file.exists() {
        return Err(StoreError::BackupExists(file.to_owned()));
    }
    // Open without CREATE: a mistyped path must fail, not back up an empty database.
    let connection = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
        .map_err(|source| StoreError::Open { path: path.to_owned(), source })?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    let target = file.to_str().ok_or_else(|| StoreError::NonUtf8Path(file.to_owned()))?;
    connection.execute("VACUUM INTO ?1", [target])?;
    Ok(())
}

struct SqliteSql<'c>(&'c Connection);

impl Sql for SqliteSql<'_> {
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let mut statement = self.0.prepare_cached(sql)?;
        let columns = statement.column_count();
        let mut rows = statement.query(rusqlite::params_from_iter(params))?;
        let mut read = Vec::new();
        while let Some(row) = rows.next()? {
            let values = (0..columns)
                .map(|column| match row.get_ref(column)? {
                    ValueRef::Integer(value) => Ok(Value::Int(value)),
                    ValueRef::Text(bytes) => Ok(Value::Text(String::from_utf8_lossy(bytes).into_owned())),
                    ValueRef::Null => Ok(Value::Null),
                    other => Err(StoreError::UnexpectedValue(format!("column {column} holds {:?}", other.data_type()))),
                })
                .collect::<Result<_, StoreError>>()?;
            read.push(Row(values));
        }
        Ok(read)
    }
}

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(match *self {
            Param::Int(value) => ToSqlOutput::from(value),
            Param::Text(value) => ToSqlOutput::from(value),
        })
    }
}
