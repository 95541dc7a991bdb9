//! Integration tests: the party registry on real contracts. A duty or a
//! right written under another name than the party's (`You must ...`, `We
//! may ...`, `Party A shall ...`, a short name) is the party's: each form
//! is read from a real contract of the shared corpora, as the pipeline
//! reads it (tree, plan, one registry per document, every section).

use super::util::corpus as corpus_path;
use kgroute::extract::party_registry::PartyRegistry;
use kgroute::extract::rules::document_registry;
use kgroute::extract::{rules, Relation, SectionInput};
use kgroute::index::{GraphabilityIndex, Ontology};
use kgroute::route::{plan, RouteOptions};
use kgroute::tree::{build_tree, SourceText};

/// The registry and every relation the rules find in the document's
/// sections (raw, before any ontology pruning).
fn read(rel: &str) -> (PartyRegistry, Vec<Relation>) {
    let src = SourceText::read(&corpus_path(rel), false).unwrap();
    let tree = build_tree(&src);
    let p = plan(
        &tree,
        &GraphabilityIndex::default(),
        &RouteOptions::default(),
    );
    let registry = document_registry(&p, &src);
    let mut relations = Vec::new();
    for s in &p.sections {
        let input = SectionInput {
            doc_id: tree.doc_id.clone(),
            doc_type: "commercial".into(),
            node_id: s.node_id.clone(),
            title: s.title.clone(),
            label: s.label.clone(),
            name: s.name.clone(),
            breadcrumb: s.breadcrumb.clone(),
            start_line: s.start_line,
            end_line: s.end_line,
            text: src.byte_span_text(s.start_byte, s.end_byte).to_string(),
            anchor: false,
            parties: tree.party_names.clone(),
            registry: registry.clone(),
        };
        relations.extend(rules::extract_for(&input, &Ontology::default()).relations);
    }
    (registry, relations)
}

fn count(rels: &[Relation], source: &str, ty: &str) -> usize {
    rels.iter()
        .filter(|r| r.source.eq_ignore_ascii_case(source) && r.relation_type == ty)
        .count()
}

/// A relation of `ty` from `source` whose evidence holds `words`.
fn holds(rels: &[Relation], source: &str, ty: &str, words: &str) -> bool {
    rels.iter().any(|r| {
        r.source.eq_ignore_ascii_case(source) && r.relation_type == ty && r.evidence.contains(words)
    })
}

/// Goosehead's franchise agreement is written to the franchisee as `you`
/// and by the franchisor as `we` (`Goosehead Insurance Agency, LLC ...
/// ("we," "us," or "our"); and ... ("you" or the "Franchisee")`).
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn franchise_you_and_we_are_the_franchisee_and_the_franchisor() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let (reg, rels) =
        read("cuad/franchise/gooseheadinsurance_inc_04_02_2018_ex_10_6_franchise_agreement.txt");
    let we = reg.resolve("we").expect("we is defined");
    assert_eq!(we.name, "Goosehead Insurance Agency, LLC");
    let you = reg.resolve("you").expect("you is defined");
    assert_eq!(you.names.first().map(String::as_str), Some("Franchisee"));
    let duties = count(&rels, "Franchisee", "OBLIGATED_TO");
    let rights = count(&rels, "Goosehead Insurance Agency, LLC", "HOLDS_RIGHT");
    assert!(duties >= 40, "franchisee duties: {duties}");
    assert!(rights >= 20, "franchisor rights: {rights}");
    // Hand-checked against the text.
    assert!(
        holds(&rels, "Franchisee", "OBLIGATED_TO", "You must"),
        "no `You must` duty"
    );
    assert!(holds(
        &rels,
        "Goosehead Insurance Agency, LLC",
        "HOLDS_RIGHT",
        "We may"
    ));
    // A right of ours is never the franchisee's, and the reverse.
    assert!(!rels.iter().any(|r| r.source == "Franchisee"
        && r.relation_type == "HOLDS_RIGHT"
        && r.evidence.starts_with("We may")));
}

/// The Joint Corp.'s franchise agreement defines `we` as the company and
/// `you` as the franchise owner in its opening.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn franchise_we_is_the_company_in_a_second_franchise() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let (reg, rels) = read("cuad/franchise/jointcorp_09_19_2014_ex_10_15_franchise_agreement.txt");
    let we = reg.resolve("We").expect("we is defined");
    assert!(we.names.iter().any(|n| n == "Company"), "{we:?}");
    let you = reg.resolve("You").expect("you is defined");
    assert!(you.names.iter().any(|n| n == "Franchise Owner"), "{you:?}");
    let owner = you.names[0].clone();
    let company = we.names[0].clone();
    let duties = count(&rels, &owner, "OBLIGATED_TO");
    let rights = count(&rels, &company, "HOLDS_RIGHT");
    assert!(duties >= 30, "{owner} duties: {duties}");
    assert!(rights >= 15, "{company} rights: {rights}");
}

