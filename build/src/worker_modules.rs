//! Builds the service worker's three modules: the fetch module (`sw/`'s
//! `keydo_worker`), the lifecycle module (`sw/`'s `keydo_lifecycle`) and the flush
//! module (`sw-flush/`).
//!
//! `/sw.js` carries the fetch module's `no-modules` glue and wasm, and the other two
//! modules' glue, each inside a function that returns the global the glue declares;
//! it names each module by that global ([`crate::worker_files`]). Trunk 0.21 cannot
//! pass wasm-bindgen's `--no-modules-global`, so the build runs the three steps
//! itself: cargo (wasm32, the profile and the source path remaps of the page's own
//! modules, so no module names the build machine's directories), the wasm-bindgen CLI
//! with `--no-modules-global` (it refuses a wasm built against another version of the
//! crate), and in release builds wasm-opt. Both tools are the ones first on PATH,
//! which scripts/setup.sh installs at their pinned versions.

use crate::BuildError;
use crate::manifest::{read, write};
use crate::tools::{self, Profile, Script, run};
use crate::worker_files::{FLUSH, LIFECYCLE, WORKER, WorkerModule};
use std::path::Path;
use std::process::Command;

/// Writes each module's glue (`<bin>.js`, defining its global) and wasm
/// (`<bin>_bg.wasm`) into `out_dir`.
pub fn build(out_dir: &Path, profile: Profile) -> Result<(), BuildError> {
    [WORKER, LIFECYCLE, FLUSH]
        .iter()
        .try_for_each(|module| build_module(out_dir, profile, module))
}

fn build_module(out_dir: &Path, profile: Profile, module: &WorkerModule) -> Result<(), BuildError> {
    let wasm = tools::cargo_build(module.package, module.bin, profile)?;
    let bindgen_dir = wasm.with_file_name(format!("{}-bindgen", module.bin));
    run(Command::new("wasm-bindgen")
        .args(wasm_bindgen_args(module, &bindgen_dir))
        .arg(&wasm))?;
    let glue = format!("{}.js", module.bin);
    let script = read(&bindgen_dir.join(&glue))?;
    write(
        &out_dir.join(&glue),
        &tools::minify_js(profile, &glue, script, Script::Classic)?,
    )?;
    let wasm_name = format!("{}_bg.wasm", module.bin);
    let (bound, output) = (bindgen_dir.join(&wasm_name), out_dir.join(&wasm_name));
    tools::optimize(profile, &bound, &output)
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
}
