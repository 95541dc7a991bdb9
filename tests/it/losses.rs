//! Issue 45: nothing a user runs loses a batch, an index or a document. A
//! heading past a workbook's cell limit, a draft over a reviewed index, a
//! shard missing a graph part, an index path that never ends, a model
//! server that answers garbage, a key in the URL's path.

use super::util::{ingest_offline_cmd, kgroute, read, repo, tempdir};
use std::path::{Path, PathBuf};

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8_lossy(&a.get_output().stderr).into_owned()
}

/// Two documents, one with a heading longer than Excel's 32,767-character
/// cell: every report is written, the workbook's cell is cut with a marker,
/// and `sections.csv` and the graph keep the whole heading.
#[test]
fn a_heading_past_excels_cell_limit_costs_the_batch_nothing() {
    let dir = tempdir();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    let long = format!("Governing {}", "word ".repeat(8000).trim_end());
    assert!(long.chars().count() > 32_767);
    std::fs::write(
        docs.join("long.md"),
        format!("# Agreement\n\n## 1. Definitions\n\nThe Borrower shall pay.\n\n## 2. {long}\n\nNew York law governs.\n"),
    )
    .unwrap();
    std::fs::write(
        docs.join("good.md"),
        "# Agreement\n\n## 1. Definitions\n\nThe Borrower shall pay.\n\n## 2. Governing Law\n\nNew York law.\n",
    )
    .unwrap();
    let out = dir.path().join("batch");
    let history = dir.path().join("history.csv");
    ingest_offline_cmd(&[docs], &repo().join("indices"), &out, &history)
        .assert()
        .success();
    for f in [
        "sections.csv",
        "sections.xlsx",
        "summary.md",
        "summary.json",
        "suggestions.yaml",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        read(&history).lines().count(),
        2,
        "header and the batch's row"
    );
    assert!(read(&out.join("sections.csv")).contains(&long));
    assert!(super::util::graph_jsonl(&out).contains(&long));

    use calamine::Reader;
    let mut wb: calamine::Xlsx<_> = calamine::open_workbook(out.join("sections.xlsx")).unwrap();
    let sheet = wb.sheet_names()[0].clone();
    let range = wb.worksheet_range(&sheet).unwrap();
    let cut: Vec<String> = range
        .rows()
        .flat_map(|r| r.iter().map(|c| c.to_string()))
        .filter(|c| c.contains("Governing word word"))
        .collect();
    assert!(!cut.is_empty(), "the long heading has its row");
    for c in &cut {
        assert!(c.chars().count() <= 32_767, "{} chars", c.chars().count());
        assert!(c.ends_with("full text in sections.csv]"), "{c:.80}");
    }

    let a = kgroute()
        .args(["ask", "New York law", "--batch"])
        .arg(&out)
        .assert()
        .success();
    assert!(String::from_utf8_lossy(&a.get_output().stdout).contains("good.md"));
}

/// A 5 MB heading decided `add:` is refused with its file and line (the
/// bound named) and never reaches the index, which an ingest would then
/// offer in every workbook's drop-down.
#[test]
fn review_refuses_an_absurd_title_with_its_line() {
    let dir = tempdir();
    let d = dir.path();
    std::fs::create_dir_all(d.join("indices")).unwrap();
    let index = "document_type: lease\nversion: \"1\"\nhigh:\n  - Rent\n";
    std::fs::write(d.join("indices/lease.yaml"), index).unwrap();
    let huge = "Whereas ".repeat(600_000);
    std::fs::write(
        d.join("sections.csv"),
        format!(
            "doc_id,doc_type,doc_type_confidence,node_id,heading,matched_entry,decision\n\
             l-1,lease,0.9,0004,Section 5. Holdover,,add:medium\n\
             l-1,lease,0.9,0005,{},,add:high\n",
            huge.trim_end()
        ),
    )
    .unwrap();
    let a = kgroute()
        .arg("review")
        .arg(d.join("sections.csv"))
        .arg("--index")
        .arg(d.join("indices"))
        .arg("--write")
        .assert()
        .failure();
    let err = stderr_of(&a);
    assert!(
        err.contains("sections.csv:3 (doc l-1, node 0005)") && err.contains("more than the 500"),
        "{:.400}",
        err
    );
    let after = read(&d.join("indices/lease.yaml"));
    assert!(!after.contains("Whereas"), "{:.300}", after);
    assert!(
        err.len() < 10_000,
        "the title is not echoed: {} bytes",
        err.len()
    );
}

