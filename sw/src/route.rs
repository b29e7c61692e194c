//! Which requests the service worker answers, and how (docs/service-worker.md).
//!
//! Pure, so the rule is tested natively: only same-origin GETs are touched; `/api`
//! is always left to the network (a stale leaderboard is worse than none);
//! navigations go to the network first and fall back to the cached shell;
//! precached files come from the cache.

/// What the fetch handler does with a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// No `respondWith`: the browser fetches it as if there were no worker.
    Network,
    /// Network first; when it fails, the cached `/index.html`.
    NavigationNetworkFirst,
    /// From the precache (falling back to the network if the entry is gone).
    Precached,
}

/// The request facts the decision needs.
#[derive(Debug, Clone, Copy)]
pub struct RequestFacts<'a> {
    pub method: &'a str,
    pub same_origin: bool,
    pub path: &'a str,
    pub has_query: bool,
    pub is_navigation: bool,
}

impl<'a> RequestFacts<'a> {
    /// The facts of a request for the absolute, serialized `url` (as `Request.url`
    /// gives it), seen by a worker at `origin` (e.g. `http://127.0.0.1:8080`).
    ///
    /// Cheaper than a `URL` object per fetch: a serialized http(s) URL is its origin,
    /// then the path, then `?query`, then `#fragment`.
    pub fn of(method: &'a str, url: &'a str, origin: &str, is_navigation: bool) -> Self {
        let local = url
            .strip_prefix(origin)
            .filter(|rest| rest.starts_with('/'));
        let rest = local.unwrap_or_default();
        let (before_fragment, _) = rest.split_once('#').unwrap_or((rest, ""));
        let (path, query) = before_fragment
            .split_once('?')
            .unwrap_or((before_fragment, ""));
        RequestFacts {
            method,
            same_origin: local.is_some(),
            path,
            has_query: !query.is_empty(),
            is_navigation,
        }
    }
}

/// Decides the route; `is_precached` is asked only about same-origin GET paths.
pub fn route(request: RequestFacts<'_>, is_precached: impl FnOnce(&str) -> bool) -> Route {
    if request.method != "GET" || !request.same_origin || is_api(request.path) {
        Route::Network
    } else if request.is_navigation {
        Route::NavigationNetworkFirst
    } else if !request.has_query && is_precached(request.path) {
        Route::Precached
    } else {
        Route::Network
    }
}

/// `/api` and everything below it; `/apiary` is not the API.
fn is_api(path: &str) -> bool {
    path == "/api" || path.starts_with("/api/")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get(path: &str) -> RequestFacts<'_> {
        RequestFacts {
            method: "GET",
            same_origin: true,
            path,
            has_query: false,
            is_navigation: false,
        }
    }

    fn precached(path: &str) -> bool {
        matches!(path, "/index.html" | "/app.wasm" | "/api/cached-by-mistake")
    }

    #[test]
    fn precached_files_come_from_the_cache() {
        assert_eq!(route(get("/app.wasm"), precached), Route::Precached);
        assert_eq!(route(get("/other.js"), precached), Route::Network);
    }

    #[test]
    fn the_api_is_never_answered_by_the_worker() {
        for path in ["/api", "/api/", "/api/health", "/api/cached-by-mistake"] {
            assert_eq!(route(get(path), precached), Route::Network, "{path}");
            let navigation = RequestFacts {
                is_navigation: true,
                ..get(path)
            };
            assert_eq!(route(navigation, precached), Route::Network, "{path}");
        }
        assert_eq!(
            route(
                RequestFacts {
                    is_navigation: true,
                    ..get("/apiary")
                },
                precached
            ),
            Route::NavigationNetworkFirst
        );
    }

    #[test]
    fn navigations_go_network_first() {
        let nav = RequestFacts {
            is_navigation: true,
            ..get("/")
        };
        assert_eq!(route(nav, precached), Route::NavigationNetworkFirst);
        let nav_query = RequestFacts {
            has_query: true,
            ..nav
        };
        assert_eq!(route(nav_query, precached), Route::NavigationNetworkFirst);
    }

    #[test]
    fn facts_come_from_the_serialized_url() {
        let origin = "http://127.0.0.1:8080";
        let facts = RequestFacts::of("GET", "http://127.0.0.1:8080/app.wasm", origin, false);
        assert!(facts.same_origin && !facts.has_query && !facts.is_navigation);
        assert_eq!(facts.path, "/app.wasm");

        let facts = RequestFacts::of("GET", "http://127.0.0.1:8080/a?b=1#c?d", origin, true);
        assert!(facts.same_origin && facts.has_query && facts.is_navigation);
        assert_eq!(facts.path, "/a");

        let facts = RequestFacts::of("GET", "http://127.0.0.1:8080/a#x?y", origin, false);
        assert_eq!((facts.path, facts.has_query), ("/a", false));
        // `URL.search` is empty for a bare `?`, and so is the query here.
        let facts = RequestFacts::of("GET", "http://127.0.0.1:8080/a?", origin, false);
        assert_eq!((facts.path, facts.has_query), ("/a", false));
    }

    #[test]
    fn other_origins_are_not_mistaken_for_ours() {
        let origin = "http://127.0.0.1:8080";
        for url in [
            "http://127.0.0.1:80800/app.wasm",
            "http://127.0.0.1:8080.evil.example/app.wasm",
            "https://127.0.0.1:8080/app.wasm",
            "http://example.com/http://127.0.0.1:8080/app.wasm",
        ] {
            let facts = RequestFacts::of("GET", url, origin, false);
            assert!(!facts.same_origin, "{url}");
            assert_eq!(route(facts, precached), Route::Network, "{url}");
        }
    }

    #[test]
    fn other_methods_origins_and_queries_pass_through() {
        let post = RequestFacts {
            method: "POST",
            ..get("/app.wasm")
        };
        assert_eq!(route(post, precached), Route::Network);
        let foreign = RequestFacts {
            same_origin: false,
            ..get("/app.wasm")
        };
        assert_eq!(route(foreign, precached), Route::Network);
        let query = RequestFacts {
            has_query: true,
            ..get("/app.wasm")
        };
        assert_eq!(route(query, precached), Route::Network);
    }
}
