//! PostgreSQL, for deployments that outgrow one machine: a pool of connections, reads
//! on the blocking pool, writes on a few writer threads that commit players' games in
//! batches ([`super::write_batches`]; docs/operations.md, "Writes committed together").
//!
//! The synchronous `postgres` client keeps this backend the same shape as SQLite's,
//! so the queries are written once against [`Sql`].
//! Connections use TLS as the URL's `sslmode` asks (see [`super::postgres_tls`]),
//! every statement runs under a `statement_timeout`, and waiting for a pooled
//! connection (all busy, or the database unreachable) is bounded too: past either, the
//! answer is 503 `DATABASE_UNAVAILABLE`.
//!
//! Round trips are what a request costs here (docs/operations.md, "What a submission
//! costs"): each connection prepares a statement once and then only binds and executes
//! it, as rusqlite's statement cache does for SQLite, and the pool checks a connection
//! at checkout (one empty query) only when it sat idle (see [`TRUSTED_FOR`]).

use super::sql::{Param, Row, Sql, Value};
use super::write_batches::{self, BatchConnection, Delivery, WriteJob};
use super::{StoreError, StoreOptions, migrations, postgres_tls};
use crate::metrics::metrics;
use bytes::BytesMut;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use postgres::{Client, GenericClient, Statement};
use r2d2::{ManageConnection, Pool};
use r2d2_postgres::PostgresConnectionManager;
use std::collections::HashMap;
use std::error::Error;
use std::io::Write as _;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};
use tokio_postgres_rustls::MakeRustlsConnect;
use uuid::Uuid;

/// r2d2_postgres's manager, its connections paired with the statements they prepared.
struct Manager(PostgresConnectionManager<MakeRustlsConnect>);

/// A pooled connection and its statements, by their SQL. The SQL of the store's
/// queries is fixed text (a few pick a column or a rule from a fixed set), so the map
/// stays as small as the store's list of queries.
struct Connection {
    client: Client,
    statements: HashMap<String, Statement>,
    /// Whether a statement on it failed as only an ended connection fails.
    broken: bool,
    /// When a request last finished with it.
    last_used: Instant,
}

impl Connection {
    /// Runs `f` on the connection's parts and notes when it was last used.
    fn run<R>(
        &mut self,
        f: impl FnOnce(&mut Client, &mut HashMap<String, Statement>, &mut bool) -> R,
    ) -> R {
        let result = f(&mut self.client, &mut self.statements, &mut self.broken);
        self.last_used = Instant::now();
        result
    }
}

/// How long after its last use a pooled connection is handed out unchecked: under load
/// a connection is reused within milliseconds and the check would be a round trip per
/// request; one idle longer is checked (an empty query) first. A database that goes
/// away inside this window fails one request per connection (503, retried by the
/// outbox), and the pool drops that connection (docs/operations.md, "What a
/// submission costs").
const TRUSTED_FOR: Duration = Duration::from_millis(500);

impl ManageConnection for Manager {
    type Connection = Connection;
    type Error = postgres::Error;

    fn connect(&self) -> Result<Connection, postgres::Error> {
        Ok(Connection {
            client: self.0.connect()?,
            statements: HashMap::new(),
            broken: false,
            // Never trusted before its first use.
            last_used: Instant::now() - TRUSTED_FOR,
        })
    }

    /// Checks (one empty query) only a connection idle past [`TRUSTED_FOR`].
    fn is_valid(&self, connection: &mut Connection) -> Result<(), postgres::Error> {
        if connection.broken || connection.last_used.elapsed() >= TRUSTED_FOR {
            return self.0.is_valid(&mut connection.client);
        }
        Ok(())
    }

    fn has_broken(&self, connection: &mut Connection) -> bool {
        connection.broken || self.0.has_broken(&mut connection.client)
    }
}

pub struct Postgres {
    pool: Arc<ClosedOffRuntime>,
    writes: mpsc::Sender<Queued>,
}

