//! What a family's model learns from: the paragraphs of a batch's saved
//! documents, each labelled by whether it holds a relation its section's
//! extraction found, or by a reviewer's decision on it.
//!
//! A paragraph is labelled from a section the extractor read whole (a
//! calibrated batch reads every one; another batch only those its titles
//! sent whole), since of a section sent in pieces only the pieces sent
//! were read. It holds a relation when the relation's evidence, words
//! compared without case or punctuation, lies in it. Only relations of
//! sections whose extraction earned a tier worth sending count (Medium and
//! up: what routing is there to keep), and cross-references
//! (`REFERENCES`) do not: they point at text elsewhere. A reviewer's
//! decision on a paragraph (`indices/<type>.paragraphs.tsv`) labels it
//! whatever its section was, and weighs twice.

use crate::extract::{SectionExtraction, SectionStatus};
use crate::index::reviewed::{fingerprint, ReviewedParagraphs};
use crate::index::Tier;
use crate::route::{Route, RoutePlan};
use crate::tree::paragraphs::paragraph_pieces;
use crate::tree::SourceText;
use anyhow::Context;
use serde::Deserialize;
use std::collections::HashMap;
use std::path::PathBuf;

/// Paragraphs of fewer words are headings: routing gives them the score
/// of the paragraph after them, so they are not learned from.
const SHORT_WORDS: usize = 8;

/// Relation types that only point at other text.
const POINTERS: &[&str] = &["REFERENCES"];

/// One labelled paragraph.
#[derive(Debug, Clone)]
pub struct Labelled {
    /// Which document (an index into [`Labels::documents`]).
    pub document: usize,
    pub title: String,
    /// The paragraph's text as routing scores it.
    pub text: String,
    pub chars: usize,
    /// Relations whose evidence lies in it.
    pub relations: u32,
    /// Whether it is a paragraph worth sending.
    pub positive: bool,
    /// A reviewer decided `positive`.
    pub reviewed: bool,
    /// Its section's title tier, as the batch routed it.
    pub title_tier: Option<Tier>,
}

/// Everything read from a family's batches.
#[derive(Debug, Default)]
pub struct Labels {
    pub paragraphs: Vec<Labelled>,
    /// The documents learned from, by name.
    pub documents: Vec<String>,
    /// Documents of other types in the batches.
    pub other_types: HashMap<String, usize>,
    /// Documents of the type whose source could not be read or changed
    /// since the batch (named, with why).
    pub unreadable: Vec<String>,
    /// Sections read whole, and those of the type left out because they
    /// were not (skipped, sent in pieces, failed).
    pub sections_read: usize,
    pub sections_left: usize,
    /// Relations counted, and those whose evidence is in no paragraph.
    pub relations: usize,
    pub unplaced: usize,
}

#[derive(Deserialize)]
struct Saved {
    meta: SavedMeta,
    plan: RoutePlan,
    #[serde(default)]
    extractions: Vec<SectionExtraction>,
}

#[derive(Deserialize)]
struct SavedMeta {
    name: String,
    #[serde(default)]
    sha256: String,
    #[serde(default)]
    path: PathBuf,
}

/// Reads the paragraphs of every document of `doc_type` in the batch
/// folders `batches`, labelled.
pub fn read(
    batches: &[PathBuf],
    doc_type: &str,
    reviewed: &ReviewedParagraphs,
) -> anyhow::Result<Labels> {
    let mut out = Labels::default();
    for dir in batches {
        for file in crate::review::draft::input::saved_files(dir)? {
            let bytes = crate::saved_docs::read(&file)?;
            let saved: Saved = serde_json::from_slice(&bytes)
                .with_context(|| format!("{}: not a saved document of a batch", file.display()))?;
            if saved.plan.doc_type != doc_type {
                *out.other_types.entry(saved.plan.doc_type).or_default() += 1;
                continue;
            }
            let source = match SourceText::read(&saved.meta.path, true) {
                Ok(s) => s,
                Err(e) => {
                    out.unreadable
                        .push(format!("{}: {e}", saved.meta.path.display()));
                    continue;
                }
            };
            // Its spans index the text the batch read: a changed file
            // would label other words.
            if !saved.meta.sha256.is_empty()
                && source
                    .file_sha256_hex()
                    .is_some_and(|h| h != saved.meta.sha256)
            {
                out.unreadable.push(format!(
                    "{}: changed since the batch read it",
                    saved.meta.path.display()
                ));
                continue;
            }
            let document = out.documents.len();
            out.documents.push(saved.meta.name.clone());
            label_document(&saved, &source, document, reviewed, &mut out);
        }
    }
    Ok(out)
}

