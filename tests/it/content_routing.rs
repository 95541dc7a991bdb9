//! Routing by content: in a commercial contract, the paragraphs of a
//! section whose title is Medium or unknown go only when the clause model
//! scores them as a clause, and every decision is listed with its score,
//! reason and terms; the pieces tile their section; the LLM gets only the
//! sent paragraphs; `--titles-only` routes as before.

use kgroute::route::{plan_document_in, Route, RouteOptions};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn contracts() -> Vec<PathBuf> {
    ["services_agreement.txt", "reseller_agreement.txt"]
        .iter()
        .map(|n| super::util::repo().join("tests/verify").join(n))
        .collect()
}

fn plan(out: &std::path::Path, extra: &[&str]) -> Value {
    let o = super::util::kgroute()
        .arg("plan")
        .args(contracts())
        .args(["--format", "json", "--out"])
        .arg(out)
        .args(extra)
        .current_dir(super::util::repo())
        .assert()
        .success();
    serde_json::from_slice(&o.get_output().stdout).unwrap()
}

#[test]
fn paragraphs_are_routed_by_score_and_every_decision_is_listed() {
    let dir = super::util::tempdir();
    let content = plan(&dir.path().join("content"), &[]);
    let titles = plan(&dir.path().join("titles"), &["--titles-only"]);
    let t = &content["totals"];
    let n = |v: &Value, k: &str| v[k].as_u64().unwrap();
    assert_eq!(
        n(t, "chars_sent") + n(t, "chars_skipped") + n(t, "chars_noise") + n(t, "chars_empty"),
        n(t, "chars_total"),
        "every character counted once: {t}"
    );
    assert!(n(t, "chars_skipped_by_content") > 0, "{t}");
    assert!(
        n(t, "chars_sent") < n(&titles["totals"], "chars_sent"),
        "content sends less here"
    );
    assert!(
        n(&t["bill"], "input_tokens") < n(&titles["totals"]["bill"], "input_tokens"),
        "and the plan's bill says so"
    );
    assert_eq!(n(&titles["totals"], "chars_skipped_by_content"), 0);
    // A calibration measures every section whole: none is cut to pieces.
    let calibrated = plan(&dir.path().join("calibrated"), &["--calibrate"]);
    let c = &calibrated["totals"];
    assert_eq!(n(c, "chars_skipped_by_content"), 0, "{c}");
    assert_eq!(n(c, "chars_skipped"), 0, "{c}");

    // The pieces of a section tile its span; each decision follows its
    // score and the section's title.
    let mut decided = 0;
    for d in content["documents"].as_array().unwrap() {
        for s in d["plan"]["sections"].as_array().unwrap() {
            let Some(ps) = s["paragraphs"].as_array() else {
                continue;
            };
            let mut at = n(s, "start_byte");
            for p in ps {
                assert_eq!(n(p, "start_byte"), at, "{s}");
                at = n(p, "end_byte");
                let score = p["score"].as_f64().unwrap();
                let sent = p["sent"].as_bool().unwrap();
                let skipped_title =
                    matches!(s["predicted_tier"].as_str(), Some("low" | "very_low"));
                let at_least = if skipped_title { 0.04 } else { 0.0025 };
                assert_eq!(sent, score >= at_least - 1e-9, "{p} in {}", s["title"]);
                decided += 1;
            }
            assert_eq!(at, n(s, "end_byte"), "{s}");
        }
    }
    assert!(decided > 0);

    // paragraphs.csv holds the same decisions, each with its reason and
    // the words behind its score.
    let mut rdr = csv::Reader::from_path(dir.path().join("content/paragraphs.csv")).unwrap();
    let rows: Vec<BTreeMap<String, String>> = rdr.deserialize().map(Result::unwrap).collect();
    assert_eq!(rows.len(), decided);
    for r in &rows {
        assert!(r["reason"].starts_with("score "), "{r:?}");
        assert!(
            r["reason"].contains(if r["sent"] == "true" { ">=" } else { "<" }),
            "{r:?}"
        );
        assert!(!r["opening"].is_empty(), "{r:?}");
    }
    assert!(rows.iter().any(|r| !r["top_terms"].is_empty()));
    assert!(rows.iter().any(|r| r["sent"] == "false"));
    let titles_rows = std::fs::read_to_string(dir.path().join("titles/paragraphs.csv")).unwrap();
    assert_eq!(
        titles_rows.lines().count(),
        0,
        "--titles-only decides no paragraph"
    );

    // An ingest routes the same way and its summary says what content
    // decided.
    let batch = dir.path().join("batch");
    super::util::kgroute()
        .arg("ingest")
        .args(contracts())
        .arg("--out")
        .arg(&batch)
        .arg("--history")
        .arg(dir.path().join("history.csv"))
        .arg("-q")
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("KGROUTE_MODEL")
        .env_remove("NEO4J_URI")
        .current_dir(super::util::repo())
        .assert()
        .success();
    let summary = super::util::read(&batch.join("summary.md"));
    assert!(
        summary.contains(&format!(
            "{} characters of sections their titles send were left out, {} characters of sections their titles skip were sent",
            n(t, "chars_skipped_by_content"),
            n(t, "chars_sent_by_content")
        )),
        "{summary}"
    );
}