/// The most writes committed together: each runs in a savepoint, a subtransaction, and
/// PostgreSQL tracks at most 64 of a transaction's in shared memory before every
/// snapshot on the server gets slower (docs/operations.md, "Writes committed together").
const MAX_BATCH: usize = 32;

impl Postgres {
    /// Connects and brings the schema up to date.
    pub fn open(url: &str, options: &StoreOptions) -> Result<Self, StoreError> {
        let mut config = url.parse::<postgres::Config>()?;
        let timeout_ms = options.database_timeout.as_millis();
        let server_options = format!(
            "{} -c statement_timeout={timeout_ms}",
            config.get_options().unwrap_or_default()
        );
        config.options(server_options.trim_start());
        let tls = postgres_tls::connector(options.database_ca_file.as_deref())?;
        let pool = Pool::builder()
            .max_size(options.connections)
            .connection_timeout(options.pool_wait)
            .build(Manager(PostgresConnectionManager::new(config, tls)))?;
        let mut connection = pool.get()?;
        migrations::runner().run(&mut connection.client)?;
        warn_unless_collation_c(&mut connection.client)?;
        drop(connection);
        let pool = Arc::new(ClosedOffRuntime(Some(pool)));
        let (writes, queue) = mpsc::channel();
        let queue = Arc::new(Mutex::new(queue));
        for _ in 0..writers(options.connections) {
            let (pool, queue) = (Arc::clone(&pool), Arc::clone(&queue));
            std::thread::Builder::new()
                .name("keydo-postgres-writer".into())
                .spawn(move || run_writer(pool, queue))
                .map_err(StoreError::WriterThread)?;
        }
        Ok(Postgres { pool, writes })
    }

    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let pool = Arc::clone(&self.pool);
        tokio::task::spawn_blocking(move || {
            pool.get()?.run(|client, statements, broken| {
                f(&mut PostgresSql {
                    client,
                    statements,
                    broken,
                })
            })
        })
        .await?
    }

    /// Runs `f` in a transaction of its own, or, given the `player` it writes for, in
    /// a batch with other players' such writes; answers once it is committed.
    pub async fn write<R: Send + 'static>(
        &self,
        player: Option<Uuid>,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let (job, answered) = write_batches::job(f);
        metrics().write_queued();
        self.writes
            .send(Queued { player, job })
            .map_err(|_| StoreError::WriterStopped)?;
        answered.await.map_err(|_| StoreError::WriterStopped)?
    }
}

/// A write waiting for a writer.
struct Queued {
    /// The one player whose rows the write locks, if it may share a batch.
    player: Option<Uuid>,
    job: WriteJob,
}

/// A writer thread: takes every write waiting (up to [`MAX_BATCH`]) and commits those
/// that may share a batch in [`batches`], then each of the others alone (the lock
/// order: docs/operations.md, "Writes committed together"); until every sender is
/// gone. The writers share one queue: one waiting for its first write holds
/// the queue and the others wait their turn, so a batch is what arrived meanwhile.
fn run_writer(pool: Arc<ClosedOffRuntime>, queue: Arc<Mutex<mpsc::Receiver<Queued>>>) {
    loop {
        let taken: Vec<Queued> = {
            let Ok(queue) = queue.lock() else { return };
            let Ok(first) = queue.recv() else { return };
            std::iter::once(first)
                .chain(queue.try_iter().take(MAX_BATCH - 1))
                .collect()
        };
        let (batches, alone) = batches(taken);
        for batch in batches
            .into_iter()
            .chain(alone.into_iter().map(|job| vec![job]))
        {
            commit(&pool, batch);
        }
    }
}

