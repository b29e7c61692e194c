//! Generates the service worker script, `/sw.js`.
//!
//! A service worker must register its listeners on its first synchronous run and
//! must start with no network, so the fetch module's wasm cannot be fetched
//! asynchronously. `/sw.js` is one script that imports nothing: the fetch module's
//! wasm-bindgen glue (`keydo_worker.js`), then its wasm (`keydo_worker_bg.wasm`) as a
//! base64 literal, instantiated synchronously, then one listener per event, each
//! calling its handler with every name the worker needs ([`WorkerConfig`]): the fetch
//! module's, or the lifecycle module's, which the listeners load on the first event
//! it handles (docs/service-worker.md, "Two modules"). Last come the lifecycle and
//! flush modules' glue, each inside a function declaration called on first use. One
//! script rather than `importScripts`: a browser hands every script a worker
//! imported at install to each start of it, used or not (docs/service-worker.md,
//! "The scripts install imports cost every start"). The glue files and the fetch
//! module's wasm stay in the output as what `/sw.js` is made from, so the step can
//! be re-run on a built `dist/`; nothing loads them, and the precache leaves them
//! out.

use crate::BuildError;
use crate::digest::CACHE_PREFIX;
use crate::manifest::{PrecacheManifest, read, write};
use crate::worker_files::{FLUSH, LIFECYCLE, SHELL, SW_JS, WORKER, WorkerModule};
use base64::Engine;
use serde::Serialize;
use std::path::Path;

const SW_TEMPLATE: &str = include_str!("sw.template.js");

/// The events the lifecycle module handles: for each, `/sw.js` adds a listener
/// calling its `on_<event>` export (`sw/src/bin/keydo_lifecycle.rs`). The fetch
/// module handles `fetch` (`on_fetch`, `sw/src/main.rs`).
const LIFECYCLE_EVENTS: [&str; 4] = ["install", "activate", "message", "sync"];

/// What `/sw.js` is made from, as [`crate::worker_modules`] wrote it: the fetch
/// module's glue and wasm, and the glue of the modules the worker loads on demand.
pub struct WorkerSources {
    glue: String,
    wasm: Vec<u8>,
    lifecycle_glue: String,
    flush_glue: String,
}

impl WorkerSources {
    /// Reads them from `out_dir`; fails, naming the missing file and what builds it,
    /// if one is not there. The on-demand modules' wasm is checked too: it is
    /// precached rather than embedded.
    pub fn read(out_dir: &Path) -> Result<Self, BuildError> {
        [WORKER, LIFECYCLE, FLUSH]
            .iter()
            .try_for_each(|module| check_module(out_dir, module))?;
        Ok(WorkerSources {
            glue: read_glue(&out_dir.join(&WORKER.glue_url()[1..]))?,
            wasm: read(&out_dir.join(&WORKER.wasm_url()[1..]))?,
            lifecycle_glue: read_glue(&out_dir.join(&LIFECYCLE.glue_url()[1..]))?,
            flush_glue: read_glue(&out_dir.join(&FLUSH.glue_url()[1..]))?,
        })
    }
}

fn check_module(out_dir: &Path, module: &WorkerModule) -> Result<(), BuildError> {
    for url in [module.glue_url(), module.wasm_url()] {
        if !out_dir.join(&url[1..]).is_file() {
            return Err(BuildError::MissingFile {
                url,
                referenced_by: format!(
                    "the service worker's {} module (keydo-precache --build-modules builds it)",
                    module.role
                ),
            });
        }
    }
    Ok(())
}

fn read_glue(path: &Path) -> Result<String, BuildError> {
    String::from_utf8(read(path)?).map_err(|_| BuildError::Invalid {
        path: path.display().to_string(),
        reason: "a worker module's glue is not UTF-8".into(),
    })
}

/// Everything the worker's Rust handlers are told; the field names are its contract
/// (`sw/src/config.rs`).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerConfig<'a> {
    pub cache_name: &'a str,
    pub cache_prefix: &'a str,
    pub shell: &'a str,
    /// Ascending, as in the manifest.
    pub urls: Vec<&'a str>,
    /// The hex SHA-256 of each of `urls`, in the same order.
    pub sha256: Vec<&'a str>,
    pub flush_wasm: String,
}

impl<'a> WorkerConfig<'a> {
    pub fn new(manifest: &'a PrecacheManifest) -> Self {
        WorkerConfig {
            cache_name: &manifest.cache_name,
            cache_prefix: CACHE_PREFIX,
            shell: SHELL,
            urls: manifest.files.iter().map(|f| f.url.as_str()).collect(),
            sha256: manifest.files.iter().map(|f| f.sha256.as_str()).collect(),
            flush_wasm: FLUSH.wasm_url(),
        }
    }
}

/// Writes `/sw.js` for `manifest`; its bytes change whenever the cache name does.
pub fn write_sw_js(
    out_dir: &Path,
    manifest: &PrecacheManifest,
    worker: &WorkerSources,
) -> Result<(), BuildError> {
    write(&out_dir.join(SW_JS), sw_js(manifest, worker).as_bytes())
}

