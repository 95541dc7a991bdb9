//! Two rankings of the same index fused by reciprocal rank:
//! the section ranking (expanded query, breadcrumbs, documents ranked
//! beside sections) and a flat-chunk ranking (the question's own words,
//! plain BM25 over the chunks' body text, a section taking its best
//! chunk's place). The section ranking wins inside a contract, where
//! clause titles and the corpus's clause words find the clause; across
//! filings its expansion and breadcrumbs favour any filing's generic
//! clause title, while the plain chunk ranking keeps the words only the
//! right filing says. Fusing by rank, not score, needs no calibration
//! between the two scores.

use super::SectionHit;
use crate::search::{ChunkHit, SearchIndex};
use std::collections::HashMap;

/// How the two rankings are fused (off: `chunk_weight` 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FuseOptions {
    /// Reciprocal-rank constant: a section at rank r counts 1 / (k + r).
    pub k: f32,
    /// Weight of the flat-chunk ranking against the section ranking's 1.
    pub chunk_weight: f32,
    /// Sections read from each ranking before fusing.
    pub depth: usize,
    /// Weight of a third ranking, of documents: each by the sum of its
    /// best `doc_chunks` chunk scores in the flat-chunk ranking (a filing
    /// many of whose passages use the question's words), every pooled
    /// section counting its document's place (0: off).
    pub doc_weight: f32,
    pub doc_chunks: usize,
    /// The document ranking's own reciprocal-rank constant: smaller, its
    /// first places differ by more than the sections' (at `k` 60, place 1
    /// against place 3 is worth less than one section rank).
    pub doc_k: f32,
    /// A section's fused score times this for each section of its own
    /// document ranked above it (1: off): the first places go to the
    /// filings the rankings disagree on rather than to one filing's
    /// neighbouring clauses.
    pub repeat_discount: f32,
}

impl Default for FuseOptions {
    /// Chosen on the tuning half of the `ud_legal` questions
    /// (`scripts/ask-eval --ud --grid`; docs/ask-retrieval.md); `doc_k`
    /// with `examples/ask_ud.rs --doc-k` (docs/ask.md).
    fn default() -> Self {
        Self {
            k: 60.0,
            chunk_weight: 2.0,
            depth: 50,
            doc_weight: 2.0,
            doc_chunks: 3,
            doc_k: 20.0,
            repeat_discount: 0.9,
        }
    }
}

impl FuseOptions {
    /// The section ranking alone.
    pub const NONE: Self = Self {
        k: 60.0,
        chunk_weight: 0.0,
        depth: 0,
        doc_weight: 0.0,
        doc_chunks: 0,
        doc_k: 60.0,
        repeat_discount: 1.0,
    };

    pub fn is_off(&self) -> bool {
        self.chunk_weight <= 0.0
    }
}

/// Chunks read per section wanted from the flat-chunk ranking.
const CHUNKS_PER_SECTION: usize = 4;

/// The chunks of the flat-chunk ranking: the question's own words, plain
/// BM25 over the body text (no expansion, no breadcrumb field).
pub fn plain_chunks(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    depth: usize,
) -> anyhow::Result<Vec<ChunkHit>> {
    let terms: Vec<(String, f32)> = index
        .terms(question)
        .into_iter()
        .map(|t| (t, 1.0))
        .collect();
    index.search_terms(&terms, 0.0, doc, depth * CHUNKS_PER_SECTION)
}

/// Sections ranked by their best chunk of [`plain_chunks`].
pub fn chunk_ranking(
    index: &SearchIndex,
    question: &str,
    doc: Option<&str>,
    depth: usize,
) -> anyhow::Result<Vec<SectionHit>> {
    Ok(sections_of(
        plain_chunks(index, question, doc, depth)?,
        depth,
    ))
}

fn sections_of(hits: Vec<ChunkHit>, depth: usize) -> Vec<SectionHit> {
    let mut ranked = super::rank_sections_by(hits, 0.0, 0.0);
    ranked.truncate(depth);
    ranked
}

/// Doc ids by the sum of their best `per_doc` chunk scores, best first.
pub fn doc_ranking(hits: &[ChunkHit], per_doc: usize) -> Vec<String> {
    let mut seen: HashMap<&str, (usize, f32)> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for h in hits {
        let e = seen.entry(h.pointer.doc_id.as_str()).or_insert_with(|| {
            order.push(h.pointer.doc_id.as_str());
            (0, 0.0)
        });
        if e.0 < per_doc {
            e.0 += 1;
            e.1 += h.score;
        }
    }
    order.sort_by(|a, b| seen[b].1.total_cmp(&seen[a].1).then_with(|| a.cmp(b)));
    order.into_iter().map(str::to_string).collect()
}

