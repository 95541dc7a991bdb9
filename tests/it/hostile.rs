//! Attacks that get past the first line of defence: a key under
//! any query name, a symlink out of the input folder, a name that is not
//! UTF-8, `--out` inside the inputs, an unwritable cache, a damaged
//! manifest, a refused run's exit code, a closed pipe under `tree`.

use super::util::{fixture, ingest_offline_cmd, kgroute, read, repo, tempdir};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn index() -> PathBuf {
    repo().join("indices/credit_agreement.yaml")
}

fn stdout_and_stderr(a: &assert_cmd::assert::Assert) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&a.get_output().stdout),
        String::from_utf8_lossy(&a.get_output().stderr)
    )
}

fn documents_in(out: &Path) -> usize {
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    summary["per_document"].as_array().unwrap().len()
}

/// A key under a query name on no list (`code`) is neither printed nor
/// written into summary.md, summary.json or report-meta.json.
#[test]
fn a_key_under_any_query_name_of_the_llm_url_is_never_shown_or_written() {
    let (_rt, server) = super::util::good_fake_server();
    let dir = tempdir();
    let out = dir.path().join("batch");
    let url = format!("{}?code=SECRET4242", server.base_url());
    let a = kgroute()
        .arg("ingest")
        .arg(fixture("memo.txt"))
        .arg("--index")
        .arg(index())
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(dir.path().join("h.csv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .args(["--llm-url", &url, "--model", "test-model"])
        .env_remove("NEO4J_URI")
        .assert()
        .success();
    assert!(server.requests() > 0, "the LLM was asked");
    let shown = stdout_and_stderr(&a);
    assert!(shown.contains("code=***"), "{shown}");
    for f in ["summary.md", "summary.json", "report-meta.json"] {
        let text = read(&out.join(f));
        assert!(!text.contains("SECRET4242"), "{f}: {text}");
    }
    assert!(!shown.contains("SECRET4242"), "{shown}");
}

/// A Neo4j URI carrying `?password=` is not printed in the connection error.
#[test]
fn a_password_in_the_neo4j_uri_query_is_not_in_the_connection_error() {
    let dir = tempdir();
    let a = kgroute()
        .arg("ingest")
        .arg(fixture("memo.txt"))
        .arg("--index")
        .arg(index())
        .arg("--out")
        .arg(dir.path().join("b"))
        .arg("--history")
        .arg(dir.path().join("h.csv"))
        .env_remove("KGROUTE_LLM_URL")
        .env("NEO4J_URI", "bolt://127.0.0.1:9?password=HUNTER2x")
        .env("NEO4J_PASSWORD", "other")
        .assert()
        .code(2);
    let shown = stdout_and_stderr(&a);
    assert!(shown.contains("Neo4j"), "{shown}");
    assert!(!shown.contains("HUNTER2x"), "{shown}");
}

/// `kgroute tree big.md | head -1`: exit 0 and nothing on stderr.
#[test]
fn tree_into_a_closed_pipe_ends_quietly_with_0() {
    let dir = tempdir();
    let big = dir.path().join("big.md");
    let text: String = (0..20_000)
        .map(|i| format!("## Section {i}\n\nBody of section {i}.\n\n"))
        .collect();
    std::fs::write(&big, text).unwrap();
    for format in ["json", "text"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_kgroute"))
            .args(["tree", "--format", format])
            .arg(&big)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        // The reader is gone: the rest of the output meets a closed pipe.
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{format}: {err}");
        assert!(err.is_empty(), "{format}: {err}");
        assert!(!first.is_empty());
    }
}

/// A run refused by another run's lock exits 2 with the lock's hint, even
/// when that run has written documents meanwhile (it said "partly written;
/// finish it with --resume" and exit 1).
#[test]
fn a_refused_run_exits_2_even_while_the_other_run_writes() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("batch");
    ingest_offline_cmd(&[fixture("memo.txt")], &index(), &out, &d.join("h.csv"))
        .assert()
        .success();
    let held = kgroute::lock::Lock::for_batch(&out).unwrap();
    // The holder "writes" a document during the refused run.
    let doc = std::fs::read_dir(out.join("docs"))
        .unwrap()
        .flatten()
        .next()
        .unwrap()
        .path();
    let f = std::fs::File::options().write(true).open(&doc).unwrap();
    f.set_modified(std::time::SystemTime::now() + std::time::Duration::from_secs(3600))
        .unwrap();
    let a = ingest_offline_cmd(&[fixture("memo.txt")], &index(), &out, &d.join("h.csv"))
        .arg("--resume")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("is in use by"), "{err}");
    assert!(!err.contains("partly written"), "{err}");
    // Through a symlink to the same folder, the same lock.
    #[cfg(unix)]
    {
        let link = d.join("link");
        std::os::unix::fs::symlink(&out, &link).unwrap();
        ingest_offline_cmd(&[fixture("memo.txt")], &index(), &link, &d.join("h.csv"))
            .arg("--resume")
            .assert()
            .code(2)
            .stderr(predicates::str::contains("is in use by"));
    }
    drop(held);
}

