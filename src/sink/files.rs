//! The offline sink, used when no Neo4j is configured: writes `nodes.csv` and
//! `relationships.csv` in the `neo4j-admin database import` header format,
//! plus `graph.jsonl` (one JSON record per line), so a large corpus can be
//! bulk-loaded later and inspected without a database.
//!
//! Import with:
//! `neo4j-admin database import full --nodes=DIR/nodes.csv
//!  --relationships=DIR/relationships.csv --multiline-fields=true
//!  --array-delimiter=U+001F neo4j`
//!
//! IDs: `doc:<doc_id>`, `sec:<uid>`, `ent:<key>`. Array values and multiple
//! labels are joined with U+001F (not `;`, which evidence text often
//! contains), hence `--array-delimiter=U+001F`. The model is the
//! same as the Neo4j sink's ([`super::neo4j`]). A global entity met in several
//! documents is written once, with the name and aliases of its first
//! document. Files are append-only: writing the same `doc_id` twice in one
//! run is an error.

use super::neo4j::route_name;
use super::{GraphSink, WriteStats};
use crate::graph::DocGraph;
use anyhow::{bail, Context};
use futures::future::BoxFuture;
use serde_json::json;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Separator of array elements inside one CSV field.
pub const ARRAY_DELIMITER: char = '\u{1F}';

/// Header of `nodes.csv`.
pub const NODE_HEADER: [&str; 20] = [
    ":ID",
    ":LABEL",
    "doc_id",
    "name",
    "doc_type",
    "sha256",
    "path",
    "uid",
    "node_id",
    "title",
    "breadcrumb",
    "start_line:long",
    "end_line:long",
    "chars:long",
    "predicted_tier",
    "actual_tier",
    "route",
    "key",
    "type",
    "aliases:string[]",
];

/// Header of `relationships.csv`.
pub const REL_HEADER: [&str; 8] = [
    ":START_ID",
    ":END_ID",
    ":TYPE",
    "doc_id",
    "node_id",
    "evidence",
    "node_ids:string[]",
    "evidences:string[]",
];

/// Writes import files into one directory.
pub struct FileSink {
    dir: PathBuf,
    nodes: csv::Writer<BufWriter<File>>,
    rels: csv::Writer<BufWriter<File>>,
    jsonl: BufWriter<File>,
    written_entities: HashSet<String>,
    written_docs: HashSet<String>,
}

