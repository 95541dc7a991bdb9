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
//! IDs: `doc:<doc_id>`, `sec:<uid>`, `ent:<key>`. A relation's
//! `node_ids`/`evidences` lists are filled only when it was found in more
//! than one place (an empty field sets no property), as in Neo4j. Array values and multiple
//! labels are joined with U+001F (not `;`, which evidence text often
//! contains), hence `--array-delimiter=U+001F`. The model is the
//! same as the Neo4j sink's ([`super::neo4j`]). A global entity met in several
//! documents is written once, with the name and aliases of its first
//! document (in `doc_id` order). Each document is saved to its own part file
//! first (deflated: until assembly it is a second copy of the document's
//! rows) and the import files are assembled from all parts at the end, so
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

/// One document's rows, as saved in its part file: rendered as they go
/// into the import files, so [`FileSink::assemble`] copies text instead of
/// parsing rows and JSON values back (that parse was about 7% of an
/// offline ingest's CPU). Parts written by older versions (`nodes`, `rels`,
/// `jsonl` as rows and values) still load.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Part {
    doc_id: String,
    /// `nodes.csv` rows of the document and its sections.
    #[serde(default)]
    node_rows: String,
    /// `nodes.csv` rows of its entities, one after another.
    #[serde(default)]
    entity_rows: String,
    /// Per entity row, in order: the node id when the entity is global (a
    /// global entity is written once per batch; a document-scoped one has
    /// its document in its id, so it is never met twice) or empty, and the
    /// row's end in `entity_rows`.
    #[serde(default)]
    entities: Vec<(String, usize)>,
    /// `relationships.csv` rows.
    #[serde(default)]
    rel_rows: String,
    /// `graph.jsonl` lines.
    #[serde(default)]
    jsonl_lines: String,
    /// Older parts: rows and values, converted on load ([`Part::upgrade`]).
    #[serde(default, skip_serializing)]
    nodes: Vec<Vec<String>>,
    #[serde(default, skip_serializing)]
    rels: Vec<Vec<String>>,
    #[serde(default, skip_serializing)]
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
        let mut part = PartWriter::new(doc_id);
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
        ])?;
        part.json(
            &json!({"kind": "document", "doc_id": doc_id, "name": m.name,
            "doc_type": m.doc_type, "sha256": m.sha256, "path": path}),
        )?;

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
            ])?;
            part.rel(&[&id, &doc_node, "IN_DOCUMENT"])?;
            if let Some(p) = &s.parent_uid {
                part.rel(&[&id, &format!("sec:{p}"), "CHILD_OF"])?;
            }
            part.json(&json!({"kind": "section", "doc_id": doc_id, "section": s}))?;
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
            part.entity(&id, e.doc_id.is_none(), &row)?;
            for n in &e.mentions {
                part.rel(&[
                    &id,
                    &format!("sec:{}", DocGraph::section_uid(doc_id, n)),
                    "MENTIONED_IN",
                ])?;
                stats.mentions += 1;
            }
            part.json(&json!({"kind": "entity", "doc_id": doc_id, "entity": e}))?;
            stats.entities += 1;
        }

        for (a, edge, b) in g.relations() {
            let first = edge.provenance.first();
            // The lists only when there is more than one place, as the
            // Neo4j sink writes them: with one place they repeated
            // `node_id` and `evidence`, each quote stored twice per row.
            let many = edge.provenance.len() > 1;
            let list = |f: fn(&crate::graph::Provenance) -> &str| {
                if many {
                    join_array(edge.provenance.iter().map(f))
                } else {
                    String::new()
                }
            };
            let node_ids = list(|p| p.node_id.as_str());
            let evidences = list(|p| p.evidence.as_str());
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
            ])?;
            part.json(
                &json!({"kind": "relation", "doc_id": doc_id, "source": a.key,
                "type": edge.rel_type, "target": b.key, "found_by": edge.source(),
                "provenance": edge.provenance}),
            )?;
            stats.relations += 1;
        }
        stats.statements = stats.sections + stats.entities + stats.relations + 1;
        // Serialised straight into the compressor: a document of 100,000
        // sections made a JSON copy of its part several hundred MB long.
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        serde_json::to_writer(&mut z, &part.finish()?)?;
        let bytes = z.finish()?;
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
        nodes.raw(&csv_rows(&[NODE_HEADER.to_vec()])?)?;
        rels.raw(&csv_rows(&[REL_HEADER.to_vec()])?)?;
        let jsonl_path = target("graph.jsonl");
        let jsonl_tmp = tmp_path(&jsonl_path);
        let mut jsonl = BufWriter::new(
            File::create(&jsonl_tmp)
                .with_context(|| format!("creating {}", jsonl_tmp.display()))?,
        );
        // Global entities already written (document-scoped ones carry their
        // document in their id and are never met twice).
        let mut entities: HashSet<String> = HashSet::new();
        for f in self.part_files()? {
            let part = read_part(&f)?;
            nodes.raw(part.node_rows.as_bytes())?;
            let mut start = 0;
            for (id, end) in &part.entities {
                let row = part.entity_rows.get(start..*end).with_context(|| {
                    format!(
                        "{}: entity rows cut; delete it and resume the batch",
                        f.display()
                    )
                })?;
                start = *end;
                if !id.is_empty() && !entities.insert(id.clone()) {
                    continue;
                }
                nodes.raw(row.as_bytes())?;
            }
            rels.raw(part.rel_rows.as_bytes())?;
            jsonl
                .write_all(part.jsonl_lines.as_bytes())
                .with_context(|| format!("writing {}", jsonl_tmp.display()))?;
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

/// Renders one part as [`FileSink::write`] goes.
struct PartWriter {
    doc_id: String,
    nodes: csv::Writer<Vec<u8>>,
    entity_rows: csv::Writer<Vec<u8>>,
    entities: Vec<(String, usize)>,
    rels: csv::Writer<Vec<u8>>,
    jsonl: Vec<u8>,
}

impl PartWriter {
    fn new(doc_id: &str) -> Self {
        PartWriter {
            doc_id: doc_id.to_string(),
            nodes: csv::Writer::from_writer(Vec::new()),
            entity_rows: csv::Writer::from_writer(Vec::new()),
            entities: Vec::new(),
            rels: csv::Writer::from_writer(Vec::new()),
            jsonl: Vec::new(),
        }
    }

    /// One `nodes.csv` row, padded to the header's width.
    fn node(&mut self, fields: &[&str]) -> anyhow::Result<()> {
        write_padded(&mut self.nodes, fields, NODE_HEADER.len())
    }

    /// One entity's `nodes.csv` row; `global` entities are written once
    /// per batch.
    fn entity(&mut self, id: &str, global: bool, fields: &[&str]) -> anyhow::Result<()> {
        write_padded(&mut self.entity_rows, fields, NODE_HEADER.len())?;
        self.entity_rows.flush()?;
        let end = self.entity_rows.get_ref().len();
        let id = if global {
            id.to_string()
        } else {
            String::new()
        };
        self.entities.push((id, end));
        Ok(())
    }

    /// One `relationships.csv` row, padded to the header's width.
    fn rel(&mut self, fields: &[&str]) -> anyhow::Result<()> {
        write_padded(&mut self.rels, fields, REL_HEADER.len())
    }

    /// One `graph.jsonl` line.
    fn json(&mut self, v: &serde_json::Value) -> anyhow::Result<()> {
        serde_json::to_writer(&mut self.jsonl, v)?;
        self.jsonl.push(b'\n');
        Ok(())
    }

    fn finish(self) -> anyhow::Result<Part> {
        let text = |w: csv::Writer<Vec<u8>>| -> anyhow::Result<String> {
            let bytes = w
                .into_inner()
                .map_err(|e| anyhow::anyhow!("{}", e.error()))?;
            Ok(String::from_utf8(bytes)?)
        };
        Ok(Part {
            doc_id: self.doc_id,
            node_rows: text(self.nodes)?,
            entity_rows: text(self.entity_rows)?,
            entities: self.entities,
            rel_rows: text(self.rels)?,
            jsonl_lines: String::from_utf8(self.jsonl)?,
            ..Part::default()
        })
    }
}

fn write_padded(w: &mut csv::Writer<Vec<u8>>, fields: &[&str], width: usize) -> anyhow::Result<()> {
    let pad = width.saturating_sub(fields.len());
    w.write_record(fields.iter().copied().chain(std::iter::repeat_n("", pad)))?;
    Ok(())
}

/// Rows rendered as the import files hold them.
fn csv_rows<S: AsRef<str>>(rows: &[Vec<S>]) -> anyhow::Result<Vec<u8>> {
    let mut w = csv::Writer::from_writer(Vec::new());
    for r in rows {
        w.write_record(r.iter().map(AsRef::as_ref))?;
    }
    w.into_inner().map_err(|e| anyhow::anyhow!("{}", e.error()))
}

impl Part {
    /// A part of an older version (rows and values) in today's form; every
    /// entity of it is checked against those already written, as then.
    fn upgrade(mut self) -> anyhow::Result<Part> {
        if self.nodes.is_empty() && self.rels.is_empty() && self.jsonl.is_empty() {
            return Ok(self);
        }
        let (entity_nodes, other): (Vec<_>, Vec<_>) = std::mem::take(&mut self.nodes)
            .into_iter()
            .partition(|n| n.first().is_some_and(|id| id.starts_with("ent:")));
        self.node_rows = String::from_utf8(csv_rows(&other)?)?;
        for n in &entity_nodes {
            self.entity_rows
                .push_str(std::str::from_utf8(&csv_rows(std::slice::from_ref(n))?)?);
            self.entities.push((n[0].clone(), self.entity_rows.len()));
        }
        self.rel_rows = String::from_utf8(csv_rows(&std::mem::take(&mut self.rels))?)?;
        for v in std::mem::take(&mut self.jsonl) {
            self.jsonl_lines.push_str(&serde_json::to_string(&v)?);
            self.jsonl_lines.push('\n');
        }
        Ok(self)
    }
}

/// A part's JSON, gzip-compressed at the fastest level: rows of one
/// document repeat their ids, labels and quotes, so a part shrinks about
/// six times for a few percent of the write's CPU (it is the second copy
/// of the document's rows until [`FileSink::assemble`] copies them out).
#[cfg(test)]
fn deflate(json: &[u8]) -> anyhow::Result<Vec<u8>> {
    let mut z = flate2::write::GzEncoder::new(
        Vec::with_capacity(json.len() / 4),
        flate2::Compression::fast(),
    );
    z.write_all(json)?;
    Ok(z.finish()?)
}

/// One part file read whole; the error names it and how to rewrite it.
fn read_part(f: &Path) -> anyhow::Result<Part> {
    let bytes = std::fs::read(f)
        .map_err(anyhow::Error::from)
        .and_then(inflate_if_deflated)
        .with_context(|| format!("{}: cannot read", f.display()))?;
    serde_json::from_slice(&bytes)
        .map_err(anyhow::Error::from)
        .and_then(Part::upgrade)
        .with_context(|| {
            format!(
                "{}: not a kgroute graph part; delete it and resume the batch to rewrite it",
                f.display()
            )
        })
}

/// Whether `f` is a whole graph part (`kgroute merge` checks a shard's
/// parts before it copies them, so a damaged one is named where it is).
pub fn check_part(f: &Path) -> anyhow::Result<()> {
    read_part(f).map(drop)
}

/// The part's JSON: gzip data (this version's parts) inflated, plain JSON
/// (parts of older versions) as it is.
fn inflate_if_deflated(bytes: Vec<u8>) -> anyhow::Result<Vec<u8>> {
    if !bytes.starts_with(&[0x1f, 0x8b]) {
        return Ok(bytes);
    }
    let mut out = Vec::with_capacity(bytes.len() * 6);
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&bytes[..]), &mut out)?;
    Ok(out)
}

