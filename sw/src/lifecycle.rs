//! Install and activate: an atomic precache, then retiring older versions.
//!
//! install adds every precached URL to a fresh cache (bypassing the HTTP cache);
//! if any fails, that cache is deleted and the install fails, so a version is
//! either entirely there or absent. activate deletes every other
//! `keydo-precache-*` cache and claims the open pages. Updates wait: the page
//! asks the waiting worker to take over (`SKIP_WAITING`) when the player agrees.

use crate::{Precache, on, scope};
use js_sys::{Array, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};
use web_sys::{Cache, ExtendableEvent, ExtendableMessageEvent, Request, RequestCache, RequestInit};

const CACHE_PREFIX: &str = "keydo-precache-";

pub fn listen(precache: &Rc<Precache>) {
    let install = precache.clone();
    on("install", move |event: ExtendableEvent| {
        let precache = install.clone();
        // Synchronously, while installing: only then may a worker import a new script.
        let glue = crate::sync::import_flush_glue();
        wait_until(&event, async move {
            glue?;
            fill_cache(&precache).await
        });
    });
    let activate = precache.clone();
    on("activate", move |event: ExtendableEvent| {
        let precache = activate.clone();
        wait_until(&event, async move { retire_old_caches(&precache).await });
    });
    on("message", |event: ExtendableMessageEvent| {
        let kind = Reflect::get(&event.data(), &"type".into()).ok();
        if kind.and_then(|k| k.as_string()).as_deref() == Some("SKIP_WAITING") {
            wait_until(&event, async {
                JsFuture::from(scope().skip_waiting()?).await?;
                Ok(())
            });
        }
    });
}

/// Keeps the worker alive until `work` settles, failing the event if it fails.
pub fn wait_until(
    event: &ExtendableEvent,
    work: impl Future<Output = Result<(), JsValue>> + 'static,
) {
    let promise = future_to_promise(async move { work.await.map(|()| JsValue::UNDEFINED) });
    // Only throws when called outside the event's dispatch, which we never do.
    let _ = event.wait_until(&promise);
}

async fn fill_cache(precache: &Precache) -> Result<(), JsValue> {
    let caches = scope().caches()?;
    let cache: Cache = JsFuture::from(caches.open(&precache.cache_name))
        .await?
        .unchecked_into();
    let requests = Array::new();
    for url in &precache.urls {
        let init = RequestInit::new();
        init.set_cache(RequestCache::Reload);
        requests.push(&Request::new_with_str_and_init(url, &init)?.into());
    }
    if let Err(error) = JsFuture::from(cache.add_all_with_request_sequence(&requests)).await {
        // All or nothing: a half-filled cache must never become the active version.
        JsFuture::from(caches.delete(&precache.cache_name)).await?;
        return Err(error);
    }
    Ok(())
}

async fn retire_old_caches(precache: &Precache) -> Result<(), JsValue> {
    let caches = scope().caches()?;
    let names: Array = JsFuture::from(caches.keys()).await?.unchecked_into();
    for name in names.iter().filter_map(|n| n.as_string()) {
        if name.starts_with(CACHE_PREFIX) && name != precache.cache_name {
            JsFuture::from(caches.delete(&name)).await?;
        }
    }
    JsFuture::from(scope().clients().claim()).await?;
    Ok(())
}
