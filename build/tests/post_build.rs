//! The whole post-build step on a small output tree shaped like Trunk's.

use keydo_build::digest::sha256_hex;
use std::fs;
use std::path::Path;

const INDEX: &str = r#"<!doctype html><link rel="manifest" href="/manifest.webmanifest">
<link rel="icon" href="/icons/icon-192.png"><link rel="stylesheet" href="/style-0123456789abcdef.css">"#;
const WEB_MANIFEST: &str =
    r#"{"icons": [{"src": "/icons/icon-192.png"}, {"src": "/icons/icon-512.png"}]}"#;

fn trunk_output(dir: &Path) {
    for (name, bytes) in [
        ("index.html", INDEX.as_bytes()),
        ("manifest.webmanifest", WEB_MANIFEST.as_bytes()),
        ("icons/icon-192.png", b"png192"),
        ("icons/icon-512.png", b"png512"),
        ("style-0123456789abcdef.css", b"body{}"),
        ("keydo_worker.js", b"let wasm_bindgen;"),
        ("keydo_worker_bg.wasm", b"\0asm\x01\0\0\0"),
        (
            "keydo_lifecycle.js",
            b"let keydo_lifecycle = (function(exports) {})({})",
        ),
        ("keydo_lifecycle_bg.wasm", b"\0asm\x01\0\0\x02"),
        (
            "keydo_flush.js",
            b"let keydo_flush = (function(exports) {})({});",
        ),
        ("keydo_flush_bg.wasm", b"\0asm\x01\0\0\0"),
    ] {
        let path = dir.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }
}

#[test]
fn writes_manifest_and_worker_scripts() {
    let dir = tempfile::tempdir().unwrap();
    trunk_output(dir.path());
    let manifest = keydo_build::run(dir.path()).unwrap();

    let urls: Vec<_> = manifest.files.iter().map(|f| f.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "/icons/icon-192.png",
            "/icons/icon-512.png",
            "/index.html",
            "/keydo_flush_bg.wasm",
            "/keydo_lifecycle_bg.wasm",
            "/manifest.webmanifest",
            "/style-0123456789abcdef.css"
        ]
    );
    let lines: String = manifest
        .files
        .iter()
        .map(|f| format!("{} {}\n", f.url, f.sha256))
        .collect();
    assert_eq!(
        manifest.cache_name,
        format!("keydo-precache-{}", sha256_hex(lines.as_bytes()))
    );
    let sw = fs::read_to_string(dir.path().join("sw.js")).unwrap();
    assert!(sw.contains(&manifest.cache_name));
    // One script importing nothing: the fetch module's glue, then its wasm's bytes;
    // the on-demand modules' glue last, each inside a declaration.
    assert!(sw.contains("let wasm_bindgen;;\n(function () {"), "{sw}");
    assert!(sw.contains("const b64 = \"AGFzbQEAAAA=\";"), "{sw}");
    assert!(!sw.contains("importScripts("), "{sw}");
    assert!(
        sw.contains("function lifecycleGlue() {\nlet keydo_lifecycle = (function(exports) {})({});\nreturn keydo_lifecycle;\n}"),
        "{sw}"
    );
    assert!(
        sw.contains("function flushGlue() {\nlet keydo_flush = (function(exports) {})({});;\nreturn keydo_flush;\n}"),
        "{sw}"
    );
    for file in &manifest.files {
        assert!(
            sw.contains(&format!("{:?}", file.sha256)),
            "{} is verified",
            file.url
        );
    }
    assert!(dir.path().join("precache-manifest.json").is_file());
    // What sw.js is made from stays, as it was, so the step can run again on this output.
    let glue = fs::read_to_string(dir.path().join("keydo_flush.js")).unwrap();
    assert_eq!(glue, "let keydo_flush = (function(exports) {})({});");
    assert!(dir.path().join("keydo_worker_bg.wasm").is_file());
}

#[test]
fn same_input_same_name_and_a_changed_byte_changes_sw_js() {
    let first = tempfile::tempdir().unwrap();
    let second = tempfile::tempdir().unwrap();
    trunk_output(first.path());
    trunk_output(second.path());
    let a = keydo_build::run(first.path()).unwrap();
    let b = keydo_build::run(second.path()).unwrap();
    assert_eq!(a.cache_name, b.cache_name);
    let sw_before = fs::read(second.path().join("sw.js")).unwrap();

    fs::write(second.path().join("icons/icon-512.png"), b"png513").unwrap();
    let c = keydo_build::run(second.path()).unwrap();
    assert_ne!(a.cache_name, c.cache_name);
    assert_ne!(sw_before, fs::read(second.path().join("sw.js")).unwrap());
}

#[test]
fn a_changed_on_demand_glue_changes_sw_js_so_the_browser_sees_an_update() {
    // Not precached and no longer imported: sw.js's bytes are what the browser compares.
    let dir = tempfile::tempdir().unwrap();
    trunk_output(dir.path());
    let before = keydo_build::run(dir.path()).unwrap();
    let sw_before = fs::read(dir.path().join("sw.js")).unwrap();
    fs::write(
        dir.path().join("keydo_flush.js"),
        "let keydo_flush = (function(exports) { exports.v = 2; })({});",
    )
    .unwrap();
    let after = keydo_build::run(dir.path()).unwrap();
    assert_eq!(before.cache_name, after.cache_name);
    assert_ne!(sw_before, fs::read(dir.path().join("sw.js")).unwrap());
}

#[test]
fn a_referenced_file_that_is_missing_fails_the_build() {
    let dir = tempfile::tempdir().unwrap();
    trunk_output(dir.path());
    fs::remove_file(dir.path().join("icons/icon-512.png")).unwrap();
    let error = keydo_build::run(dir.path()).unwrap_err().to_string();
    assert!(
        error.contains("/manifest.webmanifest lists /icons/icon-512.png"),
        "{error}"
    );
    assert!(
        !dir.path().join("sw.js").exists(),
        "no worker for a broken shell"
    );
}
