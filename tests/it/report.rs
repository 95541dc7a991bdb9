//! Integration tests: the report stage (`sections.csv`, summaries,
//! suggestions, history) and the review loop (`kgroute review`,
//! `kgroute history`).

use super::util::{kgroute, read, tempdir};
use kgroute::extract::{Entity, Relation, SectionExtraction, SectionStatus};
use kgroute::index::{MatchMethod, Tier, TitleMatch};
use kgroute::report::{
    append_history, write_batch_reports, BatchReport, BatchSummary, DocumentOutcome,
};
use kgroute::route::{Override, Route, RoutePlan, RoutedSection};
use kgroute::tree::NodeKind;
use predicates::prelude::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

// ---------------------------------------------------------------------------
// Hand-built batches

fn section(
    node_id: &str,
    title: &str,
    entry: Option<(&str, Tier)>,
    route: Route,
    chars: usize,
) -> RoutedSection {
    RoutedSection {
        node_id: node_id.into(),
        title: title.into(),
        breadcrumb: format!("Credit Agreement > {title}"),
        kind: NodeKind::Section,
        level: 2,
        start_line: 10,
        end_line: 12,
        chars,
        matched: TitleMatch {
            entry: entry.map(|(e, _)| e.to_string()),
            method: if entry.is_some() {
                MatchMethod::Exact
            } else {
                MatchMethod::None
            },
            score: if entry.is_some() { 1.0 } else { 0.0 },
            tier: entry.map(|(_, t)| t),
            anchor: false,
            noise: route == Route::Noise,
            reserved: false,
        },
        predicted_tier: entry.map(|(_, t)| t),
        route,
        override_reason: Override::None,
    }
}

fn extraction(
    doc_id: &str,
    node_id: &str,
    actual: Tier,
    rels: &[(&str, &str, &str)],
) -> SectionExtraction {
    SectionExtraction {
        doc_id: doc_id.into(),
        node_id: node_id.into(),
        entities: vec![Entity {
            name: "Borrower".into(),
            entity_type: "Party".into(),
            aliases: vec![],
            description: String::new(),
        }],
        relations: rels
            .iter()
            .map(|(s, t, o)| Relation {
                source: s.to_string(),
                relation_type: t.to_string(),
                target: o.to_string(),
                evidence: String::new(),
            })
            .collect(),
        pruned: vec![],
        model_tier: Some(actual),
        model_why: None,
        density_tier: actual,
        actual_tier: actual,
        tokens_in: 2_000,
        tokens_out: 500,
        extractor: "rules".into(),
        status: SectionStatus::Ok,
    }
}

/// Two documents: one with every kind of section, one that failed whole.
fn sample_batch() -> BatchReport {
    let vh = Some(("Definitions", Tier::VeryHigh));
    let mut audited = section(
        "0005",
        "Section 9.09 Governing Law",
        Some(("Governing Law", Tier::Low)),
        Route::Llm,
        500,
    );
    audited.override_reason = Override::Audit;
    let sections = vec![
        section("0001", "Table of Contents", None, Route::Noise, 1_000),
        section("0002", "Section 1.01 Definitions", vh, Route::Llm, 4_000),
        section(
            "0003",
            "Section 1.03 Types of Advances",
            None,
            Route::Llm,
            800,
        ),
        section(
            "0004",
            "=HYPERLINK(\"http://x\"), \"quoted\"",
            Some(("Use of Proceeds", Tier::High)),
            Route::Llm,
            700,
        ),
        audited,
        section(
            "0006",
            "Section 9.10 Waiver of Jury Trial | Venue",
            Some(("Waiver of Jury Trial", Tier::VeryLow)),
            Route::Skip,
            1_500,
        ),
        section("0007", "ARTICLE IV", None, Route::Empty, 12),
        section(
            "0008",
            "Section 2.02 Types of Advances",
            None,
            Route::Llm,
            600,
        ),
    ];
    let mut failed = extraction("emerson-1", "0008", Tier::Low, &[]);
    failed.status = SectionStatus::Failed("HTTP 500 after 3 tries".into());
    let extractions = vec![
        extraction(
            "emerson-1",
            "0002",
            Tier::VeryHigh,
            &[
                ("Guarantor", "GUARANTEES", "Obligations"),
                ("Borrower", "IS_A", "Party"),
            ],
        ),
        extraction(
            "emerson-1",
            "0003",
            Tier::Low,
            &[("Lender", "MAKES", "Advance")],
        ),
        extraction("emerson-1", "0004", Tier::VeryLow, &[]),
        extraction(
            "emerson-1",
            "0005",
            Tier::Medium,
            &[("Borrower", "GOVERNED_BY", "New York Law")],
        ),
        failed,
    ];
    let doc = DocumentOutcome {
        doc_id: "emerson-1".into(),
        doc_name: "emerson_2018.md".into(),
        path: PathBuf::from("corpora/emerson_2018.md"),
        plan: Some(RoutePlan {
            doc_id: "emerson-1".into(),
            doc_name: "emerson_2018.md".into(),
            doc_type: "credit_agreement".into(),
            sections,
        }),
        extractions,
        error: None,
    };
    let second = DocumentOutcome {
        doc_id: "att-2".into(),
        doc_name: "att_capital_1995.txt".into(),
        path: PathBuf::from("corpora/att_capital_1995.txt"),
        plan: Some(RoutePlan {
            doc_id: "att-2".into(),
            doc_name: "att_capital_1995.txt".into(),
            doc_type: "credit_agreement".into(),
            sections: vec![section(
                "0001",
                "SECTION 2.03. TYPES OF ADVANCES",
                None,
                Route::Llm,
                1_000,
            )],
        }),
        extractions: vec![extraction("att-2", "0001", Tier::Medium, &[])],
        error: None,
    };
    let broken = DocumentOutcome {
        doc_id: "broken-3".into(),
        doc_name: "broken.txt".into(),
        path: PathBuf::from("broken.txt"),
        plan: None,
        extractions: vec![],
        error: Some("not UTF-8 at byte 17".into()),
    };
    BatchReport {
        batch_id: "b1".into(),
        index_version: "2".into(),
        documents: vec![doc, second, broken],
        input_per_million: 3.0,
        output_per_million: 15.0,
        extractor: "rules".into(),
        sink: "files:out".into(),
    }
}

