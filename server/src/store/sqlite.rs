//! SQLite: one file, WAL, a single writer thread that commits in batches, and a pool
//! of readers.
//!
//! SQLite allows one writer at a time, so writes go to one thread over a channel
//! instead of contending for the lock (SQLite's busy handler sleeps, which would rule
//! tail latency). The thread takes every write that is waiting, up to
//! [`MAX_BATCH`], and runs them in one `BEGIN IMMEDIATE` transaction, each inside its
//! own savepoint so one failing write does not undo the others; results are delivered
//! only after the commit. Under load, one commit then pays for many writes (group
//! commit); alone, a write is a batch of one. WAL lets readers and backups run
//! alongside. `synchronous = FULL`: every commit is fsynced before its writes are
//! answered, so an acknowledged score survives a power loss too; group commit pays
//! one fsync per batch, not per write (docs/api.md has the throughput).

use super::sql::{Param, Row, Sql, Value};
use super::write_batches::{self, BatchConnection, Delivery, WriteJob};
use super::{StoreError, migrations};
use crate::metrics::metrics;
use r2d2::Pool;
use r2d2_sqlite::SqliteConnectionManager;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

/// How long a statement waits for a lock held by another process before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);
/// Readers serve leaderboards and token lookups concurrently with the writer.
const READERS: u32 = 4;
/// The most writes committed together.
const MAX_BATCH: usize = 64;

pub struct Sqlite {
    writes: mpsc::Sender<WriteJob>,
    readers: Pool<SqliteConnectionManager>,
}

impl Sqlite {
    /// Opens (creating if missing) the database file, brings its schema up to date and
    /// starts the writer thread. Blocking.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| StoreError::CreateDir {
                dir: dir.to_owned(),
                source,
            })?;
        }
        let mut writer = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.to_owned(),
            source,
        })?;
        configure(&mut writer)?;
        migrations::runner().run(&mut writer)?;
        let (writes, jobs) = mpsc::channel();
        std::thread::Builder::new()
            .name("keydo-sqlite-writer".into())
            .spawn(move || run_writer(writer, jobs))
            .map_err(StoreError::WriterThread)?;
        let readers = Pool::builder()
            .max_size(READERS)
            .build(SqliteConnectionManager::file(path).with_init(configure))?;
        Ok(Sqlite { writes, readers })
    }

    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let readers = self.readers.clone();
        tokio::task::spawn_blocking(move || f(&mut SqliteSql(&*readers.get()?))).await?
    }

    /// Runs `f` in the next batch and answers once that batch is committed.
    pub async fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let (job, answered) = write_batches::job(f);
        metrics().write_queued();
        self.writes
            .send(job)
            .map_err(|_| StoreError::WriterStopped)?;
        answered.await.map_err(|_| StoreError::WriterStopped)?
    }
}

/// The writer thread: batches until every sender is gone.
fn run_writer(connection: Connection, jobs: mpsc::Receiver<WriteJob>) {
    while let Ok(first) = jobs.recv() {
        let batch: Vec<WriteJob> = std::iter::once(first)
            .chain(jobs.try_iter().take(MAX_BATCH - 1))
            .collect();
        metrics().write_batch(batch.len());
        write_batches::commit(&mut Writer(&connection), batch, "BEGIN IMMEDIATE");
    }
}

/// The writer's connection, as a batch runs on it.
struct Writer<'c>(&'c Connection);

impl BatchConnection for Writer<'_> {
    fn execute(&mut self, statements: &str) -> Result<(), String> {
        self.0
            .execute_batch(statements)
            .map_err(|error| error.to_string())
    }

    fn run(&mut self, job: WriteJob) -> (bool, Delivery) {
        job(&mut SqliteSql(self.0))
    }
}

/// Per-connection settings (journal mode is stored in the file, the rest is not).
fn configure(connection: &mut Connection) -> rusqlite::Result<()> {
    connection.busy_timeout(BUSY_TIMEOUT)?;
    connection.pragma_update(None, "journal_mode", "WAL")?;
    connection.pragma_update(None, "synchronous", "FULL")?;
    connection.pragma_update(None, "foreign_keys", "ON")
}

