//! The Neo4j sink: writes a [`DocGraph`] over Bolt with neo4rs, one document
//! per transaction, in batched `UNWIND $rows ...` statements: the Document,
//! Sections and global entities are `MERGE`d on their unique key;
//! document-scoped entities and all relationships are `CREATE`d, which is
//! safe because the same transaction first deleted everything the document
//! had written and the in-memory graph is already deduplicated.
//!
//! Graph model:
//! - `(:Document {doc_id, name, doc_type, sha256, path, ingested_at})`
//! - `(:Section {uid, doc_id, node_id, title, label, name, breadcrumb, start_line, end_line,
//!   chars, predicted_tier, actual_tier, route})-[:IN_DOCUMENT]->(:Document)`,
//!   `(:Section)-[:CHILD_OF]->(:Section)`
//! - `(:Entity:<Type> {key, name, type, doc_id?, aliases})-[:MENTIONED_IN]->(:Section)`
//! - `(:Entity)-[:<RELATION_TYPE> {doc_id, node_id, evidence, source, node_ids, evidences}]->(:Entity)`
//! - the contract's register row as `(:Agreement)`, its parties and facts
//!   ([`super::agreement`])
//!   (`source`: `rules` when only the rules found it, else `llm`)
//!
//! Relation provenance: one relationship per (document, source, type,
//! target). `node_id`/`evidence` hold the first place it was found in that
//! document; when it was found in several sections, `node_ids`/`evidences`
//! (parallel lists) hold every place. A relation
//! found in two documents is two relationships, one per `doc_id`, so
//! re-ingesting one document removes exactly its own provenance.
//!
//! Only labels and relationship types are spliced into Cypher, and only after
//! they were checked against the ontology and reduced to `[A-Za-z0-9_]`
//! ([`crate::graph::identity`]); every other value is a parameter.

use super::{GraphSink, Secret, WriteStats, DEFAULT_BATCH_SIZE};
use crate::graph::identity::{is_valid_relation_type, name_rank, sanitize_label};
use crate::graph::DocGraph;
use crate::neo4j::Connection;
use crate::route::Route;
use anyhow::{anyhow, bail, Context};
use futures::future::BoxFuture;
use neo4rs::{query, BoltList, BoltMap, BoltString, BoltType, Graph, Query, Txn};
use std::collections::BTreeMap;
use std::time::Duration;

/// Constraints and indexes created when the sink opens.
const SCHEMA: [&str; 6] = [
    "CREATE CONSTRAINT kg_document_doc_id IF NOT EXISTS FOR (d:Document) REQUIRE d.doc_id IS UNIQUE",
    "CREATE CONSTRAINT kg_section_uid IF NOT EXISTS FOR (s:Section) REQUIRE s.uid IS UNIQUE",
    "CREATE CONSTRAINT kg_entity_key IF NOT EXISTS FOR (e:Entity) REQUIRE e.key IS UNIQUE",
    "CREATE INDEX kg_section_doc_id IF NOT EXISTS FOR (s:Section) ON (s.doc_id)",
    "CREATE INDEX kg_entity_doc_id IF NOT EXISTS FOR (e:Entity) ON (e.doc_id)",
    "CREATE INDEX kg_document_path IF NOT EXISTS FOR (d:Document) ON (d.path)",
];

/// Removes what an earlier run wrote for `$doc_id`, in this order: its
/// relation provenance, its document-scoped entities, its sections (with
/// their mentions and structure), then global entities no document mentions
/// any more. Global entities still mentioned elsewhere survive.
///
/// The `SET ... REMOVE` takes each global entity's write lock before the
/// "mentioned elsewhere?" check, so a concurrent writer's new mention is
/// seen (it commits first) instead of being deleted with the node.
const DELETE_DOCUMENT: [&str; 3] = [
    "MATCH (:Section {doc_id: $doc_id})<-[:MENTIONED_IN]-(e:Entity) \
     WITH DISTINCT e MATCH (e)-[r]->(:Entity) WHERE r.doc_id = $doc_id DELETE r",
    "MATCH (e:Entity {doc_id: $doc_id}) DETACH DELETE e",
    "MATCH (s:Section {doc_id: $doc_id}) \
     OPTIONAL MATCH (s)<-[:MENTIONED_IN]-(g:Entity) WHERE g.doc_id IS NULL \
     WITH collect(DISTINCT s) AS sections, collect(DISTINCT g) AS globals \
     FOREACH (s IN sections | DETACH DELETE s) \
     WITH globals UNWIND globals AS g \
     SET g.write_lock = true REMOVE g.write_lock \
     WITH g WHERE NOT (g)-[:MENTIONED_IN]->(:Section) DETACH DELETE g",
];

