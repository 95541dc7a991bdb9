//! Grounding a question in the graph: the names in the question that the
//! graph knows (organisations, defined terms, roles, people) are looked up,
//! their relations listed with provenance, and the sections that mention
//! them favoured in the ranking. With the files sink this reads the batch's
//! graph parts (streamed: only the lines that can match are parsed);
//! with Neo4j it asks the database ([`neo4j`]). Each decides what is named
//! by the names index's rules ([`is_named_type`], [`named_in`]), and
//! answers in its record types ([`Grounding`]).

pub mod neo4j;

pub use crate::search::names::{
    is_named_type, named_in, question_words, GroundRelation, Grounding, NamedEntity, Provenance,
    MAX_RELATIONS,
};

use serde::Deserialize;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::Path;

/// Grounds `question` in the batch's graph: from the names index beside
/// the search index when the batch has one (a lookup per word n-gram of
/// the question), else from its graph files (read whole).
pub fn from_batch(
    batch: &Path,
    question: &str,
    doc: Option<&str>,
) -> anyhow::Result<Option<Grounding>> {
    match crate::search::names::ground(batch, question, doc)? {
        Some(g) => Ok(Some(g)),
        None => from_files(batch, question, doc),
    }
}

#[derive(Deserialize)]
struct Line {
    doc_id: String,
    #[serde(default)]
    entity: Option<Entity>,
    #[serde(default)]
    source: String,
    #[serde(default, rename = "type")]
    rel_type: String,
    #[serde(default)]
    target: String,
    #[serde(default)]
    provenance: Vec<Provenance>,
}

#[derive(Deserialize)]
struct Entity {
    key: String,
    name: String,
    entity_type: String,
    #[serde(default)]
    aliases: BTreeSet<String>,
    #[serde(default)]
    mentions: BTreeSet<String>,
}

/// Grounds `question` in the batch's graph files (`None` when the batch has
/// none, e.g. it was written to Neo4j). `doc` limits it to one document id.
pub fn from_files(
    batch: &Path,
    question: &str,
    doc: Option<&str>,
) -> anyhow::Result<Option<Grounding>> {
    let graph = batch.join("graph");
    if !crate::sink::parts::has_graph(&graph) {
        return Ok(None);
    }
    let q = question_words(question);
    let mut g = Grounding::default();
    let mut keys: HashSet<String> = HashSet::new();
    crate::sink::parts::each_line(&graph, |line| {
        if !line.contains("\"kind\":\"entity\"") {
            return Ok(());
        }
        let rec: Line = serde_json::from_str(line)?;
        if doc.is_some_and(|d| d != rec.doc_id) {
            return Ok(());
        }
        let Some(e) = rec.entity else { return Ok(()) };
        if !is_named_type(&e.entity_type)
            || !named_in(&q, std::iter::once(&e.name).chain(e.aliases.iter()))
        {
            return Ok(());
        }
        keys.insert(e.key.clone());
        let sections: Vec<(String, String)> = e
            .mentions
            .iter()
            .map(|n| (rec.doc_id.clone(), n.clone()))
            .collect();
        g.add_entity(NamedEntity {
            name: e.name,
            entity_type: e.entity_type,
            key: e.key,
            sections,
        });
        Ok(())
    })?;
    if keys.is_empty() {
        return Ok(Some(g));
    }
    // Second pass: only relation lines naming a matched key are parsed.
    let mut relations = Vec::new();
    crate::sink::parts::each_line(&graph, |line| {
        if relations.len() >= MAX_RELATIONS
            || !line.contains("\"kind\":\"relation\"")
            || !keys.iter().any(|k| line.contains(k.as_str()))
        {
            return Ok(());
        }
        let rec: Line = serde_json::from_str(line)?;
        if doc.is_some_and(|d| d != rec.doc_id)
            || !(keys.contains(&rec.source) || keys.contains(&rec.target))
        {
            return Ok(());
        }
        relations.push(GroundRelation {
            source: rec.source,
            rel_type: rec.rel_type,
            target: rec.target,
            provenance: rec.provenance,
        });
        Ok(())
    })?;
    // The relations hold keys; each gets its entity's name, the named ones'
    // from above, the others' from one more pass over their entity lines.
    let mut names: HashMap<String, String> = g
        .entities
        .iter()
        .map(|e| (e.key.clone(), e.name.clone()))
        .collect();
    let others: HashSet<&String> = relations
        .iter()
        .flat_map(|r| [&r.source, &r.target])
        .filter(|k| !names.contains_key(*k))
        .collect();
    if !others.is_empty() {
        let mut found = HashMap::new();
        crate::sink::parts::each_line(&graph, |line| {
            if !line.contains("\"kind\":\"entity\"")
                || !others.iter().any(|k| line.contains(k.as_str()))
            {
                return Ok(());
            }
            let rec: Line = serde_json::from_str(line)?;
            if let Some(e) = rec.entity.filter(|e| others.contains(&e.key)) {
                found.entry(e.key).or_insert(e.name);
            }
            Ok(())
        })?;
        names.extend(found);
    }
    for r in &mut relations {
        for k in [&mut r.source, &mut r.target] {
            if let Some(n) = names.get(k.as_str()) {
                *k = n.clone();
            }
        }
    }
    g.relations = relations;
    Ok(Some(g))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_whole_words_only() {
        let q = question_words("Does Acme Corp owe the Borrower anything?");
        assert!(q.contains(&question_words("ACME corp")));
        assert!(q.contains(&question_words("Borrower")));
        assert!(!q.contains(&question_words("Acme Corporation")));
        assert!(!q.contains(&question_words("Borrow")));
    }
}