/// The batches `taken` makes, in the order they run, and the writes that run alone. A
/// batch holds one write per player, in ascending player order: a player's second
/// write goes in the next batch, after the first, since two writes of one player may
/// lock its rows in either order.
fn batches(taken: Vec<Queued>) -> (Vec<Vec<WriteJob>>, Vec<WriteJob>) {
    let mut batches: Vec<Vec<(Uuid, WriteJob)>> = Vec::new();
    let mut writes_of: HashMap<Uuid, usize> = HashMap::new();
    let mut alone = Vec::new();
    for Queued { player, job } in taken {
        let Some(player) = player else {
            alone.push(job);
            continue;
        };
        let earlier = writes_of.entry(player).or_default();
        if batches.len() == *earlier {
            batches.push(Vec::new());
        }
        batches[*earlier].push((player, job));
        *earlier += 1;
    }
    let batches = batches
        .into_iter()
        .map(|mut batch| {
            batch.sort_by_key(|(player, _)| *player);
            batch.into_iter().map(|(_, job)| job).collect()
        })
        .collect();
    (batches, alone)
}

/// Commits `batch` on a pooled connection.
fn commit(pool: &ClosedOffRuntime, batch: Vec<WriteJob>) {
    metrics().write_batch(batch.len());
    match pool.get() {
        Ok(mut connection) => {
            write_batches::commit(&mut *connection, batch, "BEGIN");
            connection.last_used = Instant::now();
        }
        Err(error) => write_batches::fail_all(batch, &error.to_string()),
    }
}

impl BatchConnection for Connection {
    fn execute(&mut self, statements: &str) -> Result<(), String> {
        self.client
            .batch_execute(statements)
            .map_err(|error| note(error, &mut self.broken).to_string())
    }

    fn run(&mut self, job: WriteJob) -> (bool, Delivery) {
        job(&mut PostgresSql {
            client: &mut self.client,
            statements: &mut self.statements,
            broken: &mut self.broken,
        })
    }
}

/// How many writer threads share the pool's `connections` with the readers: two, so
/// one batch runs while the other waits for its commit's flush, and a quarter of a
/// larger pool (docs/operations.md, "Writes committed together").
fn writers(connections: u32) -> u32 {
    (connections / 4).max(2).min(connections)
}

/// Boards break ties on player ids compared as text: under collation `C` that is a
/// byte comparison, as on SQLite, and the cheapest one (docs/operations.md,
/// "PostgreSQL"). Another collation orders these ids the same but compares slower.
fn warn_unless_collation_c(client: &mut Client) -> Result<(), StoreError> {
    let collation: String = client
        .query_one(
            "SELECT datcollate::text FROM pg_database WHERE datname = current_database()",
            &[],
        )?
        .get(0);
    if collation != "C" && collation != "POSIX" {
        tracing::warn!(
            collation,
            "the database's collation is not C: create it with LC_COLLATE 'C' TEMPLATE template0 (docs/operations.md)"
        );
    }
    Ok(())
}

/// The pool, closed on a plain thread when dropped: closing a `postgres` client blocks
/// on the client's own runtime, which panics on an async worker thread (where the last
/// handle to the store usually goes away).
struct ClosedOffRuntime(Option<Pool<Manager>>);

impl ClosedOffRuntime {
    fn get(&self) -> Result<r2d2::PooledConnection<Manager>, StoreError> {
        Ok(self
            .0
            .as_ref()
            .expect("the pool is only taken when dropped")
            .get()?)
    }
}

impl Drop for ClosedOffRuntime {
    fn drop(&mut self) {
        if let Some(pool) = self.0.take() {
            let closing = std::thread::spawn(move || drop(pool));
            if closing.join().is_err() {
                tracing::warn!("closing the PostgreSQL connections panicked");
            }
        }
    }
}

/// Marks the connection broken when `error` is one only an ended connection gives
/// (it closed, or the server ended the session with a FATAL error), so the pool
/// drops it instead of handing it out again.
fn note(error: postgres::Error, broken: &mut bool) -> postgres::Error {
    let fatal = error
        .as_db_error()
        .is_some_and(|error| matches!(error.severity(), "FATAL" | "PANIC"));
    *broken |= error.is_closed() || fatal;
    error
}

