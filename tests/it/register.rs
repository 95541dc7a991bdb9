//! The batch register (`register.jsonl`, `.csv`, `.xlsx`): written by every
//! ingest and by `merge`, its rows agreeing with the graph they are read
//! from.

use super::util::{ingest_offline_cmd, kgroute, read, repo, tempdir};
use kgroute::extract::facts_vocabulary::is_fact_relation;
use kgroute::register::{read_jsonl, RegisterRow};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

fn ingest(out: &Path, history: &Path, shard: Option<&str>) {
    let mut c = ingest_offline_cmd(
        &[repo().join("fixtures")],
        &repo().join("indices"),
        out,
        history,
    );
    c.arg("--quiet").env_remove("KGROUTE_SHARD");
    if let Some(s) = shard {
        c.arg("--shard").arg(s);
    }
    c.assert().success();
}

/// (doc_id, relation type) -> the node ids of the relations' first
/// provenance, read from the batch's graph (`kgroute export`).
fn graph_facts(batch: &Path) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for line in super::util::graph_jsonl(batch).lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        if v["kind"] != "relation" {
            continue;
        }
        let ty = v["type"].as_str().unwrap();
        if !is_fact_relation(ty) {
            continue;
        }
        let node = v["provenance"][0]["node_id"].as_str().unwrap().to_string();
        out.entry((v["doc_id"].as_str().unwrap().to_string(), ty.to_string()))
            .or_default()
            .insert(node);
    }
    out
}

fn register_facts(rows: &[RegisterRow]) -> BTreeMap<(String, String), BTreeSet<String>> {
    let mut out: BTreeMap<(String, String), BTreeSet<String>> = BTreeMap::new();
    for r in rows {
        // Every fact of the graph is in the register: as a value, or, for a
        // one-value field whose clause gave no value, to check. A clause
        // the clause model did not agree with is to check too, and in no
        // graph.
        for (ty, facts) in r.facts.iter().chain(&r.to_check) {
            for f in facts.iter().filter(|f| f.why.is_empty()) {
                out.entry((r.doc_id.clone(), ty.clone()))
                    .or_default()
                    .insert(f.node_id.clone());
            }
        }
    }
    out
}

