//! Builds a [`DocGraph`] from one document's plan and extractions: resolves
//! entity identities (see [`super::identity`]), merges aliases, checks
//! relation types against the ontology and deduplicates relations while
//! keeping every provenance.
//!
//! The same rules apply to whichever extractor ran (rules or LLM), so they
//! live here: organisations meet on their canonical name; a name that is a
//! `Role` anywhere in the document is one `Role` node, never also a
//! `DefinedTerm` node (the "Borrower" is the borrower role); class words
//! (`Person`, `Agreement`) are no entities; and nothing is taken from a
//! contents section (signature and noise sections give what the rules find).

use super::identity::{
    entity_key, is_class_word, is_global, is_org, is_valid_relation_type, name_rank,
    normalize_name, org_canonical, sanitize_label, type_key,
};
use super::{
    DocGraph, DocumentMeta, Dropped, EntityNode, HeldFact, Provenance, RelationEdge, SectionNode,
};
use crate::extract::{SectionExtraction, SectionStatus};
use crate::index::Ontology;
use crate::route::{Route, RoutePlan};
use crate::tree::{DocTree, NodeKind};
use petgraph::graph::{DiGraph, EdgeIndex, NodeIndex};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// Child node id -> parent node id, from a document tree.
pub fn parents_from_tree(tree: &DocTree) -> HashMap<String, String> {
    tree.iter_with_parent()
        .into_iter()
        .filter_map(|(n, p)| p.map(|p| (n.node_id.clone(), p.to_string())))
        .collect()
}

/// Merges one document's extractions into a [`DocGraph`].
///
/// `parent_of` maps a section's node id to its parent's node id. Every
/// section of `plan` becomes a section node (skipped ones too, with their
/// route). Extractions of other documents or of sections not in the plan,
/// and entities without a usable name, are dropped with a reason, as are relations whose type is not in
/// `ontology` or whose endpoints are not entities of the document.
pub fn build_document_graph(
    meta: &DocumentMeta,
    plan: &RoutePlan,
    parent_of: &HashMap<String, String>,
    extractions: &[SectionExtraction],
    ontology: &Ontology,
) -> DocGraph {
    let doc_id = meta.doc_id.as_str();
    let glued = glued_org_names(extractions.iter().filter(|e| e.doc_id == doc_id));
    let renamed: Vec<SectionExtraction>;
    let extractions = if glued.is_empty() {
        extractions
    } else {
        renamed = extractions
            .iter()
            .map(|e| {
                if e.doc_id == doc_id {
                    unglue(e, &glued)
                } else {
                    e.clone()
                }
            })
            .collect();
        &renamed[..]
    };
    // A section's own extraction comes first: the rules' reading of the
    // paragraphs an LLM was not sent (same node, later) rates nothing.
    let mut by_node: HashMap<&str, &SectionExtraction> = HashMap::new();
    for e in extractions.iter().filter(|e| e.doc_id == doc_id) {
        by_node.entry(e.node_id.as_str()).or_insert(e);
    }

    let sections = plan
        .sections
        .iter()
        .map(|s| SectionNode {
            uid: DocGraph::section_uid(doc_id, &s.node_id),
            node_id: s.node_id.clone(),
            title: s.title.clone(),
            label: s.label.as_ref().map(|l| l.text.clone()).unwrap_or_default(),
            name: s.name.clone(),
            breadcrumb: s.breadcrumb.clone(),
            start_line: s.start_line,
            end_line: s.end_line,
            chars: s.chars,
            predicted_tier: s.predicted_tier,
            // Only a sent section has an actual tier: the rules' reading of
            // a skipped one is no rating.
            actual_tier: by_node
                .get(s.node_id.as_str())
                .filter(|_| s.route == Route::Llm)
                .filter(|e| !matches!(e.status, SectionStatus::Failed(_)))
                .map(|e| e.actual_tier),
            route: s.route,
            parent_uid: parent_of
                .get(&s.node_id)
                .map(|p| DocGraph::section_uid(doc_id, p)),
        })
        .collect();

    // Names that are a role anywhere in the document (singular): the same
    // name typed `DefinedTerm` elsewhere is that role.
    let roles: std::collections::HashSet<String> = extractions
        .iter()
        .filter(|e| e.doc_id == doc_id)
        .flat_map(|e| e.entities.iter())
        .filter(|e| type_key(&e.entity_type) == "role")
        .map(|e| normalize_name(&e.name))
        .collect();
    // Sections nothing is taken from: contents pages. Signature pages and
    // noise sections are never sent to the LLM, but the rules read them
    // (the parties sign there).
    let barren: HashMap<&str, &str> = plan
        .sections
        .iter()
        .filter(|s| s.kind == NodeKind::Toc)
        .map(|s| (s.node_id.as_str(), "a contents section"))
        .collect();

    let mut b = Builder {
        doc_id,
        roles,
        ontology: OntologyLookup::new(ontology),
        graph: DiGraph::new(),
        index: HashMap::new(),
        names: HashMap::new(),
        by_name: HashMap::new(),
        edges: HashMap::new(),
        provenances: HashSet::new(),
        dropped: Vec::new(),
        held: Vec::new(),
    };

    // Plan order; an extraction for a node the plan does not know is dropped.
    let position: HashMap<&str, usize> = plan
        .sections
        .iter()
        .enumerate()
        .map(|(i, s)| (s.node_id.as_str(), i))
        .collect();
    let mut ordered: Vec<&SectionExtraction> = extractions.iter().collect();
    ordered.sort_by_key(|e| {
        position
            .get(e.node_id.as_str())
            .copied()
            .unwrap_or(usize::MAX)
    });
    for ext in ordered {
        if ext.doc_id != doc_id {
            b.drop_item(
                &ext.node_id,
                "section",
                &ext.doc_id,
                format!(
                    "extraction belongs to document `{}`, not `{doc_id}`",
                    ext.doc_id
                ),
            );
            continue;
        }
        if !position.contains_key(ext.node_id.as_str()) {
            // A mention of a section the graph does not have could never be
            // found again to be replaced on re-ingest.
            b.drop_item(
                &ext.node_id,
                "section",
                &ext.node_id,
                format!("section {} is not in the document's plan", ext.node_id),
            );
            continue;
        }
        if let Some(why) = barren.get(ext.node_id.as_str()) {
            b.drop_item(
                &ext.node_id,
                "section",
                &ext.node_id,
                format!("section {} is {why}: nothing is taken from it", ext.node_id),
            );
            continue;
        }
        b.add_section(ext);
    }

    DocGraph {
        meta: meta.clone(),
        sections,
        graph: b.graph,
        index: b.index,
        dropped: b.dropped,
        held: b.held,
        term_definitions: BTreeMap::new(),
        doc_title: None,
    }
}

