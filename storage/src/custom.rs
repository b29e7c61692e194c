//! The player's custom text and its personal bests, under `meta` (docs/practice.md,
//! "Custom text"): `customText` holds the text as last set, `customBest:<key>` the
//! best of each setting ([`CustomText::best_key`]). A game on it is written with the
//! practice games, its best in the same transaction.

use crate::StorageError;
use crate::db::{Db, META, PRACTICE};
use crate::meta::{get, put};
use crate::practice::{Practice, PracticeGame, append_game, catch_up};
use crate::records::Recorded;
use keydo_core::practice::Course;
use keydo_core::practice::custom::CustomText;
use rexie::{Store, TransactionMode};

const CUSTOM_TEXT: &str = "customText";

fn best_key(custom: &CustomText) -> String {
    format!("customBest:{}", custom.best_key())
}

async fn best_of(meta: &Store, custom: &CustomText) -> Result<Option<i64>, StorageError> {
    get(meta, &best_key(custom)).await
}

impl Db {
    /// The custom text last set, with its setting's personal best, if one was set.
    pub async fn custom_text(&self) -> Result<Option<(CustomText, Option<i64>)>, StorageError> {
        self.transact(&[META], TransactionMode::ReadOnly, async |tx| {
            let meta = tx.store(META)?;
            let Some(custom) = get::<CustomText>(&meta, CUSTOM_TEXT).await? else {
                return Ok(None);
            };
            let best = best_of(&meta, &custom).await?;
            Ok(Some((custom, best)))
        })
        .await
    }

    /// Keeps `custom` across reloads; returns its setting's personal best.
    pub async fn set_custom_text(&self, custom: &CustomText) -> Result<Option<i64>, StorageError> {
        self.transact(&[META], TransactionMode::ReadWrite, async |tx| {
            let meta = tx.store(META)?;
            put(&meta, CUSTOM_TEXT, custom).await?;
            best_of(&meta, custom).await
        })
        .await
    }

    /// Records a game on `custom` scored `value`: as a practice game (folded into the
    /// statistics) and against its setting's personal best, in one transaction.
    pub async fn record_custom_game(
        &self,
        course: &Course,
        game: &PracticeGame,
        custom: &CustomText,
        value: i64,
    ) -> Result<(Practice, Recorded), StorageError> {
        self.transact(&[PRACTICE, META], TransactionMode::ReadWrite, async |tx| {
            append_game(tx, game).await?;
            let practice = catch_up(tx, course).await?;
            let meta = tx.store(META)?;
            let previous = best_of(&meta, custom).await?;
            let new_best = previous.is_none_or(|best| value > best);
            if new_best {
                put(&meta, &best_key(custom), &value).await?;
            }
            let recorded = Recorded {
                new_best,
                best: if new_best {
                    value
                } else {
                    previous.unwrap_or(value)
                },
                had_best: previous.is_some(),
            };
            Ok((practice, recorded))
        })
        .await
    }
}
