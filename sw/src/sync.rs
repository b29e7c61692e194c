//! Background Sync: the browser wakes the worker with tag `flush-outbox` (registered
//! by the page after a result is saved) and the worker delivers the outbox.
//!
//! The flush itself lives in its own wasm module (the `keydo-sw-flush` crate) so
//! the lifecycle module stays small: its glue is carried in `/sw.js` (offline-proof,
//! byte-compared on updates) and evaluated only when a sync event first asks for
//! it; its wasm is instantiated from the precache. Where the wasm lives comes from
//! the build ([`crate::config`]). The handler flushes inside
//! `waitUntil` and fails the event while anything is left to retry, so the browser
//! tries again later; refused (blocked) entries do not fail it — retrying cannot
//! help them. web-sys has no `SyncEvent`, so the tag is read through `Reflect`.

use crate::respond::cached;
use crate::{Worker, scope, wait_until};
use js_sys::{Object, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ExtendableEvent, Request};

/// The tag the page registers after a result is durably saved.
const FLUSH_OUTBOX: &str = "flush-outbox";

pub fn sync(worker: Rc<Worker>, event: &ExtendableEvent) {
    let tag = Reflect::get(event, &"tag".into())
        .ok()
        .and_then(|t| t.as_string());
    if tag.as_deref() == Some(FLUSH_OUTBOX) {
        wait_until(event, async move { flush(&worker).await });
    }
}

async fn flush(worker: &Worker) -> Result<(), JsValue> {
    let module = worker.config.flush_module()?;
    let request = Request::new_with_str(&worker.config.flush_wasm())?;
    let wasm = match cached(worker, &request).await? {
        Some(response) => response,
        // Evicted from the cache: the network is the only other source.
        None => JsFuture::from(scope().fetch_with_request(&request)).await?,
    };
    let init = Object::new();
    Reflect::set(&init, &"module_or_path".into(), &wasm)?;
    // Instantiates once per worker; later calls return the same promise.
    JsFuture::from(js_sys::Promise::resolve(
        &module.call1(&JsValue::NULL, &init)?,
    ))
    .await?;
    let report = JsFuture::from(module.flush()).await?;
    web_sys::console::log_2(&"keydo: background sync".into(), &report);
    if Reflect::get(&report, &"retryLater".into())?.is_truthy() {
        return Err(JsValue::from_str("keydo: scores left to retry"));
    }
    Ok(())
}
