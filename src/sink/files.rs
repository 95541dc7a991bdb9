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
//! document (in `doc_id` order). Each document is saved to its own part file
//! first and the import files are assembled from all parts at the end, so
//! no resume or re-run can lose a finished document.

use super::neo4j::route_name;
use super::{GraphSink, WriteStats};
use crate::atomic_file::write_atomic;
use crate::graph::DocGraph;
use anyhow::Context;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::json;
use std::collections::HashSet;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Separator of array elements inside one CSV field.
pub const ARRAY_DELIMITER: char = '\u{1F}';

/// Header of `nodes.csv`.
pub const NODE_HEADER: [&str; 21] = [
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
    "label",
];

/// Header of `relationships.csv`.
pub const REL_HEADER: [&str; 9] = [
    ":START_ID",
    ":END_ID",
    ":TYPE",
    "doc_id",
    "node_id",
    "evidence",
    "source",
    "node_ids:string[]",
    "evidences:string[]",
];

/// Writes import files into one directory: each document first goes to its
/// own part file (`parts/<doc_id>.json`, written atomically, so a document
/// is either wholly there or not at all), and [`GraphSink::finish`] then
/// assembles the three import files from every part in the folder, in
/// `doc_id` order. A resumed or repeated batch therefore keeps every
/// document an earlier run finished, and a later run writing a document
/// again replaces its part (within one run, a second write is an error).
pub struct FileSink {
    dir: PathBuf,
    /// Documents written by this sink: one run writes a document once (a
    /// later run, e.g. a resume, replaces its part).
    written_docs: HashSet<String>,
}

/// One document's rows, as saved in its part file.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Part {
    doc_id: String,
    nodes: Vec<Vec<String>>,
    rels: Vec<Vec<String>>,
    jsonl: Vec<serde_json::Value>,
}

/// Folder of the per-document part files inside the sink's folder.
pub const PARTS_DIR: &str = "parts";

impl FileSink {
    /// Creates `dir` and its `parts/` folder if needed; nothing existing is
    /// touched (the import files are assembled by `finish`).
    pub fn create(dir: &Path) -> anyhow::Result<Self> {
        let parts = dir.join(PARTS_DIR);
        std::fs::create_dir_all(&parts)
            .with_context(|| format!("creating output directory {}", parts.display()))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            written_docs: HashSet::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn part_path(&self, doc_id: &str) -> PathBuf {
        self.dir.join(PARTS_DIR).join(format!("{doc_id}.json"))
    }

    fn write(&mut self, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let doc_id = g.doc_id();
        if !self.written_docs.insert(doc_id.to_string()) {
            anyhow::bail!(
                "document {doc_id} was already written to {} in this run",
                self.dir.display()
            );
        }
        let mut part = Part {
            doc_id: doc_id.to_string(),
            ..Part::default()
        };
        let mut stats = WriteStats::default();
        let m = &g.meta;
        let doc_node = format!("doc:{doc_id}");
        let path = m.path.display().to_string();
        part.node(&[
            &doc_node,
            "Document",
            doc_id,
            &m.name,
            &m.doc_type,
            &m.sha256,
            &path,
        ]);
        part.jsonl
            .push(json!({"kind": "document", "doc_id": doc_id, "name": m.name,
            "doc_type": m.doc_type, "sha256": m.sha256, "path": path}));

        for s in &g.sections {
            let id = format!("sec:{}", s.uid);
            let tier = |t: Option<crate::index::Tier>| t.map(|t| t.key()).unwrap_or("");
            part.node(&[
                &id,
                "Section",
                doc_id,
                &s.name,
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
                "",
                "",
                "",
                &s.label,
            ]);
            part.rel(&[&id, &doc_node, "IN_DOCUMENT"]);
            if let Some(p) = &s.parent_uid {
                part.rel(&[&id, &format!("sec:{p}"), "CHILD_OF"]);
            }
            part.jsonl
                .push(json!({"kind": "section", "doc_id": doc_id, "section": s}));
            stats.sections += 1;
        }

        for e in g.entities() {
            let id = format!("ent:{}", e.key);
            let labels = match &e.label {
                Some(l) => format!("Entity{ARRAY_DELIMITER}{l}"),
                None => "Entity".to_string(),
            };
            let aliases = join_array(e.aliases.iter().map(String::as_str));
            let mut row: Vec<&str> = vec![&id, &labels, e.doc_id.as_deref().unwrap_or(""), &e.name];
            row.extend(std::iter::repeat_n("", 13));
            row.extend([e.key.as_str(), e.entity_type.as_str(), aliases.as_str()]);
            part.node(&row);
            for n in &e.mentions {
                part.rel(&[
                    &id,
                    &format!("sec:{}", DocGraph::section_uid(doc_id, n)),
                    "MENTIONED_IN",
                ]);
                stats.mentions += 1;
            }
            part.jsonl
                .push(json!({"kind": "entity", "doc_id": doc_id, "entity": e}));
            stats.entities += 1;
        }

        for (a, edge, b) in g.relations() {
            let first = edge.provenance.first();
            let node_ids = join_array(edge.provenance.iter().map(|p| p.node_id.as_str()));
            let evidences = join_array(edge.provenance.iter().map(|p| p.evidence.as_str()));
            part.rel(&[
                &format!("ent:{}", a.key),
                &format!("ent:{}", b.key),
                &edge.rel_type,
                doc_id,
                first.map(|p| p.node_id.as_str()).unwrap_or(""),
                first.map(|p| p.evidence.as_str()).unwrap_or(""),
                edge.source(),
                &node_ids,
                &evidences,
            ]);
            part.jsonl.push(
                json!({"kind": "relation", "doc_id": doc_id, "source": a.key,
                "type": edge.rel_type, "target": b.key, "found_by": edge.source(),
                "provenance": edge.provenance}),
            );
            stats.relations += 1;
        }
        stats.statements = stats.sections + stats.entities + stats.relations + 1;
        let bytes = serde_json::to_vec(&part)?;
        write_atomic(&self.part_path(doc_id), &bytes)?;
        Ok(stats)
    }

    /// Every part file in the folder, in `doc_id` order.
    fn part_files(&self) -> anyhow::Result<Vec<PathBuf>> {
        let dir = self.dir.join(PARTS_DIR);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .with_context(|| format!("{}: cannot list", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.extension().is_some_and(|e| e == "json")
                    && !p
                        .file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with('.'))
            })
            .collect();
        files.sort();
        Ok(files)
    }

