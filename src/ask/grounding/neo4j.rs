//! Grounding against Neo4j, for a batch whose graph was written there: the
//! look-up of [`super::from_files`] as two Cypher queries, limited
//! to the batch's documents. The database narrows the entities to those
//! whose name or an alias contains a word of the question; which of them the
//! question names is then decided by the same rules as with the files.

use super::{
    is_named_type, named_in, question_words, GroundRelation, Grounding, NamedEntity, Provenance,
    MAX_RELATIONS,
};
use crate::neo4j::Connection;
use crate::secret::Secret;
use neo4rs::{query, Graph};
use std::collections::HashSet;
use std::path::Path;

/// Grounding for a batch without graph files: from Neo4j when one is
/// configured (`--neo4j`, else `NEO4J_URI`), else nothing (with a note when the batch's graph is there).
pub fn from_configured(
    neo4j: Option<&str>,
    database: Option<&str>,
    batch: &Path,
    question: &str,
    doc_id: Option<&str>,
) -> anyhow::Result<Option<Grounding>> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
    let Some(uri) = neo4j.map(str::to_string).or_else(|| env("NEO4J_URI")) else {
        // Where the batch wrote its graph, from the small report-meta.json
        // (summary.json lists every document: megabytes for a large batch,
        // read on every ask that has no graph files).
        let sink = read_json(&batch.join("report-meta.json"))
            .and_then(|s| s["sink"].as_str().map(str::to_string));
        if let Some(sink) = sink.filter(|s| s.starts_with("Neo4j")) {
            eprintln!(
                "kgroute: note: not grounded in the graph: the batch's graph is in {sink}; give --neo4j URI (or NEO4J_URI) to use it"
            );
        }
        return Ok(None);
    };
    let summary = read_json(&batch.join("summary.json"));
    let docs: Vec<String> = match doc_id {
        Some(d) => vec![d.to_string()],
        None => summary
            .as_ref()
            .and_then(|s| s["per_document"].as_array().cloned())
            .unwrap_or_default()
            .iter()
            .filter_map(|d| d["doc_id"].as_str().map(str::to_string))
            .collect(),
    };
    if docs.is_empty() {
        anyhow::bail!(
            "{}: no summary.json listing the batch's documents, so the graph in Neo4j cannot be limited to them; finish the batch (ingest --resume) first",
            batch.display()
        );
    }
    let password = Secret::new(env("NEO4J_PASSWORD").unwrap_or_default());
    let user = env("NEO4J_USERNAME").unwrap_or_else(|| "neo4j".into());
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        // A reader's connection: no schema is made, nothing is written.
        let db = Connection::open(&uri, &user, &password, database, 1).await?;
        from_neo4j(&db.graph, question, &docs).await.map(Some)
    })
}

/// The batch's summary.json, when there is one that parses.
fn read_json(path: &Path) -> Option<serde_json::Value> {
    let text = std::fs::read_to_string(path).ok()?;
    serde_json::from_str(&text).ok()
}

/// Question words too common to narrow the entities by.
const STOP_WORDS: &[&str] = &[
    "the",
    "and",
    "for",
    "with",
    "what",
    "which",
    "who",
    "whom",
    "does",
    "did",
    "are",
    "was",
    "were",
    "has",
    "have",
    "how",
    "any",
    "all",
    "this",
    "that",
    "from",
    "into",
    "under",
    "its",
    "their",
    "there",
    "when",
    "where",
    "why",
    "can",
    "may",
    "shall",
    "will",
    "not",
    "agreement",
];

/// Entities named in the question that the batch's sections mention, with
/// the sections, in one query.
const NAMED_ENTITIES: &str = "MATCH (e:Entity)-[:MENTIONED_IN]->(s:Section) \
     WHERE s.doc_id IN $docs AND any(w IN $words WHERE toLower(e.name) CONTAINS w \
       OR any(a IN coalesce(e.aliases, []) WHERE toLower(a) CONTAINS w)) \
     RETURN e.key AS key, e.name AS name, coalesce(e.type, '') AS type, \
       coalesce(e.aliases, []) AS aliases, \
       collect(s.doc_id) AS doc_ids, collect(s.node_id) AS node_ids";

/// Relations of the batch's documents about those entities, with where each
/// was found (`node_ids`/`evidences` when found in several sections).
const RELATIONS: &str = "MATCH (a:Entity)-[r]->(b:Entity) \
     WHERE (a.key IN $keys OR b.key IN $keys) AND r.doc_id IN $docs \
     RETURN a.name AS source, type(r) AS type, b.name AS target, r.doc_id AS doc_id, \
       coalesce(r.node_ids, [r.node_id]) AS node_ids, \
       coalesce(r.evidences, [coalesce(r.evidence, '')]) AS evidences \
     ORDER BY r.doc_id, a.key, type, b.key LIMIT $limit";

/// The words of `question` (three letters or more, not [`STOP_WORDS`]) that
/// an entity's name must contain to be read at all.
fn narrowing_words(question: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    question
        .split(|c: char| !c.is_alphanumeric())
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOP_WORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// Grounds `question` in the graph `docs` (the batch's doc ids, or the one
/// `--doc`) wrote to Neo4j.
pub async fn from_neo4j(
    graph: &Graph,
    question: &str,
    docs: &[String],
) -> anyhow::Result<Grounding> {
    let mut g = Grounding::default();
    let words = narrowing_words(question);
    if words.is_empty() || docs.is_empty() {
        return Ok(g);
    }
    let q = question_words(question);
    let mut rows = graph
        .execute(
            query(NAMED_ENTITIES)
                .param("docs", docs.to_vec())
                .param("words", words),
        )
        .await?;
    while let Some(row) = rows.next().await? {
        let name: String = row.get("name")?;
        let entity_type: String = row.get("type")?;
        let aliases: Vec<String> = row.get("aliases")?;
        if !is_named_type(&entity_type) || !named_in(&q, std::iter::once(&name).chain(&aliases)) {
            continue;
        }
        let doc_ids: Vec<String> = row.get("doc_ids")?;
        let node_ids: Vec<String> = row.get("node_ids")?;
        g.add_entity(NamedEntity {
            name,
            entity_type,
            key: row.get("key")?,
            sections: doc_ids.into_iter().zip(node_ids).collect(),
        });
    }
    if g.entities.is_empty() {
        return Ok(g);
    }
    let keys: Vec<String> = g.entities.iter().map(|e| e.key.clone()).collect();
    let mut rows = graph
        .execute(
            query(RELATIONS)
                .param("keys", keys)
                .param("docs", docs.to_vec())
                .param("limit", MAX_RELATIONS as i64),
        )
        .await?;
    let mut relations = Vec::new();
    while let Some(row) = rows.next().await? {
        let doc_id: String = row.get("doc_id")?;
        let node_ids: Vec<String> = row.get("node_ids")?;
        let evidences: Vec<String> = row.get("evidences")?;
        let provenance = node_ids
            .into_iter()
            .zip(
                evidences
                    .into_iter()
                    .chain(std::iter::repeat(String::new())),
            )
            .map(|(node_id, evidence)| Provenance {
                doc_id: doc_id.clone(),
                node_id,
                evidence,
            })
            .collect();
        relations.push(GroundRelation {
            source: row.get("source")?,
            rel_type: row.get("type")?,
            target: row.get("target")?,
            provenance,
        });
    }
    g.relations = relations;
    Ok(g)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_words_do_not_narrow_the_entities() {
        assert_eq!(
            narrowing_words("Does the Agreement bind Acme Corp and ACME's agent?"),
            ["bind", "acme", "corp", "agent"]
        );
    }
}
