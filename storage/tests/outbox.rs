//! The IndexedDB outbox in a real browser (wasm-bindgen-test, headless Chromium).
//!
//! Each test opens its own database, so they are independent of order.

#![cfg(target_arch = "wasm32")]

mod common;

use common::{PLAYED_AT, fresh_db, game, raw_read};
use futures::future::join_all;
use keydo_core::Mode;
use keydo_core::game::board::Board;
use keydo_core::sync::classify::{ErrorCode, Failure, Request};
use keydo_core::sync::outbox::OutboxEntry;
use keydo_core::text::hash::TextHash;
use keydo_storage::{Credentials, Db};
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

// Every game below is played in the week of `PLAYED_AT`.

#[wasm_bindgen_test]
async fn outbox_keeps_the_best_per_profile_mode_and_week() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let slow = game(profile, Mode::Words, 100, PLAYED_AT);
    let fast = game(profile, Mode::Words, 150, PLAYED_AT + 1);
    let tie = game(profile, Mode::Words, 150, PLAYED_AT + 2);
    let other_mode = game(profile, Mode::Quote, 90, PLAYED_AT + 3);

    let first = db.record_result(&slow, &[Board::Mode]).await.unwrap();
    assert!(first.new_best);
    assert!(
        db.record_result(&fast, &[Board::Mode])
            .await
            .unwrap()
            .new_best
    );
    let after_tie = db.record_result(&tie, &[Board::Mode]).await.unwrap();
    assert!(!after_tie.new_best, "a tie is not a new best");
    assert_eq!(after_tie.best, fast.value);
    db.record_result(&slow, &[Board::Mode]).await.unwrap(); // a replay changes nothing
    db.record_result(&other_mode, &[Board::Mode]).await.unwrap();

    let outbox = db.outbox().await.unwrap();
    let ids: Vec<_> = outbox.iter().map(|e| e.score_id).collect();
    assert_eq!(outbox.len(), 2);
    assert!(
        ids.contains(&fast.score_id),
        "the better words result, the earlier of the tie"
    );
    assert!(ids.contains(&other_mode.score_id));
    assert_eq!(
        db.bests().await.unwrap(),
        vec![(Mode::Quote, other_mode.value), (Mode::Words, fast.value)]
    );
}

#[wasm_bindgen_test]
async fn a_text_game_waits_for_its_first_and_best_boards_apart_from_the_mode() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let text = TextHash::of("同一段文字");
    let boards = [Board::TextFirst { text }, Board::TextBest { text }];
    let first = game(profile, Mode::Zh, 100, PLAYED_AT);
    let faster = game(profile, Mode::Zh, 200, PLAYED_AT + 60_000);
    let built_in = game(profile, Mode::Zh, 150, PLAYED_AT + 120_000);

    assert!(db.record_result(&first, &boards).await.unwrap().new_best);
    let second = db.record_result(&faster, &boards).await.unwrap();
    assert!(second.new_best, "the text's best");
    db.record_result(&first, &boards).await.unwrap(); // a replay changes nothing
    let mode_game = db.record_result(&built_in, &[Board::Mode]).await.unwrap();
    assert!(mode_game.new_best, "a text's best is not the mode's");

    let outbox = db.outbox().await.unwrap();
    let on = |board: Board| {
        outbox
            .iter()
            .filter(|e| e.board == board)
            .map(|e| e.score_id)
            .collect::<Vec<_>>()
    };
    assert_eq!(
        on(Board::TextFirst { text }),
        [first.score_id],
        "首打 keeps the first"
    );
    assert_eq!(on(Board::TextBest { text }), [faster.score_id]);
    assert_eq!(on(Board::Mode), [built_in.score_id]);
    assert_eq!(db.bests().await.unwrap(), [(Mode::Zh, built_in.value)]);
    assert_eq!(
        db.text_best(Mode::Zh, text).await.unwrap(),
        Some(faster.value)
    );
    assert_eq!(
        db.text_best(Mode::Zh, TextHash::of("别的")).await.unwrap(),
        None
    );
}

