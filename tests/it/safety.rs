//! Hostile files, two runs at once and closed pipes: a bounded
//! YAML loader, the batch and review locks, the 0/1/2 exit contract under
//! a closed stdout and a full disk, spreadsheets as Excel saves them.

use super::util::{fixture, ingest_offline_cmd, kgroute, read, repo, tempdir};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Nine aliases of the anchor above, eight levels deep: some 500 bytes that
/// stand for 9^8 = 43 million strings.
fn billion_laughs() -> String {
    let mut s = String::from("document_type: lol\nversion: \"1\"\n");
    s.push_str(
        "a0: &a0 [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n",
    );
    for i in 1..=8 {
        let p = format!("*a{}", i - 1);
        s.push_str(&format!("a{i}: &a{i} [{}]\n", vec![p; 9].join(",")));
    }
    s
}

#[test]
fn a_billion_laughs_index_is_refused_at_once_with_one_line() {
    let dir = tempdir();
    let f = dir.path().join("lol.yaml");
    let text = billion_laughs();
    assert!(text.len() < 600);
    std::fs::write(&f, &text).unwrap();
    let t = Instant::now();
    let a = kgroute()
        .args(["index", "check"])
        .arg(&f)
        .timeout(Duration::from_secs(60))
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(err.contains("lol.yaml:"), "{err}");
    assert!(err.contains("expand to more than"), "{err}");
    assert!(err.len() < 2_000, "{} bytes: {err}", err.len());
    // Took 8 s and 2.9 GB before; now the event scan stops at the limit.
    assert!(t.elapsed() < Duration::from_secs(30), "{:?}", t.elapsed());

    // `plan` and `ingest` load the same files: refused too, exit 2.
    let out = dir.path().join("out");
    ingest_offline_cmd(&[fixture("memo.txt")], &f, &out, &dir.path().join("h.csv"))
        .timeout(Duration::from_secs(60))
        .assert()
        .code(2)
        .stderr(predicates::str::contains("expand to more than"));
}

#[test]
fn a_deeply_nested_index_gets_an_error_of_at_most_a_line() {
    let dir = tempdir();
    let f = dir.path().join("deep.yaml");
    let mut text = String::from("document_type: deep\nhigh:\n");
    for i in 0..20_000 {
        text.push_str(&" ".repeat(2 + i % 4000));
        text.push_str(&format!("k{i}:\n"));
    }
    let flow = format!("low: {}x{}\n", "{a: ".repeat(20_000), "}".repeat(20_000));
    for body in [text, format!("document_type: deep\n{flow}")] {
        std::fs::write(&f, &body).unwrap();
        let a = kgroute()
            .args(["index", "check"])
            .arg(&f)
            .timeout(Duration::from_secs(60))
            .assert()
            .failure();
        let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
        for line in err.lines() {
            assert!(line.len() < 400, "{} bytes: {}", line.len(), &line[..400]);
        }
        assert!(err.len() < 2_000, "{} bytes", err.len());
    }
}

/// An index folder of one file and a reviewed report adding one entry.
fn review_setup(d: &Path, decisions: &[(&str, &str)]) -> PathBuf {
    std::fs::create_dir_all(d.join("indices")).unwrap();
    let index = d.join("indices/credit_agreement.yaml");
    if !index.exists() {
        std::fs::write(
            &index,
            "document_type: credit_agreement\nversion: \"4\"\nhigh:\n  - Events of Default\n",
        )
        .unwrap();
    }
    let mut csv = String::from("doc_id,node_id,heading,matched_entry,decision\n");
    for (i, (heading, decision)) in decisions.iter().enumerate() {
        csv.push_str(&format!("ca-1,{:04},{heading},,{decision}\n", i + 1));
    }
    let p = d.join(format!("sections-{}.csv", decisions[0].0.replace(' ', "_")));
    std::fs::write(&p, csv).unwrap();
    p
}

#[test]
fn a_review_write_while_another_holds_the_index_is_refused_naming_it() {
    let dir = tempdir();
    let d = dir.path();
    let csv = review_setup(d, &[("Choice of Law", "add:low")]);
    let index = d.join("indices/credit_agreement.yaml");
    let before = read(&index);
    let held =
        kgroute::lock::Lock::acquire(&d.join("indices").join(kgroute::lock::REVIEW_LOCK), "test")
            .unwrap();
    kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .code(2)
        .stderr(predicates::str::contains("is in use by kgroute (pid"))
        .stderr(predicates::str::contains(std::process::id().to_string()));
    assert_eq!(read(&index), before, "nothing written while refused");
    drop(held);
    kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success();
    assert!(read(&index).contains("Choice of Law"));
}