/// What an LLM reads of a section routed by content: its sent paragraphs,
/// in order, `[...]` where text was left out, never an unsent one; the
/// offline rules read the section whole.
#[test]
fn the_llm_reads_only_the_sent_paragraphs() {
    let set = kgroute::index::IndexSet::load(&[super::util::repo().join("indices")]).unwrap();
    let opts = RouteOptions {
        content: true,
        ..Default::default()
    };
    let mut checked = 0;
    for path in contracts() {
        let (src, tree, plan, _) = plan_document_in(&path, &set, None, &opts, false).unwrap();
        let doc = kgroute::extract::extractor::DocContext {
            doc_id: &tree.doc_id,
            doc_type: &plan.doc_type,
            source: &src,
            parties: &tree.party_names,
            registry: &Default::default(),
        };
        let llm = kgroute::extract::extractor::llm_section_inputs(&plan, &doc);
        let whole = kgroute::extract::extractor::section_inputs(&plan, &doc);
        let left_out = kgroute::extract::extractor::left_out_inputs(&plan, &doc);
        for ((l, w), s) in llm
            .iter()
            .zip(&whole)
            .zip(plan.sections.iter().filter(|s| s.route == Route::Llm))
        {
            assert_eq!(l.node_id, s.node_id);
            assert_eq!(w.text, src.byte_span_text(s.start_byte, s.end_byte));
            if s.paragraphs.is_empty() {
                assert_eq!(l.text, w.text);
                continue;
            }
            for p in &s.paragraphs {
                let piece = src.byte_span_text(p.start_byte, p.end_byte).trim();
                if piece.is_empty() {
                    continue;
                }
                assert_eq!(l.text.contains(piece), p.sent, "{piece:?} in {:?}", l.text);
                // What the LLM is not sent, the rules read.
                let rest = left_out.iter().find(|i| i.node_id == s.node_id);
                assert_eq!(
                    rest.is_some_and(|r| r.text.contains(piece)),
                    !p.sent,
                    "{piece:?} in {rest:?}"
                );
            }
            // A run left out between two sent paragraphs is marked.
            let sent: Vec<bool> = s.paragraphs.iter().map(|p| p.sent).collect();
            let first = sent.iter().position(|&x| x);
            let last = sent.iter().rposition(|&x| x);
            if let (Some(a), Some(b)) = (first, last) {
                if sent[a..=b].iter().any(|&x| !x) {
                    assert!(l.text.contains("[...]"), "{:?}", l.text);
                }
            }
            checked += 1;
        }
    }
    assert!(
        checked > 0,
        "a section of these contracts is routed by content"
    );
}

fn rows(csv_path: &std::path::Path) -> Vec<BTreeMap<String, String>> {
    let mut rdr = csv::Reader::from_path(csv_path).unwrap();
    rdr.deserialize().map(Result::unwrap).collect()
}

