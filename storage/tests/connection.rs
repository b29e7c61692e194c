//! The connection in a real browser (wasm-bindgen-test, headless Chromium): a
//! dropped or idle handle never holds up another context's schema upgrade, one in use
//! holds it up only until its operation ends, an open that a tab of an older release
//! blocks gives up after its wait and leaks no connection, and an aborted write says
//! why (docs/sync.md, "Storage").

#![cfg(target_arch = "wasm32")]

mod common;

use common::{PLAYED_AT, fresh_db, game, js, raw_read};
use keydo_core::Mode;
use keydo_core::game::board::Board;
use keydo_storage::{Db, SCHEMA_VERSION, StorageError};
use std::time::Duration;
use uuid::Uuid;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// Opens `name` at `version` with the raw API and closes it: "upgraded", or "blocked"
/// if another connection still holds it up a second after the browser said so.
async fn upgrade(name: &str, version: u32) -> String {
    js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({name:?}, {version});
           open.onblocked = () => setTimeout(() => ok('blocked'), 1000);
           open.onsuccess = () => {{ open.result.close(); ok('upgraded'); }};
           open.onerror = () => fail(open.error);
         }});"
    ))
    .await
}

/// Deletes `name` with the raw API: "deleted", or "blocked" if a connection stayed
/// open (the request then waits; the test does not).
async fn delete_database(name: &str) -> String {
    js(&format!(
        "return new Promise((ok, fail) => {{
           const deleting = indexedDB.deleteDatabase({name:?});
           deleting.onblocked = () => ok('blocked');
           deleting.onsuccess = () => ok('deleted');
           deleting.onerror = () => fail(deleting.error);
         }});"
    ))
    .await
}

#[wasm_bindgen_test]
async fn a_dropped_handle_closes_its_connection() {
    let (db, name) = fresh_db().await;
    db.profile(PLAYED_AT).await.unwrap();
    drop(db);
    assert_eq!(delete_database(&name).await, "deleted");
}

#[wasm_bindgen_test]
async fn an_open_handle_makes_way_for_a_schema_upgrade() {
    let (db, name) = fresh_db().await;
    db.profile(PLAYED_AT).await.unwrap();
    // Another context (a newer release) upgrades the schema while `db` is open.
    let next = keydo_storage::SCHEMA_VERSION + 1;
    let upgrade = js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({name:?}, {next});
           open.onblocked = () => ok('blocked');
           open.onsuccess = () => {{ open.result.close(); ok('upgraded'); }};
           open.onerror = () => fail(open.error);
         }});"
    ))
    .await;
    assert_eq!(upgrade, "upgraded");
    // The old handle closed itself: its operations now fail instead of hanging.
    assert!(db.profile(PLAYED_AT).await.is_err());
}

#[wasm_bindgen_test]
async fn a_dropped_handle_lets_an_upgrade_through() {
    let (db, name) = fresh_db().await;
    db.profile(PLAYED_AT).await.unwrap();
    drop(db);
    assert_eq!(upgrade(&name, SCHEMA_VERSION + 1).await, "upgraded");
}

#[wasm_bindgen_test]
async fn an_upgrade_asked_during_an_operation_proceeds_once_it_ends() {
    let (db, name) = fresh_db().await;
    let entry = game(Uuid::new_v4(), Mode::Words, 120, PLAYED_AT);
    // The write is under way when a newer release asks for its upgrade.
    let (recorded, upgraded) = futures::join!(
        db.record_result(&entry, &[Board::Mode]),
        upgrade(&name, SCHEMA_VERSION + 1)
    );
    assert!(recorded.is_ok(), "{recorded:?}");
    assert_eq!(upgraded, "upgraded");
    let history = raw_read(&name, "history", "getAllKeys").await;
    assert!(history.contains(&entry.score_id.to_string()), "{history}");
}

