//! The `texts` table: every loaded text a result was accepted on, stored once
//! (docs/genda.md). Its body is the normalised text the core capped, so a stored text
//! is at most 3,000 字 or 6,000 characters; how many new texts a save and an address
//! may store is the API's rate limit (docs/api.md, "Rate limits").

use super::StoreError;
use super::sql::{Param, Sql};
use keydo_core::Mode;
use keydo_core::text::LoadedText;
use keydo_core::text::hash::TextHash;
use uuid::Uuid;

/// A stored text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredText {
    pub text: LoadedText,
    /// The save whose result stored it first, and when (unix ms).
    pub stored_by: String,
    pub stored_at: i64,
}

/// Whether the text is stored.
pub fn is_stored(sql: &mut dyn Sql, hash: TextHash) -> Result<bool, StoreError> {
    Ok(sql
        .query_opt(
            "SELECT 1 FROM texts WHERE hash = $1",
            &[Param::Text(&hash.to_string())],
        )?
        .is_some())
}

/// Stores `text` unless it is stored already.
pub fn store(
    sql: &mut dyn Sql,
    text: &LoadedText,
    player_id: Uuid,
    now: i64,
) -> Result<(), StoreError> {
    let hash = text.hash();
    sql.query(
        "INSERT INTO texts (hash, short, body, mode, chars, stored_by, stored_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT DO NOTHING",
        &[
            Param::Text(&hash.to_string()),
            Param::Text(&hash.short()),
            Param::Text(text.as_str()),
            Param::Text(text.mode().id()),
            Param::Int(text.as_str().chars().count() as i64),
            Param::Id(player_id),
            Param::Int(now),
        ],
    )?;
    Ok(())
}

/// The text whose hash is `hash`, or, for a short hash, the first stored of those
/// that begin with it.
pub fn find(sql: &mut dyn Sql, hash_or_short: &str) -> Result<Option<StoredText>, StoreError> {
    let column = if hash_or_short.len() == TextHash::SHORT_LEN {
        "short"
    } else {
        "hash"
    };
    sql.query_opt(
        &format!(
            "SELECT body, mode, stored_by, stored_at FROM texts WHERE {column} = $1
             ORDER BY stored_at, hash LIMIT 1"
        ),
        &[Param::Text(hash_or_short)],
    )?
    .map(|row| {
        let body = row.text(0)?.to_owned();
        let text = LoadedText::try_from(body)
            .map_err(|error| StoreError::UnexpectedValue(format!("stored text: {error}")))?;
        let mode: Mode = row
            .text(1)?
            .parse()
            .map_err(|_| StoreError::UnexpectedValue("stored text mode".into()))?;
        if mode != text.mode() {
            return Err(StoreError::UnexpectedValue(format!(
                "text {} stored as {mode}",
                text.hash()
            )));
        }
        Ok(StoredText {
            text,
            stored_by: row.text(2)?.to_owned(),
            stored_at: row.int(3)?,
        })
    })
    .transpose()
}