/// Three servicing agreements with the same headings, ingested with
/// `--calibrate`, in `dir/batch`: something to draft an index from.
fn calibrated_servicing_batch(dir: &Path) -> PathBuf {
    let docs = dir.join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for (i, party) in ["Acme Servicing LLC", "Beta Loans Inc.", "Gamma Trust Co."]
        .iter()
        .enumerate()
    {
        std::fs::write(
            docs.join(format!("servicing_{i}.md")),
            format!(
                "# Servicing Agreement\n\n## Section 1. Servicing Fee\n\n{party} shall pay the Servicer a fee of $5,000 per month.\n\n\
                 ## Section 2. Collections\n\nThe Servicer shall deposit all Collections into the Collection Account within two Business Days.\n\n\
                 ## Section 3. Governing Law\n\nThis Agreement is governed by the laws of the State of New York.\n"
            ),
        )
        .unwrap();
    }
    let out = dir.join("batch");
    ingest_offline_cmd(&[docs], &repo().join("indices"), &out, &dir.join("h.csv"))
        .arg("--calibrate")
        .assert()
        .success();
    out
}

fn draft_cmd(from: &Path, out: &Path) -> assert_cmd::Command {
    let mut c = kgroute();
    c.args([
        "index",
        "draft",
        "--doc-type",
        "servicing",
        "--min-docs",
        "2",
        "--from",
    ])
    .arg(from)
    .arg("--out")
    .arg(out)
    .arg("--base")
    .arg(repo().join("indices/base/common.yaml"))
    .arg("--against")
    .arg(repo().join("indices"));
    c
}

/// `index draft --out` onto an existing (reviewed) index: refused with
/// exit 2, the file named and left as it was; `--force` replaces it and
/// keeps the old one as `FILE.bak`.
#[test]
fn index_draft_never_replaces_an_index_unasked() {
    let dir = tempdir();
    let batch = calibrated_servicing_batch(dir.path());
    let target = dir.path().join("indices/servicing.yaml");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    let reviewed =
        "# reviewed by ann\ndocument_type: servicing\nversion: \"7\"\nhigh:\n  - Servicing Fee\n";
    std::fs::write(&target, reviewed).unwrap();

    let a = draft_cmd(&batch, &target).assert().code(2);
    let err = stderr_of(&a);
    assert!(
        err.contains(&target.display().to_string()) && err.contains("--force"),
        "{err}"
    );
    assert_eq!(read(&target), reviewed);

    let a = draft_cmd(&batch, &target).arg("--force").assert().success();
    let bak = dir.path().join("indices/servicing.yaml.bak");
    assert_eq!(read(&bak), reviewed, "{}", stderr_of(&a));
    // The draft is tried on the documents it came from, as ingest types.
    assert!(
        stderr_of(&a).contains("with the draft, 3 of its 3 documents are typed `servicing`"),
        "{}",
        stderr_of(&a)
    );
    assert!(!stderr_of(&a).contains("warning"), "{}", stderr_of(&a));
    let drafted = read(&target);
    assert!(drafted.contains("document_type: servicing") && drafted != reviewed);
    assert!(!dir.path().join("indices/.kgroute-review.lock").exists());

    // The loop re-drafts onto the same --out: the reviewed text stays in
    // its copy, and the draft it replaces gets a copy of its own.
    let edited = format!("{drafted}# edited by ann\n");
    std::fs::write(&target, &edited).unwrap();
    let a = draft_cmd(&batch, &target).arg("--force").assert().success();
    assert_eq!(read(&bak), reviewed, "{}", stderr_of(&a));
    let second = dir.path().join("indices/servicing.yaml.bak.2");
    assert_eq!(read(&second), edited, "{}", stderr_of(&a));
    assert!(
        stderr_of(&a).contains("servicing.yaml.bak.2"),
        "{}",
        stderr_of(&a)
    );
}

