//! The service worker's files and the names they share, decided here only.
//!
//! `/sw.js` is generated from these and hands every name the worker needs to its
//! Rust `start` (see [`crate::worker_script`]), so the worker crates hard-code none;
//! the precache leaves the worker's own scripts out ([`is_worker_file`]).

use crate::manifest::MANIFEST_FILE;

/// The service worker script the page registers: the fetch module ([`WORKER`]) and
/// the listeners.
pub const SW_JS: &str = "sw.js";

/// The page a failed navigation falls back to.
pub const SHELL: &str = "/index.html";

/// A wasm-bindgen module of the worker: a `no-modules` glue script defining a
/// global, and its wasm.
#[derive(Debug, Clone, Copy)]
pub struct WorkerModule {
    /// The cargo package.
    pub package: &'static str,
    /// The package's binary; the output is `<bin>.js` and `<bin>_bg.wasm`.
    pub bin: &'static str,
    /// The global the glue defines.
    pub global: &'static str,
    /// What it does for the worker, as an error message names it.
    pub role: &'static str,
}

impl WorkerModule {
    /// The glue script's URL path.
    pub fn glue_url(&self) -> String {
        format!("/{}.js", self.bin)
    }

    /// The wasm's URL path.
    pub fn wasm_url(&self) -> String {
        format!("/{}_bg.wasm", self.bin)
    }
}

/// The worker's fetch handler (`sw/`), instantiated at every start; built by
/// [`crate::worker_modules`], its glue and wasm carried inside `/sw.js`.
pub const WORKER: WorkerModule = WorkerModule {
    package: "keydo-sw",
    bin: "keydo_worker",
    global: "keydo_worker",
    role: "fetch",
};

/// The worker's install, activate, message and sync handlers (`sw/`), loaded on
/// the first of those events (its wasm from the precache, once install has filled
/// it); built by [`crate::worker_modules`] so its glue gets a global of its own.
pub const LIFECYCLE: WorkerModule = WorkerModule {
    package: "keydo-sw",
    bin: "keydo_lifecycle",
    global: "keydo_lifecycle",
    role: "lifecycle",
};

/// The outbox flush (`sw-flush/`), loaded only for Background Sync; built by
/// [`crate::worker_modules`] so its glue gets a global of its own.
pub const FLUSH: WorkerModule = WorkerModule {
    package: "keydo-sw-flush",
    bin: "keydo_flush",
    global: "keydo_flush",
    role: "flush",
};

/// Output files that belong to the service worker itself and are never precached:
/// its script, which the browser stores with the registration, what that script is
/// made from (the modules' glue and the fetch module's wasm), and the precache
/// manifest. The lifecycle and flush modules' wasm are ordinary precached files,
/// loaded from the cache when needed.
pub fn is_worker_file(url: &str) -> bool {
    let Some(name) = url.strip_prefix('/') else {
        return false;
    };
    name == SW_JS
        || name == MANIFEST_FILE
        || url == LIFECYCLE.glue_url()
        || url == FLUSH.glue_url()
        || name.starts_with(WORKER.bin)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workers_scripts_are_its_own_and_the_on_demand_wasm_is_precached() {
        for url in [
            "/sw.js",
            "/precache-manifest.json",
            "/keydo_worker.js",
            "/keydo_worker_bg.wasm",
            "/keydo_lifecycle.js",
            "/keydo_flush.js",
        ] {
            assert!(is_worker_file(url), "{url}");
        }
        for url in [
            "/keydo_lifecycle_bg.wasm",
            "/keydo_flush_bg.wasm",
            "/index.html",
            "/texts/sw.js",
            "sw.js",
        ] {
            assert!(!is_worker_file(url), "{url}");
        }
    }

    #[test]
    fn module_urls_follow_wasm_bindgen_naming() {
        assert_eq!(FLUSH.glue_url(), "/keydo_flush.js");
        assert_eq!(FLUSH.wasm_url(), "/keydo_flush_bg.wasm");
        assert_eq!(WORKER.glue_url(), "/keydo_worker.js");
        assert_eq!(WORKER.wasm_url(), "/keydo_worker_bg.wasm");
        assert_eq!(LIFECYCLE.glue_url(), "/keydo_lifecycle.js");
        assert_eq!(LIFECYCLE.wasm_url(), "/keydo_lifecycle_bg.wasm");
    }
}
