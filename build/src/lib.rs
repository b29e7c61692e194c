//! The post-build step that makes the built shell work offline.
//!
//! After Trunk writes its output, [`worker_modules::build`] adds the service worker's
//! three modules, and [`run`] scans the output, writes
//! `precache-manifest.json` (every file the game needs offline, with its SHA-256) and
//! generates the service worker script `sw.js`, whose bytes embed the content digest
//! so that browsers see an update whenever any precached byte changes.
//! [`worker_files`] names the worker's files; `sw.js` hands those names to the
//! worker. Last, [`precompress::write_all`] writes brotli and gzip copies for the
//! server to send.

pub mod app_module;
pub mod digest;
pub mod manifest;
pub mod precompress;
pub mod references;
pub mod tools;
pub mod worker_files;
pub mod worker_modules;
pub mod worker_script;

use std::path::Path;

pub use manifest::PrecacheManifest;

/// Everything the post-build step can fail on, each with a message that names the file.
#[derive(Debug)]
pub enum BuildError {
    /// Reading or writing a file in the output failed.
    Io {
        path: String,
        source: std::io::Error,
    },
    /// A file that the shell references is not in the output.
    MissingFile { url: String, referenced_by: String },
    /// A file in the output could not be understood.
    Invalid { path: String, reason: String },
    /// A build tool (cargo, wasm-bindgen, wasm-opt) could not run or failed.
    Tool { tool: String, reason: String },
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuildError::Io { path, source } => write!(f, "{path}: {source}"),
            BuildError::MissingFile { url, referenced_by } => write!(
                f,
                "{referenced_by} lists {url}, but the build output has no such file; \
                 the offline shell would be incomplete"
            ),
            BuildError::Invalid { path, reason } => write!(f, "{path}: {reason}"),
            BuildError::Tool { tool, reason } => write!(f, "{tool} failed: {reason}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// Scans `out_dir`, writes the precache manifest and the service worker scripts there.
pub fn run(out_dir: &Path) -> Result<PrecacheManifest, BuildError> {
    let worker = worker_script::WorkerSources::read(out_dir)?;
    let manifest = PrecacheManifest::scan(out_dir)?;
    references::check_all_present(out_dir, &manifest)?;
    manifest.write(out_dir)?;
    worker_script::write_sw_js(out_dir, &manifest, &worker)?;
    precompress::write_all(out_dir)?;
    Ok(manifest)
}