/// A connection (or its transaction) with the statements the connection prepared:
/// a prepared statement outlives the transaction it was prepared in.
struct PostgresSql<'c, C> {
    client: &'c mut C,
    statements: &'c mut HashMap<String, Statement>,
    broken: &'c mut bool,
}

impl<C: GenericClient> Sql for PostgresSql<'_, C> {
    fn locks_rows(&self) -> bool {
        true
    }

    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let statement = match self.statements.get(sql) {
            Some(statement) => statement.clone(),
            None => {
                let statement = self
                    .client
                    .prepare(sql)
                    .map_err(|error| note(error, self.broken))?;
                self.statements.insert(sql.to_owned(), statement.clone());
                statement
            }
        };
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|param| param as _).collect();
        self.client
            .query(&statement, &params)
            .map_err(|error| note(error, self.broken))?
            .iter()
            .map(|row| {
                let values = row
                    .columns()
                    .iter()
                    .enumerate()
                    .map(|(index, column)| {
                        Ok(match *column.type_() {
                            Type::INT8 => row
                                .get::<_, Option<i64>>(index)
                                .map_or(Value::Null, Value::Int),
                            Type::INT4 => row
                                .get::<_, Option<i32>>(index)
                                .map_or(Value::Null, |v| Value::Int(v.into())),
                            Type::TEXT | Type::VARCHAR => row
                                .get::<_, Option<String>>(index)
                                .map_or(Value::Null, Value::Text),
                            ref other => {
                                return Err(StoreError::UnexpectedValue(format!(
                                    "column {index} has type {other}"
                                )));
                            }
                        })
                    })
                    .collect::<Result<_, StoreError>>()?;
                Ok(Row(values))
            })
            .collect()
    }

    fn insert_rows(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &[Vec<Value>],
    ) -> Result<(), StoreError> {
        if rows.is_empty() {
            return Ok(());
        }
        let mut text = String::new();
        for row in rows {
            for (n, value) in row.iter().enumerate() {
                if n > 0 {
                    text.push('\t');
                }
                match value {
                    Value::Int(value) => text.push_str(&value.to_string()),
                    Value::Text(value) => copy_escape(value, &mut text),
                    Value::Null => text.push_str("\\N"),
                }
            }
            text.push('\n');
        }
        let mut copy = self
            .client
            .copy_in(&format!("COPY {table} ({}) FROM STDIN", columns.join(", ")))
            .map_err(|error| note(error, self.broken))?;
        copy.write_all(text.as_bytes())
            .map_err(|error| StoreError::UnexpectedValue(format!("writing a COPY: {error}")))?;
        copy.finish().map_err(|error| note(error, self.broken))?;
        Ok(())
    }
}

/// `value` in COPY's text format: backslash, tab and line ends escaped.
fn copy_escape(value: &str, out: &mut String) {
    for c in value.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c => out.push(c),
        }
    }
}