#[test]
fn two_concurrent_review_writes_never_lose_a_decision() {
    // Before the lock, one reviewer's decisions were lost in 3 of 5 trials
    // with both printing "wrote ... version 4 -> 5".
    for trial in 0..5 {
        let dir = tempdir();
        let d = dir.path();
        let a = review_setup(d, &[("Choice of Law", "add:low")]);
        let b = review_setup(d, &[("Setoff Rights", "add:medium")]);
        let index = d.join("indices/credit_agreement.yaml");
        let spawn = |csv: &Path| {
            Command::new(env!("CARGO_BIN_EXE_kgroute"))
                .arg("review")
                .arg(csv)
                .arg("--index")
                .arg(&index)
                .arg("--write")
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let (pa, pb) = (spawn(&a), spawn(&b));
        let (oa, ob) = (
            pa.wait_with_output().unwrap(),
            pb.wait_with_output().unwrap(),
        );
        let text = read(&index);
        for (o, title) in [(&oa, "Choice of Law"), (&ob, "Setoff Rights")] {
            let err = String::from_utf8_lossy(&o.stderr);
            if o.status.success() {
                assert!(
                    text.contains(title),
                    "trial {trial}: {title} lost: {err}\n{text}"
                );
            } else {
                assert!(err.contains("is in use by"), "trial {trial}: {err}");
            }
        }
        assert!(oa.status.success() || ob.status.success(), "trial {trial}");
    }
}

#[test]
fn a_second_resume_of_a_batch_in_progress_is_refused_naming_the_first() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("batch-1");
    let history = d.join("history.csv");
    let index = repo().join("indices/credit_agreement.yaml");
    let docs = [fixture("credit_agreement.md"), fixture("memo.txt")];
    let held = kgroute::lock::Lock::for_batch(&out).unwrap();
    ingest_offline_cmd(&docs, &index, &out, &history)
        .arg("--resume")
        .assert()
        .code(2)
        .stderr(predicates::str::contains(format!(
            "batch folder {} is in use by kgroute (pid {}",
            out.display(),
            std::process::id()
        )));
    assert!(!out.exists(), "the refused run made nothing");
    drop(held);
    ingest_offline_cmd(&docs, &index, &out, &history)
        .arg("--resume")
        .assert()
        .success();
    // The lock file goes with the run.
    assert!(!kgroute::lock::batch_lock_path(&out).exists());
}

#[test]
fn a_lock_left_by_a_killed_run_is_taken_over() {
    let dir = tempdir();
    let d = dir.path();
    let out = d.join("b");
    let index = repo().join("indices/credit_agreement.yaml");
    ingest_offline_cmd(&[fixture("memo.txt")], &index, &out, &d.join("h.csv"))
        .assert()
        .success();
    std::fs::write(
        kgroute::lock::batch_lock_path(&out),
        "kgroute (pid 999999, killed)\n",
    )
    .unwrap();
    let stale = out.join("docs/.x.json.tmp2147483000");
    std::fs::write(&stale, "half").unwrap();
    ingest_offline_cmd(
        &[fixture("memo.txt")],
        &repo().join("indices/credit_agreement.yaml"),
        &out,
        &d.join("h.csv"),
    )
    .arg("--resume")
    .assert()
    .success();
    assert!(!stale.exists(), "a dead run's temp file is cleaned up");
}

#[test]
fn a_closed_stdout_neither_panics_nor_stops_the_batch() {
    let dir = tempdir();
    let d = dir.path();
    let docs_dir = d.join("docs");
    std::fs::create_dir_all(&docs_dir).unwrap();
    let text = read(&fixture("credit_agreement.md"));
    for i in 0..6 {
        std::fs::write(
            docs_dir.join(format!("ca{i}.md")),
            text.replace("Credit", &format!("Credit {i}")),
        )
        .unwrap();
    }
    let out = d.join("out");
    // `kgroute ingest DIR | head -1`.
    let mut child = Command::new(env!("CARGO_BIN_EXE_kgroute"))
        .arg("ingest")
        .arg(&docs_dir)
        .arg("--index")
        .arg(repo().join("indices/credit_agreement.yaml"))
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(d.join("h.csv"))
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    // The reader is dropped: the pipe is closed after one line.
    let o = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        matches!(o.status.code(), Some(0 | 1)),
        "{:?}: {err}",
        o.status
    );
    let saved = std::fs::read_dir(out.join("docs")).unwrap().count();
    assert_eq!(saved, 6, "every document saved: {err}");
    assert!(out.join("summary.json").is_file(), "{err}");
    assert!(
        read(&d.join("h.csv")).lines().count() >= 2,
        "history row written"
    );
}