const UPSERT_DOCUMENT: &str = "MERGE (d:Document {doc_id: $doc_id}) \
     SET d.name = $name, d.doc_type = $doc_type, d.sha256 = $sha256, d.path = $path, \
     d.ingested_at = datetime()";

const UPSERT_SECTIONS: &str = "MATCH (d:Document {doc_id: $doc_id}) \
     UNWIND $rows AS row \
     MERGE (s:Section {uid: row.uid}) SET s += row.props \
     CREATE (s)-[:IN_DOCUMENT]->(d)";

const LINK_SECTIONS: &str = "UNWIND $rows AS row \
     MATCH (c:Section {uid: row.child}) MATCH (p:Section {uid: row.parent}) \
     CREATE (c)-[:CHILD_OF]->(p)";

const LINK_MENTIONS: &str = "UNWIND $rows AS row \
     MATCH (e:Entity {key: row.key}) MATCH (s:Section {uid: row.uid}) \
     CREATE (e)-[:MENTIONED_IN]->(s)";

/// A Neo4j server reached over Bolt.
pub struct Neo4jSink {
    graph: Graph,
    uri: String,
    batch_size: usize,
}

impl Neo4jSink {
    /// Connects, runs `RETURN 1` and creates the schema. Errors name `uri`
    /// and never contain the password.
    pub async fn connect(
        uri: &str,
        user: &str,
        password: &Secret,
        database: Option<&str>,
        batch_size: usize,
    ) -> anyhow::Result<Self> {
        let conn = Connection::open(uri, user, password, database, 4).await?;
        let sink = Self {
            graph: conn.graph.clone(),
            uri: conn.uri.clone(),
            batch_size: batch_size.max(1),
        };
        sink.ensure_schema().await.map_err(|e| {
            anyhow!(
                "Neo4j at {}: creating constraints failed: {}",
                conn.uri,
                conn.scrub(&e)
            )
        })?;
        Ok(sink)
    }

    /// Connects with the default batch size.
    pub async fn connect_default(uri: &str, user: &str, password: &Secret) -> anyhow::Result<Self> {
        Self::connect(uri, user, password, None, DEFAULT_BATCH_SIZE).await
    }

    /// The neo4rs handle, for callers that query what was written.
    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    /// Rows per `UNWIND` statement (1 means one statement per row).
    pub fn set_batch_size(&mut self, n: usize) {
        self.batch_size = n.max(1);
    }

    async fn ensure_schema(&self) -> anyhow::Result<()> {
        for stmt in SCHEMA.iter().chain(&super::agreement::SCHEMA) {
            // Sinks opened concurrently may race on the same constraint; the
            // loser sees an error although the constraint now exists.
            let mut last = None;
            for attempt in 0..5u64 {
                match self.graph.run(query(stmt)).await {
                    Ok(_) => {
                        last = None;
                        break;
                    }
                    Err(e) => {
                        last = Some(e);
                        tokio::time::sleep(Duration::from_millis(100 * (attempt + 1))).await;
                    }
                }
            }
            if let Some(e) = last {
                return Err(anyhow!(e).context(format!("statement: {stmt}")));
            }
        }
        Ok(())
    }