#[test]
fn an_ingest_writes_the_register_and_it_agrees_with_the_graph() {
    let d = tempdir();
    let out = d.path().join("batch");
    ingest(&out, &d.path().join("h.csv"), None);

    let rows = read_jsonl(&out.join("register.jsonl")).unwrap();
    let docs: usize = super::util::graph_jsonl(&out)
        .lines()
        .filter(|l| l.contains("\"kind\":\"document\""))
        .count();
    assert_eq!(rows.len(), docs, "one row per document of the graph");
    let facts = graph_facts(&out);
    assert!(!facts.is_empty(), "the fixtures hold typed facts");
    assert_eq!(register_facts(&rows), facts);
    // Each contract is named as its opening names it (read by hand from
    // the fixtures), never by a section heading.
    let titles: BTreeMap<String, String> = rows
        .iter()
        .map(|r| {
            let name = Path::new(&r.path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            (name, r.title.clone())
        })
        .collect();
    for (file, title) in [
        ("credit_agreement.md", "Revolving Credit Agreement"),
        ("short_license.txt", "Trademark License Agreement"),
        ("supply_agreement.txt", "Master Supply Agreement"),
        ("memo.txt", "Memorandum"),
    ] {
        assert_eq!(
            titles.get(file).map(String::as_str),
            Some(title),
            "{titles:?}"
        );
    }
    // Right or empty: a one-value field's cell holds only a value in normal
    // form; a clause without one waits in `to_check`.
    for r in &rows {
        for ty in kgroute::register::build::DOCUMENT_LEVEL {
            for f in r.facts.get(*ty).into_iter().flatten() {
                assert!(f.normalized.is_some(), "{} {ty}: {f:?}", r.path);
            }
        }
        // Each fact says who read it (offline: a rule, the clause model,
        // or both) and, where the model scores its kind, how sure it is;
        // the model alone asserts only what it is sure of.
        for (ty, list) in r.facts.iter().chain(&r.to_check) {
            for f in list {
                if f.why.is_empty() && !f.basis.is_empty() {
                    assert!(
                        ["rule", "model", "rule+model"].contains(&f.basis.as_str()),
                        "{ty}: {f:?}"
                    );
                }
                if let Some(c) = f.confidence {
                    assert!((0.0..=1.0).contains(&c), "{ty}: {f:?}");
                }
                if f.basis == "model" {
                    assert!(
                        f.confidence
                            .is_some_and(|c| c >= kgroute::clause_model::ALONE),
                        "{ty}: {f:?}"
                    );
                }
            }
        }
        assert!(
            r.facts.values().flatten().all(|f| !f.basis.is_empty()),
            "an offline fact without its basis in {}",
            r.path
        );
        // To check: a one-value field's clause without a value, a clause
        // kind the rules read where the clause model did not agree, or one
        // the document type's index holds for review, each saying so;
        // never a value, never also a fact of the graph.
        for (ty, list) in &r.to_check {
            for f in list {
                assert!(f.normalized.is_none(), "{ty}: {f:?}");
                assert!(
                    kgroute::register::build::DOCUMENT_LEVEL.contains(&ty.as_str())
                        || f.why.contains("clause model")
                        || f.why.contains("ontology.review_only"),
                    "{ty}: {f:?}"
                );
            }
        }
    }

    // The licence fixture: its parties with their roles, its agreement
    // date, and the section lines of each fact are the section's.
    let licence = rows
        .iter()
        .find(|r| r.path.ends_with("short_license.txt"))
        .expect("the licence's row");
    let roles: BTreeSet<&str> = licence
        .parties
        .iter()
        .flat_map(|p| p.roles.iter().map(String::as_str))
        .collect();
    assert!(
        roles.contains("Licensor") && roles.contains("Licensee"),
        "{roles:?}"
    );
    let date = licence.first("AGREEMENT_DATE").expect("agreement date");
    assert!(date.start_line >= 1 && date.end_line >= date.start_line);
    let sections = read(&out.join("sections.csv"));
    let section_row = sections
        .lines()
        .find(|l| l.starts_with(&licence.doc_id) && l.contains(&format!(",{},", date.node_id)))
        .expect("the fact's section in sections.csv");
    assert!(
        section_row.contains(&format!(",{},{},", date.start_line, date.end_line)),
        "{section_row}"
    );

    // register.csv: BOM, the header, one row per contract, the fact's
    // cell holding the row's value.
    let csv_text = read(&out.join("register.csv"));
    assert!(csv_text.starts_with('\u{feff}'));
    let mut r = csv::Reader::from_reader(csv_text.trim_start_matches('\u{feff}').as_bytes());
    let header: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    assert_eq!(&header[..4], ["file", "doc_type", "title", "parties"]);
    let col = header.iter().position(|h| h == "Agreement Date").unwrap();
    let records: Vec<csv::StringRecord> = r.records().map(|x| x.unwrap()).collect();
    assert_eq!(records.len(), rows.len());
    let rec = records
        .iter()
        .find(|x| x[0].ends_with("short_license.txt"))
        .unwrap();
    assert_eq!(
        &rec[col],
        date.normalized.as_deref().unwrap_or(&date.value),
        "{rec:?}"
    );

    // register.xlsx: a workbook whose sheet has the filter and frozen
    // header.
    let f = std::fs::File::open(out.join("register.xlsx")).unwrap();
    let mut zip = zip::ZipArchive::new(f).unwrap();
    let mut sheet = String::new();
    std::io::Read::read_to_string(
        &mut zip.by_name("xl/worksheets/sheet1.xml").unwrap(),
        &mut sheet,
    )
    .unwrap();
    assert!(sheet.contains("<autoFilter"), "filters");
    assert!(sheet.contains("state=\"frozen\""), "frozen panes");
    assert!(sheet.contains("short_license.txt"));
}

#[test]
fn merged_shards_give_the_whole_batch_register() {
    let d = tempdir();
    let whole = d.path().join("whole");
    ingest(&whole, &d.path().join("h.csv"), None);
    let mut shards = Vec::new();
    for k in 0..2 {
        let s = d.path().join(format!("s{k}"));
        ingest(
            &s,
            &d.path().join(format!("h{k}.csv")),
            Some(&format!("{k}/2")),
        );
        shards.push(s);
    }
    let merged = d.path().join("merged");
    kgroute()
        .arg("merge")
        .args(&shards)
        .arg("--out")
        .arg(&merged)
        .arg("--history")
        .arg(d.path().join("hm.csv"))
        .assert()
        .success();
    let key = |p: &Path| {
        let mut rows = read_jsonl(&p.join("register.jsonl")).unwrap();
        rows.sort_by(|a, b| a.doc_id.cmp(&b.doc_id));
        rows
    };
    let merged_rows = key(&merged);
    assert_eq!(merged_rows.len(), 4);
    assert_eq!(merged_rows, key(&whole));
    assert!(merged.join("register.csv").is_file() && merged.join("register.xlsx").is_file());
}
