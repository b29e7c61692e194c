//! `keydo-precache [OUT_DIR]`: run by Trunk's post_build hook on its staging
//! directory (`TRUNK_STAGING_DIR`), or by hand on a built `dist/`.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let out_dir = std::env::args_os()
        .nth(1)
        .or_else(|| std::env::var_os("TRUNK_STAGING_DIR"))
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("dist"));
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