/// Words that open no organisation's own name: a name made of one of them
/// and corporate words (`Bank, N.A.`, `Holdings Inc.`) is no whole name
/// another can end with.
const GENERIC_HEADS: &[&str] = &[
    "bank",
    "trust",
    "company",
    "co",
    "corp",
    "inc",
    "llc",
    "ltd",
    "holdings",
    "group",
    "international",
    "services",
    "national",
    "the",
    "and",
];

/// Organisation names of one document that are another organisation's
/// whole name with words glued in front by a layout or a list: a signature
/// column's neighbour (`Aberystwyth University Ceres, Inc.`), a department
/// or a signer's title (`Legal Department Ceres, Inc.`), a person's name
/// (`Siva Kumar Impresse Corporation`), a place or a short name before
/// `and` (`United Kingdom and CERES, INC.`, `Galacticomm and Horst
/// Entertainment Inc.`). Keyed by the glued name's spellings
/// (normalised), valued by the whole name's spelling. Not `Bank of
/// America Corp.` for `America Corp.` (the glued words end with `of`).
fn glued_org_names<'a>(
    extractions: impl Iterator<Item = &'a SectionExtraction>,
) -> HashMap<String, String> {
    // canonical -> (spellings, first name)
    let mut orgs: HashMap<String, (Vec<String>, String)> = HashMap::new();
    // canonical -> how many sections name it.
    let mut seen: HashMap<String, usize> = HashMap::new();
    for e in extractions {
        for ent in e.entities.iter().filter(|x| is_org(&x.entity_type)) {
            let canon = org_canonical(&ent.name);
            if canon.is_empty() {
                continue;
            }
            *seen.entry(canon.clone()).or_default() += 1;
            let entry = orgs
                .entry(canon)
                .or_insert_with(|| (Vec::new(), ent.name.clone()));
            entry.0.push(ent.name.clone());
            entry.0.extend(ent.aliases.iter().cloned());
        }
    }
    let wholes: Vec<(Vec<&str>, &String, usize)> = orgs
        .iter()
        .map(|(c, (_, name))| (c.split(' ').collect::<Vec<_>>(), name, seen[c]))
        .filter(|(w, _, _)| w.len() >= 2 && !GENERIC_HEADS.contains(&w[0]))
        .collect();
    let mut out = HashMap::new();
    // First words of the organisations' names, for names a table's
    // jurisdiction column is glued in front of.
    let firsts: HashSet<&str> = orgs
        .keys()
        .filter_map(|c| c.split(' ').next())
        .filter(|w| place_words(w).is_none())
        .collect();
    for (canon, (spellings, first)) in &orgs {
        // `Georgia Equifax Payment Services, Inc.` in a list of subsidiaries
        // by jurisdiction (`... Inc.   Georgia   Equifax Payment Services,
        // Inc.   Georgia`): a place that opens a name whose next word opens
        // another organisation's name (`Equifax Inc.`) is the previous
        // row's jurisdiction.
        let words: Vec<&str> = canon.split(' ').collect();
        if let Some(n) = place_words(canon) {
            if words.len() >= n + 2 && firsts.contains(words[n]) {
                let written: Vec<&str> = first.split_whitespace().collect();
                if written.len() > n {
                    let whole = written[n..].join(" ");
                    for s in spellings {
                        out.insert(normalize_name(s), whole.clone());
                    }
                    continue;
                }
            }
        }
    }
    for (canon, (spellings, _)) in &orgs {
        if out.contains_key(&normalize_name(&spellings[0])) {
            continue;
        }
        let words: Vec<&str> = canon.split(' ').collect();
        // The longest whole name this one ends with.
        let whole = wholes
            .iter()
            // A glued name is rarer than the whole name it holds: a name
            // named in more sections than its tail (`International Fast
            // Food Corporation` over a stray `Fast Food Corporation`) is the
            // whole one.
            .filter(|(w, _, n)| {
                w.len() < words.len() && words.ends_with(w) && seen[canon] <= *n && {
                    let before = words[words.len() - w.len() - 1];
                    before != "of" && before != "for"
                }
            })
            .max_by_key(|(w, _, _)| w.len());
        if let Some((_, name, _)) = whole {
            for s in spellings {
                out.insert(normalize_name(s), (*name).clone());
            }
        }
    }
    out
}

