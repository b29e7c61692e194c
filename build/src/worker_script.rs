//! Generates the service worker scripts: `/sw.js` and the wasm it runs.
//!
//! A service worker must register its listeners on its first synchronous run and
//! must start with no network, so the worker's wasm cannot be fetched
//! asynchronously. Instead its bytes are embedded (base64) in
//! `keydo_worker_wasm.js`; `/sw.js` `importScripts` the wasm-bindgen glue and those
//! bytes, instantiates them synchronously and hands Rust the cache name and the
//! precache list. Imported scripts are stored with the registration, so they load
//! offline, and the browser byte-compares them on every update check.

use crate::BuildError;
use crate::manifest::{PrecacheManifest, read, write};
use base64::Engine;
use std::path::Path;

/// The worker crate's binary name; Trunk writes `<name>.js` and `<name>_bg.wasm`.
const WORKER: &str = "keydo_worker";
/// The flush module's glue, loaded by `/sw.js` beside the worker's own.
const FLUSH_GLUE: &str = "keydo_flush.js";
/// How wasm-bindgen's `no-modules` glue declares its global (`=` follows, with or
/// without spaces: Trunk minifies release builds).
const GLUE_GLOBAL: &str = "let wasm_bindgen";
/// The global the flush module's glue gets instead, so the two glues can coexist.
const FLUSH_GLOBAL: &str = "var keydo_flush = ";
const SW_TEMPLATE: &str = include_str!("sw.template.js");

/// Replaces `keydo_worker_bg.wasm` with `keydo_worker_wasm.js` holding its bytes.
///
/// On an output that was already processed (the wasm is gone, its script is there)
/// this does nothing, so the step can be re-run on a built `dist/`.
pub fn embed_worker_wasm(out_dir: &Path) -> Result<(), BuildError> {
    let wasm_path = out_dir.join(format!("{WORKER}_bg.wasm"));
    let script_path = out_dir.join(format!("{WORKER}_wasm.js"));
    if !wasm_path.exists() && script_path.is_file() {
        return Ok(());
    }
    if !out_dir.join(format!("{WORKER}.js")).is_file() || !wasm_path.is_file() {
        return Err(BuildError::MissingFile {
            url: format!("/{WORKER}.js and /{WORKER}_bg.wasm"),
            referenced_by: "the service worker (Trunk's data-type=\"worker\" link)".into(),
        });
    }
    let wasm = read(&wasm_path)?;
    let base64 = base64::engine::general_purpose::STANDARD.encode(&wasm);
    let script = format!("self.KEYDO_WORKER_WASM = \"{base64}\";\n");
    write(&script_path, script.as_bytes())?;
    std::fs::remove_file(&wasm_path).map_err(|source| BuildError::Io {
        path: wasm_path.display().to_string(),
        source,
    })
}

/// Renames the flush module glue's global from `wasm_bindgen` to `keydo_flush`.
///
/// Both glues are classic scripts imported into one worker, where two
/// `let wasm_bindgen` would collide; the worker finds the flush module as
/// `self.keydo_flush`. Already renamed output is left as it is.
pub fn expose_flush_glue(out_dir: &Path) -> Result<(), BuildError> {
    let path = out_dir.join(FLUSH_GLUE);
    if !path.is_file() {
        return Err(BuildError::MissingFile {
            url: format!("/{FLUSH_GLUE}"),
            referenced_by: "the service worker (the keydo_flush worker link)".into(),
        });
    }
    let glue = String::from_utf8(read(&path)?).map_err(|_| BuildError::Invalid {
        path: FLUSH_GLUE.into(),
        reason: "not valid UTF-8".into(),
    })?;
    if glue.starts_with(FLUSH_GLOBAL) {
        return Ok(());
    }
    let body = glue
        .strip_prefix(GLUE_GLOBAL)
        .and_then(|rest| rest.trim_start().strip_prefix('='));
    let Some(body) = body else {
        return Err(BuildError::Invalid {
            path: FLUSH_GLUE.into(),
            reason: format!(
                "expected wasm-bindgen's no-modules glue starting with `{GLUE_GLOBAL} =`; \
                 was it built with data-bindgen-target=\"no-modules\"?"
            ),
        });
    };
    write(
        &path,
        format!("{FLUSH_GLOBAL}{}", body.trim_start()).as_bytes(),
    )
}

