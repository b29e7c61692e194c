//! Links the page's wasm with its relocations: the build's splitter reads them to cut
//! the lazily loaded panels out of the first download (docs/performance.md, "What
//! loads first").

fn main() {
    if std::env::var("CARGO_CFG_TARGET_FAMILY").as_deref() == Ok("wasm") {
        println!("cargo::rustc-link-arg-bins=--emit-relocs");
    }
}
