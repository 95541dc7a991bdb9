//! The graph's `neo4j-admin database import` files, derived from its
//! parts when asked (`ingest --import-files`, `kgroute export
//! --import-files`): `nodes.csv` and `relationships.csv` in the import
//! header format. Import with:
//!
//! `neo4j-admin database import full --nodes=DIR/nodes.csv
//!  --relationships=DIR/relationships.csv --multiline-fields=true
//!  --array-delimiter=U+001F neo4j`
//!
//! IDs: `doc:<doc_id>`, `sec:<uid>`, `ent:<key>`. A relation's
//! `node_ids`/`evidences` lists are filled only when it was found in more
//! than one place (an empty field sets no property), as the Neo4j sink
//! writes them. Array values and multiple labels are joined with U+001F
//! (not `;`, which evidence text often contains). A global entity met in
//! several documents is written once, with the name and aliases of its
//! first document (in `doc_id` order).

use super::parts;
use anyhow::Context;
use serde::Deserialize;
use std::collections::{BTreeSet, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

/// Separator of array elements inside one CSV field.
pub const ARRAY_DELIMITER: char = '\u{1F}';
/// The node file's name.
pub const NODES_CSV: &str = "nodes.csv";
/// The relationship file's name.
pub const RELATIONSHIPS_CSV: &str = "relationships.csv";

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

/// What [`write`] wrote.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct ImportCounts {
    pub nodes: usize,
    pub relationships: usize,
}

/// One graph line, as the parts hold it.
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum Line {
    Document {
        doc_id: String,
        #[serde(default)]
        name: String,
        #[serde(default)]
        doc_type: String,
        #[serde(default)]
        sha256: String,
        #[serde(default)]
        path: String,
    },
    Section {
        doc_id: String,
        section: Section,
    },
    Entity {
        doc_id: String,
        entity: Entity,
    },
    Relation {
        doc_id: String,
        source: String,
        #[serde(rename = "type")]
        rel_type: String,
        target: String,
        #[serde(default)]
        found_by: String,
        #[serde(default)]
        provenance: Vec<Provenance>,
    },
}

#[derive(Deserialize)]
struct Section {
    uid: String,
    node_id: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    label: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    breadcrumb: String,
    start_line: usize,
    end_line: usize,
    chars: usize,
    #[serde(default)]
    predicted_tier: Option<String>,
    #[serde(default)]
    actual_tier: Option<String>,
    route: String,
    #[serde(default)]
    parent_uid: Option<String>,
}

#[derive(Deserialize)]
struct Entity {
    key: String,
    name: String,
    entity_type: String,
    #[serde(default)]
    label: Option<String>,
    #[serde(default)]
    doc_id: Option<String>,
    #[serde(default)]
    aliases: BTreeSet<String>,
    #[serde(default)]
    mentions: BTreeSet<String>,
}

#[derive(Deserialize)]
struct Provenance {
    #[serde(default)]
    node_id: String,
    #[serde(default)]
    evidence: String,
}

/// Writes `nodes.csv` and `relationships.csv` into `out_dir` from the
/// graph in `graph_dir`, each through a temp file and a rename (an import
/// file is whole or as it was).
pub fn write(graph_dir: &Path, out_dir: &Path) -> anyhow::Result<ImportCounts> {
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("{}: cannot create", out_dir.display()))?;
    let mut nodes = AtomicCsv::create(&out_dir.join(NODES_CSV))?;
    let mut rels = AtomicCsv::create(&out_dir.join(RELATIONSHIPS_CSV))?;
    nodes.row(&NODE_HEADER)?;
    rels.row(&REL_HEADER)?;
    let mut counts = ImportCounts::default();
    // Global entities already written (document-scoped ones carry their
    // document in their key and are never met twice).
    let mut globals: HashSet<String> = HashSet::new();
    let found = parts::each_line(graph_dir, |line| {
        let line: Line = serde_json::from_str(line).context("not a kgroute graph record")?;
        rows_of(line, &mut nodes, &mut rels, &mut globals, &mut counts)
    })?;
    if !found {
        anyhow::bail!(
            "{}: no graph here (no parts/ folder): was the batch written to Neo4j?",
            graph_dir.display()
        );
    }
    nodes.commit()?;
    rels.commit()?;
    Ok(counts)
}