/// Tuniu's cooperation agreement calls its parties `Party A` and `Party
/// B` throughout.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn party_a_and_party_b_hold_duties_and_rights() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let (reg, rels) =
        read("cuad/collaboration/tuniucorp_03_06_2014_ex_10_cooperation_agreement.txt");
    assert_eq!(
        reg.resolve("Party A").map(|p| p.name.as_str()),
        Some("Nanjing Tuniu Technology Co., Ltd.")
    );
    let a = count(&rels, "Party A", "OBLIGATED_TO") + count(&rels, "Party A", "HOLDS_RIGHT");
    let b = count(&rels, "Party B", "OBLIGATED_TO") + count(&rels, "Party B", "HOLDS_RIGHT");
    assert!(a >= 2, "Party A: {a}");
    assert!(b >= 3, "Party B: {b}");
    // `Party B shall have the right to adjust the amount of Service Fee`.
    assert!(holds(&rels, "Party B", "HOLDS_RIGHT", "adjust the amount"));
}

/// The organisation nodes of one contract's offline graph: name and
/// aliases, lower-cased.
fn org_nodes(rel: &str) -> Vec<(String, Vec<String>)> {
    let tmp = super::util::tempdir();
    let out = tmp.path().join("out");
    super::util::ingest_offline_cmd(
        &[corpus_path(rel)],
        &super::util::repo().join("indices"),
        &out,
        &tmp.path().join("history.csv"),
    )
    .arg("-q")
    .assert()
    .success();
    let text = super::util::graph_jsonl(&out);
    text.lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["kind"] == "entity" && v["entity"]["entity_type"] == "Organization")
        .map(|v| {
            let e = &v["entity"];
            let aliases = e["aliases"]
                .as_array()
                .map(|a| {
                    a.iter()
                        .filter_map(|x| x.as_str().map(str::to_lowercase))
                        .collect()
                })
                .unwrap_or_default();
            (e["name"].as_str().unwrap().to_lowercase(), aliases)
        })
        .collect()
}

/// Ceres's collaboration agreement signs in columns (`ABERYSTWYTH
/// UNIVERSITY   CERES, INC.`), sends notices to `Legal Department  Ceres,
/// Inc.` and names the parties `United Kingdom and CERES, INC.` after an
/// address: every such glued name is the one `Ceres, Inc.` node.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn names_glued_in_front_of_a_company_are_that_company() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let orgs =
        org_nodes("cuad/collaboration/ceres_inc_01_25_2012_ex_10_20_collaboration_agreement.txt");
    let ceres: Vec<&String> = orgs
        .iter()
        .map(|(n, _)| n)
        .filter(|n| n.contains("ceres"))
        .collect();
    assert_eq!(ceres, vec!["ceres, inc."], "{orgs:?}");
    // `IGER and Plant Research International B.V.`: two parties.
    assert!(orgs
        .iter()
        .any(|(n, _)| n == "plant research international b.v."));
    assert!(!orgs.iter().any(|(n, _)| n.contains(" and ")), "{orgs:?}");
}

/// Bon-Ton's agency agreement lists trademarks owned by `CARSON PIRIE SCOTT
/// II, INC. (F/K/A MCRAE'S, INC.)`: the former name is an alias of the one
/// node, never a node `F/K/A McRae's, Inc.`; a registration number glued
/// in front (`TX1896055 Elder-Beerman Stores Corporation`) is no part of a
/// name.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_former_name_is_one_node_with_the_company() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let orgs = org_nodes("cuad/agency/bontonstoresinc_04_20_2018_ex_99_3_agency_agreement.txt");
    let carson = orgs
        .iter()
        .find(|(n, _)| n == "carson pirie scott ii, inc.")
        .unwrap_or_else(|| panic!("{orgs:?}"));
    assert!(carson.1.iter().any(|a| a == "mcrae's, inc."), "{carson:?}");
    assert!(!orgs
        .iter()
        .any(|(n, _)| n.contains("f/k/a") || n.contains("mcrae")));
    assert!(orgs
        .iter()
        .any(|(n, _)| n == "elder-beerman stores corporation"));
    assert!(!orgs.iter().any(|(n, _)| n.contains("tx1896055")));
}

/// `TIME LIFE, INC., a Delaware corporation d/b/a Time Life Music`: the
/// trade name is the company's alias.
#[test]
#[cfg_attr(
    kgroute_no_corpora,
    ignore = "needs the shared corpora: set KGROUTE_CORPORA"
)]
fn a_trade_name_is_an_alias_of_the_company() {
    let Some(_c) = super::util::corpora_or_skip() else {
        return;
    };
    let orgs = org_nodes(
        "cuad/co_branding/integritymediainc_20010329_10_k405_ex_10_17_2373875_ex_10_17_co_branding_agreement.txt",
    );
    let time_life = orgs
        .iter()
        .find(|(n, _)| n.starts_with("time life"))
        .unwrap_or_else(|| panic!("{orgs:?}"));
    assert!(
        time_life.1.iter().any(|a| a == "time life music"),
        "{time_life:?}"
    );
}
