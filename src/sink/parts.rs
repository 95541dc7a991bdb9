//! The offline graph's one copy on disk: a part file per document,
//! `graph/parts/<doc_id>.jsonl.gz`, holding the document's graph as JSON
//! lines (its document record, sections, entities and relations, in that
//! order), gzip-compressed and written through a temp file and a rename,
//! so a document is either wholly there or not at all.
//!
//! Everything else is derived from the parts when it is needed: the lines
//! of the whole graph in `doc_id` order ([`each_line`]: `ask` and `kgroute
//! export` read them), and the `neo4j-admin` import files
//! ([`super::import_files`]). Nothing holds a second copy by default: the
//! assembled `graph.jsonl` and import files made a batch several times the
//! size of its contracts.
//!
//! Batches of older versions still read: their parts (`<doc_id>.json`, a
//! JSON object of rendered rows and lines, deflated or plain) give their
//! lines, and a batch with no parts but a `graph.jsonl` gives that file's.

use crate::saved_docs::DocFiles;
use anyhow::Context;
use serde::Deserialize;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Folder of the per-document part files inside the graph's folder.
pub const PARTS_DIR: &str = "parts";
/// Ending of a part file.
pub const PART_ENDING: &str = ".jsonl.gz";
/// Ending of a part written by older versions.
const OLD_PART_ENDING: &str = ".json";
/// The whole graph's lines as older versions assembled them.
pub const OLD_GRAPH_JSONL: &str = "graph.jsonl";

/// The part files, one per document, in [`PARTS_DIR`].
const PARTS: DocFiles = DocFiles {
    ending: PART_ENDING,
    old_ending: OLD_PART_ENDING,
};

/// Where this version writes `doc_id`'s part.
pub fn part_path(graph_dir: &Path, doc_id: &str) -> PathBuf {
    PARTS.path(&graph_dir.join(PARTS_DIR), doc_id)
}

/// `doc_id`'s part as it is on disk: this version's, else an older one's.
pub fn existing_part(graph_dir: &Path, doc_id: &str) -> Option<PathBuf> {
    PARTS.existing(&graph_dir.join(PARTS_DIR), doc_id)
}

/// Writes `doc_id`'s lines as its part, replacing the part an earlier run
/// (of this version or an older one) wrote for it.
pub fn write_part(graph_dir: &Path, doc_id: &str, lines: &[u8]) -> anyhow::Result<()> {
    PARTS.write(&graph_dir.join(PARTS_DIR), doc_id, |w| {
        Ok(w.write_all(lines)?)
    })
}

/// Every part in the graph's folder as (document id, file), in `doc_id`
/// order; where a document has both forms, this version's.
pub fn part_files(graph_dir: &Path) -> anyhow::Result<Vec<(String, PathBuf)>> {
    PARTS.list(&graph_dir.join(PARTS_DIR))
}

/// Whether the batch's graph folder holds a graph to read (parts, or an
/// older version's `graph.jsonl`).
pub fn has_graph(graph_dir: &Path) -> bool {
    graph_dir.join(PARTS_DIR).is_dir() || graph_dir.join(OLD_GRAPH_JSONL).is_file()
}

