//! The build tools the post-build step runs for the browser's modules: cargo for
//! wasm32, and in release builds wasm-opt for the wasm and terser for the page's JS
//! glue. wasm-bindgen's arguments differ by module and stay with each module's build.

use crate::BuildError;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Which of Trunk's builds this is (`TRUNK_PROFILE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    Debug,
    Release,
}

impl Profile {
    /// From Trunk's `TRUNK_PROFILE` value.
    pub fn from_trunk(value: &str) -> Option<Profile> {
        match value {
            "debug" => Some(Profile::Debug),
            "release" => Some(Profile::Release),
            _ => None,
        }
    }

    /// The cargo profile the browser's modules build with in this mode.
    pub(crate) fn cargo_profile(self) -> &'static str {
        match self {
            Profile::Debug => "dev",
            Profile::Release => "wasm-release",
        }
    }
}

/// wasm-opt's settings for release builds, as on index.html's worker link.
const WASM_OPT_ARGS: [&str; 3] = ["-Oz", "--strip-debug", "--strip-producers"];

/// Builds `package`'s binary `bin` for wasm32 and returns the path of its `.wasm`.
pub(crate) fn cargo_build(
    package: &str,
    bin: &str,
    profile: Profile,
) -> Result<PathBuf, BuildError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .args(["build", "--target", "wasm32-unknown-unknown", "--offline"])
        .args(["--profile", profile.cargo_profile()])
        .args(["-p", package, "--bin", bin])
        .args(source_path_remaps(profile))
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| tool_error("cargo", e.to_string()))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut wasm = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| tool_error("cargo", e.to_string()))?;
        wasm = wasm.or_else(|| artifact_wasm(&line, bin));
    }
    let status = child
        .wait()
        .map_err(|e| tool_error("cargo", e.to_string()))?;
    if !status.success() {
        return Err(tool_error("cargo", format!("building {package} {status}")));
    }
    wasm.ok_or_else(|| tool_error("cargo", format!("reported no wasm for {bin}")))
}

/// In release builds, `--config` for rustc to write the registry's sources into
/// panic locations as `crate-version/src/file.rs`, without the directories of the
/// machine that built them (docs/performance.md, "What loads first"). Only
/// the release profile: the dev one is shared with `cargo test`, which would rebuild
/// everything whenever the two disagree. A `RUSTFLAGS` of the caller's replaces it.
fn source_path_remaps(profile: Profile) -> Vec<String> {
    if profile == Profile::Debug {
        return Vec::new();
    }
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")));
    let indexes = cargo_home.and_then(|home| std::fs::read_dir(home.join("registry/src")).ok());
    let flags: Vec<String> = indexes
        .into_iter()
        .flatten()
        .flatten()
        .map(|index| format!("--remap-path-prefix={}/=", index.path().display()))
        .collect();
    if flags.is_empty() {
        return Vec::new();
    }
    // A JSON array of strings is a TOML array.
    let rustflags = serde_json::to_string(&flags).expect("strings serialise");
    vec![
        "--config".to_owned(),
        format!("build.rustflags={rustflags}"),
    ]
}

/// The `.wasm` file of binary `bin` if `line` is cargo's message that built it.
fn artifact_wasm(line: &str, bin: &str) -> Option<PathBuf> {
    let message: serde_json::Value = serde_json::from_str(line).ok()?;
    if message["reason"] != "compiler-artifact" || message["target"]["name"] != bin {
        return None;
    }
    message["filenames"]
        .as_array()?
        .iter()
        .filter_map(|f| f.as_str())
        .find(|f| f.ends_with(".wasm"))
        .map(PathBuf::from)
}

pub(crate) fn run(command: &mut Command) -> Result<(), BuildError> {
    let name = command.get_program().to_string_lossy().into_owned();
    let status = command
        .status()
        .map_err(|e| tool_error(&name, format!("{e} (is it on PATH?)")))?;
    if status.success() {
        Ok(())
    } else {
        Err(tool_error(&name, status.to_string()))
    }
}

pub(crate) fn copy(from: &Path, to: &Path) -> Result<(), BuildError> {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|source| BuildError::Io {
            path: from.display().to_string(),
            source,
        })
}

pub(crate) fn tool_error(tool: &str, reason: String) -> BuildError {
    BuildError::Tool {
        tool: tool.to_owned(),
        reason,
    }
}

/// Writes the bound wasm `bound` to `output`: optimised for size in a release build,
/// as it is in a debug one.
pub(crate) fn optimize(profile: Profile, bound: &Path, output: &Path) -> Result<(), BuildError> {
    match profile {
        Profile::Release => run(Command::new("wasm-opt")
            .args(WASM_OPT_ARGS)
            .arg(bound)
            .arg("-o")
            .arg(output)),
        Profile::Debug => copy(bound, output),
    }
}

