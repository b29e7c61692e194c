//! PostgreSQL, for deployments that outgrow one machine: a pool of connections, each
//! write in one transaction.
//!
//! The synchronous `postgres` client keeps this backend the same shape as SQLite's,
//! so the queries are written once against [`Sql`] and run on the blocking pool.

use super::sql::{Param, Row, Sql, Value};
use super::{StoreError, migrations};
use bytes::BytesMut;
use postgres::types::{IsNull, ToSql, Type, to_sql_checked};
use postgres::{GenericClient, NoTls};
use r2d2::Pool;
use r2d2_postgres::PostgresConnectionManager;
use std::error::Error;
use std::sync::Arc;

const CONNECTIONS: u32 = 8;

pub struct Postgres {
    pool: Arc<ClosedOffRuntime>,
}

impl Postgres {
    /// Connects and brings the schema up to date.
    pub fn open(url: &str) -> Result<Self, StoreError> {
        let config = url.parse::<postgres::Config>()?;
        let pool = Pool::builder()
            .max_size(CONNECTIONS)
            .build(PostgresConnectionManager::new(config, NoTls))?;
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
        tokio::task::spawn_blocking(move || {
            let mut client = pool.get()?;
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
struct ClosedOffRuntime(Option<Pool<PostgresConnectionManager<NoTls>>>);

impl ClosedOffRuntime {
    fn get(&self) -> Result<r2d2::PooledConnection<PostgresConnectionManager<NoTls>>, StoreError> {
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
        }
    }

    fn accepts(ty: &Type) -> bool {
        <i64 as ToSql>::accepts(ty) || <&str as ToSql>::accepts(ty)
    }

    to_sql_checked!();
}
