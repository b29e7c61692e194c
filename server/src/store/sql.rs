//! The one thing the queries need from a database: run a statement with parameters
//! and hand back its rows.
//!
//! Both drivers implement [`Sql`], so every query (in the store's file for its table) is written once
//! and the same SQL text runs on SQLite and PostgreSQL. Parameters are `$1`, `$2`, ...
//! in order of first appearance: PostgreSQL numbers them, SQLite names them `$1`, `$2`
//! and numbers names in the order it meets them, so both bind the same values.

use super::StoreError;
use uuid::Uuid;

/// A statement parameter. Only the types the schema uses.
#[derive(Debug, Clone, Copy)]
pub enum Param<'a> {
    Int(i64),
    Text(&'a str),
    /// An id (of a player, a device, a result), stored as its lowercase hyphenated
    /// text on both databases.
    Id(Uuid),
}

/// A column value as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    Int(i64),
    Text(String),
    Null,
}

/// One result row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row(pub Vec<Value>);

impl Row {
    pub fn int(&self, column: usize) -> Result<i64, StoreError> {
        match self.0.get(column) {
            Some(Value::Int(value)) => Ok(*value),
            other => Err(StoreError::UnexpectedValue(format!(
                "column {column} is {other:?}, not an integer"
            ))),
        }
    }

    /// An integer that may be NULL (a column from the outer side of a join).
    pub fn opt_int(&self, column: usize) -> Result<Option<i64>, StoreError> {
        match self.0.get(column) {
            Some(Value::Null) => Ok(None),
            _ => self.int(column).map(Some),
        }
    }

    /// An id written by [`Param::Id`].
    pub fn id(&self, column: usize) -> Result<Uuid, StoreError> {
        let text = self.text(column)?;
        Uuid::try_parse(text).map_err(|_| {
            StoreError::UnexpectedValue(format!("column {column} is {text:?}, not an id"))
        })
    }

    pub fn text(&self, column: usize) -> Result<&str, StoreError> {
        match self.0.get(column) {
            Some(Value::Text(value)) => Ok(value),
            other => Err(StoreError::UnexpectedValue(format!(
                "column {column} is {other:?}, not text"
            ))),
        }
    }
}

/// The `SET` list of an upsert's `DO UPDATE` that returns its row whether or not the
/// new one replaced it: each of `columns` takes the new row's value (`excluded`) where
/// `replaces` holds and keeps `table`'s own otherwise. A `DO UPDATE … WHERE` returns
/// nothing when the row is kept, and reading the row then costs another statement (a
/// round trip on PostgreSQL, which locked the row either way: docs/operations.md,
/// "What a submission costs"). Both databases evaluate every `SET` expression on the
/// row as it was, before any column is assigned.
pub fn set_where(table: &str, replaces: &str, columns: &[&str]) -> String {
    columns
        .iter()
        .map(|column| {
            format!(
                "{column} = CASE WHEN {replaces} THEN excluded.{column} ELSE {table}.{column} END"
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A connection (or transaction) that runs statements.
pub trait Sql {
    fn query(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Vec<Row>, StoreError>;

    /// Whether rows a `SELECT` reads can be locked (`FOR UPDATE`, `FOR KEY SHARE`):
    /// on PostgreSQL; SQLite has neither clause, and its one writer holds the whole
    /// database.
    fn locks_rows(&self) -> bool {
        false
    }

    /// The first row, if any.
    fn query_opt(&mut self, sql: &str, params: &[Param<'_>]) -> Result<Option<Row>, StoreError> {
        Ok(self.query(sql, params)?.into_iter().next())
    }

    /// Appends `rows` (each in `columns`' order) to `table`: one prepared insert per
    /// row here, one `COPY` on PostgreSQL. For bulk loads (a board fixture).
    fn insert_rows(
        &mut self,
        table: &str,
        columns: &[&str],
        rows: &[Vec<Value>],
    ) -> Result<(), StoreError> {
        let placeholders = (1..=columns.len())
            .map(|n| format!("${n}"))
            .collect::<Vec<_>>()
            .join(", ");
        let statement = format!(
            "INSERT INTO {table} ({}) VALUES ({placeholders})",
            columns.join(", ")
        );
        for row in rows {
            let params = row
                .iter()
                .map(|value| match value {
                    Value::Int(value) => Ok(Param::Int(*value)),
                    Value::Text(value) => Ok(Param::Text(value)),
                    Value::Null => Err(StoreError::UnexpectedValue(format!(
                        "a NULL for {table}, which bulk loads do not write"
                    ))),
                })
                .collect::<Result<Vec<_>, StoreError>>()?;
            self.query(&statement, &params)?;
        }
        Ok(())
    }
}
