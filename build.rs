//! Tells the tests whether the shared corpora are here, and whether a model
//! server answers, so a corpus or real-model test on a fresh clone is
//! reported as `ignored` (with its reason), not as `ok`.
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

/// The model server the real-model tests would use, as they find it
/// (`tests/it/real_model.rs`): the test or run variables, else the state
/// file `scripts/llm start` writes; `Err` says why there is none.
fn model_server() -> Result<String, String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    for k in [
        "KGROUTE_TEST_REAL_MODEL",
        "KGROUTE_TEST_LLM_URL",
        "KGROUTE_LLM_URL",
        "KGROUTE_LLM_STATE",
        "KGROUTE_LLM_PORT",
        "TMPDIR",
    ] {
        println!("cargo::rerun-if-env-changed={k}");
    }
    if env("KGROUTE_TEST_REAL_MODEL").as_deref() == Some("0") {
        return Err("KGROUTE_TEST_REAL_MODEL=0".into());
    }
    let url = match env("KGROUTE_TEST_LLM_URL").or_else(|| env("KGROUTE_LLM_URL")) {
        Some(u) => u,
        None => {
            let state = env("KGROUTE_LLM_STATE").unwrap_or_else(|| {
                format!(
                    "{}/kgroute-llm-{}",
                    env("TMPDIR").unwrap_or_else(|| "/tmp".into()),
                    env("KGROUTE_LLM_PORT").unwrap_or_else(|| "18080".into())
                )
            });
            let file = Path::new(&state).join("env");
            let text = std::fs::read_to_string(&file)
                .map_err(|_| "no KGROUTE_LLM_URL and no scripts/llm server".to_string())?;
            println!("cargo::rerun-if-changed={}", file.display());
            text.lines()
                .find_map(|l| l.strip_prefix("KGROUTE_LLM_URL="))
                .map(|u| u.trim().to_string())
                .ok_or_else(|| format!("{}: no KGROUTE_LLM_URL", file.display()))?
        }
    };
    let rest = url.split_once("://").map_or(url.as_str(), |(_, r)| r);
    let authority = rest.split(['/', '?']).next().unwrap_or_default();
    let authority = authority.rsplit_once('@').map_or(authority, |(_, a)| a);
    let addr = if authority.contains(':') {
        authority.to_string()
    } else if url.starts_with("https") {
        format!("{authority}:443")
    } else {
        format!("{authority}:80")
    };
    let reachable = std::net::ToSocketAddrs::to_socket_addrs(&addr)
        .ok()
        .and_then(|mut a| a.next())
        .is_some_and(|a| {
            std::net::TcpStream::connect_timeout(&a, std::time::Duration::from_secs(3)).is_ok()
        });
    if reachable {
        Ok(url)
    } else {
        Err(format!("{addr} does not answer"))
    }
}

fn main() {
    println!("cargo::rustc-check-cfg=cfg(kgroute_no_corpora)");
    println!("cargo::rustc-check-cfg=cfg(kgroute_no_model)");
    if model_server().is_err() {
        println!("cargo::rustc-cfg=kgroute_no_model");
    }
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