#[test]
fn an_unwritable_history_is_found_before_the_first_document() {
    let dir = tempdir();
    let d = dir.path();
    let not_a_folder = d.join("file.txt");
    std::fs::write(&not_a_folder, "x").unwrap();
    let out = d.join("out");
    ingest_offline_cmd(
        &[fixture("memo.txt")],
        &repo().join("indices/credit_agreement.yaml"),
        &out,
        &not_a_folder.join("history.csv"),
    )
    .assert()
    .code(2)
    .stderr(predicates::str::contains("--history"));
    assert!(!out.join("docs").exists(), "no document ran");
}

/// A 2 MB tmpfs (root only; skipped elsewhere) filled but for a little:
/// the disk fills during the batch. The first full write stops it with
/// exit 2 (not 1, going on through every document), no temp file is left, and `--resume` finishes it once space
/// is freed.
#[test]
fn a_full_disk_stops_the_batch_with_exit_2_and_resume_finishes_it() {
    let dir = tempdir();
    let mnt = dir.path().join("mnt");
    std::fs::create_dir(&mnt).unwrap();
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=2m", "tmpfs"])
        .arg(&mnt)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !mounted {
        eprintln!("skipped: cannot mount a tmpfs here (needs root)");
        return;
    }
    struct Unmount(PathBuf);
    impl Drop for Unmount {
        fn drop(&mut self) {
            let _ = Command::new("umount").arg(&self.0).status();
        }
    }
    let _guard = Unmount(mnt.clone());
    let out = mnt.join("out");
    let history = dir.path().join("h.csv");
    let index = repo().join("indices/credit_agreement.yaml");
    let docs = [
        fixture("credit_agreement.md"),
        fixture("supply_agreement.txt"),
    ];
    // How much a full run writes, then leave room for about a third of it.
    ingest_offline_cmd(&docs, &index, &out, &history)
        .assert()
        .success();
    let used = du(&out);
    std::fs::remove_dir_all(&out).unwrap();
    let free: u64 = 2 * 1024 * 1024 - 64 * 1024;
    let filler = free.saturating_sub(used / 3) as usize;
    std::fs::write(mnt.join("filler"), vec![0u8; filler]).unwrap();
    let a = ingest_offline_cmd(&docs, &index, &out, &history)
        .assert()
        .code(2);
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    assert!(
        err.contains("disk is full") && err.contains("--resume"),
        "{err}"
    );
    assert_eq!(temp_files(&out), Vec::<PathBuf>::new());
    std::fs::remove_file(mnt.join("filler")).unwrap();
    ingest_offline_cmd(&docs, &index, &out, &history)
        .arg("--resume")
        .assert()
        .success();
}

/// Files named like a temp file (`.NAME.tmp...`) anywhere under `dir`.
pub fn temp_files(dir: &Path) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut dirs = vec![dir.to_path_buf()];
    while let Some(d) = dirs.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let p = e.path();
            if p.is_dir() {
                dirs.push(p);
            } else if e.file_name().to_string_lossy().contains(".tmp") {
                found.push(p);
            }
        }
    }
    found
}

fn du(dir: &Path) -> u64 {
    let mut n = 0;
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let m = e.metadata().unwrap();
        n += if m.is_dir() {
            du(&e.path())
        } else {
            m.len().div_ceil(4096) * 4096
        };
    }
    n
}

