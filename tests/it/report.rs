//! Integration tests: the report stage (`sections.csv`, summaries,
//! suggestions, history) and the review loop (`kgroute review`,
//! `kgroute history`).

use super::util::{corpus, kgroute, read, tempdir};
use kgroute::extract::{Entity, Relation, SectionExtraction, SectionStatus};
use kgroute::index::{normalize_title, DensityThresholds, MatchMethod, Tier, TitleMatch};
use kgroute::report::{
    record_history, write_batch_reports, BatchReport, BatchSummary, DocumentOutcome,
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
    // Label and name as the tree stage parses them.
    let (label, name) = kgroute::tree::split_heading(title);
    RoutedSection {
        node_id: node_id.into(),
        title: title.into(),
        label,
        name,
        breadcrumb: format!("Credit Agreement > {title}"),
        kind: NodeKind::Section,
        level: 2,
        start_line: 10,
        end_line: 12,
        start_byte: 0,
        end_byte: 0,
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
            runner_up: None,
            runner_up_score: 0.0,
        },
        predicted_tier: entry.map(|(_, t)| t),
        route,
        override_reason: Override::None,
        paragraphs: Vec::new(),
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
                reading: None,
            })
            .collect(),
        pruned: vec![],
        ends_added: vec![],
        candidates: vec![],
        model_tier: Some(actual),
        model_why: None,
        density_tier: actual,
        actual_tier: actual,
        tokens_in: 2_000,
        tokens_out: 500,
        tokens_cached: 0,
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
            doc_type_confidence: 1.0,
            sections,
            tree_health: Default::default(),
        }),
        extractions,
        rules_on_skipped: vec![],
        title_mapping: Default::default(),
        error: None,
        planned: Default::default(),
    };
    let second = DocumentOutcome {
        doc_id: "att-2".into(),
        doc_name: "att_capital_1995.txt".into(),
        path: PathBuf::from("corpora/att_capital_1995.txt"),
        plan: Some(RoutePlan {
            doc_id: "att-2".into(),
            doc_name: "att_capital_1995.txt".into(),
            doc_type: "credit_agreement".into(),
            doc_type_confidence: 1.0,
            sections: vec![section(
                "0001",
                "SECTION 2.03. TYPES OF ADVANCES",
                None,
                Route::Llm,
                1_000,
            )],
            tree_health: Default::default(),
        }),
        extractions: vec![extraction("att-2", "0001", Tier::Medium, &[])],
        rules_on_skipped: vec![],
        title_mapping: Default::default(),
        error: None,
        planned: Default::default(),
    };
    let broken = DocumentOutcome {
        doc_id: "broken-3".into(),
        doc_name: "broken.txt".into(),
        path: PathBuf::from("broken.txt"),
        plan: None,
        extractions: vec![],
        rules_on_skipped: vec![],
        title_mapping: Default::default(),
        error: Some("not UTF-8 at byte 17".into()),
        planned: Default::default(),
    };
    BatchReport {
        batch_id: "b1".into(),
        index_version: "2".into(),
        indices: Vec::new(),
        documents: vec![doc, second, broken],
        input_per_million: 3.0,
        output_per_million: 15.0,
        extractor: "rules".into(),
        sink: "files:out".into(),
        index_entries: vec!["Definitions".into(), "Governing Law".into()],
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
        "doc_id,doc_type,doc_type_confidence,node_id,breadcrumb,heading,start_line,end_line,chars,matched_entry,match_method,match_score,match_runner_up,match_runner_up_score,predicted_tier,route,override_reason,entities,relations,pruned,pruned_relations,model_tier,density_tier,actual_tier,match_quality,tokens_in,tokens_out,status,decision"
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
            "failed",
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
    let audited = by_node("emerson-1", "0005");
    assert_eq!(
        (
            audited["route"].as_str(),
            audited["override_reason"].as_str()
        ),
        ("llm", "audit")
    );
    assert_eq!(defs["override_reason"], "");
    // A BOM first, so a spreadsheet decodes UTF-8 (`Agent’s Fees`).
    let bytes = std::fs::read(dir.path().join("sections.csv")).unwrap();
    assert!(bytes.starts_with("\u{feff}doc_id,".as_bytes()));
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
    assert_eq!(d.aligned_sections, 5, "noise, empty and failed are out");
    assert_eq!(
        (
            d.perfect,
            d.deviations,
            d.mismatches,
            d.new_sections,
            d.not_scanned,
            d.audit_sampled
        ),
        (1, 0, 1, 1, 1, 1),
        "the audit-sampled deviation is counted apart; the failed section is not new"
    );
    assert_eq!(d.audit_deviations, 1);
    assert_eq!((d.sent, d.skipped, d.noise, d.empty), (5, 1, 1, 1));
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
    assert_eq!((t.sections, t.new_sections, t.aligned_sections), (9, 2, 6));
    assert!((t.new_pct - 200.0 / 6.0).abs() < 1e-9);
    assert_eq!((summary.documents, summary.failed_documents), (3, 1));
    assert!(summary.has_failures());
    assert!(
        summary
            .headline()
            .starts_with("batch b1: 3 documents (1 failed), 9 sections (1 failed), perfect 16.7%"),
        "{}",
        summary.headline()
    );

    let md = read(&dir.path().join("summary.md"));
    assert!(md.contains("| Node ID | Section Heading | Chars | Entities | Relations | Actual Rating | Predicted Rating | Match Quality | Override |"), "{md}");
    assert!(md.contains("| 0002 | Section 1.01 Definitions | 4000 | 1 | 2 | Very High | Very High (Definitions) | perfect |  |"), "{md}");
    assert!(md.contains("| 0005 | Section 9.09 Governing Law | 500 | 1 | 1 | Medium | Low (Governing Law) | deviation | audit |"), "{md}");
    assert!(md.contains("| emerson_2018.md | 5 | 1 of 5 (20.0%) | 0 of 5 (0.0%) | 1 of 5 (20.0%) | 1 of 5 (20.0%) | 1 of 5 (20.0%) | 1 of 5 (20.0%) |"), "{md}");
    assert!(
        md.contains("`[Guarantor]-(GUARANTEES)->[Obligations]`"),
        "{md}"
    );
    assert!(
        md.contains("### Medium\n\n- `[Borrower]-(GOVERNED_BY)->[New York Law]`"),
        "{md}"
    );
    assert!(md.contains("Failed: not UTF-8 at byte 17"), "{md}");
    assert!(md.contains("silent-loss rate 1 of 1 = 100.0%"), "{md}");
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
    assert_eq!(
        s["normalized"].as_str(),
        Some(kgroute::index::normalize_title("Types of Advances").as_str())
    );
    assert_eq!(s["count"].as_u64(), Some(2));
    // One Low and one Medium (a third one failed: match quality `failed`,
    // not suggested): the tie goes to the higher tier.
    assert_eq!(s["suggested_tier"].as_str(), Some("medium"));
    assert_eq!(s["actual_tiers"]["low"].as_u64(), Some(1));
    assert_eq!(s["documents"].as_u64(), Some(2));
    assert_eq!(s["example_documents"].as_sequence().unwrap().len(), 2);
    assert_eq!(s["example_headings"].as_sequence().unwrap().len(), 2);
}