/// A family whose documents share headings but no title: the draft is
/// written, and `index draft` says at once that it types none of them,
/// and why, instead of leaving it to the next batch to find out.
#[test]
fn a_draft_that_types_none_of_its_documents_says_so() {
    let dir = tempdir();
    let docs = dir.path().join("docs");
    std::fs::create_dir_all(&docs).unwrap();
    for (i, title) in ["Alpha Memorandum", "Letter of Beta", "Gamma Note"]
        .iter()
        .enumerate()
    {
        // The shared headings come after the title block detection reads
        // (the first 4,000 characters), past a long recital of each one's.
        let recital = format!("this {i} recital of the history of the matter runs on. ").repeat(90);
        std::fs::write(
            docs.join(format!("doc_{i}.md")),
            format!(
                "# {title}\n\n{recital}\n\n## Section 1. Servicing Fee\n\nThe Company shall pay the Servicer a fee of $5,000 per month.\n\n\
                 ## Section 2. Collections\n\nThe Servicer shall deposit all Collections within two Business Days.\n"
            ),
        )
        .unwrap();
    }
    let batch = dir.path().join("batch");
    ingest_offline_cmd(
        &[docs],
        &repo().join("indices"),
        &batch,
        &dir.path().join("h.csv"),
    )
    .arg("--calibrate")
    .assert()
    .success();
    let target = dir.path().join("indices/servicing.yaml");
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    let a = draft_cmd(&batch, &target).assert().success();
    let err = stderr_of(&a);
    assert!(target.is_file(), "{err}");
    assert!(
        err.contains("with the draft, 0 of its 3 documents are typed `servicing`"),
        "{err}"
    );
    assert!(
        err.contains("warning: the draft types none of its own documents")
            && err.contains("share no title phrase")
            && err.contains(&target.display().to_string()),
        "{err}"
    );
}

/// A draft printed to stdout is used where it lands: captured from a pipe
/// into the folder of the other indices (`--against`), or redirected with
/// `>` into another folder, its `extends:` finds the base from there and
/// the folder loads and routes with it. An empty file left in the folder
/// (a failed `> indices/new.yaml`) is skipped with a warning naming it,
/// not a stop for every batch.
#[test]
fn a_draft_printed_to_stdout_loads_where_it_lands() {
    let dir = tempdir();
    let batch = calibrated_servicing_batch(dir.path());
    let indices = dir.path().join("indices");
    std::fs::create_dir_all(indices.join("base")).unwrap();
    for f in [
        "commercial.yaml",
        "credit_agreement.yaml",
        "base/common.yaml",
    ] {
        std::fs::copy(repo().join("indices").join(f), indices.join(f)).unwrap();
    }
    let draft_args = |c: &mut assert_cmd::Command| {
        c.args([
            "index",
            "draft",
            "--doc-type",
            "servicing",
            "--min-docs",
            "2",
            "--from",
        ])
        .arg(&batch)
        .arg("--base")
        .arg(indices.join("base/common.yaml"))
        .arg("--against")
        .arg(&indices);
    };
    // Through a pipe: written for the --against folder.
    let mut c = kgroute();
    draft_args(&mut c);
    let printed = c.assert().success().get_output().stdout.clone();
    std::fs::write(indices.join("servicing.yaml"), &printed).unwrap();
    // An empty file beside it, as a failed redirect leaves one.
    std::fs::write(indices.join("broken.yaml"), "").unwrap();
    let plan = kgroute()
        .arg("plan")
        .arg(batch.parent().unwrap().join("docs"))
        .arg("--index")
        .arg(&indices)
        .arg("--out")
        .arg(dir.path().join("plan"))
        .assert()
        .success();
    let err = stderr_of(&plan);
    assert!(
        err.contains("broken.yaml") && err.contains("skipped"),
        "{err}"
    );
    let planned = read(&dir.path().join("plan/plan.csv"));
    assert!(
        planned.contains(",servicing,"),
        "the draft types its documents: {planned}"
    );

    // Redirected into another folder: written for that folder.
    let elsewhere = dir.path().join("drafts");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let target = elsewhere.join("servicing.yaml");
    let mut c = std::process::Command::new(assert_cmd::cargo::cargo_bin("kgroute"));
    c.args([
        "index",
        "draft",
        "--doc-type",
        "servicing",
        "--min-docs",
        "2",
        "--from",
    ])
    .arg(&batch)
    .arg("--base")
    .arg(indices.join("base/common.yaml"))
    .arg("--against")
    .arg(&indices)
    .stdout(std::fs::File::create(&target).unwrap());
    assert!(c.status().unwrap().success());
    assert!(
        read(&target).contains("extends: ../indices/base/common.yaml"),
        "{}",
        read(&target)
    );
    kgroute()
        .args(["index", "check"])
        .arg(&target)
        .assert()
        .success();
}