/// How terser reads a script.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Script {
    /// An ES module (the page's glue): its exports keep their names.
    Module,
    /// A classic script (the flush module's glue for the worker): its top-level
    /// names are globals the worker's other scripts use, and keep their names.
    Classic,
}

/// terser's settings for both kinds; `--module` only for modules.
const TERSER_ARGS: [&str; 2] = ["--compress", "--mangle"];

/// `script` minified with terser (release), as Trunk minifies the scripts it writes;
/// unchanged in debug builds.
pub(crate) fn minify_js(
    profile: Profile,
    name: &str,
    script: Vec<u8>,
    kind: Script,
) -> Result<Vec<u8>, BuildError> {
    if profile == Profile::Debug {
        return Ok(script);
    }
    let mut child = Command::new("terser")
        .args((kind == Script::Module).then_some("--module"))
        .args(TERSER_ARGS)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| tool_error("terser", format!("{e} (is it on PATH?)")))?;
    let mut stdin = child.stdin.take().expect("stdin is piped");
    // Written from a thread: terser writes while it reads, and a pipe holds only so much.
    let writer = std::thread::spawn(move || stdin.write_all(&script));
    let output = child
        .wait_with_output()
        .map_err(|e| tool_error("terser", e.to_string()))?;
    let written = writer.join().expect("the writer does not panic");
    if !output.status.success() {
        return Err(tool_error(
            "terser",
            format!("minifying {name}: {}", output.status),
        ));
    }
    written.map_err(|e| tool_error("terser", format!("minifying {name}: {e}")))?;
    Ok(output.stdout)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_wasm_in_cargos_messages() {
        let built =
            r#"{"reason":"compiler-artifact","target":{"name":"keydo_flush","kind":["bin"]},
            "filenames":["/t/wasm32-unknown-unknown/wasm-release/keydo_flush.wasm"]}"#
                .replace('\n', "");
        assert_eq!(
            artifact_wasm(&built, "keydo_flush"),
            Some(PathBuf::from(
                "/t/wasm32-unknown-unknown/wasm-release/keydo_flush.wasm"
            ))
        );
        let dependency = r#"{"reason":"compiler-artifact","target":{"name":"js_sys"},"filenames":["/t/libjs_sys.rlib"]}"#;
        assert_eq!(artifact_wasm(dependency, "keydo_flush"), None);
        assert_eq!(
            artifact_wasm(r#"{"reason":"build-finished"}"#, "keydo_flush"),
            None
        );
        assert_eq!(artifact_wasm("not json", "keydo_flush"), None);
    }

    #[test]
    fn profiles_match_trunks() {
        assert_eq!(Profile::from_trunk("release"), Some(Profile::Release));
        assert_eq!(Profile::from_trunk("debug"), Some(Profile::Debug));
        assert_eq!(Profile::from_trunk("fast"), None);
        assert_eq!(Profile::Release.cargo_profile(), "wasm-release");
    }

    /// Runs terser from npm (`node_modules/.bin` on PATH, as the Makefile puts it).
    #[test]
    fn minified_glue_keeps_its_exports_and_imports() {
        let glue = br#"import { lazy } from "./keydo-lazy-0123456789abcdef.js";
export function initialise(moduleOrPath) {
    const longLocalName = moduleOrPath + 1;
    return lazy(longLocalName);
}
"#;
        let minified = minify_js(Profile::Release, "glue.js", glue.to_vec(), Script::Module);
        let minified = String::from_utf8(minified.unwrap()).unwrap();
        assert!(minified.len() < glue.len(), "{minified}");
        assert!(!minified.contains("longLocalName"), "{minified}");
        assert!(
            minified.contains("export function initialise("),
            "{minified}"
        );
        assert!(
            minified.contains(r#"from"./keydo-lazy-0123456789abcdef.js""#),
            "{minified}"
        );
        let debug = minify_js(Profile::Debug, "glue.js", glue.to_vec(), Script::Module);
        assert_eq!(debug.unwrap(), glue);
    }

    /// A classic script's global survives: the worker reads the flush glue's
    /// `keydo_flush` by name.
    #[test]
    fn minified_classic_glue_keeps_its_global() {
        let glue = br#"let keydo_flush = (function(exports) {
    function flush(longArgumentName) { return longArgumentName + 1; }
    exports.flush = flush;
    return exports;
})({});
"#;
        let minified = minify_js(Profile::Release, "flush.js", glue.to_vec(), Script::Classic);
        let minified = String::from_utf8(minified.unwrap()).unwrap();
        assert!(minified.len() < glue.len(), "{minified}");
        assert!(!minified.contains("longArgumentName"), "{minified}");
        assert!(minified.starts_with("let keydo_flush="), "{minified}");
        assert!(minified.contains(".flush="), "{minified}");
    }
}
