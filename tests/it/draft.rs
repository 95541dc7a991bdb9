//! `kgroute index draft`, unknown families and the review loop of a new
//! type, on the shared credit agreements routed as if nobody had written
//! their index (the folder of indices without credit_agreement.yaml).

use super::util::{corpora_or_skip, ingest_offline_cmd, kgroute, read, repo, tempdir};
use std::path::{Path, PathBuf};

/// The shipped indices without the credit-agreement one, in `dir`.
fn indices_without_credit(dir: &Path) -> PathBuf {
    let to = dir.join("indices");
    std::fs::create_dir_all(to.join("base")).unwrap();
    let from = repo().join("indices");
    for f in ["commercial.yaml", "lease.yaml", "m_and_a.yaml"] {
        std::fs::copy(from.join(f), to.join(f)).unwrap();
    }
    std::fs::copy(from.join("base/common.yaml"), to.join("base/common.yaml")).unwrap();
    to
}

fn credit_agreements(corpora: &Path) -> Vec<PathBuf> {
    let d = corpora.join("credit_agreements");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Ingests the credit agreements (and the lease) with --calibrate and no
/// credit index; returns (indices dir, batch dir, stderr).
fn calibrated_batch(tmp: &Path, corpora: &Path) -> (PathBuf, PathBuf, String) {
    let indices = indices_without_credit(tmp);
    let out = tmp.join("batch");
    let mut docs = credit_agreements(corpora);
    docs.push(corpora.join("other/exicure_2020_office_lease.txt"));
    let o = ingest_offline_cmd(&docs, &indices, &out, &tmp.join("history.csv"))
        .arg("--calibrate")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    (
        indices,
        out,
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn unknown_credit_agreements_are_one_family_drafted_into_a_valid_index() {
    let Some(corpora) = corpora_or_skip() else {
        return;
    };
    let tmp = tempdir();
    let (indices, out, stderr) = calibrated_batch(tmp.path(), &corpora);

    // The batch names the family and its draft command, on stderr and in
    // summary.md / summary.json; the lease is typed lease, not in it.
    assert!(stderr.contains("unknown family 1:"), "{stderr}");
    assert!(
        stderr.contains("kgroute index draft --doc-type NAME"),
        "{stderr}"
    );
    let md = read(&out.join("summary.md"));
    assert!(md.contains("## Unknown families"), "{md}");
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let fam = &summary["unknown_families"][0];
    let ids: Vec<&str> = fam["doc_ids"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert!(ids.len() >= 4, "{fam}");
    assert!(ids.iter().all(|id| !id.starts_with("exicure")), "{fam}");

    let yaml = indices.join("credit.yaml");
    let o = kgroute()
        .args([
            "index",
            "draft",
            "--doc-type",
            "credit",
            "--family",
            "1",
            "--from",
        ])
        .arg(&out)
        .arg("--out")
        .arg(&yaml)
        .arg("--against")
        .arg(&indices)
        .arg("--base")
        .arg(indices.join("base/common.yaml"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = read(&yaml);
    // Valid for `index check`, extends the base.
    kgroute()
        .args(["index", "check"])
        .arg(&yaml)
        .assert()
        .success();
    assert!(text.contains("extends: base/common.yaml"), "{text}");
    // Hand-checked truth: every credit agreement has events of default and
    // definitions; the first is an entry with its variants, definitions an
    // anchor pinned Very High; bespoke titles are listed, not entered.
    let index = kgroute::index::GraphabilityIndex::load(std::slice::from_ref(&yaml)).unwrap();
    let eod = index.match_title("ARTICLE VII EVENTS OF DEFAULT");
    assert!(eod.entry.is_some(), "{text}");
    let defs = index.match_title("Section 1.01 Definitions");
    assert_eq!(defs.tier, Some(kgroute::index::Tier::VeryHigh), "{text}");
    assert!(text.contains("# Bespoke:"), "{text}");
    assert!(text.contains("documents, "), "evidence comments: {text}");
    // Detection words: none another index already uses.
    for taken in ["tenant", "landlord", "licensee"] {
        assert!(!text.contains(&format!("terms: [{taken}")), "{text}");
    }

    // With the draft in the folder the credit agreements are typed
    // `credit` and the lease stays a lease.
    let out2 = tmp.path().join("batch2");
    let mut docs = credit_agreements(&corpora);
    docs.push(corpora.join("other/exicure_2020_office_lease.txt"));
    let o = ingest_offline_cmd(&docs, &indices, &out2, &tmp.path().join("history.csv"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s2: serde_json::Value = serde_json::from_str(&read(&out2.join("summary.json"))).unwrap();
    let types = &s2["doc_types"];
    assert_eq!(types["lease"], 1, "{types}");
    assert!(types["credit"].as_u64().unwrap_or(0) >= 4, "{types}");
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn review_writes_unknown_rows_into_the_new_types_index() {
    let Some(corpora) = corpora_or_skip() else {
        return;
    };
    let tmp = tempdir();
    let (indices, out, _) = calibrated_batch(tmp.path(), &corpora);
    let yaml = indices.join("credit.yaml");
    kgroute()
        .args([
            "index",
            "draft",
            "--doc-type",
            "credit",
            "--only-type",
            "unknown",
            "--from",
        ])
        .arg(&out)
        .arg("--out")
        .arg(&yaml)
        .arg("--against")
        .arg(&indices)
        .arg("--base")
        .arg(indices.join("base/common.yaml"))
        .assert()
        .success();
    let before = kgroute::index::GraphabilityIndex::load(std::slice::from_ref(&yaml)).unwrap();

    // A reviewer adds one new title of an unknown document at Medium.
    let csv_path = out.join("sections.csv");
    let text = read(&csv_path);
    let mut rdr = csv::ReaderBuilder::new()
        .from_reader(kgroute::report::sections_csv::strip_bom(&text).as_bytes());
    let headers = rdr.headers().unwrap().clone();
    let col = |n: &str| headers.iter().position(|h| h == n).unwrap();
    let mut rows: Vec<csv::StringRecord> = rdr.records().map(|r| r.unwrap()).collect();
    let pick = rows
        .iter()
        .position(|r| {
            r[col("doc_type")] == *"unknown"
                && r[col("match_quality")] == *"new"
                && r[col("heading")].len() > 12
                && before.match_title(&r[col("heading")]).entry.is_none()
        })
        .expect("a new heading the draft left out");
    let heading = rows[pick][col("heading")].to_string();
    let mut rec: Vec<String> = rows[pick].iter().map(str::to_string).collect();
    rec[col("decision")] = "add:medium".into();
    rows[pick] = csv::StringRecord::from(rec);
    let mut w = csv::Writer::from_path(&csv_path).unwrap();
    w.write_record(&headers).unwrap();
    for r in &rows {
        w.write_record(r).unwrap();
    }
    w.flush().unwrap();

    // Without --doc-type the unknown row has nowhere to go.
    kgroute()
        .arg("review")
        .arg(&csv_path)
        .arg("--index")
        .arg(&yaml)
        .assert()
        .code(1);
    // With it, the row goes into the new type's index, which still checks.
    kgroute()
        .arg("review")
        .arg(&csv_path)
        .arg("--index")
        .arg(&yaml)
        .args(["--doc-type", "credit", "--write"])
        .assert()
        .success();
    let after = kgroute::index::GraphabilityIndex::load(std::slice::from_ref(&yaml)).unwrap();
    let m = after.match_title(&heading);
    assert_eq!(m.tier, Some(kgroute::index::Tier::Medium), "{heading}");
    kgroute()
        .args(["index", "check"])
        .arg(&yaml)
        .assert()
        .success();
}