/// Writes a consistent copy of the live database at `path` into `file`, which must
/// not exist or be empty ([`crate::backup`] makes it safely).
///
/// `VACUUM INTO` reads one snapshot in a read transaction, so it neither blocks the
/// server's writer nor sees half of a write.
pub fn backup(path: &Path, file: &Path) -> Result<(), StoreError> {
    // Open without CREATE: a mistyped path must fail, not back up an empty database.
    let connection =
        Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE).map_err(|source| {
            StoreError::Open {
                path: path.to_owned(),
                source,
            }
        })?;
    connection.busy_timeout(BUSY_TIMEOUT)?;
    let target = file
        .to_str()
        .ok_or_else(|| StoreError::NonUtf8Path(file.to_owned()))?;
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
                    ValueRef::Text(bytes) => {
                        Ok(Value::Text(String::from_utf8_lossy(bytes).into_owned()))
                    }
                    ValueRef::Null => Ok(Value::Null),
                    other => Err(StoreError::UnexpectedValue(format!(
                        "column {column} holds {:?}",
                        other.data_type()
                    ))),
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
            Param::Id(value) => ToSqlOutput::from(value.hyphenated().to_string()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_connection_waits_for_the_disk_on_commit() {
        let data = tempfile::TempDir::new().unwrap();
        let mut connection = Connection::open(data.path().join("keydo.sqlite3")).unwrap();
        configure(&mut connection).unwrap();
        let synchronous: i64 = connection
            .query_row("PRAGMA synchronous", [], |row| row.get(0))
            .unwrap();
        assert_eq!(synchronous, 2, "FULL");
        let journal: String = connection
            .query_row("PRAGMA journal_mode", [], |row| row.get(0))
            .unwrap();
        assert_eq!(journal, "wal");
    }

    #[tokio::test]
    async fn a_failing_write_in_a_batch_leaves_nothing_and_the_others_commit() {
        let data = tempfile::TempDir::new().unwrap();
        let store = Sqlite::open(&data.path().join("keydo.sqlite3")).unwrap();
        let create = |sql: &mut dyn Sql| {
            sql.query("CREATE TABLE batched (key TEXT PRIMARY KEY)", &[])
                .map(drop)
        };
        store.write(create).await.unwrap();
        // The writer held by a write of its own until the batch below is queued.
        let (release, released) = mpsc::channel::<()>();
        let (started, running) = mpsc::channel();
        let (hold, held) = write_batches::job(move |_sql| {
            started.send(()).unwrap();
            // Returns once the sender is dropped.
            let _ = released.recv();
            Ok(())
        });
        store.writes.send(hold).unwrap();
        tokio::task::spawn_blocking(move || running.recv().unwrap())
            .await
            .unwrap();

        // One batch: a write, one that fails after writing, one that fails in SQLite
        // (its key is taken), and another write.
        let writes = [("a", false), ("b", true), ("a", false), ("c", false)];
        let answers: Vec<_> = writes
            .into_iter()
            .map(|(key, fails)| {
                let (job, answered) = write_batches::job(move |sql| {
                    sql.query("INSERT INTO batched (key) VALUES ($1)", &[Param::Text(key)])?;
                    if fails {
                        return Err(StoreError::UnexpectedValue("a failing write".into()));
                    }
                    Ok(())
                });
                store.writes.send(job).unwrap();
                answered
            })
            .collect();
        drop(release);
        held.await.unwrap().unwrap();
        let mut succeeded = Vec::new();
        for answered in answers {
            succeeded.push(answered.await.unwrap().is_ok());
        }
        assert_eq!(succeeded, [true, false, false, true]);

        let keys = store
            .read(|sql| sql.query("SELECT key FROM batched ORDER BY key", &[]))
            .await
            .unwrap();
        let keys: Vec<&str> = keys.iter().map(|row| row.text(0).unwrap()).collect();
        assert_eq!(keys, ["a", "c"]);
    }
}
