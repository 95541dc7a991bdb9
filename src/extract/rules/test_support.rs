//! What the rules' unit tests share, in `tests.rs` and beside each reader:
//! a section as the tree hands it over, an ontology offering some relation
//! types, the relations of a type, and the organisations and references an
//! output names.

use super::*;
use crate::index::Ontology;

/// A section headed `title`, labelled as the tree labels it.
pub(super) fn input(title: &str, text: &str) -> SectionInput {
    let (label, name) = crate::tree::split_heading(title);
    SectionInput {
        doc_id: "d".into(),
        doc_type: "credit_agreement".into(),
        node_id: "0001".into(),
        title: title.into(),
        label,
        name,
        breadcrumb: format!("[{title}]"),
        start_line: 1,
        end_line: text.lines().count(),
        text: text.into(),
        anchor: false,
        parties: Vec::new(),
        registry: Default::default(),
    }
}

pub(super) fn has(o: &RulesOutput, s: &str, t: &str, d: &str) -> bool {
    o.relations
        .iter()
        .any(|r| r.source == s && r.relation_type == t && r.target == d)
}

pub(super) fn onto(types: &[&str]) -> Ontology {
    let mut o = Ontology::default();
    for t in types {
        o.relation_types.insert((*t).into(), String::new());
    }
    o
}

pub(super) fn of_type<'a>(o: &'a RulesOutput, t: &str) -> Vec<(&'a str, &'a str)> {
    o.relations
        .iter()
        .filter(|r| r.relation_type == t)
        .map(|r| (r.source.as_str(), r.target.as_str()))
        .collect()
}

/// The names of every Organization entity.
pub(super) fn org_names(o: &RulesOutput) -> Vec<&str> {
    o.entities
        .iter()
        .filter(|e| e.entity_type == "Organization")
        .map(|e| e.name.as_str())
        .collect()
}

/// The targets of every REFERENCES relation.
pub(super) fn referenced(o: &RulesOutput) -> Vec<&str> {
    o.relations
        .iter()
        .filter(|r| r.relation_type == "REFERENCES")
        .map(|r| r.target.as_str())
        .collect()
}
