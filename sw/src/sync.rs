//! Background Sync: the browser wakes the worker with tag `flush-outbox` (registered
//! by the page after a result is saved) and the worker delivers the outbox.
//!
//! The flush itself lives in its own wasm module (`keydo_flush`, see the
//! `keydo-sw-flush` crate) so ordinary worker start-ups stay small: its glue is
//! imported once during install, which stores the script with the registration
//! (offline-proof, byte-compared on updates), and re-imported from there only when
//! a sync event arrives; its wasm is instantiated from the precache. The handler flushes inside `waitUntil`
//! and fails the event while anything is left to retry, so the browser tries again
//! later; refused (blocked) entries do not fail it — retrying cannot help them.
//! web-sys has no `SyncEvent`, so the tag is read through `Reflect`.

use crate::lifecycle::wait_until;
use crate::respond::cached;
use crate::{Precache, on, scope};
use js_sys::{Function, Object, Reflect};
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{ExtendableEvent, Request};

/// The tag the page registers after a result is durably saved.
const FLUSH_OUTBOX: &str = "flush-outbox";
/// The flush module's wasm, precached with the shell.
const FLUSH_WASM: &str = "/keydo_flush_bg.wasm";
/// The flush module's glue script, and the global it defines.
const FLUSH_GLUE_URL: &str = "/keydo_flush.js";
const FLUSH_GLUE: &str = "keydo_flush";

/// Imports the flush module's glue. During install this stores it with the
/// registration; afterwards it is served from there, never from the network.
pub fn import_flush_glue() -> Result<(), JsValue> {
    scope().import_scripts_1(FLUSH_GLUE_URL)
}

pub fn listen(precache: Rc<Precache>) {
    on("sync", move |event: ExtendableEvent| {
        let tag = Reflect::get(&event, &"tag".into())
            .ok()
            .and_then(|t| t.as_string());
        if tag.as_deref() == Some(FLUSH_OUTBOX) {
            let precache = precache.clone();
            wait_until(&event, async move { flush(&precache).await });
        }
    });
}

async fn flush(precache: &Precache) -> Result<(), JsValue> {
    if Reflect::get(&scope(), &FLUSH_GLUE.into())?.is_undefined() {
        import_flush_glue()?;
    }
    let glue: Function = Reflect::get(&scope(), &FLUSH_GLUE.into())?.dyn_into()?;
    let request = Request::new_with_str(FLUSH_WASM)?;
    let wasm: JsValue = match cached(precache, &request).await? {
        Some(response) => response.into(),
        // Evicted from the cache: the network is the only other source.
        None => JsFuture::from(scope().fetch_with_request(&request)).await?,
    };
    let init = Object::new();
    Reflect::set(&init, &"module_or_path".into(), &wasm)?;
    // Instantiates once per worker; later calls return the same promise.
    JsFuture::from(js_sys::Promise::resolve(
        &glue.call1(&JsValue::NULL, &init)?,
    ))
    .await?;
    let flush: Function = Reflect::get(&glue, &"flush".into())?.dyn_into()?;
    let report = JsFuture::from(js_sys::Promise::resolve(&flush.call0(&JsValue::NULL)?)).await?;
    web_sys::console::log_2(&"keydo: background sync".into(), &report);
    if Reflect::get(&report, &"retryLater".into())?.is_truthy() {
        return Err(JsValue::from_str("keydo: scores left to retry"));
    }
    Ok(())
}
