//! Integration tests: the relation patterns of the shipped indices
//! describe what the rules really emit (zero pattern prunings over every
//! shared corpus) and cover every relation type.

use kgroute::index::GraphabilityIndex;
use serde_json::Value;

const INDICES: [&str; 4] = ["commercial", "credit_agreement", "lease", "m_and_a"];

#[test]
fn every_relation_type_of_the_shipped_indices_has_a_pattern() {
    for t in INDICES {
        let idx = GraphabilityIndex::load(&[super::util::repo().join(format!("indices/{t}.yaml"))])
            .unwrap_or_else(|e| panic!("{t}: {e}"));
        for r in idx.ontology.relation_types.keys() {
            assert!(idx.ontology.pattern(r).is_some(), "{t}: {r} has no pattern");
        }
    }
}

#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn the_rules_relations_fit_the_patterns_on_every_shared_corpus() {
    let Some(corpora) = super::util::corpora_or_skip() else {
        return;
    };
    let dir = super::util::tempdir();
    let out = dir.path().join("b");
    let mut c = super::util::kgroute();
    c.arg("ingest");
    for f in ["cuad", "wide", "credit_agreements", "other"] {
        c.arg(corpora.join(f));
    }
    c.arg("--index")
        .arg(super::util::repo().join("indices"))
        .arg("--out")
        .arg(&out)
        .arg("--history")
        .arg(dir.path().join("h.csv"))
        .env_remove("KGROUTE_LLM_URL")
        .env_remove("NEO4J_URI")
        .timeout(std::time::Duration::from_secs(1200))
        .assert()
        .success();
    let summary: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    let docs = summary["documents"].as_u64().unwrap();
    assert!(docs >= 250, "{docs} documents read");
    // Every pruned relation with reason `pattern`, named, for the failure.
    let mut violations = Vec::new();
    for (_, f) in kgroute::saved_docs::list(&out).unwrap() {
        let v: Value = serde_json::from_slice(&kgroute::saved_docs::read(&f).unwrap()).unwrap();
        for x in ["extractions", "rules_on_skipped"]
            .iter()
            .flat_map(|k| v[k].as_array().cloned().unwrap_or_default())
        {
            for p in x["pruned"].as_array().into_iter().flatten() {
                if p["reason"]
                    .as_str()
                    .is_some_and(|r| r.starts_with("pattern:"))
                {
                    violations.push(format!("{} {}: {}", x["doc_id"], p["what"], p["reason"]));
                }
            }
        }
    }
    assert!(violations.is_empty(), "{}", violations.join("\n"));
    assert!(
        summary["totals"]["relations_pruned"]
            .get("pattern")
            .is_none(),
        "{}",
        summary["totals"]["relations_pruned"]
    );
}
