//! The `practice` store in a real browser (wasm-bindgen-test, headless Chromium):
//! games folded into the per-unit statistics, the same transaction as a game's
//! history row, and rebuilding (docs/practice.md, "Storage").

#![cfg(target_arch = "wasm32")]

mod common;

use common::{PLAYED_AT, fresh_db, game, js, raw_read};
use keydo_core::Mode;
use keydo_core::game::board::Board;
use keydo_core::practice::Course;
use keydo_core::practice::stats::{Target, UnitStats};
use keydo_core::verify::simulate::{Typist, play_prompt};
use keydo_storage::{Db, PracticeGame, SCHEMA_VERSION};
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// A lesson of `mode`'s language for `stats`, typed by a steady typist.
fn lesson_game(course: &Course, stats: &UnitStats, mode: Mode, seed: u64) -> PracticeGame {
    let target = Target::default();
    let prompt = match mode {
        Mode::Zh => course.chinese.lesson(stats, target, seed).prompt,
        _ => course.english.lesson(stats, target, seed).prompt,
    };
    let typist = Typist {
        seed,
        mistake_every: 7,
        ..Typist::steady_human(60)
    };
    PracticeGame {
        mode,
        input: play_prompt(mode, &prompt, &typist).input_log(),
        prompt: prompt.as_str().to_owned(),
        target,
        played_at: PLAYED_AT + seed,
    }
}

#[wasm_bindgen_test]
async fn practice_games_fold_into_statistics_that_rebuild_the_same_and_never_reach_the_outbox() {
    let course = Course::shipped();
    let (db, name) = fresh_db().await;
    assert_eq!(db.practice().await.unwrap().stats, UnitStats::default());

    let mut stats = UnitStats::default();
    for (seed, mode) in [(1, Mode::Words), (2, Mode::Zh), (3, Mode::Words)] {
        let game = lesson_game(course, &stats, mode, seed);
        let practice = db.record_practice_game(course, &game).await.unwrap();
        stats = practice.stats;
        assert_eq!((practice.recorded, practice.folded), (seed, seed));
    }
    assert_eq!(stats.games, 3);
    assert!(!stats.english.is_empty() && !stats.chinese.is_empty());
    assert!(
        db.outbox().await.unwrap().is_empty(),
        "no board sees a lesson"
    );

    // Another connection reads what was committed; rebuilding gives the same store.
    drop(db);
    let db = Db::open_named(&name).await.unwrap();
    assert_eq!(db.practice().await.unwrap().stats, stats);
    assert_eq!(db.rebuild_practice(course).await.unwrap().stats, stats);
    assert_eq!(db.practice_games().await.unwrap().len(), 3);
}

#[wasm_bindgen_test]
async fn a_board_game_is_kept_for_practice_with_its_history_row_once_and_folded_later() {
    let course = Course::shipped();
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let entry = game(profile, Mode::Words, 120, PLAYED_AT);
    let played = lesson_game(course, &UnitStats::default(), Mode::Words, 9);

    db.record_result_with_practice(&entry, &[Board::Mode], &played)
        .await
        .unwrap();
    // Recording the same game again (a retry) keeps it once.
    db.record_result_with_practice(&entry, &[Board::Mode], &played)
        .await
        .unwrap();
    assert_eq!(
        db.outbox().await.unwrap().len(),
        1,
        "the board game is sent"
    );
    let written = db.practice().await.unwrap();
    assert_eq!((written.recorded, written.folded), (1, 0));
    assert_eq!(
        written.stats.games, 0,
        "folded only once the course is there"
    );

    let caught_up = db.catch_up_practice(course).await.unwrap();
    assert_eq!((caught_up.recorded, caught_up.folded), (1, 1));
    assert_eq!(caught_up.stats.games, 1);
    let expected = course.rebuild([keydo_core::practice::StoredGame {
        mode: played.mode,
        prompt: &keydo_core::Prompt::new(&played.prompt).unwrap(),
        log: &played.input,
        target: played.target,
    }]);
    assert_eq!(caught_up.stats, expected);
    // Catching up again folds nothing twice.
    assert_eq!(db.catch_up_practice(course).await.unwrap(), caught_up);
}

#[wasm_bindgen_test]
async fn the_target_is_kept_and_later_games_fold_with_it() {
    let course = Course::shipped();
    let (db, _) = fresh_db().await;
    let target = Target {
        wpm: 50,
        zi_per_minute: 60,
    };
    assert_eq!(db.set_practice_target(target).await.unwrap().target, target);
    let game = lesson_game(course, &UnitStats::default(), Mode::Words, 4);
    let practice = db.record_practice_game(course, &game).await.unwrap();
    assert_eq!(practice.target, target);
    assert_eq!(db.rebuild_practice(course).await.unwrap(), practice);
}

#[wasm_bindgen_test]
async fn a_database_of_schema_2_keeps_its_games_and_gains_an_empty_practice_store() {
    let name = format!("keydo-test-{}", Uuid::new_v4());
    // The stores of schema 2, and a game in the history, as the release before wrote.
    let created = js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({name:?}, 2);
           open.onupgradeneeded = () => {{
             for (const store of ['meta', 'history', 'bests', 'outbox', 'operations'])
               open.result.createObjectStore(store);
             open.transaction.objectStore('history').put({{ mode: 'words' }}, 'a-game');
           }};
           open.onsuccess = () => {{ open.result.close(); ok('created'); }};
           open.onerror = () => fail(open.error);
         }});"
    ))
    .await;
    assert_eq!(created, "created");
    assert_eq!(SCHEMA_VERSION, 3);

    let db = Db::open_named(&name).await.unwrap();
    assert_eq!(
        db.practice().await.unwrap(),
        keydo_storage::Practice::default()
    );
    drop(db);
    assert_eq!(
        raw_read(&name, "history", "getAllKeys").await,
        r#"["a-game"]"#
    );
}
