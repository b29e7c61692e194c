//! `keydo-precache [--build-modules] [OUT_DIR]`: run by Trunk's post_build hook
//! on its staging directory (`TRUNK_STAGING_DIR`), or by hand on a built `dist/`.
//!
//! `--build-modules` (the hook passes it) first builds the page's modules and the
//! service worker's three modules into the output, for Trunk's profile
//! (`TRUNK_PROFILE`); without it the output must already hold them, as a built
//! `dist/` does.

use keydo_build::tools::Profile;
use keydo_build::{app_module, worker_modules};
use std::path::PathBuf;
use std::process::ExitCode;

const USAGE: &str = "usage: keydo-precache [--build-modules] [OUT_DIR]";

fn main() -> ExitCode {
    let mut build_modules = false;
    let mut out_dir = None;
    for arg in std::env::args_os().skip(1) {
        if arg == "--build-modules" {
            build_modules = true;
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
    if build_modules {
        let profile = std::env::var("TRUNK_PROFILE").unwrap_or_else(|_| "release".into());
        let Some(profile) = Profile::from_trunk(&profile) else {
            eprintln!("keydo-precache: TRUNK_PROFILE must be debug or release, not {profile}");
            return ExitCode::FAILURE;
        };
        let built = app_module::build(&out_dir, profile)
            .and_then(|()| worker_modules::build(&out_dir, profile));
        if let Err(error) = built {
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