/// A cache that cannot be written is a configuration error at the start
/// (exit 2, nothing sent), unless `--no-cache`.
#[test]
fn an_unwritable_cache_is_refused_at_start_unless_no_cache() {
    let dir = tempdir();
    let d = dir.path();
    let not_a_folder = d.join("file");
    std::fs::write(&not_a_folder, "x").unwrap();
    let run = |extra: &[&str], out: &str| {
        let mut c = kgroute();
        c.arg("ingest")
            .arg(fixture("memo.txt"))
            .arg("--index")
            .arg(index())
            .arg("--out")
            .arg(d.join(out))
            .arg("--history")
            .arg(d.join("h.csv"))
            .arg("--cache-dir")
            .arg(not_a_folder.join("cache"))
            // Nothing listens here: a run that passed its checks would stop
            // at the endpoint's preflight, also with exit 2, but saying so.
            .args(["--llm-url", "http://127.0.0.1:9/v1", "--model", "m"])
            .args(extra)
            .env_remove("NEO4J_URI");
        c
    };
    let a = run(&[], "a").assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("--cache-dir") && err.contains("--no-cache"),
        "{err}"
    );
    assert!(!d.join("a").exists());
    let a = run(&["--no-cache"], "b").assert().code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(!err.contains("--cache-dir"), "{err}");
}

/// One file name in Latin-1: that file is an error naming it (lossily),
/// the rest of the batch runs and is written (exit 1); `plan` too.
#[cfg(unix)]
#[test]
fn a_file_name_that_is_not_utf8_fails_alone() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempdir();
    let d = dir.path();
    let docs = d.join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(fixture("memo.txt"), docs.join("memo.txt")).unwrap();
    std::fs::copy(
        fixture("supply_agreement.txt"),
        docs.join(std::ffi::OsStr::from_bytes(b"contrat-\xe9t\xe9.txt")),
    )
    .unwrap();
    let out = d.join("out");
    let a = ingest_offline_cmd(
        std::slice::from_ref(&docs),
        &index(),
        &out,
        &d.join("h.csv"),
    )
    .assert()
    .code(1);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("contrat-\u{fffd}t\u{fffd}.txt"), "{err}");
    assert_eq!(documents_in(&out), 1);
    let plan = d.join("plan");
    kgroute()
        .arg("plan")
        .arg(&docs)
        .arg("--index")
        .arg(index())
        .arg("--out")
        .arg(&plan)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("not valid UTF-8"));
    assert!(plan.join("plan.json").is_file());
}

/// `--out` inside the input folder: the batch's own files are never read
/// back as documents, on the first run or on `--resume`.
#[test]
fn an_out_folder_inside_the_inputs_is_not_read_back() {
    let dir = tempdir();
    let docs = dir.path().join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(fixture("memo.txt"), docs.join("memo.txt")).unwrap();
    let out = docs.join("batch");
    let h = dir.path().join("h.csv");
    ingest_offline_cmd(std::slice::from_ref(&docs), &index(), &out, &h)
        .assert()
        .success();
    assert_eq!(documents_in(&out), 1);
    ingest_offline_cmd(std::slice::from_ref(&docs), &index(), &out, &h)
        .arg("--resume")
        .assert()
        .success()
        .stderr(predicates::str::contains("not read as input"));
    assert_eq!(documents_in(&out), 1, "summary.md was not ingested");
}

