//! The Background Sync listener for the `flush-outbox` tag.
//!
//! web-sys has no `SyncEvent`, so the tag is read through `Reflect`.

use crate::on;
use js_sys::Reflect;
use web_sys::ExtendableEvent;

/// The tag the page registers after a result is durably saved.
pub const FLUSH_OUTBOX: &str = "flush-outbox";

pub fn listen() {
    on("sync", |event: ExtendableEvent| {
        let tag = Reflect::get(&event, &"tag".into())
            .ok()
            .and_then(|t| t.as_string());
        if tag.as_deref() == Some(FLUSH_OUTBOX) {
            web_sys::console::log_1(&"keydo: sync flush-outbox received".into());
        }
    });
}
