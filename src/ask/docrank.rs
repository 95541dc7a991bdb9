//! Documents and sections ranked together: the words of
//! a question that identify a document (its parties, defined terms, rare
//! words it repeats) count for every section of that document, beside the
//! section's own match.
//!
//! A document's score is BM25 over whole documents (a document's length is
//! its number of chunks) of the question's words that few documents of the
//! batch use ([`DocRankOptions::rare_share`]): generic words ("terminate",
//! "agreement") never rank a document, so a question without identifying
//! words is ranked exactly as before. Two stages then: the best documents'
//! own best sections join the pool (a document whose sections lose to
//! another contract's generic clause title is still looked at), and every
//! section gains `weight` times its document's score relative to the best
//! document's.

use super::SectionHit;
use crate::search::SearchIndex;
use std::collections::HashMap;

/// How documents rank and how much their rank counts (tuned on the tuning
/// half of the `../shared` document questions, `scripts/ask-eval --docs`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocRankOptions {
    /// A word identifies documents when at most this share of the batch's
    /// documents use it (at least one document always may).
    pub rare_share: f32,
    /// How much a section gains, times its document's score over the best
    /// document's (0: documents do not count).
    pub weight: f32,
    /// Best documents whose own best sections join the pool.
    pub docs_searched: usize,
    /// Sections of each of those documents that join.
    pub sections_per_doc: usize,
    /// A document scores its best chunk for the question's own words
    /// (plain BM25, no expansion, no breadcrumb: a flat-chunk ranking of
    /// documents) instead of BM25 over whole documents.
    pub chunk_max: bool,
}

impl DocRankOptions {
    /// Documents do not count: sections ranked by their own match alone.
    pub const NONE: DocRankOptions = DocRankOptions {
        rare_share: 0.0,
        weight: 0.0,
        docs_searched: 0,
        sections_per_doc: 0,
        chunk_max: false,
    };
}

impl Default for DocRankOptions {
    fn default() -> Self {
        Self {
            rare_share: 0.3,
            weight: 4.0,
            docs_searched: 5,
            sections_per_doc: 5,
            chunk_max: false,
        }
    }
}

const K1: f32 = 1.2;
const B: f32 = 0.75;

/// The documents the question's identifying words point to, best first,
/// with their scores (only documents that use one of them).
pub fn doc_scores(
    index: &SearchIndex,
    question: &str,
    opts: &DocRankOptions,
) -> anyhow::Result<Vec<(String, f32)>> {
    if opts.weight <= 0.0 && opts.docs_searched == 0 {
        return Ok(Vec::new());
    }
    let terms = index.terms(question);
    if terms.is_empty() {
        return Ok(Vec::new());
    }
    if opts.chunk_max {
        return chunk_max_scores(index, question);
    }
    let stats = index.doc_term_stats(&terms)?;
    let n = stats.docs.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let most = ((opts.rare_share * n as f32).floor() as usize).max(1);
    let avg = stats.chunks.iter().map(|&c| c as f32).sum::<f32>() / n as f32;
    let mut score: HashMap<usize, f32> = HashMap::new();
    for counts in &stats.counts {
        let df = counts.len();
        if df == 0 || df > most || df == n {
            continue;
        }
        let idf = (1.0 + (n as f32 - df as f32 + 0.5) / (df as f32 + 0.5)).ln();
        for &(d, tf) in counts {
            let tf = tf as f32;
            let len = stats.chunks[d] as f32 / avg.max(1.0);
            *score.entry(d).or_default() += idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len));
        }
    }
    let mut out: Vec<(String, f32)> = score
        .into_iter()
        .map(|(d, s)| (stats.docs[d].clone(), s))
        .collect();
    out.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(out)
}

/// Chunks read for [`DocRankOptions::chunk_max`].
const CHUNK_POOL: usize = 200;

/// Each document's best chunk score for the question's own words.
fn chunk_max_scores(index: &SearchIndex, question: &str) -> anyhow::Result<Vec<(String, f32)>> {
    let mut out: Vec<(String, f32)> = Vec::new();
    for h in index.search_terms(
        &index
            .terms(question)
            .into_iter()
            .map(|t| (t, 1.0))
            .collect::<Vec<_>>(),
        0.0,
        None,
        CHUNK_POOL,
    )? {
        if !out.iter().any(|(d, _)| *d == h.pointer.doc_id) {
            out.push((h.pointer.doc_id.clone(), h.score));
        }
    }
    Ok(out)
}

/// Adds the best documents' own sections (`within(doc, n)`) to `hits`,
/// raises every section by its document's score, and sorts.
pub fn fuse(
    hits: &mut Vec<SectionHit>,
    docs: &[(String, f32)],
    opts: &DocRankOptions,
    mut within: impl FnMut(&str, usize) -> anyhow::Result<Vec<SectionHit>>,
) -> anyhow::Result<()> {
    let Some(best) = docs.first().map(|d| d.1).filter(|b| *b > 0.0) else {
        return Ok(());
    };
    if opts.sections_per_doc > 0 {
        for (doc, _) in docs.iter().take(opts.docs_searched) {
            for h in within(doc, opts.sections_per_doc)? {
                let same = hits.iter().any(|o| {
                    o.pointer.doc_id == h.pointer.doc_id && o.pointer.node_id == h.pointer.node_id
                });
                if !same {
                    hits.push(h);
                }
            }
        }
    }
    let of: HashMap<&str, f32> = docs.iter().map(|(d, s)| (d.as_str(), *s)).collect();
    for h in hits.iter_mut() {
        if let Some(s) = of.get(h.pointer.doc_id.as_str()) {
            h.score *= 1.0 + opts.weight * s / best;
        }
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
    Ok(())
}