/// `.<name>.tmp<pid>` beside `path`.
fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    path.with_file_name(format!(".{name}.tmp{}", std::process::id()))
}

/// A CSV file of rows rendered beforehand, written to a temp file and
/// renamed into place on `commit`.
struct AtomicCsv {
    path: PathBuf,
    tmp: PathBuf,
    w: BufWriter<File>,
}

impl AtomicCsv {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let tmp = tmp_path(path);
        let f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            w: BufWriter::new(f),
        })
    }

    /// Rendered rows, as they are.
    fn raw(&mut self, rows: &[u8]) -> anyhow::Result<()> {
        self.w
            .write_all(rows)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(path: &Path) -> Vec<Vec<String>> {
        let mut r = csv::ReaderBuilder::new()
            .has_headers(false)
            .from_path(path)
            .unwrap();
        r.records()
            .map(|x| x.unwrap().iter().map(str::to_string).collect())
            .collect()
    }

    /// A part as an older version saved it (plain JSON of rows), and one
    /// as this version does (deflated rendered rows): both assemble, each global entity once, in `doc_id` order.
    #[test]
    fn assembles_old_and_new_parts_alike() {
        let dir = std::env::temp_dir().join(format!("kgroute-parts-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sink = FileSink::create(&dir).unwrap();
        let pad = |fields: &[&str], n: usize| {
            let mut r: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
            r.resize(n, String::new());
            r
        };
        let old = serde_json::json!({
            "doc_id": "a",
            "nodes": [pad(&["doc:a", "Document", "a"], NODE_HEADER.len()),
                      pad(&["ent:acme", "Entity", "", "Acme"], NODE_HEADER.len()),
                      pad(&["ent:a/party:x", "Entity", "a", "X"], NODE_HEADER.len())],
            "rels": [pad(&["sec:a#1", "doc:a", "IN_DOCUMENT"], REL_HEADER.len())],
            "jsonl": [{"kind": "document", "doc_id": "a"}],
        });
        std::fs::write(sink.part_path("a"), old.to_string()).unwrap();
        let mut w = PartWriter::new("b");
        w.node(&["doc:b", "Document", "b"]).unwrap();
        w.entity("ent:acme", true, &["ent:acme", "Entity", "", "Acme Corp"])
            .unwrap();
        w.entity(
            "ent:b/party:y",
            false,
            &["ent:b/party:y", "Entity", "b", "Y, \"Z\""],
        )
        .unwrap();
        w.rel(&["sec:b#1", "doc:b", "IN_DOCUMENT"]).unwrap();
        w.json(&serde_json::json!({"kind": "document", "doc_id": "b"}))
            .unwrap();
        let part = deflate(&serde_json::to_vec(&w.finish().unwrap()).unwrap()).unwrap();
        assert!(part.starts_with(&[0x1f, 0x8b]), "parts are stored deflated");
        std::fs::write(sink.part_path("b"), part).unwrap();

        sink.assemble().unwrap();
        let nodes = rows(&dir.join("nodes.csv"));
        let ids: Vec<&str> = nodes.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            ids,
            [
                ":ID",
                "doc:a",
                "ent:acme",
                "ent:a/party:x",
                "doc:b",
                "ent:b/party:y"
            ]
        );
        assert!(nodes.iter().all(|r| r.len() == NODE_HEADER.len()));
        assert_eq!(nodes[2][3], "Acme", "the first document's name wins");
        assert_eq!(nodes[5][3], "Y, \"Z\"");
        let rels = rows(&dir.join("relationships.csv"));
        assert_eq!(rels.len(), 3);
        assert!(rels.iter().all(|r| r.len() == REL_HEADER.len()));
        let jsonl = std::fs::read_to_string(dir.join("graph.jsonl")).unwrap();
        assert_eq!(
            jsonl,
            "{\"doc_id\":\"a\",\"kind\":\"document\"}\n{\"doc_id\":\"b\",\"kind\":\"document\"}\n"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
