//! The service worker's outbox flush, as a module of its own.
//!
//! Delivering the outbox needs IndexedDB, HTTP and serde code that is several times
//! larger than the rest of the worker. Every worker start (each offline navigation)
//! would pay for it, while only Background Sync events use it. So it is built
//! separately, by the post-build step (docs/service-worker.md), whose wasm-bindgen
//! run gives its glue a global of its own; `/sw.js` carries that glue, evaluates it
//! on Background Sync and instantiates the wasm from its precache only then.

use js_sys::{Object, Reflect};
use keydo_core::sync::coalesce::FlushKind;
use wasm_bindgen::prelude::*;

/// Flushes what is due; resolves to `{delivered, retryable, blocked, retryLater}`.
///
/// Waits from backoff and `Retry-After` hold here too; `retryLater` says something
/// is still waiting, so the sync event should fail and the browser try again.
#[wasm_bindgen]
pub async fn flush() -> Result<JsValue, JsValue> {
    let report = keydo_sync::flush_outbox(FlushKind::Reconnect)
        .await
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let answer = Object::new();
    for (key, value) in [
        ("delivered", JsValue::from(report.delivered)),
        ("retryable", JsValue::from(report.retryable)),
        ("blocked", JsValue::from(report.blocked)),
        ("retryLater", JsValue::from(report.next_retry_at.is_some())),
    ] {
        Reflect::set(&answer, &key.into(), &value)?;
    }
    Ok(answer.into())
}

fn main() {}