/// A title new in every document of a large batch names the first ten
/// documents and counts the rest (never one id per document).
#[test]
fn suggestions_count_documents_and_name_only_the_first_ten() {
    let mut batch = sample_batch();
    let first = batch.documents[0].clone();
    batch.documents = (0..25)
        .map(|i| {
            let mut d = first.clone();
            d.doc_id = format!("doc-{i:02}");
            d
        })
        .collect();
    let dir = tempdir();
    write_batch_reports(dir.path(), &batch).unwrap();
    let text = read(&dir.path().join("suggestions.yaml"));
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&text).unwrap();
    let s = &v["suggestions"][0];
    assert_eq!(s["title"].as_str(), Some("Types of Advances"), "{text}");
    assert_eq!(s["documents"].as_u64(), Some(25), "{text}");
    let named: Vec<&str> = s["example_documents"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|d| d.as_str().unwrap())
        .collect();
    let first_ten: Vec<String> = (0..10).map(|i| format!("doc-{i:02}")).collect();
    assert_eq!(named, first_ten, "{text}");
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
    record_history(&file, &summary_with("batch-one")).unwrap();
    record_history(&file, &summary_with("batch-two")).unwrap();
    // A resumed batch replaces its own row instead of adding a second one.
    record_history(&file, &summary_with("batch-one")).unwrap();
    let text = read(&file);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert_eq!(lines[0], "batch_id,finished_at,index_version,documents,sections,perfect_pct,mismatch_pct,new_pct,payload_cut_pct");
    assert!(
        lines[1].starts_with("batch-one,") && lines[1].ends_with(",2,3,9,16.7,16.7,33.3,24.8"),
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
        rows[1..].iter().all(|r| &r[end - 4..end] == "33.3"),
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

// ---------------------------------------------------------------------------
// kgroute review: editing an index line by line

/// A realistic index: comments everywhere, flow and block aliases,
/// bare-string entries, `[]` and one-line flow tiers.
const INDEX: &str = "\
# Credit agreement index (baseline from the article)
document_type: credit_agreement
version: \"2\"
description: >
  Sections of syndicated credit agreements.
match:
  fuzzy_threshold: 0.82             # token similarity 0..1
anchors:                            # pinned Very High
  - Subsidiaries
noise:
  - Table of Contents

# --- the tiers ---
very_high:
  - title: Definitions
    aliases: [Defined Terms, Certain Defined Terms]   # 1.01 in most deals
    note: the ontology's backbone
  - title: Events of Default
  - Subsidiaries
high:
  - title: Use of Proceeds
    aliases:
      - Purpose of Loans
  # guarantee sections
  - title: Company Guaranty
    note: parent guarantee
medium: []   # filled by review
low:
  - Governing Law            # bare string
  - title: Confidentiality
very_low: [No Waivers, Counterparts]
";

const EXPECTED: &str = "\
# Credit agreement index (baseline from the article)
document_type: credit_agreement
version: \"3\"
description: >
  Sections of syndicated credit agreements.
match:
  fuzzy_threshold: 0.82             # token similarity 0..1
anchors:                            # pinned Very High
  - Subsidiaries
noise:
  - Table of Contents

# --- the tiers ---
very_high:
  - title: Definitions
    aliases: [Defined Terms, Certain Defined Terms, Defs]   # 1.01 in most deals
    note: the ontology's backbone
  - title: Events of Default
  - Subsidiaries
  # guarantee sections
  - title: Company Guaranty
    note: parent guarantee
high:
  - title: Use of Proceeds
    aliases:
      - Purpose of Loans
      - Proceeds
medium:   # filled by review
  - title: Types of Advances
    note: added by review from emerson-1 0004
low:
  - title: Governing Law            # bare string
    aliases: [Applicable Law]
  - title: Confidentiality
  - Counterparts
very_low:
  - No Waivers
  - title: \"Notices: Addresses\"
    note: added by review from emerson-1 0010
";

const REVIEWED_CSV: &str = "\
doc_id,node_id,breadcrumb,heading,start_line,end_line,chars,matched_entry,match_method,match_score,predicted_tier,route,entities,relations,pruned,model_tier,density_tier,actual_tier,match_quality,tokens_in,tokens_out,status,decision
emerson-1,0004,Article 1 > Section 1.03 Types of Advances,Section 1.03 Types of Advances,826,835,800,,none,0.00,,llm,19,2,0,low,low,medium,new,300,80,ok,add:Medium
emerson-1,0005,Article 1 > Section 1.04 Applicable Law,Section 1.04 Applicable Law,836,840,400,,none,0.00,,llm,3,0,0,very_low,very_low,very_low,new,100,20,ok,alias:governing law
emerson-1,0006,Article 1 > Section 1.05 Defs,Section 1.05 Defs,841,850,900,,none,0.00,,llm,5,4,0,high,high,high,new,200,50,ok,alias:Definitions
emerson-1,0007,Article 5 > Section 5.01 Proceeds,Section 5.01 Proceeds,900,910,500,,none,0.00,,llm,4,2,0,high,high,high,new,120,40,ok,alias:Use of Proceeds
emerson-1,0008,Article 9 > Section 9.01 Company Guaranty,Section 9.01 Company Guaranty,1000,1050,6000,Company Guaranty,exact,1.00,high,llm,30,40,0,very_high,very_high,very_high,deviation,2000,600,ok,retier:very_high
emerson-1,0009,Article 9 > Section 9.02 Counterparts,Section 9.02 Counterparts,1051,1060,700,Counterparts,exact,1.00,very_low,llm:audit,2,1,0,low,low,low,deviation,100,20,ok,retier:low
emerson-1,0010,Article 9 > Section 9.03 Notices: Addresses,Section 9.03 Notices: Addresses,1061,1070,1200,,none,0.00,,llm,12,0,0,very_low,very_low,very_low,new,200,30,ok,add:very_low
emerson-1,0011,Article 9 > Section 9.04 Benchmark Replacement Setting,Section 9.04 Benchmark Replacement Setting,1071,1090,3000,,none,0.00,,llm,8,3,0,low,low,low,new,500,90,ok,ignore
emerson-1,0012,Article 9 > Section 9.05 Governing Law,Section 9.05 Governing Law,1091,1095,300,Governing Law,exact,1.00,low,skip,,,,,,,not_scanned,,,not_sent,
att-2,0020,Article 2 > SECTION 2.03. TYPES OF ADVANCES,SECTION 2.03. TYPES OF ADVANCES,200,210,900,,none,0.00,,llm,10,2,0,medium,medium,medium,new,200,50,ok,add:medium
";

fn review_setup(csv_text: &str) -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempdir();
    let csv = dir.path().join("sections.csv");
    let index = dir.path().join("credit_agreement.yaml");
    std::fs::write(&csv, csv_text).unwrap();
    std::fs::write(&index, INDEX).unwrap();
    (dir, csv, index)
}

