//! Shared helpers for integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository root.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The shared corpora folder: `$KGROUTE_CORPORA` when set (CI sets it; a
/// folder named there must exist, or every corpus test would skip
/// silently), else `shared/corpora` next to the repository or next to any
/// ancestor (a git worktree sits deeper than the main checkout). `None`
/// when absent.
pub fn corpora_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("KGROUTE_CORPORA").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        assert!(
            dir.is_dir(),
            "KGROUTE_CORPORA={} is not a folder; unset it to skip the corpus tests",
            dir.display()
        );
        return Some(dir);
    }
    repo()
        .ancestors()
        .map(|a| a.join("shared").join("corpora"))
        .find(|p| p.is_dir())
}

/// The guard at the top of every test that reads the shared corpora:
/// `let Some(_c) = util::corpora_or_skip() else { return };`. When they are
/// absent (a fresh clone) the test says so once and passes as skipped.
pub fn corpora_or_skip() -> Option<PathBuf> {
    use std::io::Write;
    static SAID: std::sync::Once = std::sync::Once::new();
    let dir = corpora_dir();
    if dir.is_none() {
        let test = std::thread::current()
            .name()
            .unwrap_or("this test")
            .to_string();
        // Straight to the process's stderr: `eprintln!` in a passing test
        // is captured, and the skip would never be seen.
        let mut err = std::io::stderr().lock();
        SAID.call_once(|| {
            let _ = writeln!(
                err,
                "skipped: shared corpora not found next to {} or above (set KGROUTE_CORPORA); the tests that read them pass as skipped:",
                repo().display()
            );
        });
        let _ = writeln!(err, "  skipped: {test}");
    }
    dir
}

/// The folder holding `corpora/` (the corpora's parent). Panics when
/// absent: a test calling it starts with [`corpora_or_skip`].
pub fn shared() -> PathBuf {
    corpora_dir()
        .and_then(|c| c.parent().map(Path::to_path_buf))
        .unwrap_or_else(|| {
            panic!(
                "shared corpora not found next to {} or above; set KGROUTE_CORPORA \
                 (and start the test with util::corpora_or_skip())",
                repo().display()
            )
        })
}

/// The corpora folder itself (see [`shared`]).
pub fn corpora() -> PathBuf {
    corpora_dir().unwrap_or_else(|| {
        shared();
        unreachable!()
    })
}

/// A file of the shared corpus, e.g. `credit_agreements/emerson_2018.md`.
pub fn corpus(rel: &str) -> PathBuf {
    let p = corpora().join(rel);
    assert!(p.exists(), "shared corpus file missing: {}", p.display());
    p
}

/// Every document of the shared corpus (not the labels list).
pub fn corpus_documents() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for dir in ["credit_agreements", "other"] {
        let d = corpora().join(dir);
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

/// A batch's offline graph as JSON lines, as `kgroute export BATCH`
/// prints them (the batch keeps the graph once, in its parts).
pub fn graph_jsonl(batch: &Path) -> String {
    let out = kgroute().arg("export").arg(batch).output().unwrap();
    assert!(
        out.status.success(),
        "kgroute export {}: {}",
        batch.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Derives a batch's neo4j-admin import files into `BATCH/graph` with
/// `kgroute export BATCH --import-files`; returns that folder.
pub fn import_files(batch: &Path) -> PathBuf {
    kgroute()
        .arg("export")
        .arg(batch)
        .arg("--import-files")
        .assert()
        .success();
    batch.join("graph")
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

/// A batch's manifest as JSON, as `--resume` reads it: `manifest.json`
/// with the changes of `manifest.journal` (one document entry a line, the
/// last of a path winning) applied; `None` before the manifest exists.
pub fn manifest_json(out: &Path) -> Option<serde_json::Value> {
    let mut m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("manifest.json")).ok()?).ok()?;
    let journal = std::fs::read_to_string(out.join("manifest.journal")).unwrap_or_default();
    let docs = m["documents"].as_array_mut()?;
    // A last line without its newline may be cut mid-write: skipped.
    let whole = journal.rfind('\n').map_or("", |end| &journal[..end]);
    for line in whole.lines().filter(|l| !l.trim().is_empty()) {
        let entry: serde_json::Value = serde_json::from_str(line).ok()?;
        match docs.iter_mut().find(|d| d["path"] == entry["path"]) {
            Some(d) => *d = entry,
            None => docs.push(entry),
        }
    }
    Some(m)
}

/// A loopback OpenAI-compatible server that answers every request with one
/// valid extraction, and the runtime that serves it (keep both alive).
pub fn good_fake_server() -> (tokio::runtime::Runtime, crate::fake_server::FakeServer) {
    use crate::fake_server::{good_extraction, FakeServer, Reply};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(FakeServer::start(std::time::Duration::ZERO, |_| {
            Reply::json(&good_extraction())
        }))
        .unwrap();
    (rt, server)
}

/// Copies the shipped indices (their YAML files, `base/` included) into
/// `to`, so a test can write beside them.
pub fn copy_indices(to: &std::path::Path) {
    let from = repo().join("indices");
    for sub in ["", "base"] {
        std::fs::create_dir_all(to.join(sub)).unwrap();
        for e in std::fs::read_dir(from.join(sub)).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "yaml") {
                std::fs::copy(&p, to.join(sub).join(p.file_name().unwrap())).unwrap();
            }
        }
    }
}
