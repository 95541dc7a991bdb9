//! Re-scoring the retrieved chunks with what BM25 does not see: how much
//! of the question a chunk covers (its own words, each counted by its
//! rarity: BM25 lets one frequent word stand in for the others) and whether
//! the question's neighbouring words stand together in it ("change of
//! control", "minimum order": BM25 scores each word wherever it is). Both
//! read the chunks' stored text, only of the chunks already retrieved, and
//! know nothing of what the question asks.

use super::expand::Query;
use crate::search::ChunkHit;
use std::collections::{HashMap, HashSet};
use tantivy::tokenizer::TokenStream;

/// How chunk scores are re-weighted (neutral: both weights 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RerankOptions {
    /// A chunk's score is scaled by `1 + coverage x` the rarity-weighted
    /// share of the question's own words it contains.
    pub coverage: f32,
    /// ... and by `1 + proximity x` the rarity-weighted share of the
    /// question's neighbouring word pairs found within `window` words of
    /// each other in it.
    pub proximity: f32,
    pub window: usize,
}

impl RerankOptions {
    /// BM25's scores as they are.
    pub const NONE: Self = Self {
        coverage: 0.0,
        proximity: 0.0,
        window: 3,
    };

    fn is_neutral(&self) -> bool {
        self.coverage == 0.0 && self.proximity == 0.0
    }
}

/// Scales each hit's score (see [`RerankOptions`]) and re-sorts them.
pub fn rescore(hits: &mut [ChunkHit], query: &Query, o: &RerankOptions) {
    if o.is_neutral() || query.asked == 0 {
        return;
    }
    let rarity: HashMap<&str, f32> = query
        .terms
        .iter()
        .take(query.asked)
        .zip(&query.rarity)
        .map(|((t, _), r)| (t.as_str(), *r))
        .collect();
    let all: f32 = rarity.values().sum();
    let pairs = question_pairs(&query.sequence, &rarity);
    let pair_all: f32 = pairs.iter().map(|p| p.2).sum();
    let mut analyzer = crate::search::schema::analyzer();
    for h in hits.iter_mut() {
        let mut words: Vec<String> = Vec::new();
        let mut stream = analyzer.token_stream(&h.text);
        while stream.advance() {
            words.push(stream.token().text.clone());
        }
        let mut factor = 1.0;
        if o.coverage > 0.0 && all > 0.0 {
            let present: HashSet<&str> = words.iter().map(String::as_str).collect();
            let got: f32 = rarity
                .iter()
                .filter(|(t, _)| present.contains(*t))
                .map(|(_, r)| r)
                .sum();
            factor += o.coverage * got / all;
        }
        if o.proximity > 0.0 && pair_all > 0.0 {
            let got: f32 = pairs
                .iter()
                .filter(|(a, b, _)| near(&words, a, b, o.window))
                .map(|p| p.2)
                .sum();
            factor += o.proximity * got / pair_all;
        }
        h.score *= factor;
    }
    hits.sort_by(|a, b| b.score.total_cmp(&a.score));
}

/// The distinct neighbouring pairs of the question's words (in order,
/// frame and stop words out), each weighted by its rarer word's rarity.
fn question_pairs(sequence: &[String], rarity: &HashMap<&str, f32>) -> Vec<(String, String, f32)> {
    let mut out: Vec<(String, String, f32)> = Vec::new();
    for w in sequence.windows(2) {
        if w[0] == w[1] {
            continue;
        }
        let (Some(a), Some(b)) = (rarity.get(w[0].as_str()), rarity.get(w[1].as_str())) else {
            continue;
        };
        if !out.iter().any(|(x, y, _)| *x == w[0] && *y == w[1]) {
            out.push((w[0].clone(), w[1].clone(), a.min(*b)));
        }
    }
    out
}

/// True when `a` and `b` occur within `window` words of each other.
fn near(words: &[String], a: &str, b: &str, window: usize) -> bool {
    let mut last_a: Option<usize> = None;
    let mut last_b: Option<usize> = None;
    for (i, w) in words.iter().enumerate() {
        if w == a {
            if last_b.is_some_and(|j| i - j <= window) {
                return true;
            }
            last_a = Some(i);
        } else if w == b {
            if last_a.is_some_and(|j| i - j <= window) {
                return true;
            }
            last_b = Some(i);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split(' ').map(str::to_string).collect()
    }

    #[test]
    fn words_are_near_within_the_window_in_either_order() {
        let w = words("chang in the control of the parti");
        assert!(near(&w, "chang", "control", 3));
        assert!(near(&w, "control", "chang", 3));
        assert!(!near(&w, "chang", "parti", 3));
        assert!(!near(&w, "chang", "absent", 3));
    }

    #[test]
    fn pairs_are_distinct_neighbours_weighted_by_the_rarer_word() {
        let rarity: HashMap<&str, f32> = [("chang", 2.0), ("control", 3.0), ("merger", 4.0)]
            .into_iter()
            .collect();
        let seq = words("chang control merger chang control");
        let p = question_pairs(&seq, &rarity);
        assert_eq!(p.len(), 3);
        assert_eq!(p[0], ("chang".into(), "control".into(), 2.0));
        assert_eq!(p[1], ("control".into(), "merger".into(), 3.0));
    }
}
