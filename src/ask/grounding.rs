//! Grounding a question in the graph: the names in the question that the
//! graph knows (organisations, defined terms, roles, people) are looked up,
//! their relations listed with provenance, and the sections that mention
//! them favoured in the ranking. With the files sink this reads the batch's
//! `graph/graph.jsonl` (streamed: only the lines that can match are parsed);
//! with Neo4j it asks the database ([`super::grounding_neo4j`]). Both decide
//! what is named by the same rules ([`is_named_type`], [`named_in`]).

use serde::{Deserialize, Serialize};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::BufRead;
use std::path::Path;

/// Entity types that are names a question can use (not section references
/// or amounts).
const NAMED_TYPES: [&str; 5] = ["organization", "definedterm", "role", "person", "party"];
/// Shortest name matched in a question.
const MIN_NAME_CHARS: usize = 3;
/// Relations listed per answer.
pub const MAX_RELATIONS: usize = 20;

/// A graph entity named in the question.
#[derive(Debug, Clone, Serialize)]
pub struct NamedEntity {
    pub name: String,
    pub entity_type: String,
    pub key: String,
    /// `(doc_id, node_id)` of the sections that mention it.
    pub sections: Vec<(String, String)>,
}

/// Where a relation was found.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Provenance {
    pub doc_id: String,
    pub node_id: String,
    pub evidence: String,
}

/// A relation about a named entity.
#[derive(Debug, Clone, Serialize)]
pub struct GroundRelation {
    pub source: String,
    pub rel_type: String,
    pub target: String,
    pub provenance: Vec<Provenance>,
}

/// What the graph says about the names in a question.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Grounding {
    pub entities: Vec<NamedEntity>,
    pub relations: Vec<GroundRelation>,
}

impl Grounding {
    /// True when `(doc_id, node_id)` mentions a named entity.
    pub fn mentions(&self, doc_id: &str, node_id: &str) -> bool {
        self.entities
            .iter()
            .any(|e| e.sections.iter().any(|(d, n)| d == doc_id && n == node_id))
    }

    /// Adds an entity found named, or its further sections when its key is
    /// already here (a global entity met in several documents).
    pub(crate) fn add_entity(&mut self, e: NamedEntity) {
        match self.entities.iter_mut().find(|x| x.key == e.key) {
            Some(x) => x.sections.extend(e.sections),
            None => self.entities.push(e),
        }
    }
}

/// True for entity types that are names a question can use.
pub(crate) fn is_named_type(entity_type: &str) -> bool {
    let t = entity_type.to_lowercase().replace(['_', ' '], "");
    NAMED_TYPES.contains(&t.as_str())
}

/// True when the name or one of its aliases is whole words of the question
/// (`question_words` as made by [`question_words`]).
pub(crate) fn named_in<'a>(
    question_words: &str,
    mut names: impl Iterator<Item = &'a String>,
) -> bool {
    names.any(|n| long_enough(n) && question_words.contains(&words(n)))
}

/// True when a name is long enough to be matched in a question.
pub(crate) fn long_enough(name: &str) -> bool {
    name.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_NAME_CHARS
}

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

/// The question's words as [`named_in`] reads them.
pub(crate) fn question_words(question: &str) -> String {
    words(question)
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

/// Lower-cased words of `s` joined by single spaces, padded with spaces so
/// a whole-word test is a substring test.
fn words(s: &str) -> String {
    let w: Vec<String> = s
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    format!(" {} ", w.join(" "))
}

/// Grounds `question` in the batch's graph files (`None` when the batch has
/// none, e.g. it was written to Neo4j). `doc` limits it to one document id.
pub fn from_files(
    batch: &Path,
    question: &str,
    doc: Option<&str>,
) -> anyhow::Result<Option<Grounding>> {
    let path = batch.join("graph").join("graph.jsonl");
    let Ok(file) = std::fs::File::open(&path) else {
        return Ok(None);
    };
    let q = words(question);
    let mut g = Grounding::default();
    let mut keys: HashSet<String> = HashSet::new();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        if !line.contains("\"kind\":\"entity\"") {
            continue;
        }
        let rec: Line = serde_json::from_str(&line)
            .map_err(|e| anyhow::anyhow!("{}:{}: {e}", path.display(), i + 1))?;
        if doc.is_some_and(|d| d != rec.doc_id) {
            continue;
        }
        let Some(e) = rec.entity else { continue };
        if !is_named_type(&e.entity_type)
            || !named_in(&q, std::iter::once(&e.name).chain(e.aliases.iter()))
        {
            continue;
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
    }
    if keys.is_empty() {
        return Ok(Some(g));
    }
    // Second pass: only relation lines naming a matched key are parsed.
    let file = std::fs::File::open(&path)?;
    let mut relations = Vec::new();
    for line in std::io::BufReader::new(file).lines() {
        let line = line?;
        if !line.contains("\"kind\":\"relation\"") {
            continue;
        }
        if !keys.iter().any(|k| line.contains(k.as_str())) {
            continue;
        }
        let rec: Line = serde_json::from_str(&line)?;
        if doc.is_some_and(|d| d != rec.doc_id) {
            continue;
        }
        if !(keys.contains(&rec.source) || keys.contains(&rec.target)) {
            continue;
        }
        relations.push(GroundRelation {
            source: rec.source,
            rel_type: rec.rel_type,
            target: rec.target,
            provenance: rec.provenance,
        });
        if relations.len() >= MAX_RELATIONS {
            break;
        }
    }
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
        let file = std::fs::File::open(&path)?;
        let mut found = HashMap::new();
        for line in std::io::BufReader::new(file).lines() {
            let line = line?;
            if !line.contains("\"kind\":\"entity\"")
                || !others.iter().any(|k| line.contains(k.as_str()))
            {
                continue;
            }
            let rec: Line = serde_json::from_str(&line)?;
            if let Some(e) = rec.entity.filter(|e| others.contains(&e.key)) {
                found.entry(e.key).or_insert(e.name);
            }
        }
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
        let q = words("Does Acme Corp owe the Borrower anything?");
        assert!(q.contains(&words("ACME corp")));
        assert!(q.contains(&words("Borrower")));
        assert!(!q.contains(&words("Acme Corporation")));
        assert!(!q.contains(&words("Borrow")));
    }
}