/// The review loop: a reviewer marks one left-out paragraph `send` and one
/// sent paragraph `skip` in a plan's paragraphs.csv; `review` shows the
/// change, `--write` keeps it beside the type's index, and the next plan
/// routes those two paragraphs the reviewer's way (reason `reviewed`)
/// and every other paragraph as before. A damaged decision is refused
/// with its line, and nothing is written.
#[test]
fn a_reviewed_paragraph_decides_the_next_plan() {
    let dir = super::util::tempdir();
    let indices = dir.path().join("indices");
    super::util::copy_indices(&indices);
    let index_arg = ["--index".to_string(), indices.display().to_string()];
    plan(&dir.path().join("p1"), &[&index_arg[0], &index_arg[1]]);
    let first = rows(&dir.path().join("p1/paragraphs.csv"));
    let key = |r: &BTreeMap<String, String>| (r["doc_id"].clone(), r["start_byte"].clone());
    let skipped = first.iter().position(|r| r["sent"] == "false").unwrap();
    let sent = first
        .iter()
        .position(|r| r["sent"] == "true" && r["chars"].parse::<usize>().unwrap() > 80)
        .unwrap();

    // The reviewer's copy, as a spreadsheet would save it.
    let reviewed = dir.path().join("reviewed.csv");
    let mut w = csv::Writer::from_path(&reviewed).unwrap();
    for (i, r) in first.iter().enumerate() {
        let mut r = r.clone();
        if i == skipped {
            r.insert("decision".into(), "send".into());
        } else if i == sent {
            r.insert("decision".into(), "Skip".into());
        }
        if i == 0 {
            w.write_record(r.keys()).unwrap();
        }
        w.write_record(r.values()).unwrap();
    }
    w.flush().unwrap();
    let beside = indices.join("commercial.paragraphs.tsv");
    let review = |extra: &[&str]| {
        super::util::kgroute()
            .arg("review")
            .arg(&reviewed)
            .args(&index_arg)
            .args(extra)
            .assert()
    };
    let dry = review(&[]).success();
    let said = String::from_utf8_lossy(&dry.get_output().stderr).into_owned();
    assert!(said.contains("+ send") && said.contains("+ skip"), "{said}");
    assert!(said.contains("not written"), "{said}");
    assert!(!beside.exists(), "a dry run writes nothing");
    review(&["--write"]).success();
    let kept = std::fs::read_to_string(&beside).unwrap();
    assert_eq!(
        kept.lines().filter(|l| !l.starts_with('#')).count(),
        3,
        "header and two decisions: {kept}"
    );
    // The same review again changes nothing.
    let again = review(&["--write"]).success();
    assert!(String::from_utf8_lossy(&again.get_output().stderr).contains("no change"));

    plan(&dir.path().join("p2"), &[&index_arg[0], &index_arg[1]]);
    let second = rows(&dir.path().join("p2/paragraphs.csv"));
    let by_key: BTreeMap<_, _> = second.iter().map(|r| (key(r), r)).collect();
    for (i, r) in first.iter().enumerate() {
        let now = by_key
            .get(&key(r))
            .unwrap_or_else(|| panic!("{r:?} routed again"));
        if i == skipped || i == sent {
            let want = if i == skipped { "true" } else { "false" };
            assert_eq!(now["sent"], want, "{now:?}");
            assert!(now["reason"].starts_with("reviewed: "), "{now:?}");
        } else {
            assert_eq!(now["sent"], r["sent"], "{now:?} against {r:?}");
        }
    }
    // Without the decisions file the shipped indices route as before.
    plan(&dir.path().join("p3"), &[]);
    assert!(rows(&dir.path().join("p3/paragraphs.csv"))
        .iter()
        .all(|r| r["reason"].starts_with("score ")));

    // A decision that is neither: refused, naming the file and line.
    let text = std::fs::read_to_string(&reviewed).unwrap();
    let damaged = text.replacen(",send", ",maybe", 1);
    assert_ne!(damaged, text);
    std::fs::write(&reviewed, damaged).unwrap();
    let before = std::fs::read_to_string(&beside).unwrap();
    let bad = review(&["--write"]).failure();
    let err = String::from_utf8_lossy(&bad.get_output().stderr).into_owned();
    assert!(
        err.contains("reviewed.csv:") && err.contains("maybe"),
        "{err}"
    );
    assert_eq!(std::fs::read_to_string(&beside).unwrap(), before);
}