impl ToSql for Param<'_> {
    fn to_sql(
        &self,
        ty: &Type,
        out: &mut BytesMut,
    ) -> Result<IsNull, Box<dyn Error + Sync + Send>> {
        match *self {
            // Checked: the outer check accepts either type for either variant.
            Param::Int(value) => value.to_sql_checked(ty, out),
            Param::Text(value) => value.to_sql_checked(ty, out),
            Param::Id(value) => value.hyphenated().to_string().to_sql_checked(ty, out),
        }
    }

    fn accepts(ty: &Type) -> bool {
        <i64 as ToSql>::accepts(ty) || <&str as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `statement` on the test cluster's own database.
    fn admin(url: &str, statement: &str) {
        let mut client = Client::connect(url, postgres::NoTls).expect("the test PostgreSQL");
        client.batch_execute(statement).unwrap();
    }

    /// A new database on the test cluster and a store on it (`None` without a cluster,
    /// outside CI), and the cluster's own URL.
    async fn test_store(purpose: &str) -> Option<(Postgres, String, String)> {
        // The cluster of scripts/with-postgres.sh, as the server's PostgreSQL tests use.
        let Some(admin_url) = std::env::var("KEYDO_TEST_POSTGRES_URL")
            .ok()
            .filter(|url| !url.is_empty())
        else {
            assert_ne!(
                std::env::var("CI").as_deref(),
                Ok("true"),
                "CI needs PostgreSQL"
            );
            return None;
        };
        let name = format!("keydo_unit_{purpose}_{}", std::process::id());
        let (cluster, _) = admin_url.rsplit_once('/').expect("a URL with a database");
        let url = format!("{cluster}/{name}");
        let (cluster_url, database) = (admin_url.clone(), name.clone());
        let store = tokio::task::spawn_blocking(move || {
            admin(&cluster_url, &format!("CREATE DATABASE {database}"));
            Postgres::open(&url, &StoreOptions::default())
        })
        .await
        .unwrap()
        .unwrap();
        Some((store, admin_url, name))
    }

    async fn drop_database(store: Postgres, admin_url: String, name: String) {
        drop(store);
        tokio::task::spawn_blocking(move || {
            admin(&admin_url, &format!("DROP DATABASE {name} WITH (FORCE)"))
        })
        .await
        .unwrap();
    }

    #[tokio::test]
    async fn a_connection_prepares_each_statement_once() {
        let Some((store, admin_url, name)) = test_store("prepared").await else {
            return;
        };
        let prepared = store
            .read(|sql| {
                for n in 0..3 {
                    let row = sql.query_opt("SELECT $1::bigint + 1", &[Param::Int(n)])?;
                    assert_eq!(row.unwrap().int(0)?, n + 1);
                }
                sql.query_opt("SELECT count(*) FROM pg_prepared_statements", &[])?
                    .expect("a count")
                    .int(0)
            })
            .await
            .unwrap();
        // The statement asked three times, prepared once, and the count itself: without
        // the cache each is prepared, executed and closed, and the count finds itself
        // alone.
        assert_eq!(prepared, 2);
        drop_database(store, admin_url, name).await;
    }

    #[tokio::test]
    async fn a_connection_the_server_ended_is_not_handed_out() {
        let Some((store, admin_url, name)) = test_store("ended").await else {
            return;
        };
        let one = |sql: &mut dyn Sql| sql.query_opt("SELECT 1", &[])?.expect("a row").int(0);
        assert_eq!(store.read(one).await.unwrap(), 1);
        // Every pooled connection ended by the server while idle in the pool, as a
        // restart or an operator's pg_terminate_backend ends them.
        let (admin_url, database) = (admin_url, name);
        let terminated = {
            let (admin_url, database) = (admin_url.clone(), database.clone());
            tokio::task::spawn_blocking(move || {
                let mut client = Client::connect(&admin_url, postgres::NoTls).unwrap();
                let ended: i64 = client
                    .query_one(
                        "SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM
                         pg_stat_activity WHERE datname = $1) AS ended",
                        &[&database],
                    )
                    .unwrap()
                    .get(0);
                // Bounded: the backends are gone within a few milliseconds.
                for _ in 0..500 {
                    let left: i64 = client
                        .query_one(
                            "SELECT count(*) FROM pg_stat_activity WHERE datname = $1",
                            &[&database],
                        )
                        .unwrap()
                        .get(0);
                    if left == 0 {
                        break;
                    }
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                ended
            })
            .await
            .unwrap()
        };
        assert!(terminated >= 1, "the pool had connections to end");
        // The connection just used is trusted: its next read fails, and the pool drops
        // it instead of handing it out again.
        assert!(store.read(one).await.is_err(), "used within TRUSTED_FOR");
        // Past the window every connection is checked at checkout: each ended one is
        // found out and replaced, so no read fails.
        tokio::time::sleep(TRUSTED_FOR).await;
        for _ in 0..2 * StoreOptions::default().connections {
            assert_eq!(store.read(one).await.unwrap(), 1);
        }
        drop_database(store, admin_url, database).await;
    }

    /// Queues a write of its own that holds its writer until `release` is dropped,
    /// and waits until a writer runs it.
    async fn hold_a_writer(store: &Postgres) -> (mpsc::Sender<()>, impl Future<Output = ()>) {
        let (release, released) = mpsc::channel::<()>();
        let (started, running) = mpsc::channel();
        let (job, answered) = write_batches::job(move |_sql| {
            started.send(()).unwrap();
            // Returns once the sender is dropped.
            let _ = released.recv();
            Ok(())
        });
        store.writes.send(Queued { player: None, job }).unwrap();
        tokio::task::spawn_blocking(move || running.recv().unwrap())
            .await
            .unwrap();
        (release, async move { answered.await.unwrap().unwrap() })
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn players_writes_waiting_together_commit_together_in_player_order() {
        let Some((store, admin_url, name)) = test_store("batches").await else {
            return;
        };
        // A row whose key one of the writes below takes again.
        let taken = Uuid::nil();
        let create = move |sql: &mut dyn Sql| {
            sql.query(
                "CREATE TABLE batched (key text PRIMARY KEY, player text, txid bigint,
                                       n bigserial)",
                &[],
            )?;
            sql.query(
                "INSERT INTO batched (key, player, txid) VALUES ($1, $1, 0)",
                &[Param::Id(taken)],
            )
            .map(drop)
        };
        store.write(None, create).await.unwrap();
        let writers = writers(StoreOptions::default().connections) as usize;
        let mut held = Vec::new();
        for _ in 0..writers {
            held.push(hold_a_writer(&store).await);
        }

        // More players' writes than a batch holds, queued while every writer is busy:
        // one fails after writing, one fails in PostgreSQL (its key is taken), and one
        // player writes twice.
        let players: Vec<Uuid> = (0..MAX_BATCH + 8).map(|_| Uuid::new_v4()).collect();
        let (failing, clashing, twice) = (players[3], players[5], players[1]);
        let second_key = Uuid::new_v4();
        let mut writes: Vec<(Uuid, Uuid)> =
            players.iter().map(|&player| (player, player)).collect();
        // The player's second write, queued right after the first.
        writes.insert(2, (second_key, twice));
        let mut answers = Vec::new();
        for (key, player) in writes {
            let (job, answered) = write_batches::job(move |sql| {
                let key = if player == clashing { taken } else { key };
                sql.query(
                    "INSERT INTO batched (key, player, txid) VALUES ($1, $2, txid_current())",
                    &[Param::Id(key), Param::Id(player)],
                )?;
                if player == failing {
                    return Err(StoreError::UnexpectedValue("a failing write".into()));
                }
                Ok(())
            });
            let player = Some(player);
            store.writes.send(Queued { player, job }).unwrap();
            answers.push((key, answered));
        }
        for (release, done) in held {
            drop(release);
            done.await;
        }
        for (key, answered) in answers {
            let answer = answered.await.unwrap();
            assert_eq!(
                answer.is_ok(),
                ![failing, clashing].contains(&key),
                "{key}: {answer:?}"
            );
        }

        let rows = store
            .read(|sql| {
                sql.query(
                    "SELECT key, player, txid FROM batched WHERE txid > 0 ORDER BY n",
                    &[],
                )
            })
            .await
            .unwrap();
        let rows: Vec<(Uuid, Uuid, i64)> = rows
            .iter()
            .map(|row| Ok((row.id(0)?, row.id(1)?, row.int(2)?)))
            .collect::<Result<_, StoreError>>()
            .unwrap();
        let mut written: Vec<Uuid> = rows.iter().map(|(key, ..)| *key).collect();
        written.sort();
        let mut expected: Vec<Uuid> = players
            .iter()
            .copied()
            .chain([second_key])
            .filter(|key| ![failing, clashing].contains(key))
            .collect();
        expected.sort();
        // The failed writes left nothing; every other one is there once.
        assert_eq!(written, expected);
        // The first MAX_BATCH writes taken make a batch of one write per player and a
        // batch of the player's second write, after it; the rest a third. Each is one
        // transaction, in player order.
        let mut transactions: Vec<i64> = rows.iter().map(|(.., txid)| *txid).collect();
        transactions.sort();
        transactions.dedup();
        assert_eq!(transactions.len(), 3, "{rows:?}");
        let txid_of = |key| rows.iter().find(|row| row.0 == key).unwrap().2;
        assert!(txid_of(twice) < txid_of(second_key));
        for txid in transactions {
            let batch: Vec<Uuid> = rows
                .iter()
                .filter(|(.., id)| *id == txid)
                .map(|(_, player, _)| *player)
                .collect();
            assert!(batch.is_sorted(), "{batch:?}");
        }
        drop_database(store, admin_url, name).await;
    }

    /// Two batches that spend two keys in opposite orders, as two saves replaying each
    /// other's logs at once would (docs/operations.md, "Writes committed together"):
    /// PostgreSQL breaks the cycle, its victim write is answered as unavailable (503,
    /// resent by the outbox), and every other write of both batches commits.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_deadlock_between_batches_fails_one_write_and_commits_the_rest() {
        let Some((store, admin_url, name)) = test_store("deadlock").await else {
            return;
        };
        let create = |sql: &mut dyn Sql| {
            sql.query("CREATE TABLE spent (key text PRIMARY KEY, batch text)", &[])
                .map(drop)
        };
        store.write(None, create).await.unwrap();
        let both_hold_one = Arc::new(std::sync::Barrier::new(2));
        let batch = |batch: &'static str, keys: [&'static str; 2]| {
            let spend = move |sql: &mut dyn Sql, key: &str| {
                sql.query(
                    "INSERT INTO spent (key, batch) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                    &[Param::Text(key), Param::Text(batch)],
                )
                .map(drop)
            };
            let barrier = Arc::clone(&both_hold_one);
            let (first, first_answer) = write_batches::job(move |sql| {
                spend(sql, keys[0])?;
                barrier.wait();
                Ok(())
            });
            let (second, second_answer) = write_batches::job(move |sql| spend(sql, keys[1]));
            (vec![first, second], [first_answer, second_answer])
        };
        let (x, x_answers) = batch("x", ["k1", "k2"]);
        let (y, y_answers) = batch("y", ["k2", "k1"]);
        let committing = [x, y].map(|jobs| {
            let pool = Arc::clone(&store.pool);
            tokio::task::spawn_blocking(move || commit(&pool, jobs))
        });
        for batch in committing {
            batch.await.unwrap();
        }

        let mut seconds = Vec::new();
        for [first, second] in [x_answers, y_answers] {
            first.await.unwrap().unwrap();
            seconds.push(second.await.unwrap());
        }
        let victims: Vec<&StoreError> = seconds.iter().filter_map(|s| s.as_ref().err()).collect();
        assert_eq!(victims.len(), 1, "{seconds:?}");
        assert!(victims[0].is_unavailable(), "{:?}", victims[0]);
        let deadlock = match victims[0] {
            StoreError::Postgres(error) => error.code(),
            _ => None,
        };
        assert_eq!(
            deadlock,
            Some(&postgres::error::SqlState::T_R_DEADLOCK_DETECTED)
        );
        let spent = store
            .read(|sql| sql.query("SELECT key, batch FROM spent ORDER BY key", &[]))
            .await
            .unwrap();
        let spent: Vec<(String, String)> = spent
            .iter()
            .map(|row| Ok((row.text(0)?.to_owned(), row.text(1)?.to_owned())))
            .collect::<Result<_, StoreError>>()
            .unwrap();
        // Each key spent once, by the batch that spent it first.
        assert_eq!(
            spent,
            [("k1".into(), "x".into()), ("k2".into(), "y".into())]
        );
        drop_database(store, admin_url, name).await;
    }
}
