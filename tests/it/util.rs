//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `shared/` next to the repository (CI lays it there), or next to any
/// ancestor (a git worktree sits deeper than the main checkout).
pub fn shared() -> PathBuf {
    let repo = repo();
    repo.ancestors()
        .map(|a| a.join("shared"))
        .find(|p| p.join("corpora").is_dir())
        .unwrap_or_else(|| {
            panic!(
                "shared/corpora not found next to {} or above",
                repo.display()
            )
        })
}

/// A file of the shared corpus, e.g. `credit_agreements/emerson_2018.md`.
pub fn corpus(rel: &str) -> PathBuf {
    let p = shared().join("corpora").join(rel);
    assert!(p.exists(), "shared corpus file missing: {}", p.display());
    p
}

/// Every document of the shared corpus (not the labels list).
pub fn corpus_documents() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["credit_agreements", "other"] {
        let d = shared().join("corpora").join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        out.extend(files);
    }
    out
}

pub fn fixture(name: &str) -> PathBuf {
    repo().join("fixtures").join(name)
}

/// A fresh temp directory, removed when dropped.
pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().expect("temp dir")
}

/// A `kgroute` command for the binary under test.
pub fn kgroute() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("kgroute").expect("kgroute binary")
}

/// `kgroute ingest INPUTS --index INDEX --out OUT --history HISTORY` with
/// no LLM and no Neo4j from the environment (offline default); a test adds
/// its own flags or sets an endpoint on top.
pub fn ingest_offline_cmd(
    inputs: &[PathBuf],
    index: &Path,
    out: &Path,
    history: &Path,
) -> assert_cmd::Command {
    let mut c = kgroute();
    c.arg("ingest")
        .args(inputs)
        .arg("--index")
        .arg(index)
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(history)
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env_remove("NEO4J_URI");
    c
}

pub fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// The CUAD contracts of the shared corpus (`cuad/<type>/<name>.txt`),
/// each with whether it is in the checking half: within each type folder,
/// files sorted by name, odd positions check and even ones tune.
pub fn cuad_documents() -> Vec<(PathBuf, bool)> {
    let root = shared().join("corpora").join("cuad");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    let mut out = Vec::new();
    for d in dirs {
        let mut files: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .collect();
        files.sort();
        out.extend(files.into_iter().enumerate().map(|(i, p)| (p, i % 2 == 1)));
    }
    out
}