/// Writes `/sw.js` for `manifest`; its bytes change whenever the cache name does.
pub fn write_sw_js(out_dir: &Path, manifest: &PrecacheManifest) -> Result<(), BuildError> {
    write(&out_dir.join("sw.js"), sw_js(manifest).as_bytes())
}

fn sw_js(manifest: &PrecacheManifest) -> String {
    let urls: Vec<&str> = manifest.files.iter().map(|f| f.url.as_str()).collect();
    SW_TEMPLATE
        .replace(
            "__CACHE_NAME__",
            &serde_json::to_string(&manifest.cache_name).unwrap(),
        )
        .replace("__PRECACHE_URLS__", &serde_json::to_string(&urls).unwrap())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::PrecacheFile;

    fn manifest(name: &str) -> PrecacheManifest {
        PrecacheManifest {
            cache_name: name.into(),
            files: vec![PrecacheFile {
                url: "/index.html".into(),
                sha256: "00".into(),
                bytes: 1,
            }],
        }
    }

    #[test]
    fn script_embeds_the_cache_name_and_urls() {
        let js = sw_js(&manifest("keydo-precache-abc"));
        assert!(js.contains(r#""keydo-precache-abc""#));
        assert!(js.contains(r#"["/index.html"]"#));
        assert!(!js.contains("__"), "every placeholder is filled: {js}");
        assert_ne!(js, sw_js(&manifest("keydo-precache-abd")));
    }

    #[test]
    fn embedding_replaces_the_wasm_with_its_base64() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("keydo_worker.js"), "glue").unwrap();
        std::fs::write(dir.path().join("keydo_worker_bg.wasm"), b"\0asm").unwrap();
        embed_worker_wasm(dir.path()).unwrap();
        let script = std::fs::read_to_string(dir.path().join("keydo_worker_wasm.js")).unwrap();
        assert_eq!(script, "self.KEYDO_WORKER_WASM = \"AGFzbQ==\";\n");
        assert!(!dir.path().join("keydo_worker_bg.wasm").exists());
        // Re-running on the processed output keeps the embedded bytes.
        embed_worker_wasm(dir.path()).unwrap();
        let again = std::fs::read_to_string(dir.path().join("keydo_worker_wasm.js")).unwrap();
        assert_eq!(again, script);
    }

    #[test]
    fn the_flush_glue_gets_its_own_global_once() {
        let dir = tempfile::tempdir().unwrap();
        let glue = dir.path().join("keydo_flush.js");
        std::fs::write(&glue, "let wasm_bindgen = (function(exports) {})({});").unwrap();
        expose_flush_glue(dir.path()).unwrap();
        expose_flush_glue(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&glue).unwrap(),
            "var keydo_flush = (function(exports) {})({});"
        );
        std::fs::write(&glue, "let wasm_bindgen=(a=>{})({});").unwrap();
        expose_flush_glue(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(&glue).unwrap(),
            "var keydo_flush = (a=>{})({});",
            "minified glue"
        );
        std::fs::write(&glue, "export default function init() {}").unwrap();
        let err = expose_flush_glue(dir.path()).unwrap_err().to_string();
        assert!(err.contains("no-modules"), "{err}");
    }

    #[test]
    fn a_missing_worker_fails_with_a_clear_message() {
        let dir = tempfile::tempdir().unwrap();
        let err = embed_worker_wasm(dir.path()).unwrap_err().to_string();
        assert!(err.contains("keydo_worker_bg.wasm"), "{err}");
    }
}