/// US states and countries a table's jurisdiction column writes.
const PLACES: &[&str] = &[
    "alabama",
    "alaska",
    "arizona",
    "arkansas",
    "california",
    "colorado",
    "connecticut",
    "delaware",
    "florida",
    "georgia",
    "hawaii",
    "idaho",
    "illinois",
    "indiana",
    "iowa",
    "kansas",
    "kentucky",
    "louisiana",
    "maine",
    "maryland",
    "massachusetts",
    "michigan",
    "minnesota",
    "mississippi",
    "missouri",
    "montana",
    "nebraska",
    "nevada",
    "new hampshire",
    "new jersey",
    "new mexico",
    "new york",
    "north carolina",
    "north dakota",
    "ohio",
    "oklahoma",
    "oregon",
    "pennsylvania",
    "rhode island",
    "south carolina",
    "south dakota",
    "tennessee",
    "texas",
    "utah",
    "vermont",
    "virginia",
    "washington",
    "west virginia",
    "wisconsin",
    "wyoming",
    "district of columbia",
    "australia",
    "brazil",
    "canada",
    "cayman islands",
    "chile",
    "china",
    "england",
    "france",
    "germany",
    "ireland",
    "italy",
    "japan",
    "luxembourg",
    "mexico",
    "netherlands",
    "new zealand",
    "scotland",
    "singapore",
    "spain",
    "sweden",
    "switzerland",
    "united kingdom",
    "wales",
    "argentina",
    "india",
    "bermuda",
    "hong kong",
    "korea",
    "belgium",
    "denmark",
    "norway",
    "austria",
];