fn rows_of(
    line: Line,
    nodes: &mut AtomicCsv,
    rels: &mut AtomicCsv,
    globals: &mut HashSet<String>,
    counts: &mut ImportCounts,
) -> anyhow::Result<()> {
    let mut node = |fields: &[&str]| {
        counts.nodes += 1;
        nodes.padded(fields, NODE_HEADER.len())
    };
    match line {
        Line::Document {
            doc_id,
            name,
            doc_type,
            sha256,
            path,
        } => node(&[
            &format!("doc:{doc_id}"),
            "Document",
            &doc_id,
            &name,
            &doc_type,
            &sha256,
            &path,
        ])?,
        Line::Section { doc_id, section: s } => {
            let id = format!("sec:{}", s.uid);
            node(&[
                &id,
                "Section",
                &doc_id,
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
                s.predicted_tier.as_deref().unwrap_or(""),
                s.actual_tier.as_deref().unwrap_or(""),
                &s.route,
                "",
                "",
                "",
                &s.label,
            ])?;
            counts.relationships += 1;
            rels.padded(
                &[&id, &format!("doc:{doc_id}"), "IN_DOCUMENT"],
                REL_HEADER.len(),
            )?;
            if let Some(p) = &s.parent_uid {
                counts.relationships += 1;
                rels.padded(&[&id, &format!("sec:{p}"), "CHILD_OF"], REL_HEADER.len())?;
            }
        }
        Line::Entity { doc_id, entity: e } => {
            let id = format!("ent:{}", e.key);
            if e.doc_id.is_some() || globals.insert(id.clone()) {
                let labels = match &e.label {
                    Some(l) => format!("Entity{ARRAY_DELIMITER}{l}"),
                    None => "Entity".to_string(),
                };
                let aliases = join_array(e.aliases.iter().map(String::as_str));
                let mut row: Vec<&str> =
                    vec![&id, &labels, e.doc_id.as_deref().unwrap_or(""), &e.name];
                row.extend(std::iter::repeat_n("", 13));
                row.extend([e.key.as_str(), e.entity_type.as_str(), aliases.as_str()]);
                node(&row)?;
            }
            for n in &e.mentions {
                counts.relationships += 1;
                rels.padded(
                    &[&id, &format!("sec:{doc_id}#{n}"), "MENTIONED_IN"],
                    REL_HEADER.len(),
                )?;
            }
        }
        Line::Relation {
            doc_id,
            source,
            rel_type,
            target,
            found_by,
            provenance,
        } => {
            let first = provenance.first();
            // The lists only when there is more than one place, as the
            // Neo4j sink writes them: with one place they would repeat
            // `node_id` and `evidence`.
            let many = provenance.len() > 1;
            let list = |f: fn(&Provenance) -> &str| {
                if many {
                    join_array(provenance.iter().map(f))
                } else {
                    String::new()
                }
            };
            counts.relationships += 1;
            rels.padded(
                &[
                    &format!("ent:{source}"),
                    &format!("ent:{target}"),
                    &rel_type,
                    &doc_id,
                    first.map(|p| p.node_id.as_str()).unwrap_or(""),
                    first.map(|p| p.evidence.as_str()).unwrap_or(""),
                    &found_by,
                    &list(|p| p.node_id.as_str()),
                    &list(|p| p.evidence.as_str()),
                ],
                REL_HEADER.len(),
            )?;
        }
    }
    Ok(())
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

/// `.<name>.tmp<pid>` beside `path`.
fn tmp_path(path: &Path) -> PathBuf {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    path.with_file_name(format!(".{name}.tmp{}", std::process::id()))
}

/// A CSV file written to a temp file and renamed into place on `commit`.
struct AtomicCsv {
    path: PathBuf,
    tmp: PathBuf,
    /// `None` once committed.
    w: Option<csv::Writer<BufWriter<File>>>,
}

impl AtomicCsv {
    fn create(path: &Path) -> anyhow::Result<Self> {
        let tmp = tmp_path(path);
        let f = File::create(&tmp).with_context(|| format!("creating {}", tmp.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            w: Some(csv::Writer::from_writer(BufWriter::new(f))),
        })
    }

    fn row(&mut self, fields: &[&str]) -> anyhow::Result<()> {
        self.padded(fields, fields.len())
    }

    /// A row padded with empty fields to the header's width.
    fn padded(&mut self, fields: &[&str], width: usize) -> anyhow::Result<()> {
        let pad = width.saturating_sub(fields.len());
        let path = &self.path;
        self.w
            .as_mut()
            .expect("written after commit")
            .write_record(fields.iter().copied().chain(std::iter::repeat_n("", pad)))
            .with_context(|| format!("writing {}", path.display()))
    }

    fn commit(mut self) -> anyhow::Result<()> {
        let mut w = self
            .w
            .take()
            .expect("committed once")
            .into_inner()
            .map_err(|e| anyhow::anyhow!("writing {}: {}", self.path.display(), e.error()))?;
        w.flush()
            .with_context(|| format!("writing {}", self.path.display()))?;
        drop(w);
        std::fs::rename(&self.tmp, &self.path)
            .with_context(|| format!("cannot replace {}", self.path.display()))
    }
}

impl Drop for AtomicCsv {
    fn drop(&mut self) {
        // After a commit the temp file is gone; after a failure it is
        // removed, so no half-written file is left beside the real one.
        let _ = std::fs::remove_file(&self.tmp);
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

    /// Rows of two documents' lines: a global entity once with the first
    /// document's name, document-scoped ones each, every row the header's
    /// width, the lists only for a relation found in two places.
    #[test]
    fn rows_come_from_the_lines() {
        let dir = std::env::temp_dir().join(format!("kgroute-import-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let lines = |doc: &str, acme: &str, party: &str| {
            let mut s = String::new();
            for v in [
                serde_json::json!({"kind": "document", "doc_id": doc, "name": format!("{doc}.txt"),
                    "doc_type": "credit", "sha256": "ab", "path": "/x"}),
                serde_json::json!({"kind": "section", "doc_id": doc, "section": {
                    "uid": format!("{doc}#0001"), "node_id": "0001", "title": "Parties", "label": "1",
                    "name": "Parties", "breadcrumb": "1. Parties", "start_line": 1, "end_line": 9,
                    "chars": 300, "predicted_tier": "high", "actual_tier": null, "route": "llm",
                    "parent_uid": null}}),
                serde_json::json!({"kind": "entity", "doc_id": doc, "entity": {"key": "org:acme",
                    "name": acme, "entity_type": "Organization", "label": "Organization",
                    "doc_id": null, "aliases": ["ACME"], "mentions": ["0001"]}}),
                serde_json::json!({"kind": "entity", "doc_id": doc, "entity": {
                    "key": format!("{doc}/role:borrower"), "name": party, "entity_type": "Role",
                    "doc_id": doc, "aliases": [], "mentions": []}}),
                serde_json::json!({"kind": "relation", "doc_id": doc, "source": "org:acme",
                    "type": "HAS_ROLE", "target": format!("{doc}/role:borrower"), "found_by": "rules",
                    "provenance": [{"doc_id": doc, "node_id": "0001", "evidence": "Acme, the Borrower"},
                                   {"doc_id": doc, "node_id": "0002", "evidence": "as Borrower; \"Acme\""}]}),
            ] {
                s.push_str(&v.to_string());
                s.push('\n');
            }
            s
        };
        parts::write_part(&dir, "b", lines("b", "Acme Corp", "Borrower").as_bytes()).unwrap();
        parts::write_part(&dir, "a", lines("a", "Acme", "Borrower, \"X\"").as_bytes()).unwrap();
        let counts = write(&dir, &dir).unwrap();

        let nodes = rows(&dir.join(NODES_CSV));
        let ids: Vec<&str> = nodes.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(
            ids,
            [
                ":ID",
                "doc:a",
                "sec:a#0001",
                "ent:org:acme",
                "ent:a/role:borrower",
                "doc:b",
                "sec:b#0001",
                "ent:b/role:borrower"
            ]
        );
        assert_eq!(counts.nodes, ids.len() - 1);
        assert!(nodes.iter().all(|r| r.len() == NODE_HEADER.len()));
        assert_eq!(nodes[3][3], "Acme", "the first document's name wins");
        assert_eq!(nodes[3][1], "Entity\u{1F}Organization");
        assert_eq!(nodes[4][3], "Borrower, \"X\"");
        assert_eq!(&nodes[2][11..17], ["1", "9", "300", "high", "", "llm"]);

        let rels = rows(&dir.join(RELATIONSHIPS_CSV));
        assert!(rels.iter().all(|r| r.len() == REL_HEADER.len()));
        let types: Vec<&str> = rels.iter().skip(1).map(|r| r[2].as_str()).collect();
        assert_eq!(
            types,
            [
                "IN_DOCUMENT",
                "MENTIONED_IN",
                "HAS_ROLE",
                "IN_DOCUMENT",
                "MENTIONED_IN",
                "HAS_ROLE"
            ]
        );
        assert_eq!(counts.relationships, 6);
        let has_role = &rels[3];
        assert_eq!(has_role[5], "Acme, the Borrower");
        assert_eq!(has_role[7], "0001\u{1F}0002");
        assert_eq!(has_role[8], "Acme, the Borrower\u{1F}as Borrower; \"Acme\"");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder without a graph is refused, and no import file is left.
    #[test]
    fn no_graph_no_files() {
        let dir = std::env::temp_dir().join(format!("kgroute-import-none-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let err = format!("{:#}", write(&dir, &dir).unwrap_err());
        assert!(err.contains("no graph here"), "{err}");
        assert!(!dir.join(NODES_CSV).exists());
        let leftovers: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
        assert!(leftovers.is_empty(), "{leftovers:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