#[test]
fn a_default_batch_name_is_unique_per_run() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir(d.join("docs")).unwrap();
    std::fs::copy(fixture("memo.txt"), d.join("docs/memo.txt")).unwrap();
    let run = || {
        Command::new(env!("CARGO_BIN_EXE_kgroute"))
            .current_dir(d)
            .args(["ingest", "docs", "--index"])
            .arg(repo().join("indices"))
            .env_remove("KGROUTE_LLM_URL")
            .env_remove("NEO4J_URI")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (run(), run());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert!(b.status.success(), "{}", String::from_utf8_lossy(&b.stderr));
    let batches: Vec<_> = std::fs::read_dir(d.join("reports"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir() && e.file_name().to_string_lossy().starts_with("batch-"))
        .collect();
    assert_eq!(
        batches.len(),
        2,
        "two runs started in one second, two folders"
    );
}

#[test]
fn an_excel_resaved_csv_reviews_like_the_original() {
    // `;` separators, Windows-1252, CRLF: what Excel writes in a
    // comma-decimal locale.
    let dir = tempdir();
    let d = dir.path();
    review_setup(d, &[("x", "add:low")]);
    let index = d.join("indices/credit_agreement.yaml");
    let csv = "doc_id;node_id;heading;matched_entry;decision\r\nca-1;7;Gesch\u{e4}ftsjahr;;add:low\r\nca-1;8;Cl\u{e9}ture;;bogus\r\n";
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(csv);
    let p = d.join("excel.csv");
    std::fs::write(&p, &bytes).unwrap();
    let a = kgroute()
        .arg("review")
        .arg(&p)
        .arg("--index")
        .arg(&index)
        .assert()
        .failure();
    let err = String::from_utf8_lossy(&a.get_output().stderr).into_owned();
    // The bad decision is on line 3 of the file.
    assert!(err.contains("excel.csv:3 (doc ca-1, node 0008)"), "{err}");
    assert!(
        !err.contains("utf-8") && !err.contains("no `doc_id`"),
        "{err}"
    );
    let csv = csv.replace("bogus", "");
    let (bytes, _, _) = encoding_rs::WINDOWS_1252.encode(&csv);
    std::fs::write(&p, &bytes).unwrap();
    kgroute()
        .arg("review")
        .arg(&p)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success();
    assert!(
        read(&index).contains("Gesch\u{e4}ftsjahr"),
        "{}",
        read(&index)
    );
}

#[test]
fn an_api_key_in_the_llm_url_is_never_printed() {
    let dir = tempdir();
    let out = dir.path().join("out");
    let a = ingest_offline_cmd(
        &[fixture("memo.txt")],
        &repo().join("indices/credit_agreement.yaml"),
        &out,
        &dir.path().join("h.csv"),
    )
    .args([
        "--llm-url",
        "http://127.0.0.1:9/v1?api-key=TOPSECRET42",
        "--model",
        "m",
    ])
    .assert()
    .code(2);
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&a.get_output().stdout),
        String::from_utf8_lossy(&a.get_output().stderr)
    );
    assert!(!all.contains("TOPSECRET42"), "{all}");
    assert!(all.contains("api-key=***"), "{all}");
}

/// A subfolder that cannot be listed is that folder's error, not the
/// batch's: the other documents run, the folder is named, exit code 1.
/// Run as an unprivileged user (root lists any folder): `nobody` through
/// `setpriv` when the tests run as root.
#[test]
fn an_unlistable_subfolder_is_an_error_of_its_own_and_the_rest_runs() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let d = dir.path();
    let docs = d.join("docs");
    let locked = docs.join("locked");
    std::fs::create_dir_all(&locked).unwrap();
    std::fs::copy(fixture("memo.txt"), docs.join("memo.txt")).unwrap();
    std::fs::copy(fixture("supply_agreement.txt"), locked.join("supply.txt")).unwrap();
    let mode =
        |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    mode(d, 0o777);
    mode(&docs, 0o755);
    mode(&locked, 0o000);
    let bin = assert_cmd::cargo::cargo_bin("kgroute");
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    let mut c = if is_root {
        let mut c = Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&bin);
        c
    } else {
        Command::new(&bin)
    };
    let out = d.join("out");
    c.arg("ingest")
        .arg(&docs)
        .arg("--index")
        .arg(repo().join("indices"))
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(d.join("history.csv"))
        .env("HOME", d)
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env_remove("NEO4J_URI");
    let run = c.output().unwrap();
    mode(&locked, 0o755);
    let stderr = String::from_utf8_lossy(&run.stderr);
    if is_root && stderr.contains("setpriv") && run.status.code() != Some(1) {
        eprintln!("skipped: cannot drop to an unprivileged user here: {stderr}");
        return;
    }
    assert_eq!(run.status.code(), Some(1), "stderr: {stderr}");
    assert!(
        stderr.contains("locked") && stderr.contains("cannot list folder"),
        "the folder is named: {stderr}"
    );
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let docs_in_batch = summary["per_document"].as_array().unwrap();
    assert_eq!(docs_in_batch.len(), 1, "memo.txt ran: {summary}");
}