fn csv_rows(path: &Path) -> (Vec<String>, Vec<HashMap<String, String>>) {
    let mut r = csv::Reader::from_path(path).unwrap();
    let headers: Vec<String> = r.headers().unwrap().iter().map(String::from).collect();
    let rows = r
        .records()
        .map(|rec| {
            let rec = rec.unwrap();
            headers
                .iter()
                .cloned()
                .zip(rec.iter().map(String::from))
                .collect()
        })
        .collect();
    (headers, rows)
}

#[test]
fn sections_csv_has_one_guarded_row_per_section() {
    let dir = tempdir();
    write_batch_reports(dir.path(), &sample_batch()).unwrap();
    let (headers, rows) = csv_rows(&dir.path().join("sections.csv"));
    assert_eq!(
        headers.join(","),
        "doc_id,node_id,breadcrumb,heading,start_line,end_line,chars,matched_entry,match_method,match_score,predicted_tier,route,entities,relations,pruned,model_tier,density_tier,actual_tier,match_quality,tokens_in,tokens_out,status,decision"
    );
    assert_eq!(
        rows.len(),
        9,
        "8 + 1 sections; the failed document has none"
    );
    let by_node = |doc: &str, n: &str| {
        rows.iter()
            .find(|r| r["doc_id"] == doc && r["node_id"] == n)
            .unwrap()
    };
    let quality: Vec<&str> = rows.iter().map(|r| r["match_quality"].as_str()).collect();
    assert_eq!(
        quality,
        [
            "noise",
            "perfect",
            "new",
            "mismatch",
            "deviation",
            "not_scanned",
            "empty",
            "new",
            "new"
        ]
    );
    let defs = by_node("emerson-1", "0002");
    assert_eq!(defs["predicted_tier"], "very_high");
    assert_eq!(defs["relations"], "2");
    assert_eq!(defs["match_method"], "exact");
    assert_eq!(defs["match_score"], "1.00");
    assert_eq!(defs["status"], "ok");
    assert_eq!(defs["decision"], "");
    let formula = by_node("emerson-1", "0004");
    assert_eq!(formula["heading"], "'=HYPERLINK(\"http://x\"), \"quoted\"");
    assert_eq!(by_node("emerson-1", "0005")["route"], "llm:audit");
    let skipped = by_node("emerson-1", "0006");
    assert_eq!(
        (skipped["status"].as_str(), skipped["actual_tier"].as_str()),
        ("not_sent", "")
    );
    let failed = by_node("emerson-1", "0008");
    assert_eq!(failed["status"], "failed: HTTP 500 after 3 tries");
    assert_eq!(
        failed["actual_tier"], "",
        "a failed section has no actual tier"
    );
    // The raw file quotes per RFC 4180: the formula heading's quotes are doubled.
    let raw = read(&dir.path().join("sections.csv"));
    assert!(
        raw.contains("\"'=HYPERLINK(\"\"http://x\"\"), \"\"quoted\"\"\""),
        "{raw}"
    );
}