    /// Writes one document, retrying the whole transaction a few times when
    /// the server reports a transient error (a deadlock with a concurrent
    /// writer merging the same global entity): the write is idempotent.
    async fn write(&self, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let mut attempt = 0u64;
        loop {
            match self.write_once(g).await {
                Err(e) if attempt < 4 && is_transient(&e) => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
                }
                other => return other,
            }
        }
    }

    /// Removes everything written for `doc_id`, the Document node included,
    /// in one transaction (retried on transient errors like `write`). Global
    /// entities other documents mention survive.
    pub async fn delete_document(&self, doc_id: &str) -> anyhow::Result<()> {
        let mut attempt = 0u64;
        loop {
            match self.delete_once(doc_id).await {
                Err(e) if attempt < 4 && is_transient(&e) => {
                    attempt += 1;
                    tokio::time::sleep(Duration::from_millis(50 * attempt)).await;
                }
                other => {
                    return other.with_context(|| {
                        format!("Neo4j at {}: deleting document {doc_id}", self.uri)
                    })
                }
            }
        }
    }

    async fn delete_once(&self, doc_id: &str) -> anyhow::Result<()> {
        let mut txn = self.graph.start_txn().await?;
        match delete_in(&mut txn, doc_id).await {
            Ok(()) => Ok(txn.commit().await?),
            Err(e) => {
                let _ = txn.rollback().await;
                Err(e.into())
            }
        }
    }

    async fn write_once(&self, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let mut txn = self
            .graph
            .start_txn()
            .await
            .with_context(|| format!("Neo4j at {}: starting a transaction", self.uri))?;
        match self.write_in(&mut txn, g).await {
            Ok(stats) => {
                txn.commit().await.with_context(|| {
                    format!("Neo4j at {}: committing document {}", self.uri, g.doc_id())
                })?;
                Ok(stats)
            }
            Err(e) => {
                // Best effort: the server also rolls back when the
                // transaction dies with the connection.
                let _ = txn.rollback().await;
                Err(e.context(format!(
                    "Neo4j at {}: document {} rolled back",
                    self.uri,
                    g.doc_id()
                )))
            }
        }
    }

    async fn write_in(&self, txn: &mut Txn, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let doc_id = g.doc_id();
        let mut stats = WriteStats::default();
        // An edited file gets a new doc_id (the id carries a content hash):
        // its earlier versions, found by source path, go in this same
        // transaction, so no stale fact outlives the edit.
        for old in earlier_versions(txn, &g.meta.path.display().to_string(), doc_id).await? {
            delete_in(txn, &old).await?;
            stats.statements += DELETE_DOCUMENT.len() + 1;
        }
        for stmt in DELETE_DOCUMENT {
            txn.run(query(stmt).param("doc_id", doc_id)).await?;
            stats.statements += 1;
        }
        let m = &g.meta;
        txn.run(
            query(UPSERT_DOCUMENT)
                .param("doc_id", doc_id)
                .param("name", m.name.as_str())
                .param("doc_type", m.doc_type.as_str())
                .param("sha256", m.sha256.as_str())
                .param("path", m.path.display().to_string()),
        )
        .await?;
        stats.statements += 1;

        let sections: Vec<BoltType> = g.sections.iter().map(|s| section_row(doc_id, s)).collect();
        stats.statements += self
            .run_batched(txn, UPSERT_SECTIONS, doc_id, sections)
            .await?;
        stats.sections = g.sections.len();

        let links: Vec<BoltType> = g
            .sections
            .iter()
            .filter_map(|s| {
                s.parent_uid.as_ref().map(|p| {
                    row([
                        ("child", s.uid.as_str().into()),
                        ("parent", p.as_str().into()),
                    ])
                })
            })
            .collect();
        stats.statements += self.run_batched(txn, LINK_SECTIONS, doc_id, links).await?;

        let mut by_label: BTreeMap<(Option<String>, bool), Vec<BoltType>> = BTreeMap::new();
        let mut mentions = Vec::new();
        for e in g.entities() {
            let aliases: Vec<String> = e.aliases.iter().cloned().collect();
            let scoped = e.doc_id.is_some();
            by_label
                .entry((e.label.clone(), scoped))
                .or_default()
                .push(row([
                    ("key", e.key.as_str().into()),
                    ("name", e.name.as_str().into()),
                    ("type", e.entity_type.as_str().into()),
                    ("doc_id", e.doc_id.clone().into()),
                    ("aliases", aliases.into()),
                    ("name_rank", name_rank(&e.name).into()),
                ]));
            for n in &e.mentions {
                mentions.push(row([
                    ("key", e.key.as_str().into()),
                    ("uid", DocGraph::section_uid(doc_id, n).into()),
                ]));
            }
            stats.entities += 1;
        }
        for ((label, scoped), rows) in by_label {
            let stmt = entity_statement(label.as_deref(), scoped)?;
            stats.statements += self.run_batched(txn, &stmt, doc_id, rows).await?;
        }
        stats.mentions = mentions.len();
        stats.statements += self
            .run_batched(txn, LINK_MENTIONS, doc_id, mentions)
            .await?;

        let mut by_type: BTreeMap<&str, Vec<BoltType>> = BTreeMap::new();
        for (a, edge, b) in g.relations() {
            let first = edge.provenance.first();
            // The lists only when there is more than one place: most
            // relations have one, and every property costs store writes.
            let many = edge.provenance.len() > 1;
            let list = |f: fn(&crate::graph::Provenance) -> String| -> BoltType {
                if many {
                    edge.provenance.iter().map(f).collect::<Vec<_>>().into()
                } else {
                    BoltType::Null(neo4rs::BoltNull)
                }
            };
            by_type
                .entry(edge.rel_type.as_str())
                .or_default()
                .push(row([
                    ("src", a.key.as_str().into()),
                    ("dst", b.key.as_str().into()),
                    ("node_id", first.map(|p| p.node_id.clone()).into()),
                    ("evidence", first.map(|p| p.evidence.clone()).into()),
                    ("source", edge.source().into()),
                    ("node_ids", list(|p| p.node_id.clone())),
                    ("evidences", list(|p| p.evidence.clone())),
                ]));
            stats.relations += 1;
        }
        for (rel_type, rows) in by_type {
            let stmt = relation_statement(rel_type)?;
            stats.statements += self.run_batched(txn, &stmt, doc_id, rows).await?;
        }
        // The contract's abstract, from the graph just written.
        stats.statements += super::agreement::write_in(txn, &crate::register::row_of(g)).await?;
        Ok(stats)
    }

    /// Runs `stmt` once per chunk of `rows` (bound to `$rows`, with
    /// `$doc_id`); returns the number of statements run.
    async fn run_batched(
        &self,
        txn: &mut Txn,
        stmt: &str,
        doc_id: &str,
        rows: Vec<BoltType>,
    ) -> anyhow::Result<usize> {
        let mut n = 0;
        for chunk in rows.chunks(self.batch_size) {
            let list = BoltType::List(BoltList::from(chunk.to_vec()));
            txn.run(
                Query::new(stmt.to_string())
                    .param("doc_id", doc_id)
                    .param("rows", list),
            )
            .await
            .with_context(|| format!("statement: {}", first_words(stmt)))?;
            n += 1;
        }
        Ok(n)
    }
}