#[wasm_bindgen_test]
async fn concurrent_adds_converge_on_the_best() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let games: Vec<_> = (0..12u32)
        .map(|i| {
            game(
                profile,
                Mode::Time,
                100 + (i * 7) % 12 * 10,
                PLAYED_AT + u64::from(i),
            )
        })
        .collect();
    let results = join_all(games.iter().map(|g| db.record_result(g, &[Board::Mode]))).await;
    assert!(results.iter().all(Result::is_ok));
    let best = games.iter().max_by_key(|g| g.value).unwrap();
    let outbox = db.outbox().await.unwrap();
    assert_eq!(outbox.len(), 1);
    assert_eq!(outbox[0].score_id, best.score_id);
    assert_eq!(db.bests().await.unwrap(), vec![(Mode::Time, best.value)]);
}

#[wasm_bindgen_test]
async fn outbox_and_profile_survive_reopening() {
    let (db, name) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap();
    let entry = game(profile.id, Mode::Zh, 120, PLAYED_AT);
    db.record_result(&entry, &[Board::Mode]).await.unwrap();
    drop(db);

    let reopened = Db::open_named(&name).await.unwrap();
    assert_eq!(reopened.profile(PLAYED_AT + 99).await.unwrap(), profile);
    assert_eq!(reopened.outbox().await.unwrap(), vec![entry]);
}

#[wasm_bindgen_test]
async fn an_acknowledged_entry_leaves_only_if_it_is_still_the_one_sent() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let sent = game(profile, Mode::Words, 100, PLAYED_AT);
    db.record_result(&sent, &[Board::Mode]).await.unwrap();
    // While `sent` is in flight, a better result arrives.
    let better = game(profile, Mode::Words, 140, PLAYED_AT + 5);
    db.record_result(&better, &[Board::Mode]).await.unwrap();

    assert!(!db.remove_if_unchanged(&sent).await.unwrap());
    assert_eq!(db.outbox().await.unwrap(), vec![better.clone()]);
    assert!(db.remove_if_unchanged(&better).await.unwrap());
    assert!(db.outbox().await.unwrap().is_empty());
}

#[wasm_bindgen_test]
async fn stored_records_never_hold_the_token() {
    let (db, name) = fresh_db().await;
    let credentials = Credentials {
        player_id: Uuid::new_v4(),
        token: Uuid::new_v4(),
    };
    db.set_credentials(&credentials).await.unwrap();
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let entry = game(profile, Mode::Quote, 110, PLAYED_AT);
    db.record_result(&entry, &[Board::Mode]).await.unwrap();
    let mut sync = entry.sync.clone();
    sync.record_failure(
        Request::Authenticated {
            save_renewed: false,
        },
        &Failure::http(503, Some("UNAVAILABLE"), None),
        PLAYED_AT + 10,
        0.5,
    );
    assert!(db.set_sync_state(&entry, sync).await.unwrap());
    assert_eq!(db.credentials().await.unwrap(), Some(credentials));

    let token = credentials.token.to_string();
    for store in ["outbox", "history", "bests"] {
        let dump = raw_dump(&name, store).await;
        assert!(!dump.is_empty() && dump != "[]", "{store} holds records");
        assert!(
            !dump.contains(&token),
            "{store} must not hold the token: {dump}"
        );
    }
    let outbox = raw_dump(&name, "outbox").await;
    assert!(outbox.contains("\"lastError\":\"UNAVAILABLE\""), "{outbox}");
    assert!(outbox.contains("\"attempts\":1"), "{outbox}");
}

const SCORE: Request = Request::Authenticated {
    save_renewed: false,
};