/// Calls `f` with every line of the graph in `graph_dir`, document by
/// document in `doc_id` order, streamed (a part is never held whole).
/// Returns `false` when the folder holds no graph (e.g. the batch was
/// written to Neo4j). An error names the file and line.
pub fn each_line(
    graph_dir: &Path,
    mut f: impl FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<bool> {
    if !graph_dir.join(PARTS_DIR).is_dir() {
        let old = graph_dir.join(OLD_GRAPH_JSONL);
        let Ok(file) = std::fs::File::open(&old) else {
            return Ok(false);
        };
        stream_lines(&old, BufReader::new(file), &mut f)?;
        return Ok(true);
    }
    for (_, path) in part_files(graph_dir)? {
        each_line_of(&path, &mut f)?;
    }
    Ok(true)
}

/// Calls `f` with every line of one part file.
pub fn each_line_of(
    path: &Path,
    mut f: impl FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let name = path.to_string_lossy();
    if name.ends_with(OLD_PART_ENDING) {
        let lines = old_part_lines(path)?;
        return stream_lines(path, lines.as_bytes(), &mut f);
    }
    let file =
        std::fs::File::open(path).with_context(|| format!("{}: cannot read", path.display()))?;
    stream_lines(
        path,
        BufReader::new(flate2::read::GzDecoder::new(BufReader::new(file))),
        &mut f,
    )
}

fn stream_lines(
    path: &Path,
    reader: impl BufRead,
    f: &mut impl FnMut(&str) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    for (i, line) in reader.lines().enumerate() {
        let line = line.with_context(|| {
            format!(
                "{}:{}: cannot read (a damaged part: delete it and resume the batch to rewrite it)",
                path.display(),
                i + 1
            )
        })?;
        if line.is_empty() {
            continue;
        }
        f(&line).with_context(|| format!("{}:{}", path.display(), i + 1))?;
    }
    Ok(())
}

/// Whether `path` is a whole part: every line of it reads as a JSON
/// record (`kgroute merge` checks a shard's parts before it copies them,
/// so a damaged one is named where it is).
pub fn check_part(path: &Path) -> anyhow::Result<()> {
    each_line_of(path, |line| {
        serde_json::from_str::<serde::de::IgnoredAny>(line)
            .map(drop)
            .context(
                "not a kgroute graph record; delete the part and resume the batch to rewrite it",
            )
    })
}

/// An older version's part: rendered rows and lines (or rows and values,
/// older still). Only its lines are read; the import files are derived
/// from lines now.
#[derive(Deserialize)]
struct OldPart {
    #[serde(default)]
    jsonl_lines: String,
    #[serde(default)]
    jsonl: Vec<serde_json::Value>,
}

fn old_part_lines(path: &Path) -> anyhow::Result<String> {
    let mut bytes =
        std::fs::read(path).with_context(|| format!("{}: cannot read", path.display()))?;
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::with_capacity(bytes.len() * 6);
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .with_context(|| format!("{}: cannot read", path.display()))?;
        bytes = out;
    }
    let part: OldPart = serde_json::from_slice(&bytes).with_context(|| {
        format!(
            "{}: not a kgroute graph part; delete it and resume the batch to rewrite it",
            path.display()
        )
    })?;
    let mut lines = part.jsonl_lines;
    for v in part.jsonl {
        lines.push_str(&serde_json::to_string(&v)?);
        lines.push('\n');
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn tmp(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("kgroute-parts-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join(PARTS_DIR)).unwrap();
        dir
    }

    fn all_lines(dir: &Path) -> Vec<String> {
        let mut out = Vec::new();
        each_line(dir, |l| {
            out.push(l.to_string());
            Ok(())
        })
        .unwrap();
        out
    }

    /// Parts of this version and of the two older forms read alike, in
    /// `doc_id` order; a document rewritten by this version loses its old
    /// part, so its lines are read once.
    #[test]
    fn parts_of_every_version_read_in_doc_order() {
        let dir = tmp("versions");
        let old_plain =
            serde_json::json!({"doc_id": "a", "jsonl": [{"kind": "document", "doc_id": "a"}]});
        std::fs::write(dir.join(PARTS_DIR).join("a.json"), old_plain.to_string()).unwrap();
        let old_deflated = serde_json::json!({"doc_id": "c", "node_rows": "x",
            "jsonl_lines": "{\"doc_id\":\"c\",\"kind\":\"document\"}\n"});
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(old_deflated.to_string().as_bytes()).unwrap();
        std::fs::write(dir.join(PARTS_DIR).join("c.json"), z.finish().unwrap()).unwrap();
        write_part(&dir, "b", b"{\"doc_id\":\"b\",\"kind\":\"document\"}\n").unwrap();
        let raw = std::fs::read(part_path(&dir, "b")).unwrap();
        assert!(
            raw.starts_with(&[0x1f, 0x8b]),
            "parts are stored compressed"
        );

        assert_eq!(
            all_lines(&dir),
            [
                "{\"doc_id\":\"a\",\"kind\":\"document\"}",
                "{\"doc_id\":\"b\",\"kind\":\"document\"}",
                "{\"doc_id\":\"c\",\"kind\":\"document\"}"
            ]
        );
        write_part(
            &dir,
            "c",
            b"{\"doc_id\":\"c\",\"kind\":\"document\",\"v\":2}\n",
        )
        .unwrap();
        assert!(!dir.join(PARTS_DIR).join("c.json").exists());
        assert_eq!(all_lines(&dir).len(), 3);
        assert!(all_lines(&dir)[2].contains("\"v\":2"));
        assert_eq!(
            existing_part(&dir, "a"),
            Some(dir.join(PARTS_DIR).join("a.json"))
        );
        assert_eq!(existing_part(&dir, "zz"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A cut part is refused naming the file, never read as a shorter
    /// graph.
    #[test]
    fn a_damaged_part_is_named() {
        let dir = tmp("damaged");
        write_part(
            &dir,
            "a",
            "{\"doc_id\":\"a\",\"kind\":\"document\"}\n"
                .repeat(200)
                .as_bytes(),
        )
        .unwrap();
        let path = part_path(&dir, "a");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() / 2]).unwrap();
        let err = format!("{:#}", check_part(&path).unwrap_err());
        assert!(err.contains("a.jsonl.gz"), "{err}");
        assert!(each_line(&dir, |_| Ok(())).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A batch of an older version with only the assembled file still
    /// reads; a folder with neither has no graph.
    #[test]
    fn an_assembled_graph_of_an_older_version_reads() {
        let dir = tmp("assembled");
        std::fs::remove_dir_all(dir.join(PARTS_DIR)).unwrap();
        assert!(!each_line(&dir, |_| Ok(())).unwrap());
        std::fs::write(dir.join(OLD_GRAPH_JSONL), "{\"kind\":\"document\"}\n").unwrap();
        assert_eq!(all_lines(&dir), ["{\"kind\":\"document\"}"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
