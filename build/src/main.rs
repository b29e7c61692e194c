//! `keydo-precache [--build-flush-module] [OUT_DIR]`: run by Trunk's post_build hook
//! on its staging directory (`TRUNK_STAGING_DIR`), or by hand on a built `dist/`.
//!
//! `--build-flush-module` (the hook passes it) first builds the service worker's
//! flush module into the output, for Trunk's profile (`TRUNK_PROFILE`); without it
//! the output must already hold one, as a built `dist/` does.

use keydo_build::flush_module::{self, Profile};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: keydo-precache [--build-flush-module] [OUT_DIR]";

fn main() -> ExitCode {
    let mut build_flush_module = false;
    let mut out_dir = None;
    for arg in std::env::args_os().skip(1) {
        if arg == "--build-flush-module" {
            build_flush_module = true;
        } else if out_dir.is_none() && !arg.to_string_lossy().starts_with('-') {
            out_dir = Some(PathBuf::from(arg));
        } else {
            eprintln!("{USAGE}");
            return ExitCode::FAILURE;
        }
    }
    let out_dir = out_dir
        .or_else(|| std::env::var_os("TRUNK_STAGING_DIR").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("dist"));
    if build_flush_module {
        let profile = std::env::var("TRUNK_PROFILE").unwrap_or_else(|_| "release".into());
        let Some(profile) = Profile::from_trunk(&profile) else {
            eprintln!("keydo-precache: TRUNK_PROFILE must be debug or release, not {profile}");
            return ExitCode::FAILURE;
        };
        if let Err(error) = flush_module::build(&out_dir, profile) {
            eprintln!("keydo-precache: {error}");
            return ExitCode::FAILURE;
        }
    }
    match keydo_build::run(&out_dir) {
        Ok(manifest) => {
            let bytes: u64 = manifest.files.iter().map(|f| f.bytes).sum();
            println!(
                "keydo-precache: {} files, {bytes} bytes, cache {}",
                manifest.files.len(),
                manifest.cache_name
            );
            ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("keydo-precache: {error}");
            ExitCode::FAILURE
        }
    }
}
