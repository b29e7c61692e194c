//! Builds the page's module (`app/`) into the output, split where its code says.
//!
//! The page loads only what the first keystroke needs; the panels load when first
//! shown (docs/performance.md, "What loads first"). The app marks those with
//! `wasm_split` (Leptos' lazy loading), and this build does what Trunk 0.21 cannot:
//! cargo (linked with relocations, `app/build.rs`), `wasm_split_cli_support` to cut
//! the wasm at those marks into the main module and one module per mark, the
//! wasm-bindgen CLI on the main module, and in release builds wasm-opt on every
//! module and terser on the scripts. The split loader's script is joined to the main
//! module's glue: one script to fetch, not two in a chain. Every file is named with
//! one content hash of them all (the glue fetches the modules, which import the main
//! module, so no file's name can hash its own bytes alone), and `index.html`'s loader
//! gets the main module's names in place of [`GLUE_PLACEHOLDER`] and
//! [`WASM_PLACEHOLDER`].

use crate::BuildError;
use crate::manifest::{read, write};
use crate::tools::{self, Profile, Script, run, tool_error};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::process::Command;

/// The page's cargo package and binary.
const PACKAGE: &str = "keydo-app";
const BIN: &str = "keydo-app";
/// The names `index.html`'s loader fetches, replaced by the built files' names.
pub const GLUE_PLACEHOLDER: &str = "/keydo-app.js";
pub const WASM_PLACEHOLDER: &str = "/keydo-app_bg.wasm";
/// The split loader's script, which the main module imports: the build joins it to
/// the glue ([`joined`]); the wasm's import keeps its name.
const LINK: &str = "keydo-lazy.js";
/// Hex digits of the content hash in a file name, as Trunk's.
const HASH_LEN: usize = 16;

/// One built file: its name before hashing and its bytes.
struct Built {
    name: String,
    bytes: Vec<u8>,
}

/// Builds the page's modules into `out_dir` and points `index.html`'s loader at them.
pub fn build(out_dir: &Path, profile: Profile) -> Result<(), BuildError> {
    let wasm = tools::cargo_build(PACKAGE, BIN, profile)?;
    let work = wasm.with_file_name(format!("{BIN}-split"));
    fresh_dir(&work)?;
    let input = read(&wasm)?;
    let main = work.join("main.wasm");
    let link_specifier = format!("./{LINK}");
    let split = wasm_split_cli_support::transform({
        let mut options = wasm_split_cli_support::Options::new(&input);
        options.output_dir = &work;
        options.main_out_path = &main;
        options.link_name = &link_specifier;
        options.main_module = GLUE_PLACEHOLDER;
        options
    })
    .map_err(|e| tool_error("wasm-split", format!("{e:#}")))?;
    let bindgen_dir = work.join("bindgen");
    run(Command::new("wasm-bindgen")
        .args(["--target", "web", "--keep-lld-exports", "--no-typescript"])
        .args(["--out-name", BIN, "--out-dir"])
        .arg(&bindgen_dir)
        .arg(&main))?;
    let glue = read(&bindgen_dir.join(format!("{BIN}.js")))?;
    let mut built = vec![
        Built {
            name: format!("{BIN}.js"),
            bytes: joined(&glue, &read(&work.join(LINK))?)?.into_bytes(),
        },
        optimized(profile, &bindgen_dir.join(format!("{BIN}_bg.wasm")))?,
    ];
    for module in &split.split_modules {
        built.push(optimized(profile, module)?);
    }
    let hash = content_hash(&built);
    let renames = renames(&built, &hash);
    let mut scripts = String::new();
    for file in &built {
        let bytes = if file.name.ends_with(".js") {
            let rewritten = rewrite(&file.name, &file.bytes, &renames)?;
            scripts.push_str(&String::from_utf8_lossy(&rewritten));
            // After the renames, which match wasm-bindgen's spelling of an import.
            tools::minify_js(profile, &file.name, rewritten, Script::Module)?
        } else {
            file.bytes.clone()
        };
        write(&out_dir.join(hashed_name(&file.name, &hash)), &bytes)?;
    }
    // A tool whose output changed shape must fail the build, not ship a page that
    // imports a file it no longer has.
    if let Some((from, _)) = renames.iter().find(|(_, to)| !scripts.contains(to)) {
        return Err(tool_error(
            "wasm-split",
            format!("no script imports or fetches {from}"),
        ));
    }
    point_loader(out_dir, &hash)
}

