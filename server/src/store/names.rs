//! The `players.name_key` column: one save per name (docs/replay.md), and the saves
//! whose key is still to be computed.

use super::StoreError;
use super::sql::{Param, Sql};

/// The player whose name has `name_key`, if any.
pub fn name_key_owner(sql: &mut dyn Sql, name_key: &str) -> Result<Option<String>, StoreError> {
    sql.query_opt(
        "SELECT player_id FROM players WHERE name_key = $1",
        &[Param::Text(name_key)],
    )?
    .map(|row| Ok(row.text(0)?.to_owned()))
    .transpose()
}

pub fn set_name_key(sql: &mut dyn Sql, player_id: &str, name_key: &str) -> Result<(), StoreError> {
    sql.query(
        "UPDATE players SET name_key = $1 WHERE player_id = $2",
        &[Param::Text(name_key), Param::Text(player_id)],
    )?;
    Ok(())
}

/// Up to `limit` saves without a name key (from before name keys existed, or before
/// they were look-alike keys), oldest first, so where two names now look alike the
/// older save keeps its name's key: (player id, display name).
pub fn unkeyed_names(sql: &mut dyn Sql, limit: i64) -> Result<Vec<(String, String)>, StoreError> {
    sql.query(
        "SELECT player_id, display_name FROM players WHERE name_key IS NULL
         ORDER BY created_at, player_id LIMIT $1",
        &[Param::Int(limit)],
    )?
    .iter()
    .map(|row| Ok((row.text(0)?.to_owned(), row.text(1)?.to_owned())))
    .collect()
}