/// The section ranking `sections` fused with the flat-chunk ranking (and,
/// when `doc_weight` is set, the document ranking) of `question`.
pub fn fuse(
    index: &SearchIndex,
    question: &str,
    sections: Vec<SectionHit>,
    depth: usize,
    o: &FuseOptions,
) -> anyhow::Result<Vec<SectionHit>> {
    let chunks = plain_chunks(index, question, None, depth)?;
    let docs = if o.doc_weight > 0.0 {
        doc_ranking(&chunks, o.doc_chunks.max(1))
    } else {
        Vec::new()
    };
    let mut fused = rrf(sections, sections_of(chunks, depth), o);
    if !docs.is_empty() {
        let place: HashMap<&str, usize> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.as_str(), i))
            .collect();
        for h in &mut fused {
            if let Some(&r) = place.get(h.pointer.doc_id.as_str()) {
                h.score += o.doc_weight / (o.doc_k + r as f32 + 1.0);
            }
        }
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    if o.repeat_discount < 1.0 {
        let mut before: HashMap<String, i32> = HashMap::new();
        for h in &mut fused {
            let n = before.entry(h.pointer.doc_id.clone()).or_default();
            h.score *= o.repeat_discount.powi(*n);
            *n += 1;
        }
        fused.sort_by(|a, b| b.score.total_cmp(&a.score));
    }
    Ok(fused)
}

/// `sections` and `chunks` fused: each section scores the sum of
/// 1 / (k + rank) over the rankings it is in (the chunk ranking's times
/// `chunk_weight`), best first; a section keeps the pointer and chunks of
/// the section ranking when it is in both.
pub fn rrf(sections: Vec<SectionHit>, chunks: Vec<SectionHit>, o: &FuseOptions) -> Vec<SectionHit> {
    let mut out: Vec<SectionHit> = Vec::with_capacity(sections.len() + chunks.len());
    let mut at: HashMap<(String, String), usize> = HashMap::new();
    for (list, w) in [(sections, 1.0f32), (chunks, o.chunk_weight)] {
        for (r, mut h) in list.into_iter().enumerate() {
            let s = w / (o.k + r as f32 + 1.0);
            let key = (h.pointer.doc_id.clone(), h.pointer.node_id.clone());
            match at.get(&key) {
                Some(&i) => out[i].score += s,
                None => {
                    at.insert(key, out.len());
                    h.score = s;
                    out.push(h);
                }
            }
        }
    }
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::SectionPointer;

    fn hit(doc: &str, node: &str, score: f32) -> SectionHit {
        SectionHit {
            score,
            chunks: vec![(0, 1)],
            pointer: SectionPointer {
                doc_id: doc.into(),
                doc_name: format!("{doc}.txt"),
                doc_title: None,
                path: format!("/in/{doc}.txt"),
                node_id: node.into(),
                title: String::new(),
                breadcrumb: String::new(),
                start_byte: 0,
                end_byte: 1,
                start_line: 1,
                end_line: 1,
                sha256: None,
            },
        }
    }

    #[test]
    fn a_section_high_in_both_rankings_beats_one_first_in_only_one() {
        let o = FuseOptions {
            k: 60.0,
            chunk_weight: 1.0,
            depth: 10,
            ..FuseOptions::NONE
        };
        let sections = vec![hit("a", "1", 9.0), hit("b", "2", 8.0), hit("c", "3", 1.0)];
        let chunks = vec![hit("d", "4", 5.0), hit("b", "2", 4.0)];
        let fused = rrf(sections, chunks, &o);
        let order: Vec<&str> = fused.iter().map(|h| h.pointer.doc_id.as_str()).collect();
        assert_eq!(order, ["b", "a", "d", "c"]);
        assert!((fused[0].score - (1.0 / 62.0 + 1.0 / 62.0)).abs() < 1e-6);
    }

    #[test]
    fn weight_zero_keeps_the_section_order() {
        let o = FuseOptions::NONE;
        let fused = rrf(
            vec![hit("a", "1", 9.0), hit("b", "2", 8.0)],
            vec![hit("b", "2", 4.0)],
            &o,
        );
        let order: Vec<&str> = fused.iter().map(|h| h.pointer.doc_id.as_str()).collect();
        assert_eq!(order, ["a", "b"]);
    }
}