impl FileSink {
    /// Creates `dir` if needed and (re)creates the three files with headers.
    pub fn create(dir: &Path) -> anyhow::Result<Self> {
        std::fs::create_dir_all(dir)
            .with_context(|| format!("creating output directory {}", dir.display()))?;
        let open = |name: &str| -> anyhow::Result<BufWriter<File>> {
            let p = dir.join(name);
            Ok(BufWriter::new(
                File::create(&p).with_context(|| format!("creating {}", p.display()))?,
            ))
        };
        let mut nodes = csv::Writer::from_writer(open("nodes.csv")?);
        nodes.write_record(NODE_HEADER)?;
        let mut rels = csv::Writer::from_writer(open("relationships.csv")?);
        rels.write_record(REL_HEADER)?;
        Ok(Self {
            dir: dir.to_path_buf(),
            nodes,
            rels,
            jsonl: open("graph.jsonl")?,
            written_entities: HashSet::new(),
            written_docs: HashSet::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&mut self, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let doc_id = g.doc_id();
        if !self.written_docs.insert(doc_id.to_string()) {
            bail!(
                "document {doc_id} was already written to {} in this run (import files are append-only)",
                self.dir.display()
            );
        }
        let mut stats = WriteStats::default();
        let m = &g.meta;
        let doc_node = format!("doc:{doc_id}");
        let path = m.path.display().to_string();
        self.node(&[
            &doc_node,
            "Document",
            doc_id,
            &m.name,
            &m.doc_type,
            &m.sha256,
            &path,
        ])?;
        self.json(json!({"kind": "document", "doc_id": doc_id, "name": m.name,
            "doc_type": m.doc_type, "sha256": m.sha256, "path": path}))?;

        for s in &g.sections {
            let id = format!("sec:{}", s.uid);
            let tier = |t: Option<crate::index::Tier>| t.map(|t| t.key()).unwrap_or("");
            self.node(&[
                &id,
                "Section",
                doc_id,
                "",
                "",
                "",
                "",
                &s.uid,
                &s.node_id,
                &s.title,
                &s.breadcrumb,
                &s.start_line.to_string(),
                &s.end_line.to_string(),
                &s.chars.to_string(),
                tier(s.predicted_tier),
                tier(s.actual_tier),
                route_name(s.route),
            ])?;
            self.rel(&[&id, &doc_node, "IN_DOCUMENT"])?;
            if let Some(p) = &s.parent_uid {
                self.rel(&[&id, &format!("sec:{p}"), "CHILD_OF"])?;
            }
            self.json(json!({"kind": "section", "doc_id": doc_id, "section": s}))?;
            stats.sections += 1;
        }

        for e in g.entities() {
            let id = format!("ent:{}", e.key);
            if self.written_entities.insert(e.key.clone()) {
                let labels = match &e.label {
                    Some(l) => format!("Entity{ARRAY_DELIMITER}{l}"),
                    None => "Entity".to_string(),
                };
                let aliases = join_array(e.aliases.iter().map(String::as_str));
                let mut row: Vec<&str> =
                    vec![&id, &labels, e.doc_id.as_deref().unwrap_or(""), &e.name];
                row.extend(std::iter::repeat_n("", 13));
                row.extend([e.key.as_str(), e.entity_type.as_str(), aliases.as_str()]);
                self.node(&row)?;
            }
            for n in &e.mentions {
                self.rel(&[
                    &id,
                    &format!("sec:{}", DocGraph::section_uid(doc_id, n)),
                    "MENTIONED_IN",
                ])?;
                stats.mentions += 1;
            }
            self.json(json!({"kind": "entity", "doc_id": doc_id, "entity": e}))?;
            stats.entities += 1;
        }

        for (a, edge, b) in g.relations() {
            let first = edge.provenance.first();
            let node_ids = join_array(edge.provenance.iter().map(|p| p.node_id.as_str()));
            let evidences = join_array(edge.provenance.iter().map(|p| p.evidence.as_str()));
            self.rel(&[
                &format!("ent:{}", a.key),
                &format!("ent:{}", b.key),
                &edge.rel_type,
                doc_id,
                first.map(|p| p.node_id.as_str()).unwrap_or(""),
                first.map(|p| p.evidence.as_str()).unwrap_or(""),
                &node_ids,
                &evidences,
            ])?;
            self.json(
                json!({"kind": "relation", "doc_id": doc_id, "source": a.key,
                "type": edge.rel_type, "target": b.key, "provenance": edge.provenance}),
            )?;
            stats.relations += 1;
        }
        stats.statements = stats.sections + stats.entities + stats.relations + 1;
        Ok(stats)
    }

    /// One `nodes.csv` row, padded to the header's width.
    fn node(&mut self, fields: &[&str]) -> anyhow::Result<()> {
        let mut row: Vec<&str> = fields.to_vec();
        row.resize(NODE_HEADER.len(), "");
        self.nodes
            .write_record(&row)
            .with_context(|| format!("writing {}", self.dir.join("nodes.csv").display()))
    }

    /// One `relationships.csv` row, padded to the header's width.
    fn rel(&mut self, fields: &[&str]) -> anyhow::Result<()> {
        let mut row: Vec<&str> = fields.to_vec();
        row.resize(REL_HEADER.len(), "");
        self.rels
            .write_record(&row)
            .with_context(|| format!("writing {}", self.dir.join("relationships.csv").display()))
    }

    fn json(&mut self, v: serde_json::Value) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.jsonl, &v)?;
        self.jsonl
            .write_all(b"\n")
            .with_context(|| format!("writing {}", self.dir.join("graph.jsonl").display()))
    }

    fn flush(&mut self) -> anyhow::Result<()> {
        self.nodes.flush()?;
        self.rels.flush()?;
        self.jsonl.flush()?;
        Ok(())
    }
}

/// Joins array elements with [`ARRAY_DELIMITER`], removing that character
/// from the elements themselves.
fn join_array<'a>(items: impl Iterator<Item = &'a str>) -> String {
    let d = ARRAY_DELIMITER.to_string();
    items
        .map(|s| s.replace(ARRAY_DELIMITER, ""))
        .collect::<Vec<_>>()
        .join(&d)
}

impl GraphSink for FileSink {
    fn describe(&self) -> String {
        format!(
            "offline files in {} (no Neo4j configured)",
            self.dir.display()
        )
    }

    fn write_document<'a>(
        &'a mut self,
        graph: &'a DocGraph,
    ) -> BoxFuture<'a, anyhow::Result<WriteStats>> {
        Box::pin(async move {
            let stats = self.write(graph)?;
            // Flush per document so an interrupted run keeps whole documents.
            self.flush()?;
            Ok(stats)
        })
    }

    fn finish(&mut self) -> BoxFuture<'_, anyhow::Result<()>> {
        Box::pin(async move { self.flush() })
    }
}