/// Records that the API refused `entry` (a validation code), as a flush does.
async fn refuse(db: &Db, entry: &OutboxEntry) {
    let mut sync = entry.sync.clone();
    sync.record_failure(
        SCORE,
        &Failure::http(422, Some("VALUE_MISMATCH"), None),
        PLAYED_AT + 10,
        0.5,
    );
    assert!(db.set_sync_state(entry, sync).await.unwrap());
}

#[wasm_bindgen_test]
async fn a_blocked_best_never_hides_a_newer_valid_result() {
    let (db, name) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let best = game(profile, Mode::Words, 150, PLAYED_AT);
    db.record_result(&best, &[Board::Mode]).await.unwrap();
    refuse(&db, &best).await;
    // A lower, valid game of the same (profile, mode, week) is kept beside it.
    let lower = game(profile, Mode::Words, 100, PLAYED_AT + 60_000);
    db.record_result(&lower, &[Board::Mode]).await.unwrap();
    // Replaying the refused result does not make it sendable again.
    db.record_result(&best, &[Board::Mode]).await.unwrap();

    let outbox = db.outbox().await.unwrap();
    assert_eq!(outbox.len(), 2, "{outbox:?}");
    let sendable: Vec<_> = outbox.iter().filter(|e| !e.sync.blocked).collect();
    let blocked: Vec<_> = outbox.iter().filter(|e| e.sync.blocked).collect();
    assert_eq!(sendable.len(), 1);
    assert_eq!(sendable[0].score_id, lower.score_id);
    assert_eq!(blocked[0].score_id, best.score_id);
    let keys = raw_keys(&name, "outbox").await;
    assert!(
        keys.contains(&format!("\"{}\"", lower.key()))
            && keys.contains(&format!("\"{}/blocked/{}\"", best.key(), best.score_id)),
        "{keys}"
    );

    // The lower one is delivered; the blocked one stays until the player discards it.
    assert!(db.remove_if_unchanged(&lower).await.unwrap());
    assert_eq!(db.outbox().await.unwrap().len(), 1);
    let discarded = db.discard_blocked(best.score_id).await.unwrap().unwrap();
    assert_eq!(
        discarded.sync.last_error,
        ErrorCode::new("VALUE_MISMATCH"),
        "the reason is kept for display"
    );
    assert!(db.outbox().await.unwrap().is_empty());
    assert_eq!(db.discard_blocked(best.score_id).await.unwrap(), None);
    // Only blocked entries can be discarded.
    let pending = game(profile, Mode::Zh, 100, PLAYED_AT);
    db.record_result(&pending, &[Board::Mode]).await.unwrap();
    assert_eq!(db.discard_blocked(pending.score_id).await.unwrap(), None);
    assert_eq!(db.outbox().await.unwrap(), vec![pending]);
}

#[wasm_bindgen_test]
async fn a_manual_retry_that_fails_for_a_passing_reason_unblocks_the_entry() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let refused = game(profile, Mode::Time, 150, PLAYED_AT);
    db.record_result(&refused, &[Board::Mode]).await.unwrap();
    refuse(&db, &refused).await;
    let blocked = db.outbox().await.unwrap().remove(0);
    let mut sync = blocked.sync.clone();
    sync.record_failure(SCORE, &Failure::Network, PLAYED_AT + 20, 0.5);
    assert!(db.set_sync_state(&blocked, sync).await.unwrap());
    let outbox = db.outbox().await.unwrap();
    assert_eq!(outbox.len(), 1);
    assert_eq!(outbox[0].score_id, refused.score_id);
    assert!(!outbox[0].sync.blocked);
    assert_eq!(outbox[0].sync.attempts, 2);
}

/// Every key in `store`, read with the raw IndexedDB API and JSON-stringified.
async fn raw_keys(database: &str, store: &str) -> String {
    raw_read(database, store, "getAllKeys").await
}

/// Everything in `store`, read with the raw IndexedDB API and JSON-stringified.
async fn raw_dump(database: &str, store: &str) -> String {
    raw_read(database, store, "getAll").await
}
