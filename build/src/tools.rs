//! The build tools the post-build step runs for the browser's modules: cargo for
//! wasm32, and wasm-opt in release builds. wasm-bindgen's arguments differ by module
//! and stay with each module's build.

use crate::BuildError;
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
}
