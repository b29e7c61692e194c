//! Background Sync: the browser wakes the worker with tag `flush-outbox` (registered
//! by the page after a result is saved) and the worker delivers the outbox.
//!
//! The handler re-reads the outbox from IndexedDB and flushes what is due inside
//! `waitUntil` (waits from backoff and `Retry-After` hold here too). It fails the
//! event while anything is left to retry, so the browser tries again later;
//! refused (blocked) entries do not fail it — retrying cannot help them.
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
                let report = keydo_sync::flush_outbox(FlushKind::Automatic)
                    .await
                    .map_err(|e| JsValue::from_str(&e.to_string()))?;
                web_sys::console::log_1(
                    &format!(
                        "keydo: background sync delivered {}, {} to retry, {} refused",
                        report.delivered, report.retryable, report.blocked
                    )
                    .into(),
                );
                if report.next_retry_at.is_some() {
                    return Err(JsValue::from_str("keydo: scores left to retry"));
                }
                Ok(())
            });
        }
    });
}