fn sw_js(manifest: &PrecacheManifest, worker: &WorkerSources) -> String {
    let wasm = base64::engine::general_purpose::STANDARD.encode(&worker.wasm);
    fill(
        SW_TEMPLATE,
        &[
            ("__WORKER_GLUE__", worker.glue.trim_end()),
            ("__WORKER_WASM__", &wasm),
            ("__WORKER_GLOBAL__", WORKER.global),
            ("__CONFIG__", &json(&WorkerConfig::new(manifest))),
            ("__LIFECYCLE_WASM__", &json(&LIFECYCLE.wasm_url())),
            ("__LIFECYCLE_EVENTS__", &json(&LIFECYCLE_EVENTS)),
            ("__LIFECYCLE_GLUE__", worker.lifecycle_glue.trim_end()),
            ("__LIFECYCLE_GLOBAL__", LIFECYCLE.global),
            ("__FLUSH_GLUE__", worker.flush_glue.trim_end()),
            ("__FLUSH_GLOBAL__", FLUSH.global),
        ],
    )
}

/// `template` with each placeholder replaced by its value, in one pass: a value is
/// never searched again, so glue text that looks like a placeholder stays as it is.
fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut filled = String::with_capacity(template.len());
    let mut rest = template;
    while let Some((at, placeholder, value)) = values
        .iter()
        .filter_map(|&(placeholder, value)| Some((rest.find(placeholder)?, placeholder, value)))
        .min_by_key(|&(at, ..)| at)
    {
        filled.push_str(&rest[..at]);
        filled.push_str(value);
        rest = &rest[at + placeholder.len()..];
    }
    filled.push_str(rest);
    filled
}

