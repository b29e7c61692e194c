//! The operation outbox in a real browser (wasm-bindgen-test, headless Chromium): a
//! queued change is committed with its key and place in line before it is shown,
//! survives a new connection, changes queued at once from two handles (two tabs)
//! take distinct places in line, every step leaves the local profile a page starts
//! from, and a line an earlier release changed (it keeps no summary) is read whole
//! again rather than misread.

#![cfg(target_arch = "wasm32")]

mod common;

use common::{fresh_db, raw_read, raw_write};
use keydo_core::profile::{Changes, Confirmed, FieldValue, OperationState, Profile, Theme};
use keydo_storage::Db;
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn theme(theme: Theme) -> Changes {
    std::iter::once(FieldValue::Theme(theme)).collect()
}

async fn queue(db: &Db, changes: Changes, id: Uuid) {
    db.update_profile_queue(|queue| ((), queue.queue(&changes, id, 1)))
        .await
        .unwrap();
}

#[wasm_bindgen_test]
async fn a_queued_change_is_stored_with_its_key_and_outlives_the_connection() {
    let (db, name) = fresh_db().await;
    let id = Uuid::new_v4();
    queue(&db, theme(Theme::Dark), id).await;
    let stored = raw_read(&name, "operations", "getAll").await;
    assert!(stored.contains(&id.to_string()), "{stored}");
    assert!(stored.contains("\"state\":\"pending\""), "{stored}");
    drop(db);
    let reopened = Db::open_named(&name).await.unwrap();
    let queue = reopened.profile_queue().await.unwrap();
    let ops: Vec<_> = queue
        .operations()
        .iter()
        .map(|op| (op.operation_id, op.seq, op.state))
        .collect();
    assert_eq!(ops, [(id, 1, OperationState::Pending)]);
    assert_eq!(queue.local().settings.theme, Theme::Dark);
}

#[wasm_bindgen_test]
async fn every_step_leaves_the_local_profile_in_one_record() {
    let (db, name) = fresh_db().await;
    let empty = db.profile_queue().await.unwrap().local_profile();
    assert_eq!(
        db.local_profile().await.unwrap(),
        Some(empty),
        "before any step, what an empty line shows"
    );
    queue(&db, theme(Theme::Dark), Uuid::new_v4()).await;
    queue(&db, theme(Theme::Light), Uuid::new_v4()).await;
    let reopened = Db::open_named(&name).await.unwrap();
    let local = reopened.local_profile().await.unwrap().unwrap();
    let queue = reopened.profile_queue().await.unwrap();
    assert_eq!(local, queue.local_profile());
    assert_eq!(
        (local.profile.settings.theme, local.in_line),
        (Theme::Light, 2)
    );
    // The server confirms a newer profile: the record follows in the same step.
    let confirmed = Confirmed {
        version: 7,
        profile: Profile::named("Ann"),
    };
    reopened
        .update_profile_queue(|queue| ((), queue.confirm(confirmed)))
        .await
        .unwrap();
    let local = reopened.local_profile().await.unwrap().unwrap();
    assert_eq!(
        (local.version, local.profile.display_name.as_str()),
        (7, "Ann")
    );
    assert_eq!(
        local.profile.settings.theme,
        Theme::Light,
        "the queued changes on top"
    );
    assert_eq!(
        local,
        reopened.profile_queue().await.unwrap().local_profile()
    );
    // Operations stored without the record (an earlier release's line): only the
    // queue tells.
    raw_write(&name, "meta", "store.delete('localProfile');").await;
    assert_eq!(reopened.local_profile().await.unwrap(), None);
}

#[wasm_bindgen_test]
async fn changes_queued_at_once_from_two_handles_take_their_own_places() {
    let (first, name) = fresh_db().await;
    let second = Db::open_named(&name).await.unwrap();
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    futures::join!(
        queue(&first, theme(Theme::Dark), a),
        queue(&second, theme(Theme::Light), b)
    );
    let queue = first.profile_queue().await.unwrap();
    let seqs: Vec<u64> = queue.queued().map(|op| op.seq).collect();
    assert_eq!(seqs, [1, 2]);
    let ids: Vec<Uuid> = queue.queued().map(|op| op.operation_id).collect();
    assert!(ids.contains(&a) && ids.contains(&b));
}

#[wasm_bindgen_test]
async fn a_line_changed_by_an_earlier_release_is_summarised_again_and_no_place_is_reused() {
    let (db, name) = fresh_db().await;
    let first = Uuid::new_v4();
    queue(&db, theme(Theme::Dark), first).await;
    // A tab of an earlier release, which keeps no summary, queues a change after it.
    let earlier = Uuid::new_v4();
    raw_write(
        &name,
        "operations",
        &format!(
            "const read = store.get(1);
             read.onsuccess = () => store.put(Object.assign(read.result, {{
               operationId: '{earlier}', seq: 2,
               payload: {{ settings: {{ theme: 'light' }} }},
               base: {{ settings: {{ theme: 'dark' }} }},
             }}), 2);"
        ),
    )
    .await;
    let line = db.profile_queue().await.unwrap();
    assert_eq!(line.in_line(), 2);
    assert_eq!(line.local().settings.theme, Theme::Light);
    let third = Uuid::new_v4();
    queue(&db, theme(Theme::Dark), third).await;
    assert_eq!(raw_read(&name, "operations", "getAllKeys").await, "[1,2,3]");

    // A line stored before summaries existed is summarised from the whole store.
    raw_write(&name, "meta", "store.delete('operationsSummary');").await;
    let line = db.profile_queue().await.unwrap();
    assert_eq!(line.in_line(), 3);
    let ids: Vec<Uuid> = line.queued().map(|op| op.operation_id).collect();
    assert_eq!(ids, [first, earlier]);
    assert_eq!(line.local().settings.theme, Theme::Dark);
}