/// The glue with the split loader's script in it: the glue's imports of the loader
/// give way to an object of the loader's exports, and the loader's import of the glue
/// to the glue's own `initSync`. A tool whose output changed shape fails the build.
fn joined(glue: &[u8], link: &[u8]) -> Result<String, BuildError> {
    let shape = |reason: &str| {
        tool_error(
            "wasm-split",
            format!("cannot join {LINK} to the glue: {reason}"),
        )
    };
    let (Ok(glue), Ok(link)) = (std::str::from_utf8(glue), std::str::from_utf8(link)) else {
        return Err(shape("not UTF-8"));
    };
    let import_suffix = format!(" from \"./{LINK}\"");
    let glue_import = format!("import {{ initSync }} from \"{GLUE_PLACEHOLDER}\";");
    let mut namespaces = Vec::new();
    let mut exports = Vec::new();
    let mut out = String::new();
    for line in glue.lines() {
        let namespace = line
            .trim_end_matches(';')
            .strip_prefix("import * as ")
            .and_then(|rest| rest.strip_suffix(import_suffix.as_str()));
        match namespace {
            Some(namespace) => namespaces.push(namespace),
            None => out.extend([line, "\n"]),
        }
    }
    if namespaces.is_empty() || !link.lines().any(|line| line == glue_import) {
        return Err(shape("they do not import each other as expected"));
    }
    for line in link.lines().filter(|line| *line != glue_import) {
        let line = match line.strip_prefix("export const ") {
            Some(rest) => {
                exports.push(rest.split([' ', '=']).next().unwrap_or_default());
                &line["export ".len()..]
            }
            None => line,
        };
        out.extend([line, "\n"]);
    }
    if exports.is_empty() || out.contains(&import_suffix) {
        return Err(shape("the loader exports nothing, or is still imported"));
    }
    let namespaces: Vec<String> = namespaces.iter().map(|n| format!("{n} = split")).collect();
    out.push_str(&format!(
        "const split = {{ {} }}, {};\n",
        exports.join(", "),
        namespaces.join(", ")
    ));
    Ok(out)
}

/// `bound` through wasm-opt (release) into a file beside it, read back.
fn optimized(profile: Profile, bound: &Path) -> Result<Built, BuildError> {
    let name = file_name(bound);
    let output = bound.with_extension("opt.wasm");
    tools::optimize(profile, bound, &output)?;
    Ok(Built {
        name,
        bytes: read(&output)?,
    })
}

/// The first [`HASH_LEN`] hex digits of SHA-256 over every file's name and bytes.
fn content_hash(built: &[Built]) -> String {
    let mut hasher = Sha256::new();
    for file in built {
        hasher.update(file.name.as_bytes());
        hasher.update((file.bytes.len() as u64).to_le_bytes());
        hasher.update(&file.bytes);
    }
    hex::encode(hasher.finalize())[..HASH_LEN].to_owned()
}

/// A built file's name in the output: `keydo-app-<hash>.js`, `keydo-app-<hash>_bg.wasm`,
/// and `keydo-lazy-<module>-<hash>.wasm` for a split module.
fn hashed_name(name: &str, hash: &str) -> String {
    if name == format!("{BIN}.js") {
        format!("{BIN}-{hash}.js")
    } else if name == format!("{BIN}_bg.wasm") {
        format!("{BIN}-{hash}_bg.wasm")
    } else {
        let stem = name.strip_suffix(".wasm").unwrap_or(name);
        format!("keydo-lazy-{stem}-{hash}.wasm")
    }
}

