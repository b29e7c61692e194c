//! The `result_codes` table: each accepted result's short code, the 验证 code of its
//! 成绩 line and its replay's address (docs/api.md, "Results"): 6 characters of
//! `CODE_ALPHABET` (core's `game::result_line`), drawn at random and drawn again while
//! taken.

use super::StoreError;
use super::sql::{Param, Sql};
use uuid::Uuid;

pub use keydo_core::game::result_line::is_code;
use keydo_core::game::result_line::{CODE_ALPHABET, CODE_LEN};

/// A random code.
pub fn draw() -> String {
    (0..CODE_LEN)
        .map(|_| char::from(CODE_ALPHABET[fastrand::usize(..CODE_ALPHABET.len())]))
        .collect()
}

/// The result's code: the one it has, or a new one no other result has.
pub fn assign(sql: &mut dyn Sql, player_id: Uuid, score_id: Uuid) -> Result<String, StoreError> {
    match code_of(sql, player_id, score_id)? {
        Some(code) => Ok(code),
        None => assign_new(sql, player_id, score_id),
    }
}

/// [`assign`] for a result stored in this transaction, which has no code yet.
pub fn assign_new(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
) -> Result<String, StoreError> {
    loop {
        let code = draw();
        // A taken code (or, on PostgreSQL, one a concurrent transaction takes first)
        // inserts nothing: draw again.
        let inserted = sql.query_opt(
            "INSERT INTO result_codes (code, player_id, score_id) VALUES ($1, $2, $3)
             ON CONFLICT DO NOTHING RETURNING code",
            &[
                Param::Text(&code),
                Param::Id(player_id),
                Param::Id(score_id),
            ],
        )?;
        if inserted.is_some() {
            return Ok(code);
        }
        if let Some(code) = code_of(sql, player_id, score_id)? {
            return Ok(code);
        }
    }
}

/// The code a result has, if any.
pub fn code_of(
    sql: &mut dyn Sql,
    player_id: Uuid,
    score_id: Uuid,
) -> Result<Option<String>, StoreError> {
    sql.query_opt(
        "SELECT code FROM result_codes WHERE player_id = $1 AND score_id = $2",
        &[Param::Id(player_id), Param::Id(score_id)],
    )?
    .map(|row| Ok(row.text(0)?.to_owned()))
    .transpose()
}

/// Moves the codes of `old`'s results to `into` (folding a save): a result both saves
/// hold keeps `into`'s code.
pub fn move_codes(sql: &mut dyn Sql, old: Uuid, into: Uuid) -> Result<(), StoreError> {
    let both = [Param::Id(old), Param::Id(into)];
    sql.query(
        "DELETE FROM result_codes WHERE player_id = $1
         AND score_id IN (SELECT score_id FROM result_codes WHERE player_id = $2)",
        &both,
    )?;
    sql.query(
        "UPDATE result_codes SET player_id = $1 WHERE player_id = $2",
        &[Param::Id(into), Param::Id(old)],
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_six_unambiguous_characters() {
        assert_eq!(CODE_ALPHABET.len(), 32);
        for _ in 0..1_000 {
            let code = draw();
            assert!(is_code(&code), "{code}");
        }
        for wrong in ["ABCDE", "ABCDEFG", "ABCDE0", "abcdef", "ABCDEI"] {
            assert!(!is_code(wrong), "{wrong}");
        }
    }
}
