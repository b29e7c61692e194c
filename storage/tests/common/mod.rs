//! Fixtures shared by the browser tests of `storage` and `sync`.

#![allow(dead_code)] // each test file uses its own subset

use keydo_core::Mode;
use keydo_core::game::score::Stats;
use keydo_core::sync::outbox::OutboxEntry;
use keydo_storage::Db;
use uuid::Uuid;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;

/// A monday noon, UTC+8, in 2026.
pub const PLAYED_AT: u64 = 1_796_011_200_000;

/// A flawless 30-second game, so its value follows `correct_chars`.
pub fn game(profile: Uuid, mode: Mode, correct_chars: u32, played_at: u64) -> OutboxEntry {
    let stats = Stats {
        duration_ms: 30_000,
        correct_chars,
        errors: 0,
        keystrokes: correct_chars,
        correct_keystrokes: correct_chars,
    };
    OutboxEntry::new(Uuid::new_v4(), profile, mode, stats, played_at)
}

/// A database of its own, so tests are independent of order; and its name.
pub async fn fresh_db() -> (Db, String) {
    let name = format!("keydo-test-{}", Uuid::new_v4());
    (Db::open_named(&name).await.unwrap(), name)
}

/// Runs `body` (the inside of a JS function returning a promise of a string).
pub async fn js(body: &str) -> String {
    let promise: js_sys::Promise = js_sys::Function::new_no_args(body)
        .call0(&wasm_bindgen::JsValue::NULL)
        .unwrap()
        .unchecked_into();
    JsFuture::from(promise).await.unwrap().as_string().unwrap()
}

/// `method` (`getAll`, `getAllKeys`) of `store`, read with the raw IndexedDB API and
/// JSON-stringified.
pub async fn raw_read(database: &str, store: &str, method: &str) -> String {
    js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({database:?});
           open.onerror = () => fail(open.error);
           open.onsuccess = () => {{
             const all = open.result.transaction({store:?}).objectStore({store:?}).{method}();
             all.onsuccess = () => {{ open.result.close(); ok(JSON.stringify(all.result)); }};
             all.onerror = () => fail(all.error);
           }};
         }});"
    ))
    .await
}

/// Runs `body`, JS with `store` bound to `store` in a readwrite transaction, on
/// `database` with the raw IndexedDB API (as a tab of another release would);
/// resolves once that transaction has committed.
pub async fn raw_write(database: &str, store: &str, body: &str) {
    js(&format!(
        "return new Promise((ok, fail) => {{
           const open = indexedDB.open({database:?});
           open.onerror = () => fail(open.error);
           open.onsuccess = () => {{
             const writing = open.result.transaction({store:?}, 'readwrite');
             writing.oncomplete = () => {{ open.result.close(); ok('committed'); }};
             writing.onabort = () => fail(writing.error);
             const store = writing.objectStore({store:?});
             {body}
           }};
         }});"
    ))
    .await;
}
