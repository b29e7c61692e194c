//! The sync's own records in a real browser (wasm-bindgen-test, headless Chromium):
//! the save's `Idempotency-Key` outlives failed attempts, and acknowledged bests are
//! kept for restore healing.

#![cfg(target_arch = "wasm32")]

mod common;

use common::{PLAYED_AT, fresh_db, game, raw_read};
use keydo_core::Mode;
use keydo_core::game::board::Board;
use keydo_core::sync::outbox::OutboxEntry;
use keydo_storage::{Credentials, Db, SaveStart};
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

const WEEK_MS: u64 = 7 * 24 * 3_600_000;

#[wasm_bindgen_test]
async fn one_idempotency_key_until_the_save_is_stored_then_a_new_one_after_renewal() {
    let (db, name) = fresh_db().await;
    let SaveStart::Create {
        idempotency_key: first,
    } = db.begin_save().await.unwrap()
    else {
        panic!("no save yet");
    };
    // Kept across attempts, handles and contexts until the save is stored.
    drop(db);
    let db = Db::open_named(&name).await.unwrap();
    assert_eq!(
        db.begin_save().await.unwrap(),
        SaveStart::Create {
            idempotency_key: first
        }
    );
    let save = Credentials {
        player_id: Uuid::new_v4(),
        token: Uuid::new_v4(),
    };
    db.set_credentials(&save).await.unwrap();
    assert_eq!(db.begin_save().await.unwrap(), SaveStart::Existing(save));

    // The server no longer knows the save: forgetting it makes the next key new.
    assert!(db.forget_credentials(&save).await.unwrap());
    assert!(!db.forget_credentials(&save).await.unwrap(), "already gone");
    let SaveStart::Create {
        idempotency_key: renewed,
    } = db.begin_save().await.unwrap()
    else {
        panic!("the save was forgotten");
    };
    assert_ne!(renewed, first);

    // A context that renewed first is not undone by a late one.
    let newer = Credentials {
        player_id: Uuid::new_v4(),
        token: Uuid::new_v4(),
    };
    db.set_credentials(&newer).await.unwrap();
    assert!(!db.forget_credentials(&save).await.unwrap());
    assert_eq!(db.credentials().await.unwrap(), Some(newer));

    // The key never reaches the outbox or history.
    let entry = game(Uuid::new_v4(), Mode::Quote, 100, PLAYED_AT);
    db.record_result(&entry, &[Board::Mode]).await.unwrap();
    for store in ["outbox", "history"] {
        let dump = raw_read(&name, store, "getAll").await;
        assert!(!dump.contains(&first.to_string()), "{store}: {dump}");
        assert!(!dump.contains(&renewed.to_string()), "{store}: {dump}");
    }
}

#[wasm_bindgen_test]
async fn acknowledged_bests_are_kept_for_healing_and_discarded_ones_are_not() {
    let (db, _) = fresh_db().await;
    let profile = db.profile(PLAYED_AT).await.unwrap().id;
    let last_week = game(profile, Mode::Words, 200, PLAYED_AT - WEEK_MS);
    let this_week_low = game(profile, Mode::Words, 120, PLAYED_AT);
    let this_week_high = game(profile, Mode::Words, 150, PLAYED_AT + 1);
    let zh = game(profile, Mode::Zh, 90, PLAYED_AT);
    for acked in [&last_week, &this_week_high, &this_week_low, &zh] {
        db.record_result(acked, &[Board::Mode]).await.unwrap();
        db.remove_if_unchanged(acked).await.unwrap();
    }
    let delivered = db.delivered().await.unwrap();
    let ids = |entries: &[OutboxEntry]| entries.iter().map(|e| e.score_id).collect::<Vec<_>>();
    assert_eq!(ids(&delivered.alltime), [last_week.score_id, zh.score_id]);
    assert_eq!(
        ids(&delivered.weekly),
        [this_week_high.score_id, zh.score_id]
    );
    assert!(
        delivered
            .alltime
            .iter()
            .all(|e| e.sync == Default::default())
    );

    // Healing re-queues them; one the API then refuses and the player discards is
    // kept no more.
    assert_eq!(
        db.requeue(std::slice::from_ref(&zh)).await.unwrap(),
        [zh.score_id]
    );
    assert_eq!(
        db.requeue(std::slice::from_ref(&zh)).await.unwrap(),
        Vec::<Uuid>::new(),
        "already queued"
    );
    let mut sync = zh.sync.clone();
    sync.record_failure(
        keydo_core::sync::classify::Request::Authenticated {
            save_renewed: false,
        },
        &keydo_core::sync::classify::Failure::http(422, Some("TOO_FAST"), None),
        PLAYED_AT,
        0.0,
    );
    assert!(db.set_sync_state(&zh, sync).await.unwrap());
    assert!(db.discard_blocked(zh.score_id).await.unwrap().is_some());
    let delivered = db.delivered().await.unwrap();
    assert_eq!(ids(&delivered.alltime), [last_week.score_id]);
    assert_eq!(ids(&delivered.weekly), [this_week_high.score_id]);

    // The heal time round-trips.
    assert_eq!(db.healed_at().await.unwrap(), None);
    db.set_healed_at(PLAYED_AT).await.unwrap();
    assert_eq!(db.healed_at().await.unwrap(), Some(PLAYED_AT));
}
