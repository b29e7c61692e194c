//! The fetch handler: answers precached files and offline navigations.
//!
//! `respondWith` must be called synchronously during dispatch, so the decision
//! ([`crate::route`]) is made before anything is awaited. It reads the request's
//! serialized URL once instead of building a `URL` object per fetch.

use crate::route::{RequestFacts, Route, route};
use crate::{Worker, promise, scope};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{FetchEvent, Request, RequestMode};

#[wasm_bindgen]
extern "C" {
    /// `caches.match`'s options; web-sys types them without `cacheName`.
    #[wasm_bindgen(extends = js_sys::Object)]
    pub type InCache;
    #[wasm_bindgen(method, setter = cacheName)]
    fn set_cache_name(this: &InCache, name: &str);

    /// `caches.match(request, {cacheName})`: one lookup, one promise.
    #[wasm_bindgen(js_namespace = caches, js_name = "match")]
    fn match_in(request: &Request, options: &InCache) -> js_sys::Promise;
}

impl InCache {
    /// The options that look only in the cache named `name`.
    pub fn named(name: &str) -> Self {
        let options: InCache = js_sys::Object::new().unchecked_into();
        options.set_cache_name(name);
        options
    }
}

/// Answers `event` from the precache or the network, or leaves it to the browser.
pub fn fetch(worker: &Rc<Worker>, event: &FetchEvent) {
    let request = event.request();
    let (method, url) = (request.method(), request.url());
    let navigation = request.mode() == RequestMode::Navigate;
    let facts = RequestFacts::of(&method, &url, &worker.origin, navigation);
    let answer = match route(facts, |path| worker.is_precached(path)) {
        Route::Network => return,
        Route::NavigationNetworkFirst => promise(network_first(worker.clone(), request)),
        Route::Precached => promise(cache_first(worker.clone(), request)),
    };
    // Only throws if called twice or after dispatch; neither can happen here.
    let _ = event.respond_with(&answer);
}

/// How long a navigation waits for the network before the cached shell answers: a
/// hanging link (a flaky mobile network, a busy connection pool) must not leave the
/// player in front of a blank page (docs/service-worker.md).
const NAVIGATION_TIMEOUT_MS: i32 = 3_000;

async fn network_first(worker: Rc<Worker>, request: Request) -> Result<JsValue, JsValue> {
    let fetched = scope().fetch_with_request(&request);
    // Resolves with `undefined` when the time is up.
    let deadline = js_sys::Promise::new(&mut |resolve, _| {
        let _ = scope()
            .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, NAVIGATION_TIMEOUT_MS);
    });
    let first = js_sys::Promise::race(&js_sys::Array::of2(&fetched, &deadline));
    let outcome = JsFuture::from(first).await;
    if let Ok(response) = &outcome
        && !response.is_undefined()
    {
        return Ok(response.clone());
    }
    let shell = Request::new_with_str(&worker.config.shell())?;
    match (cached(&worker, &shell).await?, outcome) {
        (Some(shell), _) => Ok(shell),
        // Nothing cached yet (first visit): the network is all there is, however slow.
        (None, Ok(_)) => JsFuture::from(fetched).await,
        (None, Err(network_error)) => Err(network_error),
    }
}

async fn cache_first(worker: Rc<Worker>, request: Request) -> Result<JsValue, JsValue> {
    match cached(&worker, &request).await? {
        Some(response) => Ok(response),
        // Evicted or not yet installed: the network is the only other source.
        None => JsFuture::from(scope().fetch_with_request(&request)).await,
    }
}

/// This version's cached response for `request`, if its cache holds one.
pub async fn cached(worker: &Worker, request: &Request) -> Result<Option<JsValue>, JsValue> {
    let found = JsFuture::from(match_in(request, &worker.in_cache)).await?;
    Ok((!found.is_undefined()).then_some(found))
}
