//! Tells the tests whether the shared corpora are here, so a corpus test on a
//! fresh clone is reported as `ignored` (with its reason), not as `ok`.
//! The tests find the corpora the same way at run time
//! (`tests/it/util.rs`): `$KGROUTE_CORPORA`, else `shared/corpora` beside
//! the checkout or any folder above it.

use std::path::{Path, PathBuf};

fn corpora_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KGROUTE_CORPORA").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR")?);
    manifest
        .ancestors()
        .map(|a| a.join("shared").join("corpora"))
        .find(|p| p.is_dir())
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kgroute_no_corpora)");
    println!("cargo::rerun-if-env-changed=KGROUTE_CORPORA");
    println!("cargo::rerun-if-changed=build.rs");
    match corpora_dir() {
        // Watch the README only: a folder would be scanned file by file.
        Some(dir) if dir.is_dir() => {
            let readme = dir.join("README.md");
            if Path::new(&readme).is_file() {
                println!("cargo::rerun-if-changed={}", readme.display());
            }
        }
        _ => println!("cargo::rustc-cfg=kgroute_no_corpora"),
    }
}
