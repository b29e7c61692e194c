//! Builds the service worker's flush module (`sw-flush/`) into the output.
//!
//! The worker imports this module's `no-modules` glue beside its own, and two
//! classic scripts declaring the same global collide, so this glue needs a global
//! of its own. Trunk 0.21 cannot pass wasm-bindgen's `--no-modules-global`, so the
//! build runs the three steps itself: cargo (wasm32, the profile index.html's rust
//! links use), the wasm-bindgen CLI with `--no-modules-global`, and in release
//! builds wasm-opt with the links' settings. It runs in Trunk's post_build hook:
//! by then Trunk has checked that the `wasm-bindgen` and `wasm-opt` first on PATH
//! are the versions it pins, and these are the ones used here.

use crate::BuildError;
use crate::worker_files::{FLUSH, WorkerModule};
use std::io::{BufRead, BufReader};
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

    /// The cargo profile index.html's rust links build with in this mode.
    fn cargo_profile(self) -> &'static str {
        match self {
            Profile::Debug => "dev",
            Profile::Release => "wasm-release",
        }
    }
}

/// wasm-opt's settings for release builds, as on index.html's rust links.
const WASM_OPT_ARGS: [&str; 3] = ["-Oz", "--strip-debug", "--strip-producers"];

/// Writes `keydo_flush.js` (global `keydo_flush`) and `keydo_flush_bg.wasm` into `out_dir`.
pub fn build(out_dir: &Path, profile: Profile) -> Result<(), BuildError> {
    let wasm = cargo_build(&FLUSH, profile)?;
    let bindgen_dir = wasm.with_file_name(format!("{}-bindgen", FLUSH.bin));
    run(Command::new("wasm-bindgen")
        .args(wasm_bindgen_args(&FLUSH, &bindgen_dir))
        .arg(&wasm))?;
    let glue = format!("{}.js", FLUSH.bin);
    copy(&bindgen_dir.join(&glue), &out_dir.join(&glue))?;
    let wasm_name = format!("{}_bg.wasm", FLUSH.bin);
    let (bound, output) = (bindgen_dir.join(&wasm_name), out_dir.join(&wasm_name));
    match profile {
        Profile::Release => run(Command::new("wasm-opt")
            .args(WASM_OPT_ARGS)
            .arg(&bound)
            .arg("-o")
            .arg(&output)),
        Profile::Debug => copy(&bound, &output),
    }
}

/// wasm-bindgen's arguments for `module`, writing into `out_dir` (the input wasm follows).
fn wasm_bindgen_args(module: &WorkerModule, out_dir: &Path) -> Vec<String> {
    [
        "--target",
        "no-modules",
        "--no-modules-global",
        module.global,
        "--no-typescript",
        "--out-name",
        module.bin,
        "--out-dir",
    ]
    .map(str::to_owned)
    .into_iter()
    .chain([out_dir.display().to_string()])
    .collect()
}

/// Builds `module`'s binary for wasm32 and returns the path of its `.wasm`.
fn cargo_build(module: &WorkerModule, profile: Profile) -> Result<PathBuf, BuildError> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .args(["build", "--target", "wasm32-unknown-unknown", "--offline"])
        .args(["--profile", profile.cargo_profile()])
        .args(["-p", module.package, "--bin", module.bin])
        .arg("--message-format=json-render-diagnostics")
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| tool_error("cargo", e.to_string()))?;
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut wasm = None;
    for line in BufReader::new(stdout).lines() {
        let line = line.map_err(|e| tool_error("cargo", e.to_string()))?;
        wasm = wasm.or_else(|| artifact_wasm(&line, module.bin));
    }
    let status = child
        .wait()
        .map_err(|e| tool_error("cargo", e.to_string()))?;
    if !status.success() {
        return Err(tool_error(
            "cargo",
            format!("building {} {status}", module.package),
        ));
    }
    wasm.ok_or_else(|| tool_error("cargo", format!("reported no wasm for {}", module.bin)))
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

fn run(command: &mut Command) -> Result<(), BuildError> {
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

fn copy(from: &Path, to: &Path) -> Result<(), BuildError> {
    std::fs::copy(from, to)
        .map(drop)
        .map_err(|source| BuildError::Io {
            path: from.display().to_string(),
            source,
        })
}

fn tool_error(tool: &str, reason: String) -> BuildError {
    BuildError::Tool {
        tool: tool.to_owned(),
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_glue_gets_the_modules_own_global_through_wasm_bindgens_option() {
        let args = wasm_bindgen_args(&FLUSH, Path::new("out"));
        let global = args
            .iter()
            .position(|a| a == "--no-modules-global")
            .unwrap();
        assert_eq!(args[global + 1], "keydo_flush");
        let target = args.iter().position(|a| a == "--target").unwrap();
        assert_eq!(args[target + 1], "no-modules");
        let name = args.iter().position(|a| a == "--out-name").unwrap();
        assert_eq!(args[name + 1], "keydo_flush");
        assert_eq!(args.last().unwrap(), "out");
    }

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
}