/// A family the shipped model does not know (leases) learns its own model
/// from a calibrated batch: a dry run writes nothing, `--write` keeps it
/// beside the index, and the next plan routes the family's paragraphs by
/// it at the thresholds the file holds; learning again keeps the replaced
/// model.
#[test]
fn a_family_learns_its_own_paragraph_model_from_a_calibrated_batch() {
    let Some(corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let leases = corpora.join("wide/leases");
    let dir = super::util::tempdir();
    let indices = dir.path().join("indices");
    super::util::copy_indices(&indices);
    let batch = dir.path().join("b1");
    super::util::kgroute()
        .arg("ingest")
        .arg(&leases)
        .args(["--calibrate", "--doc-type", "lease", "--index"])
        .arg(&indices)
        .arg("--out")
        .arg(&batch)
        .assert()
        .success();
    let yaml = indices.join("lease.yaml");
    let model = indices.join("lease.model.tsv");
    let learn = |extra: &[&str]| {
        super::util::kgroute()
            .args(["index", "learn", "--index"])
            .arg(&yaml)
            .arg("--from")
            .arg(&batch)
            .args(extra)
            .assert()
    };
    let plan_json = |out: &str| -> Value {
        let o = super::util::kgroute()
            .arg("plan")
            .arg(&leases)
            .args(["--doc-type", "lease", "--format", "json", "--index"])
            .arg(&indices)
            .arg("--out")
            .arg(dir.path().join(out))
            .assert()
            .success();
        serde_json::from_slice(&o.get_output().stdout).unwrap()
    };
    let routed = |v: &Value| -> usize {
        v["documents"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|d| d["plan"]["sections"].as_array().unwrap())
            .filter_map(|s| s["paragraphs"].as_array())
            .map(Vec::len)
            .sum()
    };
    assert_eq!(routed(&plan_json("p0")), 0, "no model knows leases yet");

    let dry = learn(&[]).success();
    let said = String::from_utf8_lossy(&dry.get_output().stdout).into_owned();
    assert!(
        said.contains("lease: 4 documents") && said.contains("thresholds: inside"),
        "{said}"
    );
    assert!(said.contains("did not learn from"), "{said}");
    assert!(!model.exists(), "a dry run writes nothing");
    learn(&["--write"]).success();
    let text = std::fs::read_to_string(&model).unwrap();
    let th: Vec<f64> = text
        .lines()
        .find_map(|l| l.strip_prefix("thresholds\t"))
        .unwrap()
        .split_whitespace()
        .skip(1)
        .step_by(2)
        .map(|v| {
            if v == "never" {
                f64::INFINITY
            } else {
                v.parse().unwrap()
            }
        })
        .collect();

    let p1 = plan_json("p1");
    let mut decided = (0, 0);
    for d in p1["documents"].as_array().unwrap() {
        for s in d["plan"]["sections"].as_array().unwrap() {
            for p in s["paragraphs"].as_array().into_iter().flatten() {
                let score = p["score"].as_f64().unwrap();
                let skipped_title =
                    matches!(s["predicted_tier"].as_str(), Some("low" | "very_low"));
                let at_least = if skipped_title { th[1] } else { th[0] };
                let sent = p["sent"].as_bool().unwrap();
                assert_eq!(sent, score >= at_least - 1e-6, "{p} in {}", s["title"]);
                assert_eq!(p["category"], "Relations");
                if sent {
                    decided.0 += 1;
                } else {
                    decided.1 += 1;
                }
            }
        }
    }
    assert!(
        decided.0 > 0 && decided.1 > 0,
        "sent and left out: {decided:?}"
    );
    let reasons = rows(&dir.path().join("p1/paragraphs.csv"));
    assert!(!reasons.is_empty());
    assert!(
        reasons
            .iter()
            .all(|r| r["reason"].starts_with("learned score")),
        "{:?}",
        reasons[0]
    );

    // Learning again keeps the model it replaces.
    learn(&["--write"]).success();
    assert_eq!(
        std::fs::read_to_string(indices.join("lease.model.tsv.bak")).unwrap(),
        text
    );
    // A family with no document in the batch is refused, naming what is there.
    let none = super::util::kgroute()
        .args(["index", "learn", "--index"])
        .arg(indices.join("m_and_a.yaml"))
        .arg("--from")
        .arg(&batch)
        .assert()
        .code(2);
    let e = String::from_utf8_lossy(&none.get_output().stderr).into_owned();
    assert!(
        e.contains("no readable document of type m_and_a") && e.contains("4 lease"),
        "{e}"
    );
}