/// How many words of a place from [`PLACES`] open `canon` (a normalised
/// name), if one does.
fn place_words(canon: &str) -> Option<usize> {
    PLACES
        .iter()
        .filter(|p| {
            canon
                .strip_prefix(*p)
                .is_some_and(|r| r.is_empty() || r.starts_with(' '))
        })
        .map(|p| p.split(' ').count())
        .max()
}

/// A section's extraction with every glued organisation name (see
/// [`glued_org_names`]) replaced by the whole name it holds.
fn unglue(e: &SectionExtraction, glued: &HashMap<String, String>) -> SectionExtraction {
    let mut e = e.clone();
    for ent in e.entities.iter_mut().filter(|x| is_org(&x.entity_type)) {
        if let Some(whole) = glued.get(&normalize_name(&ent.name)) {
            ent.name = whole.clone();
        }
        ent.aliases
            .retain(|a| !glued.contains_key(&normalize_name(a)));
    }
    for r in e.relations.iter_mut() {
        for end in [&mut r.source, &mut r.target] {
            if let Some(whole) = glued.get(&normalize_name(end)) {
                *end = whole.clone();
            }
        }
    }
    e
}

/// Case-insensitive view of the ontology's type names.
struct OntologyLookup {
    entity: HashMap<String, String>,
    relation: HashMap<String, String>,
}

impl OntologyLookup {
    fn new(o: &Ontology) -> Self {
        Self {
            entity: o
                .entity_types
                .keys()
                .map(|k| (Self::fold(k), k.clone()))
                .collect(),
            relation: o
                .relation_types
                .keys()
                .map(|k| (Self::fold(k), k.clone()))
                .collect(),
        }
    }

    /// `role of`, `Role-Of` and `ROLE_OF` all fold to `ROLE_OF`.
    fn fold(s: &str) -> String {
        s.trim()
            .chars()
            .map(|c| {
                if c == ' ' || c == '-' {
                    '_'
                } else {
                    c.to_ascii_uppercase()
                }
            })
            .collect()
    }

    fn entity_type(&self, t: &str) -> Option<&String> {
        self.entity.get(&Self::fold(t))
    }

    fn relation_type(&self, t: &str) -> Option<&String> {
        self.relation.get(&Self::fold(t))
    }
}

struct Builder<'a> {
    doc_id: &'a str,
    /// Normalised names typed `Role` somewhere in the document.
    roles: std::collections::HashSet<String>,
    ontology: OntologyLookup,
    graph: DiGraph<EntityNode, RelationEdge>,
    index: HashMap<String, NodeIndex>,
    /// (type key, normalised name or alias) -> entity key, for this document.
    names: HashMap<(String, String), String>,
    /// normalised name or alias -> entity keys of any type, first seen first.
    by_name: HashMap<String, Vec<String>>,
    /// (source, type, target) -> its edge, and the provenances each edge
    /// has: looked up, not scanned, since one role can hold an edge from
    /// every section of a document (a scan made 100k headings quadratic).
    edges: HashMap<(NodeIndex, String, NodeIndex), EdgeIndex>,
    provenances: HashSet<(EdgeIndex, Provenance)>,
    dropped: Vec<Dropped>,
    held: Vec<HeldFact>,
}

