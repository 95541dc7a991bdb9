//! `kgroute review paragraphs.csv`: a reviewer's decisions on the
//! paragraphs a plan routed by content (its `decision` column: `send` or
//! `skip`), kept beside the index of each row's document type
//! ([`crate::index::reviewed`]), where every later plan and ingest reads
//! them before any score.

use super::decision::read_csv;
use crate::index::reviewed::{self, parse_decision, ReviewedParagraph, ReviewedParagraphs};
use crate::index::{GraphabilityIndex, IndexSet};
use anyhow::{Context, Result};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The columns a reviewed paragraphs.csv needs.
const NEEDED: [&str; 7] = [
    "doc_name",
    "doc_type",
    "start_line",
    "category",
    "opening",
    "fingerprint",
    "decision",
];

/// Whether `path` is a plan's paragraphs.csv (its header names a
/// paragraph's fingerprint), not an ingest's sections.csv.
pub fn is_paragraphs_csv(path: &Path) -> bool {
    use std::io::Read;
    // The header only: a plan's paragraphs.csv runs to megabytes.
    let mut head = Vec::with_capacity(4096);
    let read = std::fs::File::open(path).and_then(|f| f.take(4096).read_to_end(&mut head));
    if read.is_err() {
        return false;
    }
    let head = String::from_utf8_lossy(&head);
    let header = head.lines().next().unwrap_or("");
    header.contains("fingerprint") && header.contains("start_byte") && header.contains("opening")
}

/// A document type's decisions from the CSV, by fingerprint, each with
/// its CSV line.
type Decided = BTreeMap<String, (usize, ReviewedParagraph)>;

/// What a review does to one document type's decisions file.
#[derive(Debug)]
pub struct FileReview {
    pub document_type: String,
    /// The decisions file, beside the type's index.
    pub path: PathBuf,
    /// Every decision, the file's and the review's.
    pub decisions: ReviewedParagraphs,
    /// One line per decision the review adds or changes.
    pub changes: Vec<String>,
    pub unchanged: usize,
}

/// The decisions of a reviewed paragraphs.csv, by the file each goes to.
#[derive(Debug, Default)]
pub struct ParagraphReview {
    pub files: Vec<FileReview>,
    /// One line per decision that has no index to go to.
    pub unwritable: Vec<String>,
}

/// Reads the decisions of `csv_path` and sorts them to the decisions files
/// beside the indices of `index` (a folder of indices, or one index file,
/// which takes only its own type's rows). Every unreadable decision is an
/// error naming its line; a paragraph decided both ways in one file too.
pub fn review_paragraphs(csv_path: &Path, index: &Path) -> Result<ParagraphReview> {
    let file = csv_path.display().to_string();
    let mut errors = Vec::new();
    let table = read_csv(csv_path, &mut errors)?;
    if let Some(e) = errors.first() {
        anyhow::bail!("{e}");
    }
    let mut col = HashMap::new();
    for name in NEEDED {
        let Some(i) = table.headers.iter().position(|h| h == name) else {
            anyhow::bail!(
                "{file}:1: no `{name}` column; expected the paragraphs.csv written by `kgroute plan` (plan again to get one that can be reviewed)"
            );
        };
        col.insert(name, i);
    }
    // The type's own index file: decisions are kept beside it.
    let owners: BTreeMap<String, PathBuf> = if index.is_dir() {
        let set = IndexSet::load(&[index.to_path_buf()])?;
        set.indices
            .iter()
            .filter_map(|i| Some((i.document_type.clone(), i.sources.last()?.clone())))
            .collect()
    } else {
        let i = GraphabilityIndex::load(&[index.to_path_buf()])?;
        BTreeMap::from([(i.document_type.clone(), index.to_path_buf())])
    };
    let mut by_type: BTreeMap<String, (Decided, PathBuf)> = BTreeMap::new();
    let mut out = ParagraphReview::default();
    for (line, rec) in &table.rows {
        let cell = |name: &str| {
            crate::report::sanitize_title(rec.get(col[name]).map_or("", String::as_str))
                .into_owned()
        };
        let raw = cell("decision");
        if raw.trim().is_empty() {
            continue;
        }
        let Some(send) = parse_decision(&raw) else {
            anyhow::bail!("{file}:{line}: decision `{raw}`: expected `send` or `skip` (or blank)");
        };
        let fp = cell("fingerprint").trim().to_ascii_lowercase();
        if fp.len() != 16 || !fp.bytes().all(|b| b.is_ascii_hexdigit()) {
            anyhow::bail!("{file}:{line}: `{fp}` is not a paragraph fingerprint; keep the plan's fingerprint column as written");
        }
        let ty = cell("doc_type");
        let Some(yaml) = owners.get(&ty) else {
            out.unwritable.push(format!(
                "{file}:{line} ({}, line {}): `{raw}` not written: no index of type `{ty}` in {}",
                cell("doc_name"),
                cell("start_line"),
                index.display()
            ));
            continue;
        };
        let entry = ReviewedParagraph {
            fingerprint: fp.clone(),
            send,
            category: cell("category"),
            opening: cell("opening"),
        };
        let (decided, _) = by_type
            .entry(ty)
            .or_insert_with(|| (BTreeMap::new(), reviewed::path_beside(yaml)));
        if let Some((first, was)) = decided.get(&fp) {
            if was.send != send {
                anyhow::bail!(
                    "{file}:{line}: this paragraph is decided `{raw}` here and the other way at line {first} (same words, fingerprint {fp})"
                );
            }
            continue;
        }
        decided.insert(fp, (*line, entry));
    }
    for (document_type, (decided, path)) in by_type {
        let yaml = owners[&document_type].clone();
        let mut decisions = ReviewedParagraphs::load_beside(&yaml)
            .with_context(|| format!("reading the decisions beside {}", yaml.display()))?;
        let mut changes = Vec::new();
        let mut unchanged = 0;
        for (_, (line, entry)) in decided {
            let word = if entry.send { "send" } else { "skip" };
            let opening: String = entry.opening.chars().take(60).collect();
            let note = format!("{word} {} (line {line}) {opening}", entry.fingerprint);
            match decisions.decision(&entry.fingerprint) {
                Some(was) if was == entry.send => unchanged += 1,
                Some(_) => changes.push(format!("~ {note}")),
                None => changes.push(format!("+ {note}")),
            }
            decisions.decide(entry);
        }
        out.files.push(FileReview {
            document_type,
            path,
            decisions,
            changes,
            unchanged,
        });
    }
    Ok(out)
}

/// Replaces the decisions file of `review` (written whole beside it, then
/// renamed over it: a reader never sees half a file).
pub fn write(review: &FileReview) -> Result<()> {
    let text = review.decisions.to_text(&review.document_type);
    crate::atomic_file::write_atomic(&review.path, text.as_bytes())
}
