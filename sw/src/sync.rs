//! Background Sync: the browser wakes the worker with tag `flush-outbox` (registered
//! by the page after a result is saved) and the worker delivers the outbox.
//!
//! The handler re-reads the outbox from IndexedDB and flushes inside `waitUntil`.
//! It fails the event when something is left to retry, so the browser tries again
//! later; refused (blocked) entries do not fail it — retrying cannot help them.
//! web-sys has no `SyncEvent`, so the tag is read through `Reflect`.

use crate::lifecycle::wait_until;
use crate::on;
use js_sys::Reflect;
use keydo_core::coalesce::FlushKind;
use wasm_bindgen::JsValue;
use web_sys::ExtendableEvent;

/// The tag the page registers after a result is durably saved.
const FLUSH_OUTBOX: &str = "flush-outbox";

pub fn listen() {
    on("sync", |event: ExtendableEvent| {
        let tag = Reflect::get(&event, &"tag".into())
            .ok()
            .and_then(|t| t.as_string());
        if tag.as_deref() == Some(FLUSH_OUTBOX) {
            wait_until(&event, async {
                let report = keydo_sync::flush_outbox(FlushKind::Background)
                    .await
                    .map_err(|e| JsValue::from_str(&e.to_string()))?;
                if report.retryable > 0 {
                    return Err(JsValue::from_str("keydo: scores left to retry"));
                }
                Ok(())
            });
        }
    });
}