impl Builder<'_> {
    fn drop_item(&mut self, node_id: &str, item: &str, what: &str, reason: String) {
        self.dropped.push(Dropped {
            node_id: node_id.to_string(),
            item: item.to_string(),
            what: what.to_string(),
            reason,
        });
    }

    fn add_section(&mut self, ext: &SectionExtraction) {
        let node_id = ext.node_id.as_str();
        self.held.extend(ext.candidates.iter().map(|c| HeldFact {
            node_id: node_id.to_string(),
            candidate: c.clone(),
        }));
        // Names resolvable inside this section, which win over the rest of
        // the document when a relation endpoint is looked up.
        let mut local: HashMap<String, String> = HashMap::new();
        // `Agreement GOVERNED_BY <place>`: there the word is this
        // document's agreement (one node per document), not any agreement.
        let governed: HashSet<String> = ext
            .relations
            .iter()
            // The agreement holds its governing law and its typed facts
            // (`Agreement -EXPIRATION_DATE-> ...`): there it is no class word.
            .filter(|r| {
                r.relation_type.eq_ignore_ascii_case("GOVERNED_BY")
                    || crate::extract::facts_vocabulary::is_fact_relation(&r.relation_type)
            })
            .map(|r| normalize_name(&r.source))
            .collect();
        for ent in &ext.entities {
            let norm = normalize_name(&ent.name);
            if !norm.is_empty()
                && is_class_word(&ent.entity_type, &norm)
                && (is_global(&ent.entity_type) || !governed.contains(&norm))
            {
                self.drop_item(
                    node_id,
                    "entity",
                    &ent.name,
                    "a class word (any such thing), not an entity".to_string(),
                );
                continue;
            }
            // A defined term naming a role is that role (`Lenders` is the
            // `Lender` role).
            let as_role = type_key(&ent.entity_type) == "definedterm"
                && (self.roles.contains(&norm)
                    || norm
                        .strip_suffix('s')
                        .is_some_and(|s| self.roles.contains(s)));
            let owned;
            let ent = if as_role {
                let mut e = ent.clone();
                e.entity_type = "Role".to_string();
                owned = e;
                &owned
            } else {
                ent
            };
            let written_norm = norm.clone();
            let norm = if as_role && !self.roles.contains(&norm) {
                norm.strip_suffix('s').unwrap_or(&norm).to_string()
            } else {
                norm
            };
            if norm.is_empty() {
                self.drop_item(
                    node_id,
                    "entity",
                    &ent.name,
                    "name has no letters or digits".to_string(),
                );
                continue;
            }
            let tk = type_key(&ent.entity_type);
            let alias_norms: Vec<String> = ent
                .aliases
                .iter()
                .map(|a| normalize_name(a))
                .chain((written_norm != norm).then(|| written_norm.clone()))
                .filter(|a| !a.is_empty())
                .collect();
            let known = std::iter::once(&norm)
                .chain(alias_norms.iter())
                .find_map(|n| self.names.get(&(tk.clone(), n.clone())).cloned());
            let key = known.unwrap_or_else(|| {
                let canon = if is_org(&ent.entity_type) {
                    org_canonical(&ent.name)
                } else {
                    String::new()
                };
                let id_name = if canon.is_empty() { &norm } else { &canon };
                entity_key(self.doc_id, &ent.entity_type, id_name)
            });
            let idx = match self.index.get(&key) {
                Some(&i) => i,
                None => {
                    let label = self
                        .ontology
                        .entity_type(&ent.entity_type)
                        .and_then(|t| sanitize_label(t));
                    let i = self.graph.add_node(EntityNode {
                        key: key.clone(),
                        name: ent.name.clone(),
                        entity_type: ent.entity_type.clone(),
                        label,
                        doc_id: (!is_global(&ent.entity_type)).then(|| self.doc_id.to_string()),
                        aliases: BTreeSet::new(),
                        mentions: BTreeSet::new(),
                    });
                    self.index.insert(key.clone(), i);
                    i
                }
            };
            let node = &mut self.graph[idx];
            node.mentions.insert(node_id.to_string());
            for n in std::iter::once(&ent.name).chain(ent.aliases.iter()) {
                if n != &node.name && !n.trim().is_empty() {
                    node.aliases.insert(n.clone());
                }
            }
            // A global node shows its best spelling; the others are aliases.
            if node.doc_id.is_none() {
                let best = node
                    .aliases
                    .iter()
                    .filter(|a| name_rank(a) > name_rank(&node.name))
                    .max_by_key(|a| name_rank(a))
                    .cloned();
                if let Some(best) = best {
                    node.aliases.remove(&best);
                    let old = std::mem::replace(&mut node.name, best);
                    node.aliases.insert(old);
                }
            }
            for n in std::iter::once(norm).chain(alias_norms) {
                self.names
                    .entry((tk.clone(), n.clone()))
                    .or_insert_with(|| key.clone());
                let keys = self.by_name.entry(n.clone()).or_default();
                if !keys.contains(&key) {
                    keys.push(key.clone());
                }
                local.entry(n).or_insert_with(|| key.clone());
            }
        }

        for rel in &ext.relations {
            let what = format!("{} -[{}]-> {}", rel.source, rel.relation_type, rel.target);
            let Some(rel_type) = self.ontology.relation_type(&rel.relation_type).cloned() else {
                self.drop_item(
                    node_id,
                    "relation",
                    &what,
                    format!(
                        "relation type `{}` is not in the ontology",
                        rel.relation_type
                    ),
                );
                continue;
            };
            if !is_valid_relation_type(&rel_type) {
                self.drop_item(
                    node_id,
                    "relation",
                    &what,
                    format!(
                        "ontology relation type `{rel_type}` is not of the form [A-Z_][A-Z0-9_]*"
                    ),
                );
                continue;
            }
            let (Some(a), Some(b)) = (
                self.resolve(&local, &rel.source),
                self.resolve(&local, &rel.target),
            ) else {
                self.drop_item(
                    node_id,
                    "relation",
                    &what,
                    "source or target is not an entity of the document".to_string(),
                );
                continue;
            };
            let by_rules = ext.extractor == crate::extract::rules::EXTRACTOR;
            let prov = Provenance {
                doc_id: self.doc_id.to_string(),
                node_id: node_id.to_string(),
                evidence: rel.evidence.clone(),
                source: if by_rules {
                    super::SOURCE_RULES.to_string()
                } else {
                    "llm".to_string()
                },
                // Only the rules say how they read a fact: a reading in an
                // LLM's answer is not the model's to claim.
                reading: rel.reading.filter(|_| by_rules),
            };
            match self.edges.get(&(a, rel_type.clone(), b)) {
                Some(&e) => {
                    if self.provenances.insert((e, prov.clone())) {
                        self.graph[e].provenance.push(prov);
                    }
                }
                None => {
                    let e = self.graph.add_edge(
                        a,
                        b,
                        RelationEdge {
                            rel_type: rel_type.clone(),
                            provenance: vec![prov.clone()],
                        },
                    );
                    self.edges.insert((a, rel_type, b), e);
                    self.provenances.insert((e, prov));
                }
            }
        }
    }

    fn resolve(&self, local: &HashMap<String, String>, name: &str) -> Option<NodeIndex> {
        let norm = normalize_name(name);
        let key = local
            .get(&norm)
            .or_else(|| self.by_name.get(&norm).and_then(|keys| keys.first()))?;
        self.index.get(key).copied()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::{Entity, Relation};
    use crate::index::{Tier, TitleMatch};
    use crate::route::{Override, Route, RoutedSection};
    use crate::tree::NodeKind;

    fn ontology() -> Ontology {
        let mut o = Ontology::default();
        for t in ["Organization", "Role", "DefinedTerm", "Jurisdiction"] {
            o.entity_types.insert(t.into(), String::new());
        }
        for t in ["ROLE_OF", "REFERENCES", "GOVERNED_BY", "bad type"] {
            o.relation_types.insert(t.into(), String::new());
        }
        o
    }

    fn plan(nodes: &[&str]) -> RoutePlan {
        RoutePlan {
            doc_id: "d".into(),
            doc_name: "d.md".into(),
            doc_type: "credit_agreement".into(),
            doc_type_confidence: 1.0,
            sections: nodes
                .iter()
                .map(|n| RoutedSection {
                    node_id: n.to_string(),
                    title: format!("Section {n}"),
                    label: None,
                    name: format!("Section {n}"),
                    breadcrumb: format!("Section {n}"),
                    kind: NodeKind::Section,
                    level: 1,
                    start_line: 1,
                    end_line: 2,
                    start_byte: 0,
                    end_byte: 0,
                    chars: 100,
                    matched: TitleMatch::unmatched(),
                    predicted_tier: None,
                    route: Route::Llm,
                    override_reason: Override::None,
                    paragraphs: Vec::new(),
                })
                .collect(),
            tree_health: Default::default(),
        }
    }

    fn ext(
        doc: &str,
        node: &str,
        ents: &[(&str, &str, &[&str])],
        rels: &[(&str, &str, &str)],
    ) -> SectionExtraction {
        SectionExtraction {
            doc_id: doc.into(),
            node_id: node.into(),
            entities: ents
                .iter()
                .map(|(n, t, a)| Entity {
                    name: n.to_string(),
                    entity_type: t.to_string(),
                    aliases: a.iter().map(|s| s.to_string()).collect(),
                    description: String::new(),
                })
                .collect(),
            relations: rels
                .iter()
                .map(|(s, t, d)| Relation {
                    source: s.to_string(),
                    relation_type: t.to_string(),
                    target: d.to_string(),
                    evidence: format!("{s} {t} {d}"),
                    reading: None,
                })
                .collect(),
            pruned: vec![],
            candidates: vec![],
            ends_added: vec![],
            model_tier: None,
            model_why: None,
            density_tier: Tier::Low,
            actual_tier: Tier::Medium,
            tokens_in: 0,
            tokens_out: 0,
            tokens_cached: 0,
            extractor: "rules".into(),
            status: SectionStatus::Ok,
        }
    }

    /// Each entity's relations read from its edges are the ones a scan of
    /// every relation finds, in the same order.
    fn assert_relations_of_agree(g: &DocGraph) {
        for e in g.entities() {
            let scanned: Vec<_> = g
                .relations()
                .filter(|(s, _, t)| s.key == e.key || t.key == e.key)
                .map(|(s, r, t)| (s.key.clone(), r.rel_type.clone(), t.key.clone()))
                .collect();
            let by_edges: Vec<_> = g
                .relations_of(&e.key)
                .into_iter()
                .map(|(s, r, t)| (s.key.clone(), r.rel_type.clone(), t.key.clone()))
                .collect();
            assert_eq!(by_edges, scanned, "{}", e.key);
        }
        assert!(g.relations_of("no such key").is_empty());
    }

    fn meta() -> DocumentMeta {
        DocumentMeta {
            doc_id: "d".into(),
            name: "d.md".into(),
            doc_type: "credit_agreement".into(),
            sha256: String::new(),
            path: "d.md".into(),
        }
    }

    #[test]
    fn alias_in_a_later_section_resolves_to_the_first_node() {
        let exts = [
            ext(
                "d",
                "0001",
                &[("Acme Holdings, Inc.", "Organization", &["Acme"])],
                &[],
            ),
            ext(
                "d",
                "0002",
                &[("ACME", "Organization", &[]), ("Borrower", "Role", &[])],
                &[("Borrower", "role of", "Acme")],
            ),
        ];
        let g = build_document_graph(
            &meta(),
            &plan(&["0001", "0002"]),
            &HashMap::new(),
            &exts,
            &ontology(),
        );
        assert_eq!(g.counts().entities, 2);
        let acme = g.entity("organization:acme holdings inc").unwrap();
        assert_eq!(acme.mentions.iter().collect::<Vec<_>>(), ["0001", "0002"]);
        assert!(acme.aliases.contains("ACME") && acme.aliases.contains("Acme"));
        // `role of` folds to the ontology's ROLE_OF.
        let (a, e, b) = g.relations().next().unwrap();
        assert_eq!(
            (a.name.as_str(), e.rel_type.as_str(), b.key.as_str()),
            ("Borrower", "ROLE_OF", acme.key.as_str())
        );
    }

    #[test]
    fn bad_items_are_dropped_with_reasons() {
        let exts = [
            ext(
                "d",
                "0001",
                &[
                    ("Borrower", "Role", &[]),
                    ("--", "Role", &[]),
                    ("Lien", "Thing", &[]),
                ],
                &[
                    ("Borrower", "OWNS", "Lien"),
                    ("Borrower", "REFERENCES", "Nobody"),
                    ("Borrower", "bad type", "Lien"),
                    ("Borrower", "REFERENCES", "Lien"),
                ],
            ),
            ext("other", "0001", &[("X", "Role", &[])], &[]),
            ext("d", "0099", &[("Y", "Role", &[])], &[]),
        ];
        let g = build_document_graph(
            &meta(),
            &plan(&["0001"]),
            &HashMap::new(),
            &exts,
            &ontology(),
        );
        let reasons: Vec<&str> = g.dropped.iter().map(|d| d.reason.as_str()).collect();
        assert_eq!(reasons.len(), 6, "{reasons:#?}");
        assert!(reasons
            .iter()
            .any(|r| r.contains("0099 is not in the document's plan")));
        assert!(reasons.iter().any(|r| r.contains("no letters or digits")));
        assert!(reasons
            .iter()
            .any(|r| r.contains("`OWNS` is not in the ontology")));
        assert!(reasons
            .iter()
            .any(|r| r.contains("not an entity of the document")));
        assert!(reasons
            .iter()
            .any(|r| r.contains("`bad type` is not of the form")));
        assert!(reasons
            .iter()
            .any(|r| r.contains("belongs to document `other`")));
        // An entity type outside the ontology keeps only the Entity label.
        assert_eq!(g.entity("d/thing:lien").unwrap().label, None);
        assert_eq!(g.counts().relations, 1);
    }

    #[test]
    fn failed_sections_have_no_actual_tier() {
        let mut failed = ext("d", "0002", &[], &[]);
        failed.status = SectionStatus::Failed("timeout".into());
        let exts = [ext("d", "0001", &[], &[]), failed];
        let parents = HashMap::from([("0002".to_string(), "0001".to_string())]);
        let g = build_document_graph(
            &meta(),
            &plan(&["0001", "0002", "0003"]),
            &parents,
            &exts,
            &ontology(),
        );
        let tiers: Vec<_> = g.sections.iter().map(|s| s.actual_tier).collect();
        assert_eq!(tiers, [Some(Tier::Medium), None, None]);
        assert_eq!(g.sections[1].parent_uid.as_deref(), Some("d#0001"));
    }

    #[test]
    fn rules_on_unsent_sections_give_facts_marked_rules_but_no_tier() {
        // 0001 sent to the LLM, 0002 a signature page (noise), 0003
        // skipped by prediction, 0004 a contents page.
        let mut p = plan(&["0001", "0002", "0003", "0004"]);
        p.sections[1].kind = NodeKind::Signature;
        p.sections[1].route = Route::Noise;
        p.sections[2].route = Route::Skip;
        p.sections[3].kind = NodeKind::Toc;
        p.sections[3].route = Route::Noise;
        let mut llm = ext(
            "d",
            "0001",
            &[("Borrower", "Role", &[]), ("Acme", "Organization", &[])],
            &[("Borrower", "ROLE_OF", "Acme")],
        );
        llm.extractor = "llm:m".into();
        let exts = [
            llm,
            ext(
                "d",
                "0002",
                &[
                    ("Zenith Ltd.", "Organization", &[]),
                    ("Lender", "Role", &[]),
                ],
                &[("Lender", "ROLE_OF", "Zenith Ltd.")],
            ),
            ext(
                "d",
                "0003",
                &[
                    ("Borrower", "Role", &[]),
                    ("Acme", "Organization", &[]),
                    ("Agreement", "DefinedTerm", &[]),
                    ("Delaware", "Jurisdiction", &[]),
                ],
                &[
                    ("Borrower", "ROLE_OF", "Acme"),
                    ("Agreement", "GOVERNED_BY", "Delaware"),
                ],
            ),
            ext("d", "0004", &[("Contents Co", "Organization", &[])], &[]),
        ];
        let g = build_document_graph(&meta(), &p, &HashMap::new(), &exts, &ontology());
        assert_relations_of_agree(&g);
        assert!(g.counts().relations >= 3);
        let sources: HashMap<String, &str> = g
            .relations()
            .map(|(a, e, _)| (a.name.clone(), e.source()))
            .collect();
        // Found by the LLM too: llm; found only on the signature page: rules.
        assert_eq!(sources["Borrower"], "llm");
        assert_eq!(sources["Lender"], "rules");
        // The class word `Agreement` is kept as the document's agreement
        // where it is governed by a law.
        assert_eq!(sources["Agreement"], "rules");
        assert!(g
            .dropped
            .iter()
            .any(|d| d.reason.contains("0004 is a contents section")));
        let tiers: Vec<_> = g.sections.iter().map(|s| s.actual_tier).collect();
        assert_eq!(tiers, [Some(Tier::Medium), None, None, None]);
    }
}
