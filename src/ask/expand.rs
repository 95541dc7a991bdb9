//! From a question to a weighted query: the words that only frame a
//! question ("which", "does", "is there a clause") are left out, and terms
//! the corpus itself associates with the question are added (pseudo-
//! relevance feedback, RM3-style): the best chunks of the whole index for
//! the question are read, each word weighted by its share of those chunks
//! (a chunk counting by its score) times its rarity in the index, and the
//! strongest words join the query at a lower weight. A contract that says
//! "construed under the laws of" is then found for "which law governs"
//! because the corpus's governing-law clauses use both. Nothing here is
//! per question type: it is the batch's own text.

use super::RetrieveOptions;
use crate::search::reader::{analysed, WeightedTerm};
use crate::search::SearchIndex;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Words that frame a question in English whatever it asks: interrogatives,
/// auxiliaries that open a yes/no question, and the words naming the
/// document or a part of it ("contract", "clause"), which every section of
/// a contract is about. Analysed like the index's text before use.
pub const FRAME_WORDS: &[&str] = &[
    "what",
    "which",
    "who",
    "whom",
    "whose",
    "when",
    "where",
    "why",
    "how",
    "whether",
    "does",
    "do",
    "did",
    "can",
    "could",
    "would",
    "any",
    "contract",
    "agreement",
    "clause",
    "provision",
    "include",
    "includes",
    "contain",
    "contains",
];

/// Only the interrogatives and auxiliaries of [`FRAME_WORDS`].
pub const QUESTION_WORDS: &[&str] = &[
    "what", "which", "who", "whom", "whose", "when", "where", "why", "how", "whether", "does",
    "do", "did", "can", "could", "would", "any",
];

/// Candidate words kept (by feedback share) before their rarity is looked
/// up: bounds the index look-ups per question.
const FEEDBACK_CANDIDATES: usize = 100;

fn frame_terms(words: &[&str]) -> Vec<String> {
    static DEFAULT: OnceLock<Vec<String>> = OnceLock::new();
    if std::ptr::eq(words, FRAME_WORDS) {
        return DEFAULT
            .get_or_init(|| analysed(&FRAME_WORDS.join(" ")))
            .clone();
    }
    analysed(&words.join(" "))
}

/// The weighted analysed terms to search for `question`.
pub fn query_terms(
    index: &SearchIndex,
    question: &str,
    opts: &RetrieveOptions,
) -> anyhow::Result<Vec<WeightedTerm>> {
    let all = index.terms(question);
    let frame = frame_terms(opts.frame_words);
    let mut terms: Vec<WeightedTerm> = all
        .iter()
        .filter(|t| !frame.contains(t))
        .map(|t| (t.clone(), 1.0))
        .collect();
    if terms.is_empty() {
        // A question of frame words only still asks something.
        terms = all.into_iter().map(|t| (t, 1.0)).collect();
    }
    if opts.feedback_chunks == 0 || opts.feedback_terms == 0 || terms.is_empty() {
        return Ok(terms);
    }
    let hits = if opts.feedback_one_per_doc {
        let many = index.search_terms(&terms, opts.crumb_boost, None, opts.feedback_chunks * 10)?;
        let mut seen = std::collections::HashSet::new();
        many.into_iter()
            .filter(|h| seen.insert(h.pointer.doc_id.clone()))
            .take(opts.feedback_chunks)
            .collect()
    } else {
        index.search_terms(&terms, opts.crumb_boost, None, opts.feedback_chunks)?
    };
    let total: f32 = hits.iter().map(|h| h.score).sum();
    if total <= 0.0 {
        return Ok(terms);
    }
    let mut share: HashMap<String, f32> = HashMap::new();
    for h in &hits {
        let words = analysed(&h.text);
        if words.is_empty() {
            continue;
        }
        let each = h.score / total / words.len() as f32;
        for w in words {
            *share.entry(w).or_default() += each;
        }
    }
    let mut candidates: Vec<(String, f32)> = share
        .into_iter()
        .filter(|(w, _)| {
            w.chars().count() > 2
                && !w.chars().all(|c| c.is_ascii_digit())
                && !frame.contains(w)
                && !terms.iter().any(|(t, _)| t == w)
        })
        .collect();
    candidates.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    candidates.truncate(FEEDBACK_CANDIDATES);
    let n = index.chunk_count() as f32;
    let mut scored: Vec<(String, f32)> = candidates
        .into_iter()
        .map(|(w, p)| {
            let df = index.doc_freq(&w) as f32;
            let idf = ((n - df + 0.5) / (df + 0.5)).ln_1p();
            (w, p * idf)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(opts.feedback_terms);
    let Some(max) = scored.first().map(|s| s.1) else {
        return Ok(terms);
    };
    for (w, s) in scored {
        terms.push((w, opts.feedback_weight * s / max));
    }
    Ok(terms)
}