fn ingest_shard(out: &Path, shard: &str, resume: bool) -> assert_cmd::Command {
    let inputs = [
        super::util::fixture("supply_agreement.txt"),
        super::util::fixture("memo.txt"),
    ];
    let mut c = ingest_offline_cmd(
        &inputs,
        &repo().join("indices"),
        out,
        &out.with_extension("history.csv"),
    );
    c.args(["--shard", shard, "--quiet"])
        .env_remove("KGROUTE_SHARD")
        .env_remove("JOB_COMPLETION_INDEX");
    if resume {
        c.arg("--resume");
    }
    c
}

fn merge(shards: &[PathBuf], out: &Path) -> assert_cmd::Command {
    let mut c = kgroute();
    c.arg("merge")
        .args(shards)
        .arg("--out")
        .arg(out)
        .arg("--history")
        .arg(out.with_extension("history.csv"));
    c
}

fn part_files(shard: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(shard.join("graph/parts"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

/// A shard missing a document's graph part: the merge fails naming the
/// shard's file and leaves no `--out`; `--resume` of the shard rebuilds
/// the part and the merge then has every document. A truncated part is
/// named where it is, in the shard, and leaves no `--out` either.
#[test]
fn merge_never_drops_a_document_whose_graph_part_is_gone() {
    let dir = tempdir();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| dir.path().join(format!("shard-{k}")))
        .collect();
    for (k, s) in shards.iter().enumerate() {
        ingest_shard(s, &format!("{k}/2"), false).assert().success();
    }
    let k = (0..2)
        .find(|k| !part_files(&shards[*k]).is_empty())
        .expect("a shard with a written document");
    let shard = shards[k].clone();
    let part = part_files(&shard).remove(0);
    std::fs::remove_file(&part).unwrap();

    let out = dir.path().join("merged");
    let a = merge(&shards, &out).assert().failure();
    let err = stderr_of(&a);
    assert!(
        err.contains(&part.display().to_string()) && err.contains("--resume"),
        "{err}"
    );
    assert!(!out.exists(), "no half-written --out");

    ingest_shard(&shard, &format!("{k}/2"), true)
        .assert()
        .success();
    assert!(part.is_file(), "--resume rebuilt the part");
    merge(&shards, &out).assert().success();
    let graph = super::util::graph_jsonl(&out);
    for doc in ["supply_agreement", "memo"] {
        assert!(graph.contains(doc), "{doc} is in the merged graph");
    }

    let bytes = std::fs::read(&part).unwrap();
    std::fs::write(&part, &bytes[..bytes.len() / 2]).unwrap();
    let out2 = dir.path().join("merged-2");
    let a = merge(&shards, &out2).assert().failure();
    let err = stderr_of(&a);
    assert!(err.contains(&part.display().to_string()), "{err}");
    assert!(!out2.exists(), "no half-written --out");
}

/// A shard whose manifest lost a document's entry: the merge fails naming
/// the shard's saved document and `--resume`, and leaves no `--out`
/// (before, it wrote a batch without that document, exit 0, while the
/// merged search index still found it); `--resume` of the shard lists it
/// again and the merge then has every document.
#[test]
fn merge_never_drops_a_document_its_shard_manifest_lost() {
    let dir = tempdir();
    let shards: Vec<PathBuf> = (0..2)
        .map(|k| dir.path().join(format!("shard-{k}")))
        .collect();
    for (k, s) in shards.iter().enumerate() {
        ingest_shard(s, &format!("{k}/2"), false).assert().success();
    }
    let listed = |shard: &Path| -> serde_json::Value {
        serde_json::from_str(&read(&shard.join("manifest.json"))).unwrap()
    };
    let k = (0..2)
        .find(|k| {
            listed(&shards[*k])["documents"]
                .as_array()
                .is_some_and(|d| d.iter().any(|e| e["doc_id"].is_string()))
        })
        .expect("a shard with a saved document");
    let shard = shards[k].clone();
    let mut m = listed(&shard);
    let docs = m["documents"].as_array_mut().unwrap();
    let at = docs.iter().position(|e| e["doc_id"].is_string()).unwrap();
    let lost = docs.remove(at);
    std::fs::write(shard.join("manifest.json"), m.to_string()).unwrap();
    let _ = std::fs::remove_file(shard.join("manifest.journal"));
    let saved = kgroute::saved_docs::path(&shard, lost["doc_id"].as_str().unwrap());
    assert!(saved.is_file());

    let out = dir.path().join("merged");
    let a = merge(&shards, &out).assert().failure();
    let err = stderr_of(&a);
    assert!(
        err.contains(&saved.display().to_string()) && err.contains("--resume"),
        "{err}"
    );
    assert!(!out.exists(), "no half-written --out");

    ingest_shard(&shard, &format!("{k}/2"), true)
        .assert()
        .success();
    merge(&shards, &out).assert().success();
    let merged = listed(&out);
    let ids: Vec<&str> = merged["documents"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["doc_id"].as_str())
        .collect();
    assert!(ids.contains(&lost["doc_id"].as_str().unwrap()), "{ids:?}");
}

/// `extends:` naming `/dev/zero` or a FIFO is refused as not a regular
/// file, at once and naming the path, instead of read without end (24 GB
/// before the kernel ended it) or waited on for a writer that never comes.
#[test]
fn an_index_extending_a_device_or_a_fifo_is_refused_before_it_is_read() {
    let dir = tempdir();
    let zero = dir.path().join("zero.yaml");
    std::fs::write(
        &zero,
        "extends: /dev/zero\ndocument_type: zero\nversion: \"1\"\nhigh:\n  - Rent\n",
    )
    .unwrap();
    let fifo = dir.path().join("fifo.yaml");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let on_fifo = dir.path().join("on_fifo.yaml");
    std::fs::write(
        &on_fifo,
        "extends: fifo.yaml\ndocument_type: f\nversion: \"1\"\nhigh:\n  - Rent\n",
    )
    .unwrap();

    let a = ingest_offline_cmd(
        &[super::util::fixture("memo.txt")],
        &zero,
        &dir.path().join("out"),
        &dir.path().join("h.csv"),
    )
    // A guard against a hang, not a speed figure.
    .timeout(std::time::Duration::from_secs(120))
    .assert()
    .code(2);
    let err = stderr_of(&a);
    assert!(
        err.contains("/dev/zero") && err.contains("not a regular file"),
        "{err}"
    );

    let a = kgroute()
        .args(["index", "check"])
        .arg(&on_fifo)
        .timeout(std::time::Duration::from_secs(120))
        .assert()
        .failure();
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&a.get_output().stdout),
        stderr_of(&a)
    );
    assert!(
        shown.contains("fifo.yaml") && shown.contains("not a regular file"),
        "{shown}"
    );
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(files_under(&p));
        } else {
            out.push(p);
        }
    }
    out
}

