//! Reads the ranked sections whole from their source files, and never
//! returns the wrong text: a section is returned only while its file still
//! hashes as it did when indexed (its pointer keeps the file's SHA-256).
//! One line inserted after ingest shifted every span by its length, and
//! `ask` printed text starting mid-sentence with exit 0. Now a changed file
//! is reported once for its document (with the way to re-ingest it), an
//! unreadable or moved file fails its own sections only, and the caller
//! goes on with the other documents' sections (and exits 1).

use super::{FoundSection, SectionHit};
use crate::tree::source::ReadOptions;
use crate::tree::SourceText;
use serde::Serialize;
use std::collections::HashMap;

/// Why a document's sections were not returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ProblemKind {
    /// The file's bytes differ from what was ingested.
    Changed,
    /// The file cannot be read (moved, deleted, no permission).
    Unreadable,
}

/// A document whose sections matched but were left out.
#[derive(Debug, Clone, Serialize)]
pub struct DocProblem {
    pub doc_id: String,
    pub doc_name: String,
    pub path: String,
    pub kind: ProblemKind,
    /// What went wrong and what to do, one line.
    pub message: String,
}

/// What reading the ranked sections gave.
#[derive(Debug, Default)]
pub struct ReadSections {
    pub sections: Vec<FoundSection>,
    /// One per document left out, in the order they were met.
    pub problems: Vec<DocProblem>,
}

/// Reads the first `top` sections of `hits` whose documents are as
/// ingested (each file read once); the others' documents become problems.
pub fn read_sections(hits: &[SectionHit], top: usize) -> ReadSections {
    let mut sources: HashMap<&str, Result<SourceText, usize>> = HashMap::new();
    let mut out = ReadSections::default();
    for h in hits {
        if out.sections.len() >= top {
            break;
        }
        let p = &h.pointer;
        let source = sources
            .entry(p.path.as_str())
            .or_insert_with(|| match check_source(h) {
                Ok(s) => Ok(s),
                Err(problem) => {
                    out.problems.push(problem);
                    Err(out.problems.len() - 1)
                }
            });
        let Ok(s) = source else { continue };
        if !span_fits(s, h) {
            // Only an index without file hashes gets here: the file changed.
            let problem = changed(h, "its sections no longer fit the file");
            out.problems.push(problem);
            *source = Err(out.problems.len() - 1);
            continue;
        }
        let (start_byte, end_byte) = s.file_span(p.start_byte, p.end_byte);
        out.sections.push(FoundSection {
            rank: out.sections.len() + 1,
            score: h.score,
            // The file's bytes, for a tool slicing the file (the index
            // keeps offsets of the decoded text).
            pointer: crate::search::SectionPointer {
                start_byte,
                end_byte,
                ..p.clone()
            },
            // The pointer's text, line ends as `\n`.
            text: s.text[p.start_byte..p.end_byte].to_string(),
        });
    }
    out
}

/// The section's source, read, when it is what was ingested.
fn check_source(h: &SectionHit) -> Result<SourceText, DocProblem> {
    let p = &h.pointer;
    let s = SourceText::read_with(std::path::Path::new(&p.path), &ReadOptions::default())
        .map_err(|e| DocProblem {
            doc_id: p.doc_id.clone(),
            doc_name: p.doc_name.clone(),
            path: p.path.clone(),
            kind: ProblemKind::Unreadable,
            message: format!(
                "{}: cannot read the source its sections come from ({e:#}); its sections are left out. If it moved, ingest it from its new place",
                p.path
            ),
        })?;
    match (&p.sha256, s.file_sha256_hex()) {
        (Some(then), Some(now)) if *then != now => Err(changed(h, "its content changed")),
        _ => Ok(s),
    }
}

fn span_fits(s: &SourceText, h: &SectionHit) -> bool {
    let p = &h.pointer;
    p.start_byte <= p.end_byte
        && p.end_byte <= s.text.len()
        && s.text.is_char_boundary(p.start_byte)
        && s.text.is_char_boundary(p.end_byte)
}

fn changed(h: &SectionHit, what: &str) -> DocProblem {
    let p = &h.pointer;
    DocProblem {
        doc_id: p.doc_id.clone(),
        doc_name: p.doc_name.clone(),
        path: p.path.clone(),
        kind: ProblemKind::Changed,
        message: format!(
            "{}: {what} since it was ingested, so its sections are left out rather than shown shifted; ingest it again (`kgroute ingest {} --out NEW_BATCH`) to ask about it as it is now",
            p.path, p.path
        ),
    }
}