/// Titles per tier key, read with a real YAML parser.
fn tiers_of(yaml: &str) -> HashMap<String, Vec<String>> {
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).unwrap();
    Tier::ALL
        .iter()
        .map(|t| {
            let titles = v[t.key()]
                .as_sequence()
                .map(|s| {
                    s.iter()
                        .map(|e| {
                            e.as_str()
                                .or_else(|| e["title"].as_str())
                                .unwrap()
                                .to_string()
                        })
                        .collect()
                })
                .unwrap_or_default();
            (t.key().to_string(), titles)
        })
        .collect()
}

#[test]
fn review_write_edits_the_index_in_place_keeping_comments() {
    let (_dir, csv, index) = review_setup(REVIEWED_CSV);
    kgroute()
        .args(["review"])
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success()
        .stderr(predicate::str::contains(
            "moved `Company Guaranty` from high to very_high",
        ));
    let edited = read(&index);
    assert_eq!(edited, EXPECTED);
    for comment in INDEX.lines().filter_map(|l| l.find('#').map(|i| &l[i..])) {
        assert!(edited.contains(comment), "comment lost: {comment}");
    }
    let tiers = tiers_of(&edited);
    assert!(tiers["very_high"].contains(&"Company Guaranty".to_string()));
    assert!(!tiers["high"].contains(&"Company Guaranty".to_string()));
    assert_eq!(tiers["medium"], ["Types of Advances"]);
    assert_eq!(
        tiers["low"],
        ["Governing Law", "Confidentiality", "Counterparts"]
    );
    assert_eq!(tiers["very_low"], ["No Waivers", "Notices: Addresses"]);
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&edited).unwrap();
    assert_eq!(v["low"][0]["aliases"][0].as_str(), Some("Applicable Law"));
    assert_eq!(v["high"][0]["aliases"][1].as_str(), Some("Proceeds"));
    assert_eq!(v["very_high"][0]["aliases"][2].as_str(), Some("Defs"));
    assert_eq!(
        v["version"].as_str(),
        Some("3"),
        "every write moves the version"
    );

    // Running the same review again changes nothing.
    kgroute()
        .args(["review"])
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success()
        .stderr(predicate::str::contains("no change"));
    assert_eq!(read(&index), EXPECTED);
}

#[test]
fn review_reads_a_csv_saved_by_a_spreadsheet() {
    // "CSV UTF-8" exports add a byte-order mark and CRLF line ends, and
    // read node ids as numbers (`0004` -> `4`).
    let saved = format!(
        "\u{feff}{}",
        REVIEWED_CSV
            .replace(",0004,", ",4,")
            .replace(",0010,", ",10,")
            .replace('\n', "\r\n")
    );
    let (_dir, csv, index) = review_setup(&saved);
    kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success();
    assert_eq!(read(&index), EXPECTED);
}

#[test]
fn review_without_write_prints_a_diff_and_leaves_the_file() {
    let (_dir, csv, index) = review_setup(REVIEWED_CSV);
    let out = kgroute()
        .args(["review"])
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .assert()
        .success();
    let diff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert_eq!(read(&index), INDEX);
    assert!(
        diff.starts_with(&format!("--- {}\n", index.display())),
        "{diff}"
    );
    assert!(
        diff.contains("\n-medium: []   # filled by review\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n+medium:   # filled by review\n+  - title: Types of Advances\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n+  - title: \"Notices: Addresses\"\n"),
        "{diff}"
    );
    assert!(
        diff.contains("\n-very_low: [No Waivers, Counterparts]\n"),
        "{diff}"
    );
    // The dry run shows the version the write would give.
    assert!(
        diff.contains("\n-version: \"2\"\n+version: \"3\"\n"),
        "{diff}"
    );
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(err.contains("version 2 -> 3"), "{err}");
}

#[test]
fn a_heading_with_terminal_escapes_is_added_as_plain_text() {
    let row = "emerson-1,0013,Article 9 > Section 9.06 \u{1b}[31mTaxes\u{1b}[0m,Section 9.06 \u{1b}[31mTaxes\u{1b}[0m\u{7},1096,1100,300,,none,0.00,,llm,3,1,0,low,low,low,new,100,20,ok,add:low\n";
    let (_dir, csv, index) = review_setup(&format!("{REVIEWED_CSV}{row}"));
    let out = kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success();
    let err = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(!err.contains('\u{1b}'), "escape printed raw: {err:?}");
    let edited = read(&index);
    assert!(
        !edited.contains(|c: char| c.is_control() && c != '\n'),
        "{edited}"
    );
    assert!(tiers_of(&edited)["low"].contains(&"Taxes".to_string()));
    kgroute()
        .args(["index", "check"])
        .arg(&index)
        .assert()
        .success();
}