fn label_document(
    saved: &Saved,
    source: &SourceText,
    document: usize,
    reviewed: &ReviewedParagraphs,
    out: &mut Labels,
) {
    let by_node: HashMap<&str, &SectionExtraction> = saved
        .extractions
        .iter()
        .map(|e| (e.node_id.as_str(), e))
        .collect();
    for s in &saved.plan.sections {
        if matches!(s.route, Route::Noise | Route::Empty) || s.end_byte <= s.start_byte {
            continue;
        }
        if s.end_byte > source.text.len() || !source.text.is_char_boundary(s.start_byte) {
            continue;
        }
        let read_whole = s.route == Route::Llm
            && s.paragraphs.is_empty()
            && by_node
                .get(s.node_id.as_str())
                .is_some_and(|e| !matches!(e.status, SectionStatus::Failed(_)));
        let extraction = by_node.get(s.node_id.as_str()).filter(|_| read_whole);
        if read_whole {
            out.sections_read += 1;
        } else {
            out.sections_left += 1;
            if reviewed.is_empty() {
                continue;
            }
        }
        let text = source.byte_span_text(s.start_byte, s.end_byte);
        let pieces = paragraph_pieces(text);
        let found = extraction
            .map(|e| place_relations(e, text, &pieces, out))
            .unwrap_or_else(|| vec![0; pieces.len()]);
        for (p, relations) in pieces.iter().zip(found) {
            let piece_text = &text[p.start..p.end];
            let decision = (!reviewed.is_empty())
                .then(|| reviewed.decision(&fingerprint(piece_text)))
                .flatten();
            let short = p
                .paragraphs
                .iter()
                .flat_map(|x| x.split_whitespace())
                .take(SHORT_WORDS)
                .count()
                < SHORT_WORDS;
            let positive = match decision {
                Some(send) => send,
                None if extraction.is_none() || short => continue,
                None => relations > 0,
            };
            out.paragraphs.push(Labelled {
                document,
                title: s.title.clone(),
                text: p.paragraphs.join("\n"),
                chars: piece_text.chars().count(),
                relations,
                positive,
                reviewed: decision.is_some(),
                title_tier: s.predicted_tier,
            });
        }
    }
}

/// How many counted relations of the extraction each piece holds.
fn place_relations(
    e: &SectionExtraction,
    text: &str,
    pieces: &[crate::tree::paragraphs::ParagraphPiece],
    out: &mut Labels,
) -> Vec<u32> {
    let mut counts = vec![0u32; pieces.len()];
    if !e.actual_tier.is_sent() {
        return counts;
    }
    // The section's words, piece after piece, and where each piece's
    // words start in them.
    let mut words = String::new();
    let mut starts = Vec::with_capacity(pieces.len());
    for p in pieces {
        if !words.is_empty() {
            words.push(' ');
        }
        starts.push(words.len());
        push_words(&text[p.start..p.end], &mut words);
    }
    for r in &e.relations {
        if POINTERS.contains(&r.relation_type.as_str()) {
            continue;
        }
        out.relations += 1;
        let mut evidence = String::new();
        push_words(&r.evidence, &mut evidence);
        let Some(at) = (!evidence.is_empty())
            .then(|| words.find(&evidence))
            .flatten()
        else {
            out.unplaced += 1;
            continue;
        };
        let end = at + evidence.len();
        // Every piece the evidence runs through holds the relation.
        let first = starts.partition_point(|&s| s <= at).saturating_sub(1);
        let last = starts.partition_point(|&s| s < end).saturating_sub(1);
        for c in &mut counts[first..=last.max(first)] {
            *c += 1;
        }
    }
    counts
}

/// Appends `text`'s words, lower case, one space apart.
fn push_words(text: &str, out: &mut String) {
    let mut gap = false;
    let start = out.len();
    for c in text.chars() {
        if c.is_alphanumeric() {
            if gap && out.len() > start {
                out.push(' ');
            }
            gap = false;
            out.extend(c.to_lowercase());
        } else {
            gap = true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_is_found_in_its_paragraph_whatever_its_case_and_breaks() {
        let text = "The Supplier shall deliver the Goods within thirty days.\n\n\
                    Neither party may assign this Agreement without the prior written consent of the other party.\n\n\
                    Headings are for convenience only and have no effect on the reading of it.\n";
        let pieces = paragraph_pieces(text);
        assert_eq!(pieces.len(), 3);
        let rel = |ty: &str, ev: &str| crate::extract::Relation {
            source: "A".into(),
            relation_type: ty.into(),
            target: "B".into(),
            evidence: ev.into(),
            reading: None,
        };
        let mut e: SectionExtraction = serde_json::from_value(serde_json::json!({
            "doc_id": "d", "node_id": "n", "entities": [], "relations": [], "pruned": [],
            "model_tier": null, "model_why": null, "density_tier": "high",
            "actual_tier": "high", "tokens_in": 0, "tokens_out": 0,
            "extractor": "rules", "status": {"state": "ok"}
        }))
        .unwrap();
        e.relations = vec![
            rel("RESTRICTS", "NEITHER party may assign this\nAgreement"),
            rel("REFERENCES", "Goods within thirty days"),
            rel(
                "OBLIGATED_TO",
                "deliver the Goods within thirty days. Neither party",
            ),
            rel("HAS_PERIOD", "words that are nowhere"),
        ];
        let mut out = Labels::default();
        let counts = place_relations(&e, text, &pieces, &mut out);
        // The cross-reference is not counted; the obligation runs into the
        // second paragraph, so both hold it.
        assert_eq!(counts, vec![1, 2, 0]);
        assert_eq!((out.relations, out.unplaced), (3, 1));

        e.actual_tier = Tier::Low;
        let counts = place_relations(&e, text, &pieces, &mut Labels::default());
        assert_eq!(
            counts,
            vec![0, 0, 0],
            "a Low section's relations teach nothing"
        );
    }
}