/// `value` as JSON, which is also a JavaScript literal.
fn json(value: &impl Serialize) -> String {
    serde_json::to_string(value).expect("strings and lists serialise")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::PrecacheFile;

    fn manifest_named(name: &str) -> PrecacheManifest {
        PrecacheManifest {
            cache_name: name.into(),
            files: vec![PrecacheFile {
                url: "/index.html".into(),
                sha256: "00".into(),
                bytes: 1,
            }],
        }
    }

    fn sources() -> WorkerSources {
        WorkerSources {
            // As wasm-bindgen ends it: no semicolon.
            glue: "let keydo_worker = (() => ({}))()\n".into(),
            wasm: b"\0asm".to_vec(),
            lifecycle_glue: "let keydo_lifecycle = (() => ({}))()\n".into(),
            flush_glue: "let keydo_flush = (() => ({}))();".into(),
        }
    }

    /// The object literal `/sw.js` hands to the handlers, parsed.
    fn config_of(js: &str) -> serde_json::Value {
        let literal = js
            .lines()
            .find_map(|line| line.trim().strip_prefix("const config = "))
            .and_then(|rest| rest.strip_suffix(';'))
            .expect("sw.js declares the config on one line");
        serde_json::from_str(literal).expect("the config is JSON")
    }

    #[test]
    fn script_hands_the_worker_every_name() {
        let manifest = PrecacheManifest {
            cache_name: "keydo-precache-abc".into(),
            files: vec![
                PrecacheFile {
                    url: "/index.html".into(),
                    sha256: "aa".into(),
                    bytes: 1,
                },
                PrecacheFile {
                    url: "/keydo_flush_bg.wasm".into(),
                    sha256: "bb".into(),
                    bytes: 2,
                },
            ],
        };
        let js = sw_js(&manifest, &sources());
        assert!(!js.contains("__"), "every placeholder is filled: {js}");
        assert!(
            !js.contains("importScripts("),
            "one script, importing nothing: {js}"
        );
        assert!(
            js.contains("\nlet keydo_worker = (() => ({}))();\n(function () {"),
            "the glue first, ended: {js}"
        );
        assert!(js.contains(r#"const b64 = "AGFzbQ==";"#));
        assert!(js.contains("const worker = keydo_worker;"));
        assert!(js.contains("worker.initSync({ module: bytes });"));
        assert!(js.contains(
            r#"self.addEventListener("fetch", (event) => worker.on_fetch(event, config));"#
        ));
        assert!(js.contains("const glue = lifecycleGlue();"));
        assert!(js.contains(r#"const url = "/keydo_lifecycle_bg.wasm";"#));
        assert!(js.contains("await glue({ module_or_path: wasm });"));
        assert!(
            js.ends_with(
                "function lifecycleGlue() {\nlet keydo_lifecycle = (() => ({}))();\nreturn keydo_lifecycle;\n}\n\
                 // The flush module's glue; returns the function that instantiates it.\n\
                 function flushGlue() {\nlet keydo_flush = (() => ({}))();;\nreturn keydo_flush;\n}\n"
            ),
            "each on-demand glue last, inside a declaration returning its global: {js}"
        );
        assert!(js.contains(r#"for (const type of ["install","activate","message","sync"]) {"#));
        assert!(js.contains(
            "event.waitUntil(lifecycleModule().then((module) => module[`on_${type}`](event, config))),"
        ));
        assert!(js.contains("config.flushModule = () => (flush ??= flushGlue());"));
        assert_eq!(
            config_of(&js),
            serde_json::json!({
                "cacheName": "keydo-precache-abc",
                "cachePrefix": "keydo-precache-",
                "shell": "/index.html",
                "urls": ["/index.html", "/keydo_flush_bg.wasm"],
                "sha256": ["aa", "bb"],
                "flushWasm": "/keydo_flush_bg.wasm",
            })
        );
        assert_ne!(js, sw_js(&manifest_named("keydo-precache-abd"), &sources()));
    }

    #[test]
    fn the_worker_reads_exactly_the_fields_the_build_writes() {
        // The worker's side of the contract: the getters of `WorkerConfig` in sw/.
        let worker_side = include_str!("../../sw/src/config.rs");
        let mut read: Vec<String> = Vec::new();
        let mut js_name = None;
        for line in worker_side.lines().map(str::trim) {
            if line.starts_with("#[wasm_bindgen(method") {
                js_name = line
                    .split_once("js_name = ")
                    .map(|(_, rest)| rest.trim_end_matches(")]").to_owned());
            } else if let Some((name, rest)) = line
                .strip_prefix("pub fn ")
                .and_then(|signature| signature.split_once('('))
                && rest.starts_with("this: &WorkerConfig")
            {
                read.push(js_name.take().unwrap_or_else(|| name.to_owned()));
            }
        }
        let config = config_of(&sw_js(&manifest_named("keydo-precache-abc"), &sources()));
        let mut written: Vec<String> = config.as_object().unwrap().keys().cloned().collect();
        written.push("flushModule".into());
        read.sort();
        written.sort();
        assert_eq!(read, written);
    }

    /// The `on_<event>` functions a module's source exports, sorted.
    fn handlers_in(source: &str) -> Vec<&str> {
        let mut handlers: Vec<&str> = source
            .lines()
            .filter_map(|line| line.strip_prefix("pub fn on_"))
            .filter_map(|rest| rest.split_once('(').map(|(event, _)| event))
            .collect();
        handlers.sort();
        handlers
    }

    #[test]
    fn every_event_has_a_modules_handler_and_every_handler_its_event() {
        assert_eq!(handlers_in(include_str!("../../sw/src/main.rs")), ["fetch"]);
        let mut events = LIFECYCLE_EVENTS.to_vec();
        events.sort();
        assert_eq!(
            handlers_in(include_str!("../../sw/src/bin/keydo_lifecycle.rs")),
            events
        );
    }

    #[test]
    fn a_glue_that_looks_like_a_placeholder_is_left_as_it_is() {
        let worker = WorkerSources {
            glue: "const s = '__CONFIG__ __WORKER_WASM__';".into(),
            lifecycle_glue: "const t = '__FLUSH_GLUE__';".into(),
            ..sources()
        };
        let js = sw_js(&manifest_named("keydo-precache-abc"), &worker);
        assert!(
            js.contains("const s = '__CONFIG__ __WORKER_WASM__';"),
            "{js}"
        );
        assert!(js.contains("const t = '__FLUSH_GLUE__';"), "{js}");
        assert!(js.contains("let keydo_flush"), "{js}");
    }

    #[test]
    fn a_missing_on_demand_module_fails_with_a_clear_message() {
        let dir = tempfile::tempdir().unwrap();
        for name in ["keydo_worker.js", "keydo_worker_bg.wasm"] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let err = read_error(dir.path());
        assert!(err.contains("/keydo_lifecycle.js"), "{err}");
        assert!(err.contains("lifecycle module"), "{err}");
        for name in [
            "keydo_lifecycle.js",
            "keydo_lifecycle_bg.wasm",
            "keydo_flush.js",
        ] {
            std::fs::write(dir.path().join(name), "").unwrap();
        }
        let err = read_error(dir.path());
        assert!(err.contains("/keydo_flush_bg.wasm"), "{err}");
        assert!(err.contains("flush module"), "{err}");
        assert!(err.contains("--build-modules"), "{err}");
        std::fs::write(dir.path().join("keydo_flush_bg.wasm"), b"\0asm").unwrap();
        WorkerSources::read(dir.path()).unwrap();
    }

    fn read_error(out_dir: &Path) -> String {
        match WorkerSources::read(out_dir) {
            Ok(_) => panic!("read a worker with a module missing"),
            Err(err) => err.to_string(),
        }
    }

    #[test]
    fn a_missing_worker_fails_with_a_clear_message() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keydo_worker.js"), "let keydo_worker;").unwrap();
        let err = read_error(dir.path());
        assert!(err.contains("/keydo_worker_bg.wasm"), "{err}");
        assert!(err.contains("fetch module"), "{err}");
    }
}