/// A key as a segment of the LLM URL's path (`/key/sk-.../v1`, as some
/// gateways take it) is shown as `***` on the run's lines and written in
/// no file of the batch.
#[test]
fn a_key_in_the_llm_urls_path_is_never_shown_or_written() {
    let (_rt, server) = super::util::good_fake_server();
    let dir = tempdir();
    let out = dir.path().join("batch");
    let host = server.base_url().trim_end_matches("/v1").to_string();
    let url = format!("{host}/key/sk-SECRET4242abcdefgh/v1");
    let a = ingest_offline_cmd(
        &[super::util::fixture("memo.txt")],
        &repo().join("indices/credit_agreement.yaml"),
        &out,
        &dir.path().join("h.csv"),
    )
    .arg("--cache-dir")
    .arg(dir.path().join("cache"))
    .args(["--llm-url", &url, "--model", "test-model"])
    .assert()
    .success();
    assert!(server.requests() > 0, "the LLM was asked");
    let shown = format!(
        "{}{}",
        String::from_utf8_lossy(&a.get_output().stdout),
        stderr_of(&a)
    );
    assert!(shown.contains("/key/***/v1"), "{shown}");
    assert!(!shown.contains("SECRET4242"), "{shown}");
    let files = files_under(&out);
    assert!(files.iter().any(|f| f.ends_with("report-meta.json")));
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        assert!(
            !bytes.windows(10).any(|w| w == b"SECRET4242"),
            "{} holds the key",
            f.display()
        );
    }
}