#[test]
fn an_edit_that_would_not_validate_is_never_written() {
    // `Table of Contents` is a noise title of INDEX: adding it to a tier
    // makes the index invalid, so the edit is refused before any write.
    let row = "emerson-1,0002,Table of Contents,Table of Contents,3,40,900,,none,0.00,,llm,0,0,0,very_low,very_low,very_low,new,10,5,ok,add:low\n";
    let (_dir, csv, index) = review_setup(&format!("{REVIEWED_CSV}{row}"));
    kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("would not be a valid index; nothing was written")
                .and(predicate::str::contains("also as noise")),
        );
    assert_eq!(read(&index), INDEX);
    let leftovers: Vec<_> = std::fs::read_dir(index.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn review_reports_every_bad_decision_with_its_row() {
    let bad = REVIEWED_CSV
        .replace(",add:Medium\n", ",add:mid\n")
        .replace(",alias:Definitions\n", ",alias:Defined Stuff\n")
        .replace(",ignore\n", ",drop\n")
        .replace(",add:very_low\n", ",retier:high\n");
    let (_dir, csv, index) = review_setup(&bad);
    kgroute()
        .args(["review"])
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .code(2)
        .stderr(
            predicate::str::contains("4 problem(s)")
                .and(predicate::str::contains("sections.csv:2 (doc emerson-1, node 0004): unknown tier `mid`"))
                .and(predicate::str::contains("valid tiers: very_high, high, medium, low, very_low"))
                .and(predicate::str::contains("sections.csv:9 (doc emerson-1, node 0011): unknown decision `drop`; valid decisions: add:<tier>, alias:<entry>, retier:<tier>, ignore"))
                .and(predicate::str::contains("sections.csv:4 (doc emerson-1, node 0006): unknown entry `Defined Stuff`"))
                .and(predicate::str::is_match(r"unknown entry `Defined Stuff` in `alias:Defined Stuff`; nearest: [^\n]*Definitions[^\n]* \(of \d+ entries").unwrap())
                .and(predicate::str::contains("sections.csv:8 (doc emerson-1, node 0010): `retier:high` on a section with no matched_entry")),
        );
    assert_eq!(
        read(&index),
        INDEX,
        "nothing is written when a decision is bad"
    );
}

#[test]
fn conflicting_decisions_for_one_title_are_an_error() {
    let conflicting = REVIEWED_CSV.replace(
        "TYPES OF ADVANCES,200,210,900,,none,0.00,,llm,10,2,0,medium,medium,medium,new,200,50,ok,add:medium",
        "TYPES OF ADVANCES,200,210,900,,none,0.00,,llm,10,2,0,medium,medium,medium,new,200,50,ok,add:low",
    );
    let (_dir, csv, index) = review_setup(&conflicting);
    kgroute()
        .args(["review"])
        .arg(&csv)
        .arg("--index")
        .arg(&index)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("sections.csv:11 (doc att-2, node 0020): `add:low` for `Types of Advances` conflicts with `add:Medium`"));
}

// ---------------------------------------------------------------------------
// The review loop on a real contract: batch 1 -> scripted review of its
// suggestions -> batch 2 with the edited index; history shows both.

/// The article's baseline index (abridged), laid out as people write it.
const BASELINE: &str = "\
# Credit agreements: the article's baseline index
document_type: credit_agreement
version: \"1\"
description: >
  Baseline from the graphability article.
match:
  fuzzy_threshold: 0.82
anchors:
  - Subsidiaries
noise:
  - Table of Contents

very_high:   # deep NER/RE
  - title: Definitions
    aliases: [Defined Terms]
  - Litigation
  - Environmental Matters
  - Subsidiaries
  - Payment of Obligations
  - Events of Default
  - Successors and Assigns
high:
  - The Facility
  - Corporate Existence and Power
  - Compliance with Laws
  - title: Use of Proceeds
    note: who gets the money
medium:
  - Swing Line Loans
  - Competitive Bid Advances
  - Successor Agent
  - Funding Indemnification
  - Collateral
low:
  - Method of Payment
  - Telephonic Notices
  - Market Disruption
  - Judgment Currency
  - Confidentiality
very_low:
  - No Waivers
  - Waiver of Jury Trial
  - No Fiduciary Duty
  - Service of Process
";

/// normalised title or alias -> (entry title, tier), read from an index.
fn lookup_table(yaml: &str) -> HashMap<String, (String, Tier)> {
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(yaml).unwrap();
    let mut out = HashMap::new();
    for tier in Tier::ALL {
        for e in v[tier.key()].as_sequence().into_iter().flatten() {
            let title = e
                .as_str()
                .or_else(|| e["title"].as_str())
                .unwrap()
                .to_string();
            let aliases = e["aliases"].as_sequence().cloned().unwrap_or_default();
            for name in std::iter::once(title.clone())
                .chain(aliases.iter().map(|a| a.as_str().unwrap().to_string()))
            {
                out.insert(normalize_title(&name), (title.clone(), tier));
            }
        }
    }
    out
}

/// A stand-in for the upstream stages, enough to drive the report: Markdown
/// headings become sections, titles are looked up exactly in the index, and
/// sent sections get one relation per `shall` (density decides the tier).
fn emerson_outcome(index_yaml: &str) -> DocumentOutcome {
    let path = corpus("credit_agreements/emerson_2018.md");
    let text = read(&path);
    let lines: Vec<&str> = text.lines().collect();
    let heads: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with('#'))
        .collect();
    let table = lookup_table(index_yaml);
    let density = DensityThresholds::default();
    let mut sections = Vec::new();
    let mut extractions = Vec::new();
    let mut crumbs: Vec<(u8, String)> = Vec::new();
    for (k, &i) in heads.iter().enumerate() {
        let end = heads.get(k + 1).copied().unwrap_or(lines.len());
        let level = lines[i].chars().take_while(|&c| c == '#').count() as u8;
        let title = lines[i].trim_start_matches('#').trim().to_string();
        crumbs.retain(|(l, _)| *l < level);
        crumbs.push((level, title.clone()));
        let body = lines[i..end].join("\n");
        let chars = body.chars().count();
        let node_id = format!("{:04}", k + 1);
        let found = table.get(&normalize_title(&title)).cloned();
        let route = if level == 1 && chars < 200 {
            Route::Empty
        } else {
            match &found {
                Some((_, t)) if !t.is_sent() => Route::Skip,
                _ => Route::Llm,
            }
        };
        let mut s = section(
            &node_id,
            &title,
            found.as_ref().map(|(e, t)| (e.as_str(), *t)),
            route,
            chars,
        );
        s.breadcrumb = crumbs
            .iter()
            .map(|(_, t)| t.as_str())
            .collect::<Vec<_>>()
            .join(" > ");
        s.start_line = i + 1;
        s.end_line = end;
        s.level = level;
        if route == Route::Llm {
            let n = body.matches(" shall ").count();
            let rels: Vec<(String, String)> = (0..n)
                .map(|j| ("SHALL".to_string(), format!("obligation {j}")))
                .collect();
            let rels: Vec<(&str, &str, &str)> = rels
                .iter()
                .map(|(t, o)| ("Borrower", t.as_str(), o.as_str()))
                .collect();
            let mut e = extraction("emerson", &node_id, density.tier_for(n, chars), &rels);
            e.density_tier = e.actual_tier;
            e.tokens_in = chars as u64 / 4;
            extractions.push(e);
        }
        sections.push(s);
    }
    DocumentOutcome {
        doc_id: "emerson".into(),
        doc_name: "emerson_2018.md".into(),
        path: path.clone(),
        plan: Some(RoutePlan {
            doc_id: "emerson".into(),
            doc_name: "emerson_2018.md".into(),
            doc_type: "credit_agreement".into(),
            doc_type_confidence: 1.0,
            sections,
            tree_health: Default::default(),
        }),
        extractions,
        rules_on_skipped: vec![],
        title_mapping: Default::default(),
        error: None,
        planned: Default::default(),
    }
}

