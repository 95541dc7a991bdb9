//! The offline sink, used when no Neo4j is configured: each document's
//! graph goes to its own part file ([`super::parts`]), the graph's one
//! copy on disk; the `neo4j-admin` import files are derived from the parts
//! at the end when asked ([`super::import_files`]), and `kgroute export`
//! derives them, or the whole graph's JSON lines, from a batch later.
//! No resume or re-run can lose a finished document: a document's part is
//! written whole or not at all, and a later run writing it again replaces
//! it.

use super::import_files::{self, NODES_CSV, RELATIONSHIPS_CSV};
use super::parts;
use super::{GraphSink, WriteStats};
use crate::graph::DocGraph;
use anyhow::Context;
use futures::future::BoxFuture;
use serde_json::json;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

pub use super::parts::PARTS_DIR;

/// Writes each document's part into one graph folder, and the import
/// files at [`GraphSink::finish`] when asked (or when the folder already
/// has them, so they never fall behind its parts).
pub struct FileSink {
    dir: PathBuf,
    import_files: bool,
    /// Documents written by this sink: one run writes a document once (a
    /// later run, e.g. a resume, replaces its part).
    written_docs: HashSet<String>,
}

impl FileSink {
    /// Creates `dir` and its `parts/` folder if needed; nothing existing is
    /// touched until `finish`.
    pub fn create(dir: &Path, import_files: bool) -> anyhow::Result<Self> {
        let parts = dir.join(PARTS_DIR);
        std::fs::create_dir_all(&parts)
            .with_context(|| format!("creating output directory {}", parts.display()))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            import_files,
            written_docs: HashSet::new(),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn write(&mut self, g: &DocGraph) -> anyhow::Result<WriteStats> {
        let doc_id = g.doc_id();
        if !self.written_docs.insert(doc_id.to_string()) {
            anyhow::bail!(
                "document {doc_id} was already written to {} in this run",
                self.dir.display()
            );
        }
        let mut lines: Vec<u8> = Vec::new();
        let mut line = |v: &serde_json::Value| -> anyhow::Result<()> {
            serde_json::to_writer(&mut lines, v)?;
            lines.push(b'\n');
            Ok(())
        };
        let mut stats = WriteStats::default();
        let m = &g.meta;
        line(
            &json!({"kind": "document", "doc_id": doc_id, "name": m.name,
            "doc_type": m.doc_type, "sha256": m.sha256, "path": m.path.display().to_string()}),
        )?;
        for s in &g.sections {
            line(&json!({"kind": "section", "doc_id": doc_id, "section": s}))?;
            stats.sections += 1;
        }
        for e in g.entities() {
            line(&json!({"kind": "entity", "doc_id": doc_id, "entity": e}))?;
            stats.mentions += e.mentions.len();
            stats.entities += 1;
        }
        for (a, edge, b) in g.relations() {
            line(
                &json!({"kind": "relation", "doc_id": doc_id, "source": a.key,
                "type": edge.rel_type, "target": b.key, "found_by": edge.source(),
                "provenance": edge.provenance}),
            )?;
            stats.relations += 1;
        }
        stats.statements = stats.sections + stats.entities + stats.relations + 1;
        parts::write_part(&self.dir, doc_id, &lines)?;
        Ok(stats)
    }

    /// The end of a batch: the import files (re)derived from every part
    /// when asked or already there; an older version's assembled
    /// `graph.jsonl` removed, since it would no longer match the parts
    /// (`kgroute export` prints the same lines).
    pub fn finish_files(&self) -> anyhow::Result<()> {
        let had_files =
            self.dir.join(NODES_CSV).is_file() || self.dir.join(RELATIONSHIPS_CSV).is_file();
        if self.import_files || had_files {
            import_files::write(&self.dir, &self.dir)?;
        }
        let old = self.dir.join(parts::OLD_GRAPH_JSONL);
        if old.is_file() {
            std::fs::remove_file(&old)
                .with_context(|| format!("{}: cannot remove", old.display()))?;
        }
        Ok(())
    }
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
        Box::pin(async move { self.finish_files() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A batch folder of an older version (an assembled `graph.jsonl`,
    /// import files) finished by this version: the stale assembled file is
    /// gone, the import files are derived again from every part, old and
    /// new.
    #[test]
    fn finishing_keeps_import_files_current_and_drops_the_old_assembly() {
        let dir = std::env::temp_dir().join(format!("kgroute-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let sink = FileSink::create(&dir, false).unwrap();
        std::fs::write(dir.join("graph.jsonl"), "{}\n").unwrap();
        std::fs::write(dir.join(NODES_CSV), "stale\n").unwrap();
        let doc = |id: &str| format!("{{\"kind\":\"document\",\"doc_id\":\"{id}\"}}\n");
        std::fs::write(
            dir.join(PARTS_DIR).join("a.json"),
            serde_json::json!({"doc_id": "a", "jsonl_lines": doc("a")}).to_string(),
        )
        .unwrap();
        parts::write_part(&dir, "b", doc("b").as_bytes()).unwrap();
        sink.finish_files().unwrap();
        assert!(!dir.join("graph.jsonl").exists());
        let nodes = std::fs::read_to_string(dir.join(NODES_CSV)).unwrap();
        assert!(
            nodes.starts_with(":ID,") && nodes.contains("doc:a,") && nodes.contains("doc:b,"),
            "{nodes}"
        );
        assert!(dir.join(RELATIONSHIPS_CSV).is_file());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
