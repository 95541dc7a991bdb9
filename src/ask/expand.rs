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

/// The question's own analysed terms, frame words out, each at weight 1
/// (a question of frame words only keeps them: it still asks something).
pub fn question_terms(
    index: &SearchIndex,
    question: &str,
    opts: &RetrieveOptions,
) -> Vec<WeightedTerm> {
    let all = index.terms(question);
    let frame = frame_terms(opts.frame_words);
    let said = if opts.repeat_weight > 0.0 {
        analysed(question)
    } else {
        Vec::new()
    };
    let terms: Vec<WeightedTerm> = all
        .iter()
        .filter(|t| !frame.contains(t))
        .map(|t| {
            let repeats = said.iter().filter(|w| *w == t).count().saturating_sub(1);
            (t.clone(), 1.0 + opts.repeat_weight * repeats as f32)
        })
        .collect();
    if terms.is_empty() {
        return all.into_iter().map(|t| (t, 1.0)).collect();
    }
    terms
}

/// A question made into a search.
#[derive(Debug, Clone, Default)]
pub struct Query {
    /// Matched in the body and the breadcrumb: the question's own words
    /// (the first `asked`), then the words learned from the corpus.
    pub terms: Vec<WeightedTerm>,
    pub asked: usize,
    /// The rarity (BM25 idf in the index) of each of the first `asked`
    /// terms, and the question's words in order, repeats kept, frame words
    /// out (what [`super::rerank`] reads).
    pub rarity: Vec<f32>,
    pub sequence: Vec<String>,
    /// Matched in the breadcrumb field only: the words the corpus titles
    /// the question's sections with ([`title_feedback`]).
    pub titles: Vec<WeightedTerm>,
}

/// The weighted analysed terms to search for `question` (the body terms
/// of [`query`]).
pub fn query_terms(
    index: &SearchIndex,
    question: &str,
    opts: &RetrieveOptions,
) -> anyhow::Result<Vec<WeightedTerm>> {
    Ok(query(index, question, opts)?.terms)
}

/// `question` made into a search: its own words, frame words out, and
/// what the best chunks of the corpus for it teach (their words for the
/// body, their section titles for the breadcrumb), from one search.
pub fn query(index: &SearchIndex, question: &str, opts: &RetrieveOptions) -> anyhow::Result<Query> {
    let mut terms = question_terms(index, question, opts);
    let asked = terms.len();
    let n = index.chunk_count() as f32;
    let rarity = terms
        .iter()
        .map(|(t, _)| {
            let df = index.doc_freq(t) as f32;
            ((n - df + 0.5) / (df + 0.5)).ln_1p()
        })
        .collect();
    let sequence = analysed(question)
        .into_iter()
        .filter(|w| terms.iter().any(|(t, _)| t == w))
        .collect();
    if opts.feedback_chunks == 0
        || (opts.feedback_terms == 0 && opts.title_terms == 0)
        || terms.is_empty()
    {
        return Ok(Query {
            terms,
            asked,
            rarity,
            sequence,
            titles: Vec::new(),
        });
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
    let titles = title_feedback(index, &hits, opts.title_terms);
    learn_words(index, &mut terms, &hits, opts);
    Ok(Query {
        terms,
        asked,
        rarity,
        sequence,
        titles,
    })
}

/// Adds to `terms` the strongest words of the feedback chunks `hits`.
fn learn_words(
    index: &SearchIndex,
    terms: &mut Vec<WeightedTerm>,
    hits: &[crate::search::ChunkHit],
    opts: &RetrieveOptions,
) {
    if opts.feedback_terms == 0 {
        return;
    }
    let frame = frame_terms(opts.frame_words);
    let total: f32 = hits.iter().map(|h| h.score).sum();
    if total <= 0.0 {
        return;
    }
    let mut share: HashMap<String, f32> = HashMap::new();
    for h in hits {
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
        return;
    };
    for (w, s) in scored {
        terms.push((w, opts.feedback_weight * s / max));
    }
}

/// Title words the corpus uses for what was asked: the section titles of
/// the feedback chunks `hits`, each word weighted by its share of those
/// titles (a chunk counting by its score) times its rarity; the `n`
/// strongest, the first at weight 1, to be matched in the breadcrumb field.
/// "Expiration date" learns "term" from the contracts whose clause on it
/// is titled "Term", whatever the contract at hand calls its own.
pub fn title_feedback(
    index: &SearchIndex,
    hits: &[crate::search::ChunkHit],
    n: usize,
) -> Vec<WeightedTerm> {
    let total: f32 = hits.iter().map(|h| h.score).sum();
    if n == 0 || total <= 0.0 {
        return Vec::new();
    }
    let mut share: HashMap<String, f32> = HashMap::new();
    for h in hits {
        let mut words = analysed(&h.pointer.title);
        words.sort();
        words.dedup();
        for w in words {
            *share.entry(w).or_default() += h.score / total;
        }
    }
    let chunks = index.chunk_count() as f32;
    let mut scored: Vec<(String, f32)> = share
        .into_iter()
        .filter(|(w, _)| w.chars().count() > 2 && !w.chars().all(|c| c.is_ascii_digit()))
        .map(|(w, p)| {
            let df = index.doc_freq(&w) as f32;
            let idf = ((chunks - df + 0.5) / (df + 0.5)).ln_1p();
            (w, p * idf)
        })
        .filter(|(_, s)| *s > 0.0)
        .collect();
    scored.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    scored.truncate(n);
    let Some(max) = scored.first().map(|s| s.1) else {
        return Vec::new();
    };
    scored.into_iter().map(|(w, s)| (w, s / max)).collect()
}