fn batch_of(id: &str, version: &str, index_yaml: &str) -> BatchReport {
    BatchReport {
        batch_id: id.into(),
        index_version: version.into(),
        indices: Vec::new(),
        documents: vec![emerson_outcome(index_yaml)],
        input_per_million: 3.0,
        output_per_million: 15.0,
        extractor: "rules".into(),
        sink: "files".into(),
        index_entries: lookup_table(index_yaml)
            .into_values()
            .map(|(title, _)| title)
            .collect(),
    }
}

/// The reviewer's script: `add:<suggested tier>` on the first row of each
/// suggested title.
fn decide_suggestions(report_dir: &Path) -> usize {
    let sugg: serde_yaml_ng::Value =
        serde_yaml_ng::from_str(&read(&report_dir.join("suggestions.yaml"))).unwrap();
    let wanted: HashMap<String, String> = sugg["suggestions"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["normalized"].as_str().unwrap().to_string(),
                s["suggested_tier"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let csv_path = report_dir.join("sections.csv");
    let mut r = csv::Reader::from_path(&csv_path).unwrap();
    let headers = r.headers().unwrap().clone();
    let heading = headers.iter().position(|h| h == "heading").unwrap();
    let decision = headers.iter().position(|h| h == "decision").unwrap();
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record(&headers).unwrap();
    let mut done = std::collections::HashSet::new();
    for rec in r.records() {
        let mut row: Vec<String> = rec.unwrap().iter().map(String::from).collect();
        let key = normalize_title(&row[heading]);
        if let Some(tier) = wanted.get(&key) {
            if done.insert(key) {
                row[decision] = format!("add:{tier}");
            }
        }
        w.write_record(&row).unwrap();
    }
    std::fs::write(&csv_path, w.into_inner().unwrap()).unwrap();
    done.len()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn review_loop_on_emerson_brings_new_sections_down() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    let index = dir.path().join("credit_agreement.yaml");
    std::fs::write(&index, BASELINE).unwrap();
    let history = dir.path().join("reports").join("history.csv");

    let b1_dir = dir.path().join("reports").join("b1");
    let b1 = write_batch_reports(&b1_dir, &batch_of("b1", "1", BASELINE)).unwrap();
    record_history(&history, &b1).unwrap();
    let (_, rows) = csv_rows(&b1_dir.join("sections.csv"));
    assert_eq!(rows.len(), 104, "one row per heading of the contract");
    assert!(
        b1.totals.new_sections > 0 && b1.totals.perfect > 0,
        "{:?}",
        b1.totals
    );
    let decided = decide_suggestions(&b1_dir);
    assert!(decided > 10, "only {decided} suggestions");

    kgroute()
        .arg("review")
        .arg(b1_dir.join("sections.csv"))
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success();
    let edited = read(&index);
    for line in BASELINE.lines().filter(|l| !l.starts_with("version:")) {
        assert!(edited.contains(line), "review lost `{line}`");
    }
    assert!(edited.contains("\nversion: \"2\"\n"), "version not moved");
    assert!(
        edited.contains(
            "  - title: Types of Advances\n    note: added by review from emerson 0004\n"
        ),
        "{edited}"
    );

    let b2_dir = dir.path().join("reports").join("b2");
    let b2 = write_batch_reports(&b2_dir, &batch_of("b2", "2", &edited)).unwrap();
    record_history(&history, &b2).unwrap();
    assert_eq!(b2.totals.sections, b1.totals.sections);
    assert_eq!(b2.totals.new_sections, 0, "every suggestion was adopted");
    assert!(b2.totals.new_pct < b1.totals.new_pct);
    assert!(b2.totals.payload_cut_pct >= b1.totals.payload_cut_pct);
    let sugg = read(&b2_dir.join("suggestions.yaml"));
    assert!(sugg.contains("suggestions: []"), "{sugg}");

    let out = kgroute()
        .args(["history", "--file"])
        .arg(&history)
        .assert()
        .success();
    let table = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let rows: Vec<&str> = table.lines().collect();
    assert_eq!(rows.len(), 3, "{table}");
    assert!(
        rows[1].starts_with("b1 ") && rows[2].starts_with("b2 "),
        "{table}"
    );
    assert!(
        rows[1].contains(&format!("{:.1}", b1.totals.new_pct)),
        "{table}"
    );
    assert!(rows[2].contains(" 0.0 "), "{table}");
}

#[test]
fn review_of_an_overlay_changes_base_entries_the_overlay_way() {
    let dir = tempdir();
    let base = dir.path().join("credit_agreement.yaml");
    let overlay = dir.path().join("jpmorgan.yaml");
    std::fs::write(&base, INDEX).unwrap();
    let overlay_text = "\
# JPMorgan-agented deals
document_type: credit_agreement
version: \"2-jpm\"
extends: credit_agreement.yaml   # the base
high:
  - Agent's Fees
";
    std::fs::write(&overlay, overlay_text).unwrap();
    let csv = dir.path().join("sections.csv");
    let rows = REVIEWED_CSV
        .lines()
        .filter(|l| {
            l.starts_with("doc_id")
                || l.contains(",0005,")
                || l.contains(",0008,")
                || l.contains(",0004,")
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&csv, rows + "\n").unwrap();
    kgroute()
        .arg("review")
        .arg(&csv)
        .arg("--index")
        .arg(&overlay)
        .arg("--write")
        .assert()
        .success();
    assert_eq!(read(&base), INDEX, "the base is not touched");
    assert_eq!(
        read(&overlay),
        "\
# JPMorgan-agented deals
document_type: credit_agreement
version: \"3-jpm\"
extends: credit_agreement.yaml   # the base
very_high:
  - title: Company Guaranty
    note: retiered by review from emerson-1 0008
high:
  - Agent's Fees
medium:
  - title: Types of Advances
    note: added by review from emerson-1 0004
low:
  - title: Governing Law
    aliases: [Applicable Law]
    note: added by review from emerson-1 0005
"
    );
}

// ---------------------------------------------------------------------------
// summary.md adds up on its own

/// The cells of every row of the Markdown table that follows `heading`.
fn md_table(md: &str, heading: &str) -> Vec<Vec<String>> {
    let start = md
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading}: {md}"));
    md[start..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn num(cell: &str) -> usize {
    cell.split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap_or_else(|_| panic!("not a count: {cell}"))
}

/// `8 of 38 (21.1%)` -> (8, 38, 21.1).
fn share(cell: &str) -> (usize, usize, f64) {
    let (n, rest) = cell
        .split_once(" of ")
        .expect("a share names its denominator");
    let (of, p) = rest.split_once(" (").unwrap();
    let p = p.trim_end_matches("%)").parse().unwrap();
    (n.parse().unwrap(), of.parse().unwrap(), p)
}

/// Checks every arithmetic claim of summary.md using only summary.md.
fn assert_summary_reconciles(md: &str) {
    let batch = md_table(md, "## Batch");
    let align = md_table(md, "## Alignment");
    assert_eq!(batch.len(), align.len(), "one alignment row per batch row");
    let mut sums = [0usize; 6];
    for (b, a) in batch.iter().zip(&align) {
        assert_eq!(b[0], a[0]);
        let (sections, sent, skipped, noise, empty, failed) = (
            num(&b[1]),
            num(&b[2]),
            num(&b[3]),
            num(&b[4]),
            num(&b[5]),
            num(&b[6]),
        );
        assert_eq!(sections, sent + skipped + noise + empty, "row {b:?}");
        assert!(failed <= sent, "row {b:?}");
        let aligned = num(&a[1]);
        assert_eq!(aligned, sections - noise - empty - failed, "row {a:?}");
        let mut classes = 0;
        for cell in &a[2..] {
            let (n, of, p) = share(cell);
            assert_eq!(of, aligned, "share of the aligned sections: {cell}");
            let want = if of == 0 {
                0.0
            } else {
                100.0 * n as f64 / of as f64
            };
            assert!((p - want).abs() < 0.051, "{cell}");
            classes += n;
        }
        assert_eq!(classes, aligned, "alignment classes add up: {a:?}");
        let (chars_total, chars_sent) = (num(&b[7]), num(&b[8]));
        // Every character is sent or reported with its reason.
        assert_eq!(
            chars_total,
            chars_sent + num(&b[9]) + num(&b[10]) + num(&b[11]),
            "chars sent + skipped + noise + empty: {b:?}"
        );
        let cut: f64 = b[12].split('%').next().unwrap().parse().unwrap();
        assert!(
            b[12].ends_with(&format!("of {chars_total} chars")),
            "{}",
            b[12]
        );
        if chars_total > 0 {
            let want = 100.0 * (chars_total - chars_sent) as f64 / chars_total as f64;
            assert!((cut - want).abs() < 0.0051, "{}", b[12]);
        }
        if b[0] != "**batch**" {
            for (s, v) in sums
                .iter_mut()
                .zip([sections, sent, skipped, noise, empty, failed])
            {
                *s += v;
            }
        } else {
            assert_eq!(
                sums,
                [sections, sent, skipped, noise, empty, failed],
                "the batch row is the sum of the documents"
            );
        }
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn summary_md_reconciles_from_its_own_numbers() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = tempdir();
    write_batch_reports(dir.path(), &sample_batch()).unwrap();
    assert_summary_reconciles(&read(&dir.path().join("summary.md")));
    write_batch_reports(dir.path(), &batch_of("e", "1", BASELINE)).unwrap();
    let md = read(&dir.path().join("summary.md"));
    assert_summary_reconciles(&md);
    assert!(md.contains("by the audit sample"), "{md}");
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn audit_sampling_never_moves_the_alignment_shares() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let plain = batch_of("plain", "1", BASELINE);
    let base = kgroute::report::summary::summarize(&plain);
    // Sample every skipped section, as `--audit-rate 1` would, and give each
    // an extraction whose tier is its predicted one (a perfect match, the
    // case that inflated "perfect" before).
    let mut sampled = plain.clone();
    let doc = &mut sampled.documents[0];
    let plan = doc.plan.as_mut().unwrap();
    let mut n = 0;
    for s in plan.sections.iter_mut().filter(|s| s.route == Route::Skip) {
        s.route = Route::Llm;
        s.override_reason = Override::Audit;
        let tier = s.predicted_tier.unwrap();
        doc.extractions
            .push(extraction("emerson", &s.node_id, tier, &[]));
        n += 1;
    }
    assert!(n > 0, "the baseline skips some Emerson sections");
    let audited = kgroute::report::summary::summarize(&sampled);
    let (a, b) = (&audited.totals, &base.totals);
    assert_eq!(
        (a.perfect, a.deviations, a.mismatches, a.new_sections),
        (b.perfect, b.deviations, b.mismatches, b.new_sections)
    );
    assert_eq!(a.perfect_pct, b.perfect_pct);
    assert_eq!((a.audit_sampled, a.audit_perfect), (n, n));
    assert_eq!(a.not_scanned + n, b.not_scanned);
    assert!(
        a.payload_cut_pct < b.payload_cut_pct,
        "the sample costs payload"
    );
    let dir = tempdir();
    write_batch_reports(dir.path(), &sampled).unwrap();
    let md = read(&dir.path().join("summary.md"));
    assert_summary_reconciles(&md);
    let (_, rows) = csv_rows(&dir.path().join("sections.csv"));
    assert_eq!(
        rows.iter()
            .filter(|r| r["override_reason"] == "audit")
            .count(),
        n,
        "sections.csv says which rows the sample sent"
    );
}

// ---------------------------------------------------------------------------
// sections.xlsx: what a reviewer opens

/// A worksheet's XML, by sheet position (1-based), from inside the xlsx.
fn sheet_xml(xlsx: &Path, n: usize) -> String {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::fs::File::open(xlsx).unwrap()).unwrap();
    let mut f = zip.by_name(&format!("xl/worksheets/sheet{n}.xml")).unwrap();
    let mut s = String::new();
    f.read_to_string(&mut s).unwrap();
    s
}

/// Excel's column letters for a 0-based index.
fn column_letter(mut c: usize) -> String {
    let mut out = Vec::new();
    loop {
        out.push(b'A' + (c % 26) as u8);
        if c < 26 {
            break;
        }
        c = c / 26 - 1;
    }
    out.reverse();
    String::from_utf8(out).unwrap()
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn sections_xlsx_offers_valid_decisions_and_review_applies_them() {
    let Some(_corpora) = super::util::corpora_or_skip() else {
        return;
    };
    use calamine::{Data, Reader, SheetVisible};
    let dir = tempdir();
    let index = dir.path().join("credit_agreement.yaml");
    std::fs::write(&index, BASELINE).unwrap();
    let report = dir.path().join("b1");
    let batch = batch_of("b1", "1", BASELINE);
    write_batch_reports(&report, &batch).unwrap();
    let xlsx = report.join("sections.xlsx");

    let mut wb: calamine::Xlsx<_> = calamine::open_workbook(&xlsx).unwrap();
    assert_eq!(wb.sheet_names(), ["b1", "summary", "choices"]);
    let hidden: Vec<bool> = wb
        .sheets_metadata()
        .iter()
        .map(|s| s.visible != SheetVisible::Visible)
        .collect();
    assert_eq!(hidden, [false, false, true], "the choices sheet is hidden");

    // The drop-down: every valid decision, entries taken from the index.
    let choices: Vec<String> = wb
        .worksheet_range("choices")
        .unwrap()
        .rows()
        .map(|r| r[0].to_string())
        .collect();
    let entries = lookup_table(BASELINE);
    for want in ["ignore", "add:very_high", "add:very_low", "retier:medium"] {
        assert!(choices.contains(&want.to_string()), "{want} offered");
    }
    for (title, _) in entries.values() {
        assert!(choices.contains(&format!("alias:{title}")), "alias:{title}");
    }
    let inline: usize = choices.iter().map(|c| c.len() + 1).sum();
    assert!(
        inline > 255,
        "too long for an inline list ({inline}): the range is needed"
    );

    let range = wb.worksheet_range("b1").unwrap();
    let rows: Vec<Vec<Data>> = range.rows().map(|r| r.to_vec()).collect();
    let header: Vec<String> = rows[0].iter().map(|c| c.to_string()).collect();
    let col = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (_, csv) = csv_rows(&report.join("sections.csv"));
    assert_eq!(rows.len(), csv.len() + 1, "the same rows as sections.csv");
    // Node ids are text (`0001`, not the number 1); counts are numbers.
    assert_eq!(rows[1][col("node_id")], Data::String("0001".into()));
    assert!(rows[1..]
        .iter()
        .all(|r| matches!(&r[col("node_id")], Data::String(s) if s.len() == 4)));
    assert!(matches!(rows[1][col("chars")], Data::Float(_)));

    let xml = sheet_xml(&xlsx, 1);
    let decision = column_letter(col("decision"));
    assert!(
        xml.contains(
            "<dataValidation type=\"list\" allowBlank=\"1\" showInputMessage=\"1\" showErrorMessage=\"1\""
        ),
        "{xml}"
    );
    assert!(
        xml.contains(&format!("sqref=\"{decision}2:{decision}{}\"", rows.len())),
        "the whole decision column: {xml}"
    );
    assert!(
        xml.contains(&format!(
            "<formula1>choices!$A$1:$A${}</formula1>",
            choices.len()
        )),
        "{xml}"
    );
    assert!(xml.contains("ySplit=\"1\""), "header frozen");
    assert!(xml.contains("<autoFilter ref=\"A1:"), "filters on");

    // The reviewer picks decisions from the drop-down and saves: a copy of
    // the sheet with the decision column filled.
    let quality = col("match_quality");
    let heading = col("heading");
    let mut seen = std::collections::HashSet::new();
    let mut reviewed = rust_xlsxwriter::Workbook::new();
    let sheet = reviewed.add_worksheet();
    let mut decided = 0;
    for (r, row) in rows.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            match cell {
                Data::Float(f) => sheet.write_number(r as u32, c as u16, *f),
                other => sheet.write_string(r as u32, c as u16, other.to_string()),
            }
            .unwrap();
        }
        let title = normalize_title(&row[heading].to_string());
        if r > 0 && row[quality] == Data::String("new".into()) && seen.insert(title) {
            let choice = if decided % 4 == 3 {
                "ignore"
            } else {
                "add:low"
            };
            assert!(choices.contains(&choice.to_string()));
            sheet
                .write_string(r as u32, col("decision") as u16, choice)
                .unwrap();
            decided += 1;
        }
    }
    assert!(decided > 4, "{decided}");
    let saved = dir.path().join("reviewed.xlsx");
    reviewed.save(&saved).unwrap();

    kgroute()
        .arg("review")
        .arg(&saved)
        .arg("--index")
        .arg(&index)
        .arg("--write")
        .assert()
        .success()
        .stderr(predicate::str::contains("version 1 -> 2"));
    let edited = read(&index);
    let v: serde_yaml_ng::Value = serde_yaml_ng::from_str(&edited).unwrap();
    assert_eq!(v["version"].as_str(), Some("2"));
    let added = tiers_of(&edited)["low"].len() - tiers_of(BASELINE)["low"].len();
    assert_eq!(added, decided - decided / 4, "every add:low applied once");
    assert!(
        edited.contains("note: added by review from emerson 0"),
        "node ids kept their zeros: {edited}"
    );
    kgroute()
        .args(["index", "check"])
        .arg(&index)
        .assert()
        .success();
}

// ---------------------------------------------------------------------------
// Document types and tree health in the summaries

/// The fixtures (three kinds), ingested offline with the `indices/` folder.
fn ingest_fixtures(dir: &Path) -> PathBuf {
    let out = dir.join("b");
    kgroute()
        .arg("ingest")
        .arg(super::util::repo().join("fixtures"))
        .arg("--index")
        .arg(super::util::repo().join("indices"))
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(dir.join("h.csv"))
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .assert()
        .success();
    out
}

#[test]
fn summaries_carry_each_documents_type_confidence_and_tree_health() {
    let dir = tempdir();
    let out = ingest_fixtures(dir.path());
    let j: serde_json::Value = serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let (_, rows) = csv_rows(&out.join("sections.csv"));
    let docs = j["per_document"].as_array().unwrap();
    // Every fixture: the three kinds, and the real-model test's short licence.
    assert_eq!(docs.len(), 4);
    let mut counted: std::collections::BTreeMap<String, u64> = Default::default();
    for d in docs {
        let id = d["doc_id"].as_str().unwrap();
        // The same type and confidence as every sections.csv row of the document.
        let mine: Vec<_> = rows.iter().filter(|r| r["doc_id"] == id).collect();
        assert!(!mine.is_empty(), "{id}");
        for r in &mine {
            assert_eq!(r["doc_type"], d["doc_type"].as_str().unwrap(), "{id}");
            let c: f64 = r["doc_type_confidence"].parse().unwrap();
            assert!((c - d["doc_type_confidence"].as_f64().unwrap()).abs() < 0.006);
        }
        *counted
            .entry(d["doc_type"].as_str().unwrap().to_string())
            .or_default() += 1;
        // The tree health is the one `kgroute tree` reports for the file.
        let path = d["path"].as_str().unwrap();
        let t = kgroute()
            .args(["tree", path, "--format", "json"])
            .assert()
            .success();
        let tree: serde_json::Value = serde_json::from_slice(&t.get_output().stdout).unwrap();
        assert_eq!(d["tree_health"], tree["health"], "{path}");
    }
    assert_eq!(
        serde_json::to_value(&counted).unwrap(),
        j["doc_types"],
        "the per-type counts are those of the documents"
    );
    let memo = docs.iter().find(|d| d["doc_name"] == "memo.txt").unwrap();
    assert_eq!(memo["doc_type"], "unknown", "a memo fits no index");

    let md = read(&out.join("summary.md"));
    let line = counted
        .iter()
        .map(|(t, n)| format!("{t} {n}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(
        md.contains(&format!("4 routed documents by type: {line}.")),
        "{md}"
    );
    let table = md_table(&md, "## Document types");
    assert_eq!(table.len(), docs.len());
    for row in &table {
        let d = docs
            .iter()
            .find(|d| d["doc_name"] == row[0].as_str())
            .unwrap();
        assert_eq!(row[1], d["doc_type"].as_str().unwrap());
        assert_eq!(
            row[2],
            format!("{:.2}", d["doc_type_confidence"].as_f64().unwrap())
        );
    }
    assert_summary_reconciles(&md);
}

/// A report file that cannot be written (here `sections.xlsx`, a folder in
/// the way) fails the call naming it, and every other report is written.
#[test]
fn a_report_that_cannot_be_written_does_not_lose_the_others() {
    let dir = tempdir();
    std::fs::create_dir_all(dir.path().join("sections.xlsx/blocked")).unwrap();
    let err = write_batch_reports(dir.path(), &sample_batch()).unwrap_err();
    assert!(format!("{err:#}").contains("sections.xlsx"), "{err:#}");
    for f in [
        "sections.csv",
        "summary.md",
        "summary.json",
        "suggestions.yaml",
    ] {
        assert!(dir.path().join(f).is_file(), "{f} missing after: {err:#}");
    }
    assert!(read(&dir.path().join("summary.md")).contains("Section rows:"));
}

/// Past a sheet's row limit the sections go on in more sheets of the same
/// form, every row once, in CSV order; the limit is a parameter so this
/// needs no million rows (a batch uses Excel's 1,048,576).
#[test]
fn sections_xlsx_splits_across_sheets_at_the_row_limit() {
    use calamine::Reader;
    use kgroute::report::stream::ReportStream;
    let dir = tempdir();
    let batch = sample_batch();
    // A header and 3 rows a sheet: 9 sections take 3 sheets.
    let mut stream = ReportStream::create(dir.path(), &batch, 4).unwrap();
    for doc in &batch.documents {
        stream.add(&batch, doc);
    }
    let (_, failures) = stream.finish(&batch);
    assert!(failures.is_empty(), "{failures:?}");

    let (_, csv) = csv_rows(&dir.path().join("sections.csv"));
    let mut wb: calamine::Xlsx<_> =
        calamine::open_workbook(dir.path().join("sections.xlsx")).unwrap();
    let names = wb.sheet_names();
    assert_eq!(names, ["b1", "b1 2", "b1 3", "summary", "choices"]);
    let mut node_ids = Vec::new();
    for name in &names[..3] {
        let range = wb.worksheet_range(name).unwrap();
        let rows: Vec<_> = range.rows().collect();
        assert!(rows.len() <= 4, "{name}: {} rows", rows.len());
        assert_eq!(rows[0][0].to_string(), "doc_id", "{name}: header repeats");
        node_ids.extend(rows[1..].iter().map(|r| r[3].to_string()));
    }
    let csv_ids: Vec<String> = csv.iter().map(|r| r["node_id"].clone()).collect();
    assert_eq!(node_ids, csv_ids, "every row once, in CSV order");
    let md = read(&dir.path().join("summary.md"));
    assert!(
        md.contains("splits them across 3 sheets (at most 3 rows each"),
        "{md}"
    );

    // The same batch within the limit: one sheet, said so.
    let one = tempdir();
    write_batch_reports(one.path(), &batch).unwrap();
    let wb: calamine::Xlsx<_> = calamine::open_workbook(one.path().join("sections.xlsx")).unwrap();
    assert_eq!(wb.sheet_names(), ["b1", "summary", "choices"]);
    assert!(read(&one.path().join("summary.md")).contains("on one sheet of sections.xlsx"));
}