impl GraphSink for Neo4jSink {
    fn describe(&self) -> String {
        format!("Neo4j at {}", crate::secret::redact_urls(&self.uri))
    }

    fn write_document<'a>(
        &'a mut self,
        graph: &'a DocGraph,
    ) -> BoxFuture<'a, anyhow::Result<WriteStats>> {
        Box::pin(self.write(graph))
    }
}

/// The entity write for one label. Global entities (`scoped == false`) are
/// `MERGE`d: met again, they gain the new spellings as aliases and show the
/// best spelling met so far ([`name_rank`]; on a tie the first one stays).
/// Document-scoped ones are `CREATE`d: the same transaction deleted them
/// first, and the uniqueness constraint still guards the key.
fn entity_statement(label: Option<&str>, scoped: bool) -> anyhow::Result<String> {
    let labels = match label {
        None => String::new(),
        Some(l) => {
            // Labels come from the ontology and were sanitised; check again
            // because this is the one place they reach Cypher.
            if sanitize_label(l).as_deref() != Some(l) {
                bail!("refusing label `{l}`: not of the form [A-Za-z_][A-Za-z0-9_]*");
            }
            format!(":`{l}`")
        }
    };
    Ok(if scoped {
        format!(
            "UNWIND $rows AS row \
             CREATE (e:Entity{labels} {{key: row.key, name: row.name, type: row.type, \
             doc_id: row.doc_id, aliases: row.aliases}})"
        )
    } else {
        let set_label = if labels.is_empty() {
            String::new()
        } else {
            format!(" SET e{labels}")
        };
        format!(
            "UNWIND $rows AS row \
             MERGE (e:Entity {{key: row.key}}) \
             ON CREATE SET e.name = row.name, e.type = row.type, e.doc_id = row.doc_id, \
             e.aliases = row.aliases, e.name_rank = row.name_rank \
             WITH e, row, coalesce(e.aliases, []) + [e.name] + row.aliases + [row.name] AS spellings, \
             row.name_rank > coalesce(e.name_rank, -1) AS better \
             WITH e, row, spellings, CASE WHEN better THEN row.name ELSE e.name END AS best, \
             CASE WHEN better THEN row.name_rank ELSE e.name_rank END AS best_rank \
             SET e.name = best, e.name_rank = best_rank, \
             e.aliases = reduce(acc = [], a IN spellings | CASE WHEN a = best OR a IN acc THEN acc ELSE acc + a END)\
             {set_label}"
        )
    })
}