/// A `/models` that answers 200 with an HTML page fails the start check:
/// exit 2 before any section is sent, as README promises for an endpoint
/// that is not a model server.
#[test]
fn a_models_page_that_is_not_json_fails_the_start_check_with_exit_2() {
    use crate::fake_server::{good_extraction, FakeServer, Reply};
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(FakeServer::start(std::time::Duration::ZERO, |r| {
            if r.path.ends_with("/models") {
                Reply::status(200, "<html><body>Welcome to nginx!</body></html>")
            } else {
                Reply::json(&good_extraction())
            }
        }))
        .unwrap();
    let dir = tempdir();
    let a = ingest_offline_cmd(
        &[super::util::fixture("memo.txt")],
        &repo().join("indices/credit_agreement.yaml"),
        &dir.path().join("batch"),
        &dir.path().join("h.csv"),
    )
    .arg("--cache-dir")
    .arg(dir.path().join("cache"))
    .args(["--llm-url", &server.base_url(), "--model", "test-model"])
    .assert()
    .code(2);
    let err = stderr_of(&a);
    assert!(err.contains("not JSON") && err.contains("nginx"), "{err}");
    assert_eq!(server.preflights(), 1);
    assert_eq!(server.requests(), 0, "no section was sent");
}

/// `index draft` refuses a type name that is a path, a second index of a
/// type the folder already indexes, and a batch whose sections were not
/// scanned (unless asked); a folder holding two indices of one type is
/// refused when it loads, naming both files.
#[test]
fn index_draft_refuses_paths_second_indices_and_unscanned_batches() {
    let dir = tempdir();
    let batch = calibrated_servicing_batch(dir.path());
    let indices = dir.path().join("indices");
    std::fs::create_dir_all(indices.join("base")).unwrap();
    for f in ["commercial.yaml", "base/common.yaml"] {
        std::fs::copy(repo().join("indices").join(f), indices.join(f)).unwrap();
    }
    let draft = |doc_type: &str, from: &Path, out: &Path, extra: &[&str]| {
        kgroute()
            .args([
                "index",
                "draft",
                "--doc-type",
                doc_type,
                "--min-docs",
                "1",
                "--from",
            ])
            .arg(from)
            .arg("--out")
            .arg(out)
            .arg("--base")
            .arg(indices.join("base/common.yaml"))
            .arg("--against")
            .arg(&indices)
            .args(extra)
            .assert()
    };
    let evil = draft("../evil", &batch, &indices.join("evil.yaml"), &[]).code(2);
    assert!(stderr_of(&evil).contains("a type name is lower-case letters"));
    assert!(!dir.path().join("evil.yaml").exists() && !indices.join("evil.yaml").exists());

    let second = draft("commercial", &batch, &indices.join("commercial2.yaml"), &[]).code(2);
    let err = stderr_of(&second);
    assert!(
        err.contains("already indexes commercial documents"),
        "{err}"
    );
    assert!(!indices.join("commercial2.yaml").exists());

    // A contract ingested without --calibrate: the sections its titles
    // skip were never scanned.
    let plain = dir.path().join("plain");
    ingest_offline_cmd(
        &[super::util::fixture("supply_agreement.txt")],
        &repo().join("indices"),
        &plain,
        &dir.path().join("h2.csv"),
    )
    .assert()
    .success();
    let out = indices.join("supply.yaml");
    let unscanned = draft("supply", &plain, &out, &[]).code(2);
    let err = stderr_of(&unscanned);
    assert!(
        err.contains("were not scanned") && err.contains("--allow-unscanned"),
        "{err}"
    );
    assert!(!out.exists());
    draft("supply", &plain, &out, &["--allow-unscanned"]).success();
    assert!(read(&out).contains("WARNING"), "the draft says so");

    // Two files of one type in a folder: refused on load, both named.
    std::fs::copy(
        indices.join("commercial.yaml"),
        indices.join("commercial_copy.yaml"),
    )
    .unwrap();
    let plan = kgroute()
        .arg("plan")
        .arg(dir.path().join("docs"))
        .arg("--index")
        .arg(&indices)
        .arg("--out")
        .arg(dir.path().join("plan"))
        .assert()
        .code(2);
    let err = stderr_of(&plan);
    assert!(
        err.contains("commercial_copy.yaml")
            && err.contains("already indexed by")
            && err.contains("commercial.yaml"),
        "{err}"
    );
}
