//! The readers' table held against the shipped ontologies and against
//! what its rows do.

use super::*;
use crate::extract::facts_vocabulary::{category_relation_type, CATEGORIES, RICHER};
use crate::extract::SectionInput;
use std::collections::BTreeSet;
use std::path::Path;

/// Relation types the shipped ontologies declare that no reader emits: the
/// LLM reads them (who acquires, sells, supplies or indemnifies whom needs
/// reading a transaction, not matching a sentence).
const LLM_ONLY: &[&str] = &[
    "ACQUIRES",
    "ASSUMES",
    "BORROWS_FROM",
    "DISTRIBUTES",
    "EXCLUDES",
    "INDEMNIFIES",
    "MERGES_WITH",
    "OWNS",
    "PART_OF",
    "PROVIDES_SERVICE",
    "SELLS",
    "SUPPLIES",
];

/// Every relation type a shipped index's ontology declares.
fn declared() -> BTreeSet<String> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("indices");
    let set = crate::index::IndexSet::load(&[dir]).expect("shipped indices load");
    set.indices
        .iter()
        .flat_map(|i| i.ontology.relation_types.keys().cloned())
        .collect()
}

fn emitted_by_rows() -> BTreeSet<&'static str> {
    READERS
        .iter()
        .flat_map(|r| r.emits.named())
        .copied()
        .collect()
}

fn fact_types() -> BTreeSet<String> {
    CATEGORIES
        .iter()
        .map(|c| category_relation_type(c))
        .chain(RICHER.iter().map(|r| r.to_string()))
        .collect()
}

#[test]
fn every_type_a_reader_emits_is_declared_by_a_shipped_ontology() {
    let declared = declared();
    for r in READERS {
        let (Emits::Types(types) | Emits::Facts(types)) = r.emits;
        for t in types {
            assert!(
                declared.contains(*t),
                "`{}` emits {t}: no ontology declares it",
                r.name
            );
        }
    }
    for t in fact_types() {
        assert!(
            declared.contains(&t),
            "the typed facts emit {t}: no ontology declares it"
        );
    }
}

#[test]
fn every_declared_type_is_read_by_a_reader_or_left_to_the_llm_on_purpose() {
    let rows = emitted_by_rows();
    let facts = fact_types();
    for t in declared() {
        let read = rows.contains(t.as_str()) || facts.contains(&t);
        let llm = LLM_ONLY.contains(&t.as_str());
        assert!(
            read || llm,
            "{t} is declared but no reader emits it: add a reader or list it in LLM_ONLY"
        );
        assert!(
            !(read && llm),
            "{t} is listed in LLM_ONLY but a reader emits it"
        );
    }
}

#[test]
fn rows_are_named_once_and_their_triggers_are_lower_case() {
    let mut names = BTreeSet::new();
    for r in READERS {
        assert!(names.insert(r.name), "two rows are named `{}`", r.name);
        if let Read::Paragraph(p) = &r.read {
            for t in p.triggers {
                assert_eq!(*t, t.to_lowercase(), "`{}`: trigger {t:?}", r.name);
            }
        }
    }
}

/// A section of a fixture, as the rules get it.
fn section_input(text: &str) -> SectionInput {
    let (label, name) = crate::tree::split_heading("Section 1 Terms");
    SectionInput {
        doc_id: "d".into(),
        doc_type: "credit_agreement".into(),
        node_id: "0001".into(),
        title: "Section 1 Terms".into(),
        label,
        name,
        breadcrumb: "[Section 1 Terms]".into(),
        start_line: 1,
        end_line: text.lines().count(),
        text: text.into(),
        anchor: false,
        parties: Vec::new(),
        registry: Default::default(),
    }
}

/// A trigger is a filter only: on every paragraph of the bundled fixtures
/// that holds none of a row's triggers, the row's reader adds nothing. Were a trigger wrong,
/// the walk would silently skip what the reader finds.
#[test]
fn a_reader_finds_nothing_in_a_paragraph_without_its_triggers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let texts: Vec<String> = [
        "credit_agreement.md",
        "supply_agreement.txt",
        "short_license.txt",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(dir.join(f)).unwrap())
    .collect();
    let mut read_any = 0;
    for text in &texts {
        let input = section_input(text);
        let paragraphs = crate::extract::rules::common::text::paragraphs(text);
        let terms = HashSet::new();
        let own = OwnSection::of(&input);
        let section = Section {
            paragraphs: &paragraphs,
            terms: &terms,
            term_matcher: &None,
            own: &own,
            credit: true,
        };
        for r in READERS {
            let Read::Paragraph(pr) = &r.read else {
                continue;
            };
            if pr.triggers.is_empty() {
                continue;
            }
            for p in &paragraphs {
                let lower = p.to_ascii_lowercase();
                if pr.triggers.iter().any(|t| lower.contains(t)) {
                    continue;
                }
                let mut b = Builder {
                    offered: emitted_by_rows().into_iter().collect(),
                    ..Builder::default()
                };
                let mut lists = OpenLists::default();
                let mut para = Paragraph {
                    text: p,
                    section: &section,
                    lists: &mut lists,
                };
                (pr.read)(&mut b, &mut para);
                read_any += 1;
                assert!(
                    b.relations.is_empty(),
                    "`{}` found {:?} in a paragraph without its triggers: {p:?}",
                    r.name,
                    b.relations
                );
            }
        }
    }
    assert!(read_any > 100, "only {read_any} paragraphs read");
}