/// A symlink to a file outside the input folder is skipped with a warning;
/// `--follow-outside` takes it.
#[cfg(unix)]
#[test]
fn a_symlink_out_of_the_input_folder_is_skipped_unless_asked() {
    let dir = tempdir();
    let d = dir.path();
    let docs = d.join("docs");
    std::fs::create_dir(&docs).unwrap();
    std::fs::copy(fixture("memo.txt"), docs.join("memo.txt")).unwrap();
    std::os::unix::fs::symlink(fixture("supply_agreement.txt"), docs.join("private.txt")).unwrap();
    let out = d.join("out");
    ingest_offline_cmd(
        std::slice::from_ref(&docs),
        &index(),
        &out,
        &d.join("h.csv"),
    )
    .assert()
    .success()
    .stderr(predicates::str::contains("outside the input folders"));
    assert_eq!(documents_in(&out), 1);
    let out = d.join("out2");
    ingest_offline_cmd(&[docs], &index(), &out, &d.join("h.csv"))
        .arg("--follow-outside")
        .assert()
        .success();
    assert_eq!(documents_in(&out), 2);
}

/// A damaged manifest.json: with or without `--resume`, the same precise
/// way forward, which works.
#[test]
fn a_damaged_manifest_gets_one_way_forward_that_works() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("batch");
    let h = d.join("h.csv");
    ingest_offline_cmd(&[fixture("memo.txt")], &index(), &out, &h)
        .assert()
        .success();
    std::fs::write(out.join("manifest.json"), "{\"batch_id\": \"b\", \"docu").unwrap();
    for resume in [true, false] {
        let mut c = ingest_offline_cmd(&[fixture("memo.txt")], &index(), &out, &h);
        if resume {
            c.arg("--resume");
        }
        let a = c.assert().code(2);
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        assert!(err.contains("manifest.json is damaged"), "{err}");
        assert!(err.contains(&format!("mv {}", out.display())), "{err}");
        assert!(!err.contains("add --resume") && !err.contains("leave out --resume"));
    }
    // What it says to do.
    std::fs::rename(&out, d.join("batch.damaged")).unwrap();
    ingest_offline_cmd(&[fixture("memo.txt")], &index(), &out, &h)
        .assert()
        .success();
}

/// The first write that fails for a full disk stops the batch: exit 2,
/// one error (not one per remaining document), no temp file, and
/// `--resume` finishes every document. The disk is the fault hook of
/// `atomic_file` (a tmpfs needs root; `safety.rs` also tries one).
#[test]
fn the_first_full_write_stops_the_batch_and_resume_finishes_it() {
    let dir = tempdir();
    let d = dir.path();
    let docs = d.join("docs");
    std::fs::create_dir(&docs).unwrap();
    for i in 0..6 {
        std::fs::copy(fixture("memo.txt"), docs.join(format!("memo{i}.txt"))).unwrap();
        // Distinct content, so none is a duplicate of another.
        let mut text = read(&fixture("memo.txt"));
        text.push_str(&format!("\nCopy {i}.\n"));
        std::fs::write(docs.join(format!("memo{i}.txt")), text).unwrap();
    }
    let out = d.join("out");
    let h = d.join("h.csv");
    let a = ingest_offline_cmd(std::slice::from_ref(&docs), &index(), &out, &h)
        .args(["--documents-in-flight", "1"])
        // The manifest goes in, then the disk is full.
        .env("KGROUTE_FAULT_ENOSPC_AFTER", "1")
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("disk is full") && err.contains("--resume"),
        "{err}"
    );
    assert!(
        !err.contains("FAILED"),
        "no document after the first: {err}"
    );
    assert_eq!(err.matches("os error 28").count(), 1, "{err}");
    assert_eq!(
        super::safety::temp_files(&out),
        Vec::<PathBuf>::new(),
        "no stray temp file"
    );
    ingest_offline_cmd(&[docs], &index(), &out, &h)
        .arg("--resume")
        .assert()
        .success();
    assert_eq!(documents_in(&out), 6);
}
