//! Install and activate: a verified, atomic precache, then retiring older versions.
//!
//! install fetches every precached URL (bypassing the HTTP cache) and checks each
//! response against the build's SHA-256 ([`crate::verify`]) before anything is
//! stored; only when all of them pass does the new cache get filled. Any failure
//! fails the install and leaves no new cache, so a version is all there, verified,
//! or absent, and the version before it keeps serving. activate deletes every other
//! version's cache and claims the open pages. Updates wait: the page asks the
//! waiting worker to take over (`SKIP_WAITING`) when the player agrees.

use crate::verify::fetch_verified;
use crate::{Worker, promise, scope, wait_until};
use js_sys::{Array, Promise, Reflect};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Cache, ExtendableEvent, ExtendableMessageEvent, Response};

pub fn install(worker: Rc<Worker>, event: &ExtendableEvent) {
    wait_until(event, async move { fill_cache(&worker).await });
}

pub fn activate(worker: Rc<Worker>, event: &ExtendableEvent) {
    wait_until(event, async move { retire_old_caches(&worker).await });
}

/// The page's `SKIP_WAITING`: the player agreed to the update.
pub fn message(event: &ExtendableMessageEvent) {
    let kind = Reflect::get(&event.data(), &"type".into()).ok();
    if kind.and_then(|k| k.as_string()).as_deref() == Some("SKIP_WAITING") {
        wait_until(event, async {
            JsFuture::from(scope().skip_waiting()?).await?;
            Ok(())
        });
    }
}

async fn fill_cache(worker: &Worker) -> Result<(), JsValue> {
    let (urls, hashes) = (worker.config.urls(), worker.config.sha256());
    if urls.length() != hashes.length() {
        return Err(JsValue::from_str("keydo: malformed precache list"));
    }
    // Every file is fetched and verified before the cache exists: a failure leaves none.
    let checks: Array = urls
        .iter()
        .zip(hashes.iter())
        .map(|(url, sha256)| {
            promise(async move {
                let (url, sha256) = (url.as_string(), sha256.as_string());
                let (Some(url), Some(sha256)) = (url, sha256) else {
                    return Err(JsValue::from_str("keydo: malformed precache list"));
                };
                fetch_verified(&url, &sha256).await.map(JsValue::from)
            })
        })
        .collect();
    let responses: Array = JsFuture::from(Promise::all(&checks))
        .await?
        .unchecked_into();
    let caches = scope().caches()?;
    let cache: Cache = JsFuture::from(caches.open(&worker.cache_name))
        .await?
        .unchecked_into();
    let puts: Array = urls
        .iter()
        .zip(responses.iter())
        .map(|(url, response)| {
            let url = url.as_string().unwrap_or_default();
            cache.put_with_str(&url, response.unchecked_ref::<Response>())
        })
        .collect();
    if let Err(error) = JsFuture::from(Promise::all(&puts)).await {
        // All or nothing: a half-filled cache must never become the active version.
        JsFuture::from(caches.delete(&worker.cache_name)).await?;
        return Err(error);
    }
    Ok(())
}

async fn retire_old_caches(worker: &Worker) -> Result<(), JsValue> {
    let caches = scope().caches()?;
    let prefix = worker.config.cache_prefix();
    let names: Array = JsFuture::from(caches.keys()).await?.unchecked_into();
    for name in names.iter().filter_map(|n| n.as_string()) {
        if name.starts_with(&prefix) && name != worker.cache_name {
            JsFuture::from(caches.delete(&name)).await?;
        }
    }
    JsFuture::from(scope().clients().claim()).await?;
    Ok(())
}