#[test]
fn summary_counts_alignment_payload_cost_and_audit() {
    let dir = tempdir();
    let summary = write_batch_reports(dir.path(), &sample_batch()).unwrap();
    let json: serde_json::Value =
        serde_json::from_str(&read(&dir.path().join("summary.json"))).unwrap();
    assert_eq!(json["batch_id"], "b1");
    assert_eq!(json["totals"]["sections"], 9);
    assert_eq!(json["per_document"][2]["error"], "not UTF-8 at byte 17");
    let cut = json["totals"]["payload_cut_pct"].as_f64().unwrap();
    assert!((cut - summary.totals.payload_cut_pct).abs() < 1e-9);
    let d = &summary.per_document[0].stats;
    assert_eq!(d.sections, 8);
    assert_eq!(d.aligned_sections, 6, "noise and empty are out");
    assert_eq!(
        (
            d.perfect,
            d.deviations,
            d.mismatches,
            d.new_sections,
            d.not_scanned
        ),
        (1, 1, 1, 2, 1)
    );
    assert_eq!(d.chars_total, 9_112);
    assert_eq!(d.chars_sent, 4_000 + 800 + 700 + 500 + 600);
    assert_eq!(d.chars_skipped, 1_500);
    let cut = 100.0 * (9_112 - 6_600) as f64 / 9_112.0;
    assert!((d.payload_cut_pct - cut).abs() < 1e-9);
    assert_eq!((d.tokens_in, d.tokens_out), (10_000, 2_500));
    assert!((d.cost_usd - (0.01 * 3.0 + 0.0025 * 15.0)).abs() < 1e-9);
    assert_eq!(d.failed_sections, 1);
    assert_eq!(
        (d.audited, d.audited_medium_plus, d.silent_loss_pct),
        (1, 1, Some(100.0))
    );
    let t = &summary.totals;
    assert_eq!((t.sections, t.new_sections, t.aligned_sections), (9, 3, 7));
    assert!((t.new_pct - 300.0 / 7.0).abs() < 1e-9);
    assert_eq!((summary.documents, summary.failed_documents), (3, 1));
    assert!(summary.has_failures());

    let md = read(&dir.path().join("summary.md"));
    assert!(md.contains("| Node ID | Section Heading | Chars | Entities | Relations | Actual Rating | Predicted Rating | Match Quality |"), "{md}");
    assert!(md.contains("| 0002 | Section 1.01 Definitions | 4000 | 1 | 2 | Very High | Very High (Definitions) | perfect |"), "{md}");
    assert!(
        md.contains("`[Guarantor]-(GUARANTEES)->[Obligations]`"),
        "{md}"
    );
    assert!(
        md.contains("### Medium\n\n- `[Borrower]-(GOVERNED_BY)->[New York Law]`"),
        "{md}"
    );
    assert!(md.contains("Failed: not UTF-8 at byte 17"), "{md}");
    assert!(md.contains("silent-loss rate 100.0%"), "{md}");
    assert!(
        md.contains("| 0006 | Section 9.10 Waiver of Jury Trial \\| Venue |"),
        "a pipe in a heading is escaped: {md}"
    );
}

#[test]
fn suggestions_group_new_sections_across_documents() {
    let dir = tempdir();
    write_batch_reports(dir.path(), &sample_batch()).unwrap();
    let text = read(&dir.path().join("suggestions.yaml"));
    assert!(text.starts_with("# kgroute suggestions"), "{text}");
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let list = v["suggestions"].as_sequence().unwrap();
    assert_eq!(list.len(), 1, "{text}");
    let s = &list[0];
    assert_eq!(s["title"].as_str(), Some("Types of Advances"));
    assert_eq!(s["normalized"].as_str(), Some("types of advances"));
    assert_eq!(s["count"].as_u64(), Some(3));
    // One Low and one Medium (the third failed): the tie goes to the higher tier.
    assert_eq!(s["suggested_tier"].as_str(), Some("medium"));
    assert_eq!(s["actual_tiers"]["low"].as_u64(), Some(1));
    assert_eq!(s["documents"].as_sequence().unwrap().len(), 2);
    assert_eq!(s["example_headings"].as_sequence().unwrap().len(), 3);
}

fn summary_with(batch_id: &str) -> BatchSummary {
    let mut b = sample_batch();
    b.batch_id = batch_id.into();
    kgroute::report::summary::summarize(&b)
}

#[test]
fn history_appends_rows_under_one_header_and_prints_a_table() {
    let dir = tempdir();
    let file = dir.path().join("reports").join("history.csv");
    append_history(&file, &summary_with("batch-one")).unwrap();
    append_history(&file, &summary_with("batch-two")).unwrap();
    let text = read(&file);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "batch_id,finished_at,index_version,documents,sections,perfect_pct,mismatch_pct,new_pct,payload_cut_pct");
    assert!(
        lines[1].starts_with("batch-one,") && lines[1].ends_with(",2,3,9,14.3,14.3,42.9,24.8"),
        "{text}"
    );
    let out = kgroute()
        .args(["history", "--file"])
        .arg(&file)
        .assert()
        .success();
    let stdout = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<&str> = stdout.lines().collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(rows[0].starts_with("batch      finished"), "{stdout}");
    // Columns line up: every row has `new%` ending at the same column.
    let end = rows[0].find("new%").unwrap() + 4;
    assert!(
        rows[1..].iter().all(|r| &r[end - 4..end] == "42.9"),
        "{stdout}"
    );
}

#[test]
fn history_without_a_file_says_how_to_get_one() {
    let dir = tempdir();
    kgroute()
        .args(["history", "--file"])
        .arg(dir.path().join("none.csv"))
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("none.csv").and(predicate::str::contains("kgroute ingest")),
        );
}