#[wasm_bindgen_test]
async fn an_open_blocked_by_an_older_tab_gives_up_and_its_late_connection_is_closed() {
    let name = format!("keydo-test-{}", Uuid::new_v4());
    // A tab of an older release: version 1, open, deaf to `versionchange`.
    js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({name:?}, 1);
           open.onsuccess = () => {{ globalThis.olderTab = open.result; ok('open'); }};
           open.onerror = () => fail(open.error);
         }});"
    ))
    .await;
    let wait = Duration::from_millis(300);
    let started = js_sys::Date::now();
    let blocked = Db::open_named_within(&name, wait).await;
    assert_eq!(blocked.err(), Some(StorageError::Blocked));
    assert!(
        js_sys::Date::now() - started >= 290.0,
        "gave up after its wait"
    );
    assert!(
        StorageError::Blocked
            .to_string()
            .contains("another KeyDo tab of an older version is open; close it")
    );

    // The player closes the old tab: the late open upgrades, then closes.
    js("globalThis.olderTab.close(); return Promise.resolve('closed');").await;
    let db = Db::open_named(&name).await.unwrap();
    db.profile(PLAYED_AT).await.unwrap();
    drop(db);
    // No connection was left behind to hold up the next release.
    assert_eq!(upgrade(&name, SCHEMA_VERSION + 1).await, "upgraded");
}

/// Runs `body` with `IDBObjectStore.prototype.put` replaced by `put` (a JS function
/// of the original `put` and its arguments) and, if given, `navigator.storage
/// .estimate()` answering `estimate`; both are restored before it returns.
async fn with_patched<T>(put: &str, estimate: Option<&str>, body: impl AsyncFnOnce() -> T) -> T {
    let estimate = estimate.map_or(String::new(), |answer| {
        format!("navigator.storage.estimate = async () => ({answer});")
    });
    js(&format!(
        "const put = IDBObjectStore.prototype.put;
         globalThis.originalPut = put;
         IDBObjectStore.prototype.put = function (...args) {{ return ({put})(put, this, args); }};
         {estimate}
         return Promise.resolve('patched');"
    ))
    .await;
    let output = body().await;
    js("IDBObjectStore.prototype.put = globalThis.originalPut;
        delete navigator.storage.estimate;
        return Promise.resolve('restored');")
    .await;
    output
}

#[wasm_bindgen_test]
async fn an_aborted_write_says_why_and_a_retry_stores_it() {
    let (db, name) = fresh_db().await;
    let entry = game(Uuid::new_v4(), Mode::Quote, 100, PLAYED_AT);

    // The browser refuses the request itself: its error is the reason.
    let refused = with_patched(
        "(put, store, args) => { throw new DOMException('no room left', 'QuotaExceededError'); }",
        None,
        async || db.record_result(&entry, &[Board::Mode]).await,
    )
    .await;
    assert_eq!(refused.err(), Some(StorageError::QuotaExceeded));

    // The transaction aborts with no reason given: the storage estimate tells.
    let abort = "(put, store, args) => { const request = put.apply(store, args); \
                 store.transaction.abort(); return request; }";
    let full = with_patched(
        abort,
        Some("{ quota: 500000000, usage: 499990000 }"),
        async || db.record_result(&entry, &[Board::Mode]).await,
    )
    .await;
    assert_eq!(full.err(), Some(StorageError::QuotaExceeded));
    let room = with_patched(
        abort,
        Some("{ quota: 500000000, usage: 1000 }"),
        async || db.record_result(&entry, &[Board::Mode]).await,
    )
    .await;
    let Err(StorageError::Database(reason)) = room else {
        panic!("an abort with room left is not the quota: {room:?}");
    };
    assert!(reason.contains("AbortError"), "{reason}");

    // Nothing of the aborted writes was stored; the caller's retry stores it.
    assert_eq!(raw_read(&name, "history", "getAllKeys").await, "[]");
    db.record_result(&entry, &[Board::Mode]).await.unwrap();
    let history = raw_read(&name, "history", "getAllKeys").await;
    assert!(history.contains(&entry.score_id.to_string()), "{history}");
}