/// The relation upsert for one (validated) relationship type.
fn relation_statement(rel_type: &str) -> anyhow::Result<String> {
    if !is_valid_relation_type(rel_type) {
        bail!("refusing relationship type `{rel_type}`: not of the form [A-Z_][A-Z0-9_]*");
    }
    Ok(format!(
        "UNWIND $rows AS row \
         MATCH (a:Entity {{key: row.src}}) MATCH (b:Entity {{key: row.dst}}) \
         CREATE (a)-[r:`{rel_type}` {{doc_id: $doc_id, node_id: row.node_id, evidence: row.evidence, source: row.source}}]->(b) \
         SET r.node_ids = row.node_ids, r.evidences = row.evidences"
    ))
}

fn section_row(doc_id: &str, s: &crate::graph::SectionNode) -> BoltType {
    let props = row([
        ("uid", s.uid.as_str().into()),
        ("doc_id", doc_id.into()),
        ("node_id", s.node_id.as_str().into()),
        ("title", s.title.as_str().into()),
        ("label", s.label.as_str().into()),
        ("name", s.name.as_str().into()),
        ("breadcrumb", s.breadcrumb.as_str().into()),
        ("start_line", (s.start_line as i64).into()),
        ("end_line", (s.end_line as i64).into()),
        ("chars", (s.chars as i64).into()),
        ("predicted_tier", s.predicted_tier.map(|t| t.key()).into()),
        ("actual_tier", s.actual_tier.map(|t| t.key()).into()),
        ("route", route_name(s.route).into()),
    ]);
    row([("uid", s.uid.as_str().into()), ("props", props)])
}

/// The route as stored: `llm`, `skip`, `noise`, `empty`.
pub fn route_name(r: Route) -> &'static str {
    match r {
        Route::Llm => "llm",
        Route::Skip => "skip",
        Route::Noise => "noise",
        Route::Empty => "empty",
    }
}

fn row<const N: usize>(fields: [(&str, BoltType); N]) -> BoltType {
    let mut m = BoltMap::with_capacity(N);
    for (k, v) in fields {
        m.put(BoltString::from(k), v);
    }
    BoltType::Map(m)
}

/// Removes everything a document wrote, and the document node itself.
async fn delete_in(txn: &mut Txn, doc_id: &str) -> Result<(), neo4rs::Error> {
    for stmt in super::agreement::DELETE.iter().chain(&DELETE_DOCUMENT) {
        txn.run(query(stmt).param("doc_id", doc_id)).await?;
    }
    txn.run(query("MATCH (d:Document {doc_id: $doc_id}) DETACH DELETE d").param("doc_id", doc_id))
        .await
}

/// The doc_ids of other versions of the file at `path` already in the graph.
async fn earlier_versions(txn: &mut Txn, path: &str, doc_id: &str) -> anyhow::Result<Vec<String>> {
    let mut rows = txn
        .execute(
            query(
                "MATCH (d:Document {path: $path}) WHERE d.doc_id <> $doc_id RETURN d.doc_id AS id",
            )
            .param("path", path)
            .param("doc_id", doc_id),
        )
        .await?;
    let mut ids = Vec::new();
    while let Some(row) = rows.next(txn.handle()).await? {
        ids.push(row.get::<String>("id")?);
    }
    Ok(ids)
}

/// True when the error chain holds a Neo4j transient error, or a shared
/// global entity deleted by a concurrent writer between our read and our
/// write (`EntityNotFound`): both succeed when the document is retried.
fn is_transient(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        matches!(
            c.downcast_ref::<neo4rs::Error>(),
            Some(neo4rs::Error::Neo4j(n))
                if n.kind() == neo4rs::Neo4jErrorKind::Transient
                    || n.code().ends_with("EntityNotFound")
        )
    })
}

fn first_words(stmt: &str) -> String {
    stmt.split_whitespace()
        .take(8)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_refuse_unsanitised_names() {
        assert!(relation_statement("ROLE_OF").is_ok());
        assert!(relation_statement("X]->(n) DETACH DELETE n //").is_err());
        assert!(entity_statement(Some("DefinedTerm"), true).is_ok());
        assert!(entity_statement(Some("A`B"), false).is_err());
        assert!(entity_statement(Some("A`B"), true).is_err());
        assert!(entity_statement(None, false)
            .unwrap()
            .contains("MERGE (e:Entity {"));
        assert!(entity_statement(None, true)
            .unwrap()
            .contains("CREATE (e:Entity {"));
    }
}
