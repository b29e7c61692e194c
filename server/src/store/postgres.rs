//! PostgreSQL, for deployments that outgrow one machine: a pool of connections, each
//! write in one transaction.
//!
//! The synchronous `postgres` client keeps this backend the same shape as SQLite's,
//! so the queries are written once against [`Sql`] and run on the blocking pool.
//! Connections use TLS as the URL's `sslmode` asks (see [`super::postgres_tls`]),
//! every statement runs under a `statement_timeout`, and waiting for a pooled
//! connection (all busy, or the database unreachable) is bounded too: past either, the
//! answer is 503 `DATABASE_UNAVAILABLE`.

use super::sql::{Param, Row, Sql, Value};
use super::{StoreError, StoreOptions, migrations, postgres_tls};
use crate::metrics::metrics;
use bytes::BytesMut;
use postgres::GenericClient;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use r2d2::Pool;
use r2d2_postgres::PostgresConnectionManager;
use std::error::Error;
use std::sync::Arc;
use tokio_postgres_rustls::MakeRustlsConnect;

const CONNECTIONS: u32 = 8;

type Manager = PostgresConnectionManager<MakeRustlsConnect>;

pub struct Postgres {
    pool: Arc<ClosedOffRuntime>,
}

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
            .max_size(CONNECTIONS)
            .connection_timeout(options.pool_wait)
            .build(PostgresConnectionManager::new(config, tls))?;
        migrations::runner().run(&mut *pool.get()?)?;
        Ok(Postgres {
            pool: Arc::new(ClosedOffRuntime(Some(pool))),
        })
    }

    pub async fn read<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let pool = Arc::clone(&self.pool);
        tokio::task::spawn_blocking(move || {
            let mut client = pool.get()?;
            f(&mut PostgresSql(&mut *client))
        })
        .await?
    }

    pub async fn write<R: Send + 'static>(
        &self,
        f: impl FnOnce(&mut dyn Sql) -> Result<R, StoreError> + Send + 'static,
    ) -> Result<R, StoreError> {
        let pool = Arc::clone(&self.pool);
        metrics().write_queued();
        tokio::task::spawn_blocking(move || {
            let client = pool.get();
            metrics().write_batch(1);
            let mut client = client?;
            let mut transaction = client.transaction()?;
            let result = f(&mut PostgresSql(&mut transaction))?;
            transaction.commit()?;
            Ok(result)
        })
        .await?
    }
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

struct PostgresSql<'c, C>(&'c mut C);

impl<C: GenericClient> Sql for PostgresSql<'_, C> {
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError> {
        let params: Vec<&(dyn ToSql + Sync)> = params.iter().map(|param| param as _).collect();
        self.0
            .query(sql, &params)?
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