/// How the glue fetches each split module, and the same with its hashed name.
fn renames(built: &[Built], hash: &str) -> Vec<(String, String)> {
    built
        .iter()
        .filter(|file| file.name.ends_with(".wasm") && file.name != format!("{BIN}_bg.wasm"))
        .map(|file| {
            (
                format!("URL(\"./{}\"", file.name),
                format!("URL(\"./{}\"", hashed_name(&file.name, hash)),
            )
        })
        .collect()
}

/// A script with every name it uses replaced by the hashed one.
fn rewrite(name: &str, bytes: &[u8], renames: &[(String, String)]) -> Result<Vec<u8>, BuildError> {
    let mut text = String::from_utf8(bytes.to_vec()).map_err(|_| BuildError::Invalid {
        path: name.to_owned(),
        reason: "not valid UTF-8".into(),
    })?;
    for (from, to) in renames {
        text = text.replace(from, to);
    }
    Ok(text.into_bytes())
}

/// Replaces the loader's placeholders in `index.html` with the main module's names,
/// and drops the rust link Trunk skipped (it only told Trunk where the app is).
fn point_loader(out_dir: &Path, hash: &str) -> Result<(), BuildError> {
    let path = out_dir.join("index.html");
    let html = String::from_utf8(read(&path)?).map_err(|_| BuildError::Invalid {
        path: "index.html".into(),
        reason: "not valid UTF-8".into(),
    })?;
    let mut pointed = without_skipped_link(&html);
    for (placeholder, name) in [
        (GLUE_PLACEHOLDER, format!("/{BIN}-{hash}.js")),
        (WASM_PLACEHOLDER, format!("/{BIN}-{hash}_bg.wasm")),
    ] {
        if !pointed.contains(placeholder) {
            return Err(BuildError::Invalid {
                path: "index.html".into(),
                reason: format!("its loader does not fetch {placeholder}, which the build names"),
            });
        }
        pointed = pointed.replace(placeholder, &name);
    }
    write(&path, pointed.as_bytes())
}

/// `html` without its `<link ... data-trunk-skip ...>` element.
fn without_skipped_link(html: &str) -> String {
    let Some(attribute) = html.find("data-trunk-skip") else {
        return html.to_owned();
    };
    let start = html[..attribute].rfind("<link").unwrap_or(attribute);
    let end = html[attribute..]
        .find('>')
        .map_or(html.len(), |end| attribute + end + 1);
    format!("{}{}", &html[..start], &html[end..])
}

