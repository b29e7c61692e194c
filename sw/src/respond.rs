//! The fetch handler: answers precached files and offline navigations.
//!
//! `respondWith` must be called synchronously during dispatch, so the decision
//! ([`crate::route`]) is made before anything is awaited.

use crate::route::{RequestFacts, Route, route};
use crate::{Precache, on, scope};
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{JsFuture, future_to_promise};
use web_sys::{Cache, FetchEvent, Request, RequestMode, Response, Url};

/// The cached page a failed navigation falls back to.
const SHELL: &str = "/index.html";

pub fn listen(precache: Rc<Precache>) {
    on("fetch", move |event: FetchEvent| {
        let request = event.request();
        let Ok(url) = Url::new(&request.url()) else {
            return;
        };
        let method = request.method();
        let path = url.pathname();
        let facts = RequestFacts {
            method: &method,
            same_origin: url.origin() == scope().location().origin(),
            path: &path,
            has_query: !url.search().is_empty(),
            is_navigation: request.mode() == RequestMode::Navigate,
        };
        let answer = match route(facts, |path| precache.contains(path)) {
            Route::Network => return,
            Route::NavigationNetworkFirst => {
                future_to_promise(network_first(precache.clone(), request))
            }
            Route::Precached => future_to_promise(cache_first(precache.clone(), request)),
        };
        // Only throws if called twice or after dispatch; neither can happen here.
        let _ = event.respond_with(&answer);
    });
}

async fn network_first(precache: Rc<Precache>, request: Request) -> Result<JsValue, JsValue> {
    match JsFuture::from(scope().fetch_with_request(&request)).await {
        Ok(response) => Ok(response),
        Err(network_error) => match cached(&precache, &Request::new_with_str(SHELL)?).await? {
            Some(shell) => Ok(shell.into()),
            None => Err(network_error),
        },
    }
}

async fn cache_first(precache: Rc<Precache>, request: Request) -> Result<JsValue, JsValue> {
    match cached(&precache, &request).await? {
        Some(response) => Ok(response.into()),
        // Evicted or not yet installed: the network is the only other source.
        None => JsFuture::from(scope().fetch_with_request(&request)).await,
    }
}

/// The precached response for `request`, if the cache holds one.
pub async fn cached(precache: &Precache, request: &Request) -> Result<Option<Response>, JsValue> {
    let caches = scope().caches()?;
    let cache: Cache = JsFuture::from(caches.open(&precache.cache_name))
        .await?
        .unchecked_into();
    let found = JsFuture::from(cache.match_with_request(request)).await?;
    Ok(found.dyn_into::<Response>().ok())
}