    /// (Re)builds `nodes.csv`, `relationships.csv` and `graph.jsonl` from
    /// every part, each through a temp file and a rename. A global entity
    /// met in several documents is written once, with the name and aliases
    /// of the first document (in `doc_id` order) that has it.
    pub fn assemble(&self) -> anyhow::Result<()> {
        let target = |name: &str| self.dir.join(name);
        let mut nodes = AtomicCsv::create(&target("nodes.csv"))?;
        let mut rels = AtomicCsv::create(&target("relationships.csv"))?;
        nodes.row(NODE_HEADER.iter().copied())?;
        rels.row(REL_HEADER.iter().copied())?;
        let jsonl_path = target("graph.jsonl");
        let jsonl_tmp = tmp_path(&jsonl_path);
        let mut jsonl = BufWriter::new(
            File::create(&jsonl_tmp)
                .with_context(|| format!("creating {}", jsonl_tmp.display()))?,
        );
        let mut entities: HashSet<String> = HashSet::new();
        for f in self.part_files()? {
            let bytes =
                std::fs::read(&f).with_context(|| format!("{}: cannot read", f.display()))?;
            let part: Part = serde_json::from_slice(&bytes).with_context(|| {
                format!(
                    "{}: not a kgroute graph part; delete it and resume the batch to rewrite it",
                    f.display()
                )
            })?;
            for n in &part.nodes {
                let is_entity = n.first().is_some_and(|id| id.starts_with("ent:"));
                if is_entity && !entities.insert(n[0].clone()) {
                    continue;
                }
                nodes.row(n.iter().map(String::as_str))?;
            }
            for r in &part.rels {
                rels.row(r.iter().map(String::as_str))?;
            }
            for v in &part.jsonl {
                serde_json::to_writer(&mut jsonl, v)?;
                jsonl.write_all(b"\n")?;
            }
        }
        nodes.commit()?;
        rels.commit()?;
        jsonl
            .flush()
            .with_context(|| format!("writing {}", jsonl_tmp.display()))?;
        drop(jsonl);
        std::fs::rename(&jsonl_tmp, &jsonl_path)
            .with_context(|| format!("cannot replace {}", jsonl_path.display()))?;
        Ok(())
    }
}

impl Part {
    /// One `nodes.csv` row, padded to the header's width.
    fn node(&mut self, fields: &[&str]) {
        let mut row: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        row.resize(NODE_HEADER.len(), String::new());
        self.nodes.push(row);
    }

    /// One `relationships.csv` row, padded to the header's width.
    fn rel(&mut self, fields: &[&str]) {
        let mut row: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
        row.resize(REL_HEADER.len(), String::new());
        self.rels.push(row);
    }
}

/// `.<name>.tmp<pid>` beside `path`.
fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    path.with_file_name(format!(".{name}.tmp{}", std::process::id()))
}

/// A CSV file written to a temp file and renamed into place on `commit`.
struct AtomicCsv {
    path: PathBuf,
    tmp: PathBuf,
    w: csv::Writer<BufWriter<File>>,
}

impl AtomicCsv {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let tmp = tmp_path(path);
        let f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            w: csv::Writer::from_writer(BufWriter::new(f)),
        })
    }

    fn row<'a>(&mut self, fields: impl IntoIterator<Item = &'a str>) -> anyhow::Result<()> {
        self.w
            .write_record(fields)
            .with_context(|| format!("writing {}", self.path.display()))
    }

    fn commit(mut self) -> anyhow::Result<()> {
        self.w
            .flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("cannot replace {}", self.path.display()))
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
        Box::pin(async move { self.write(graph) })
    }

    fn finish(&mut self) -> BoxFuture<'_, anyhow::Result<()>> {
        Box::pin(async move { self.assemble() })
    }
}
