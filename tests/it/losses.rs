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
        "graph/graph.jsonl",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        read(&history).lines().count(),
        2,
        "header and the batch's row"
    );
    assert!(read(&out.join("sections.csv")).contains(&long));
    assert!(read(&out.join("graph/graph.jsonl")).contains(&long));

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
    let drafted = read(&target);
    assert!(drafted.contains("document_type: servicing") && drafted != reviewed);
    assert!(!dir.path().join("indices/.kgroute-review.lock").exists());
}
