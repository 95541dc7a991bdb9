//! One document's graph -> its [`RegisterRow`]. The row is read from the
//! graph as written (the typed-fact relations after identity resolution and
//! ontology checks), so the register and `graph.jsonl` never disagree.
//!
//! Choice rule for the document-level fields (dates, term, renewal, notice,
//! law; [`DOCUMENT_LEVEL`]): a fact whose value has a normal form comes
//! before one that has not (a clause quoted for want of a date says less
//! than a date), then section order; every other fact type keeps section
//! order.

use super::{normalize, RegisterFact, RegisterParty, RegisterRow};
use crate::extract::facts_vocabulary::is_fact_relation;
use crate::graph::{DocGraph, EntityNode};
use std::collections::{BTreeMap, HashMap};

/// Fact types with one value per contract, chosen by the module's rule.
pub const DOCUMENT_LEVEL: &[&str] = &[
    "AGREEMENT_DATE",
    "EFFECTIVE_DATE",
    "EXPIRATION_DATE",
    "RENEWAL_TERM",
    "NOTICE_PERIOD_TO_TERMINATE_RENEWAL",
    "GOVERNING_LAW",
    "WARRANTY_DURATION",
];

/// Entity types a fact's source may be as a party (else it is about the
/// agreement itself).
fn is_party(e: &EntityNode) -> bool {
    matches!(
        e.entity_type.to_ascii_lowercase().as_str(),
        "role" | "organization" | "organisation" | "person" | "party"
    ) && !e.name.eq_ignore_ascii_case("agreement")
}

/// The register row of one document's graph.
pub fn row_of(g: &DocGraph) -> RegisterRow {
    let order: HashMap<&str, usize> = g
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.node_id.as_str(), i))
        .collect();
    let lines: HashMap<&str, (usize, usize)> = g
        .sections
        .iter()
        .map(|s| (s.node_id.as_str(), (s.start_line, s.end_line)))
        .collect();

    let mut facts: BTreeMap<String, Vec<(usize, RegisterFact)>> = BTreeMap::new();
    let mut parties: Vec<RegisterParty> = Vec::new();
    for (a, edge, b) in g.relations() {
        if edge.rel_type == "HAS_ROLE" {
            add_party(&mut parties, a, &b.name);
            continue;
        }
        if !is_fact_relation(&edge.rel_type) {
            continue;
        }
        let Some(p) = edge.provenance.first() else {
            continue;
        };
        let (start_line, end_line) = lines.get(p.node_id.as_str()).copied().unwrap_or((0, 0));
        let fact = RegisterFact {
            value: b.name.clone(),
            normalized: normalize::of(&edge.rel_type, &b.entity_type, &b.name),
            party: is_party(a).then(|| a.name.clone()),
            node_id: p.node_id.clone(),
            start_line,
            end_line,
            quote: p.evidence.clone(),
            target_type: b.entity_type.clone(),
        };
        let at = order.get(p.node_id.as_str()).copied().unwrap_or(usize::MAX);
        facts
            .entry(edge.rel_type.clone())
            .or_default()
            .push((at, fact));
    }
    let facts = facts
        .into_iter()
        .map(|(ty, mut list)| {
            let level = DOCUMENT_LEVEL.contains(&ty.as_str());
            // Stable: facts of one section keep the graph's order.
            list.sort_by_key(|(at, f)| (level && f.normalized.is_none(), *at));
            (ty, list.into_iter().map(|(_, f)| f).collect())
        })
        .collect();
    RegisterRow {
        doc_id: g.meta.doc_id.clone(),
        path: g.meta.path.display().to_string(),
        doc_type: g.meta.doc_type.clone(),
        title: title_of(g),
        parties,
        facts,
    }
}

fn add_party(parties: &mut Vec<RegisterParty>, who: &EntityNode, role: &str) {
    let i = match parties.iter().position(|p| p.name == who.name) {
        Some(i) => i,
        None => {
            parties.push(RegisterParty {
                name: who.name.clone(),
                aliases: who.aliases.iter().cloned().collect(),
                roles: Vec::new(),
            });
            parties.len() - 1
        }
    };
    if !parties[i]
        .roles
        .iter()
        .any(|r| r.eq_ignore_ascii_case(role))
    {
        parties[i].roles.push(role.to_string());
    }
}

/// The agreement's own name: the first of the opening sections whose
/// heading names an agreement, a contract or a licence (`SUPPLY AGREEMENT`),
/// else nothing.
fn title_of(g: &DocGraph) -> String {
    const WORDS: &[&str] = &["agreement", "contract", "license", "licence", "lease"];
    g.sections
        .iter()
        .take(3)
        .map(|s| s.title.trim())
        .find(|t| {
            let l = t.to_ascii_lowercase();
            t.len() <= 120 && WORDS.iter().any(|w| l.contains(w)) && !l.contains("table of")
        })
        .unwrap_or_default()
        .to_string()
}
