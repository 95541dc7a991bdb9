//! Integration tests: what a careless model answers (junk seen
//! from Qwen2.5 0.5B and 1.5B on the supply agreement) against the
//! loopback server, and what reaches the graph: every relation whose ends
//! have the wrong types for its relation type is pruned with reason
//! `pattern`, every one whose quote is not the section's or names not its
//! ends with reason `evidence`; both counted in summary.json and
//! sections.csv.

use crate::fake_server::{FakeServer, Reply};
use kgroute::extract::validate::{reason_kind, EVIDENCE, PATTERN};
use kgroute::extract::{Extractor, ExtractorConfig, LlmConfig, SectionInput, SectionStatus};
use kgroute::index::{DensityThresholds, GraphabilityIndex, Ontology};
use serde_json::{json, Value};
use std::time::Duration;

const HELIOS: &str = "Helios Components Corporation";
const NORTHWIND: &str = "Northwind Industries, Inc.";
const SECTION: &str = "Helios Components Corporation (the \"Supplier\") shall sell the Products to \
    Northwind Industries, Inc. (the \"Buyer\"). Each shipment shall be delivered within thirty (30) \
    days of the purchase order.";
/// A real quote of SECTION naming both parties.
const BOTH: &str = "Helios Components Corporation (the \"Supplier\") shall sell the Products to Northwind Industries, Inc.";

/// Relation types the junk answers join the two parties with: a role that
/// is an organisation, clauses the section does not hold, the buyer as a
/// distributed product, and facts whose target is a date, law, period or
/// clause, every one running supplier -> buyer.
const PARTY_TO_PARTY: [&str; 10] = [
    "HAS_ROLE",
    "CONDITIONED_ON",
    "HAS_EXCEPTION",
    "COVENANT_NOT_TO_SUE",
    "DISTRIBUTES",
    "AGREEMENT_DATE",
    "GOVERNED_BY",
    "WARRANTY_DURATION",
    "RENEWAL_TERM",
    "REVENUE_PROFIT_SHARING",
];

fn rel(source: &str, ty: &str, target: &str, evidence: &str) -> Value {
    json!({"source": source, "type": ty, "target": target, "evidence": evidence})
}

fn ent(name: &str, ty: &str) -> Value {
    json!({"name": name, "type": ty, "aliases": [], "description": ""})
}

fn junk_answer() -> Value {
    let mut relations: Vec<Value> = PARTY_TO_PARTY
        .iter()
        .map(|t| rel(HELIOS, t, NORTHWIND, BOTH))
        .collect();
    // A sentence about the section, not of it; a real quote naming
    // neither end.
    relations.push(rel(
        HELIOS,
        "SUPPLIES",
        "Products",
        "The section contains a supply schedule for the products.",
    ));
    relations.push(rel(
        HELIOS,
        "PROVIDES_SERVICE",
        "Products",
        "Each shipment shall be delivered within thirty (30) days",
    ));
    // The two the section supports.
    relations.push(rel(
        HELIOS,
        "HAS_ROLE",
        "Supplier",
        "Helios Components Corporation (the \u{201c}Supplier\u{201d})",
    ));
    relations.push(rel(HELIOS, "SUPPLIES", "Products", BOTH));
    json!({
        "entities": [
            ent(HELIOS, "Organization"),
            ent(NORTHWIND, "Organization"),
            ent("Supplier", "Role"),
            ent("Products", "Product"),
        ],
        "relations": relations,
        "graphability": {"tier": "high", "why": "supply"}
    })
}

fn commercial() -> Ontology {
    GraphabilityIndex::load(&[super::util::repo().join("indices/commercial.yaml")])
        .expect("indices/commercial.yaml loads")
        .ontology
}

