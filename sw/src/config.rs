//! What `/sw.js` hands the worker: every name the build decided.
//!
//! The build step (`keydo-build`) writes these values into `/sw.js` and passes them
//! to the worker's handlers (`on_fetch`...), so the worker hard-codes no file name,
//! cache name or glue global (docs/service-worker.md lists them).

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    /// The object `/sw.js` passes to every handler.
    pub type WorkerConfig;

    /// `keydo-precache-<digest>`: this version's cache.
    #[wasm_bindgen(method, getter, js_name = cacheName)]
    pub fn cache_name(this: &WorkerConfig) -> String;

    /// What every version's cache name starts with; activate deletes the others.
    #[wasm_bindgen(method, getter, js_name = cachePrefix)]
    pub fn cache_prefix(this: &WorkerConfig) -> String;

    /// The precached URL paths, in ascending order.
    #[wasm_bindgen(method, getter)]
    pub fn urls(this: &WorkerConfig) -> js_sys::Array;

    /// The hex SHA-256 of each precached file, in the order of `urls`.
    #[wasm_bindgen(method, getter)]
    pub fn sha256(this: &WorkerConfig) -> js_sys::Array;

    /// The precached page a failed navigation falls back to.
    #[wasm_bindgen(method, getter)]
    pub fn shell(this: &WorkerConfig) -> String;

    /// The flush module's wasm, precached with the shell.
    #[wasm_bindgen(method, getter, js_name = flushWasm)]
    pub fn flush_wasm(this: &WorkerConfig) -> String;

    /// The flush module, its glue (carried in `/sw.js`) evaluated on the first call;
    /// throws if evaluating it does.
    #[wasm_bindgen(method, catch, js_name = flushModule)]
    pub fn flush_module(this: &WorkerConfig) -> Result<FlushModule, JsValue>;

    /// The flush module (`sw-flush`), as its wasm-bindgen `no-modules` glue exposes it:
    /// a function that instantiates the module once (later calls return the same promise).
    #[wasm_bindgen(extends = js_sys::Function)]
    pub type FlushModule;

    /// Delivers what is due; resolves to `{delivered, retryable, blocked, retryLater}`.
    #[wasm_bindgen(method)]
    pub fn flush(this: &FlushModule) -> js_sys::Promise;
}