fn fresh_dir(dir: &Path) -> Result<(), BuildError> {
    let io = |source| BuildError::Io {
        path: dir.display().to_string(),
        source,
    };
    if dir.exists() {
        std::fs::remove_dir_all(dir).map_err(io)?;
    }
    std::fs::create_dir_all(dir).map_err(io)
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The output files of one build, for tests.
#[cfg(test)]
fn names(built: &[Built], hash: &str) -> Vec<String> {
    built.iter().map(|f| hashed_name(&f.name, hash)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn built(name: &str, bytes: &str) -> Built {
        Built {
            name: name.to_owned(),
            bytes: bytes.as_bytes().to_vec(),
        }
    }

    /// wasm-bindgen's glue and the split loader, each as it writes them (shortened).
    const GLUE: &str = "import * as import1 from \"./keydo-lazy.js\"\n\
                        import * as import2 from \"./keydo-lazy.js\"\n\
                        function __wbg_get_imports() {\n\
                        \x20 return { \"./keydo-lazy.js\": import1, \"./keydo-lazy.js\": import2 };\n\
                        }\n\
                        export { initSync, __wbg_init as default };";
    const LOADER: &str = "import { initSync } from \"/keydo-app.js\";\n\
                          function getSharedImports() { return initSync(undefined, undefined); }\n\
                          export const __wasm_split_load_panels = makeLoad(() => {\n\
                          \x20 const src = fetch(new URL(\"./split_panels.wasm\", import.meta.url));\n\
                          });\n\
                          export const __wasm_split_load_sync = makeLoad(() => {});";

    fn example() -> Vec<Built> {
        vec![
            Built {
                name: "keydo-app.js".to_owned(),
                bytes: joined(GLUE.as_bytes(), LOADER.as_bytes())
                    .unwrap()
                    .into_bytes(),
            },
            built("keydo-app_bg.wasm", "\0asm"),
            built("split_panels.wasm", "\0asm panels"),
        ]
    }

    #[test]
    fn every_file_is_named_with_one_hash_the_server_treats_as_content_hashed() {
        let files = example();
        let hash = content_hash(&files);
        assert_eq!(hash.len(), HASH_LEN);
        assert_eq!(
            names(&files, &hash),
            [
                format!("keydo-app-{hash}.js"),
                format!("keydo-app-{hash}_bg.wasm"),
                format!("keydo-lazy-split_panels-{hash}.wasm"),
            ]
        );
    }

    #[test]
    fn one_changed_byte_in_any_module_renames_them_all() {
        let before = content_hash(&example());
        let mut changed = example();
        changed[2].bytes.push(0);
        assert_ne!(before, content_hash(&changed));
    }

    #[test]
    fn the_loader_joins_the_glue_which_imports_nothing_and_fetches_the_hashed_names() {
        let files = example();
        let hash = content_hash(&files);
        let renames = renames(&files, &hash);
        let glue = String::from_utf8(rewrite("g", &files[0].bytes, &renames).unwrap()).unwrap();
        assert!(!glue.contains("import "), "{glue}");
        assert!(!glue.contains("export const"), "{glue}");
        // The wasm's import of the loader is answered by the loader's exports...
        assert!(glue.contains("\"./keydo-lazy.js\": import1"), "{glue}");
        assert!(
            glue.ends_with(
                "const split = { __wasm_split_load_panels, __wasm_split_load_sync }, \
                 import1 = split, import2 = split;\n"
            ),
            "{glue}"
        );
        // ...which reach the glue's own `initSync` and fetch the hashed module.
        assert!(
            glue.contains("return initSync(undefined, undefined)"),
            "{glue}"
        );
        assert!(
            glue.contains(&format!("URL(\"./keydo-lazy-split_panels-{hash}.wasm\"")),
            "{glue}"
        );
        assert!(glue.contains("export { initSync, __wbg_init as default };"));
    }

    #[test]
    fn a_glue_or_loader_of_another_shape_fails_the_build() {
        let no_import = GLUE.replace("import * as", "// import * as");
        let error = joined(no_import.as_bytes(), LOADER.as_bytes()).unwrap_err();
        assert!(error.to_string().contains("cannot join"), "{error}");
        let no_exports = LOADER.replace("export const", "const");
        assert!(joined(GLUE.as_bytes(), no_exports.as_bytes()).is_err());
        let other_glue_import = LOADER.replace("/keydo-app.js", "./keydo-app.js");
        assert!(joined(GLUE.as_bytes(), other_glue_import.as_bytes()).is_err());
    }

    #[test]
    fn the_loader_in_index_html_is_pointed_at_the_built_files_or_the_build_fails() {
        let dir = tempfile::tempdir().unwrap();
        let html = "<div id=app></div><link data-bin=keydo-app data-trunk data-trunk-skip \
                    href=app/Cargo.toml rel=rust><script>fetch('/keydo-app_bg.wasm')</script>\
                    <script type=module>import init from '/keydo-app.js';</script>";
        std::fs::write(dir.path().join("index.html"), html).unwrap();
        point_loader(dir.path(), "0123456789abcdef").unwrap();
        let pointed = std::fs::read_to_string(dir.path().join("index.html")).unwrap();
        assert!(pointed.contains("fetch('/keydo-app-0123456789abcdef_bg.wasm')"));
        assert!(pointed.contains("from '/keydo-app-0123456789abcdef.js'"));
        assert!(
            pointed.starts_with("<div id=app></div><script>"),
            "{pointed}"
        );
        let error = point_loader(dir.path(), "0123456789abcdef").unwrap_err();
        assert!(error.to_string().contains("does not fetch"), "{error}");
    }
}