fn section() -> SectionInput {
    SectionInput {
        doc_id: "doc".into(),
        doc_type: "commercial".into(),
        node_id: "0003".into(),
        title: "Section 2.01. Purchase and Sale".into(),
        breadcrumb: "[Article II > Section 2.01. Purchase and Sale]".into(),
        start_line: 10,
        end_line: 12,
        text: SECTION.into(),
        ..Default::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_junk_a_careless_model_answers_is_pruned_with_its_reasons() {
    let server = FakeServer::start(Duration::ZERO, |_| Reply::json(&junk_answer()))
        .await
        .unwrap();
    let cfg = ExtractorConfig {
        llm: Some(LlmConfig::new(&server.base_url(), "test-model").unwrap()),
        ..Default::default()
    };
    let ex = Extractor::new(cfg, commercial(), DensityThresholds::default()).unwrap();
    let x = ex.extract_all(vec![section()]).await.remove(0);
    assert_eq!(x.status, SectionStatus::Ok);
    let kept: Vec<String> = x
        .relations
        .iter()
        .map(|r| format!("{} -{}-> {}", r.source, r.relation_type, r.target))
        .collect();
    assert_eq!(
        kept,
        [
            format!("{HELIOS} -HAS_ROLE-> Supplier"),
            format!("{HELIOS} -SUPPLIES-> Products")
        ]
    );
    let pruned: Vec<(&str, &str)> = x
        .pruned
        .iter()
        .filter(|p| p.item == "relation")
        .map(|p| (p.what.as_str(), p.reason.as_str()))
        .collect();
    assert_eq!(pruned.len(), 12, "{pruned:#?}");
    for t in PARTY_TO_PARTY {
        let (_, reason) = pruned
            .iter()
            .find(|(what, _)| *what == format!("{HELIOS} -{t}-> {NORTHWIND}"))
            .unwrap_or_else(|| panic!("{t} not pruned: {pruned:#?}"));
        assert_eq!(reason_kind(reason), PATTERN, "{t}: {reason}");
        assert!(
            reason.contains(&format!("`{t}` runs"))
                && reason.ends_with("Organization -> Organization"),
            "{reason}"
        );
    }
    let evidence: Vec<&str> = pruned
        .iter()
        .filter(|(_, r)| reason_kind(r) == EVIDENCE)
        .map(|(_, r)| *r)
        .collect();
    assert_eq!(evidence.len(), 2, "{pruned:#?}");
    assert!(
        evidence[0].contains("is not in the section"),
        "{evidence:?}"
    );
    assert!(
        evidence[1].contains(&format!(
            "does not name its source `{HELIOS}` or target `Products`"
        )),
        "{evidence:?}"
    );
}

/// The same junk through `kgroute ingest` of the supply agreement: the
/// graph keeps none of it, and the reports count it by reason.
#[test]
fn the_junk_is_counted_by_reason_in_the_summary_and_sections_csv() {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt
        .block_on(FakeServer::start(Duration::ZERO, |r| {
            if r.path.ends_with("/models") {
                Reply::models(&["test-model"])
            } else {
                Reply::json(&junk_answer())
            }
        }))
        .unwrap();
    let dir = super::util::tempdir();
    let out = dir.path().join("b");
    super::util::kgroute()
        .arg("ingest")
        .arg(super::util::fixture("supply_agreement.txt"))
        .arg("--index")
        .arg(super::util::repo().join("indices"))
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(dir.path().join("h.csv"))
        .arg("--cache-dir")
        .arg(dir.path().join("cache"))
        .env("KGROUTE_LLM_URL", server.base_url())
        .env("KGROUTE_MODEL", "test-model")
        .env("OPENAI_API_KEY", "sk-test")
        .env_remove("NEO4J_URI")
        .timeout(Duration::from_secs(120))
        .assert()
        .success();
    let answered = server.pieces_received();
    assert!(answered >= 5, "{answered} sections answered");
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let by = &summary["totals"]["relations_pruned"];
    assert_eq!(
        by[PATTERN],
        (PARTY_TO_PARTY.len() * answered) as u64,
        "{by}"
    );
    // The section of each answer is not SECTION: the supply quotes are
    // not its words.
    assert!(
        by[EVIDENCE].as_u64().unwrap() >= 2 * answered as u64,
        "{by}"
    );
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(
        md.contains("Relations pruned after extraction, by reason"),
        "{md}"
    );
    let rows = super::ingest::csv_rows(&out.join("sections.csv"));
    let cells: Vec<&str> = rows
        .iter()
        .filter(|r| r["route"] == "llm" && r["status"] == "ok")
        .map(|r| r["pruned_relations"].as_str())
        .collect();
    assert!(!cells.is_empty());
    for c in &cells {
        assert!(
            c.contains(&format!("pattern {}", PARTY_TO_PARTY.len())),
            "{c}"
        );
    }
    // Nothing of the model's party-to-party relations in the graph.
    let graph = super::util::graph_jsonl(&out);
    for line in graph.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        if v["kind"] == "relation" && v["found_by"].as_str().is_some_and(|f| f.starts_with("llm")) {
            assert!(
                !PARTY_TO_PARTY.contains(&v["type"].as_str().unwrap())
                    || !v["target"].as_str().unwrap().contains("northwind"),
                "{line}"
            );
        }
    }
}
