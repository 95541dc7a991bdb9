//! Title matching: finds the index entry a section title stands for.
//!
//! Order: exact canonical title, exact alias, then fuzzy token similarity
//! (Dice coefficient over content words after normalisation and light
//! stemming) above the index's threshold. A title made of several parts
//! (`Liens; Negative Pledge`) takes the highest tier among its parts. Kept
//! separate from loading so it can be tested and benchmarked on its own.

use super::normalize::{is_reserved_normalized, normalize_title, strip_numbering};
use super::{IndexEntry, MatchMethod, Tier, TitleMatch};
use std::collections::{HashMap, HashSet};

/// Words ignored by the fuzzy comparison (they carry no topic).
const STOPWORDS: &[&str] = &[
    "of", "to", "for", "in", "on", "by", "with", "a", "an", "or", "as", "at", "from", "under",
    "etc", "its", "their", "any",
];

/// Something a title can match: an index entry or an anchor that is not
/// listed in a tier.
#[derive(Debug, Clone)]
struct Target {
    title: String,
    tier: Tier,
    anchor: bool,
}

/// One matchable string (canonical title or alias) as sorted token ids.
#[derive(Debug, Clone)]
struct Key {
    target: usize,
    alias: bool,
    tokens: Vec<u32>,
}

/// Lookup tables built once per loaded index.
#[derive(Debug, Clone, Default)]
pub struct Matcher {
    targets: Vec<Target>,
    canonical: HashMap<String, usize>,
    alias: HashMap<String, usize>,
    noise: HashMap<String, String>,
    vocab: HashMap<String, u32>,
    keys: Vec<Key>,
    /// token id -> keys containing it.
    postings: Vec<Vec<usize>>,
}

impl Matcher {
    /// Builds the tables. `entries` come first so target `i` is entry `i`.
    pub fn new(entries: &[IndexEntry], anchors: &[String], noise: &[String]) -> Self {
        let anchor_set: HashSet<String> = anchors.iter().map(|a| normalize_title(a)).collect();
        let mut m = Matcher::default();
        for e in entries {
            let is_anchor = std::iter::once(&e.title)
                .chain(e.aliases.iter())
                .any(|t| anchor_set.contains(&normalize_title(t)));
            m.targets.push(Target {
                title: e.title.clone(),
                tier: if is_anchor { Tier::VeryHigh } else { e.tier },
                anchor: is_anchor,
            });
        }
        for (i, e) in entries.iter().enumerate() {
            m.add_key(&e.title, i, false);
            for a in &e.aliases {
                m.add_key(a, i, true);
            }
        }
        for a in anchors {
            let n = normalize_title(a);
            if n.is_empty() || m.canonical.contains_key(&n) || m.alias.contains_key(&n) {
                continue;
            }
            m.targets.push(Target {
                title: a.clone(),
                tier: Tier::VeryHigh,
                anchor: true,
            });
            m.add_key(a, m.targets.len() - 1, false);
        }
        for n in noise {
            m.noise.insert(normalize_title(n), n.clone());
        }
        m
    }

    fn add_key(&mut self, text: &str, target: usize, alias: bool) {
        let n = normalize_title(text);
        if n.is_empty() {
            return;
        }
        let map = if alias {
            &mut self.alias
        } else {
            &mut self.canonical
        };
        map.entry(n.clone()).or_insert(target);
        let mut tokens: Vec<u32> = content_words(&n)
            .map(|w| {
                let next = self.vocab.len() as u32;
                *self.vocab.entry(w.to_string()).or_insert(next)
            })
            .collect();
        tokens.sort_unstable();
        tokens.dedup();
        let key = self.keys.len();
        for &t in &tokens {
            if self.postings.len() <= t as usize {
                self.postings.resize(t as usize + 1, Vec::new());
            }
            self.postings[t as usize].push(key);
        }
        self.keys.push(Key {
            target,
            alias,
            tokens,
        });
    }

    /// Exact lookup of a normalised title: canonical first, then alias.
    /// Returns the target index and the method.
    pub fn exact(&self, normalized: &str) -> Option<(usize, MatchMethod)> {
        if let Some(&i) = self.canonical.get(normalized) {
            return Some((i, MatchMethod::Exact));
        }
        self.alias.get(normalized).map(|&i| (i, MatchMethod::Alias))
    }

    /// Best fuzzy candidate (target, score) for a normalised title.
    fn fuzzy(&self, normalized: &str) -> Option<(usize, f64)> {
        let words: Vec<&str> = {
            let mut w: Vec<&str> = content_words(normalized).collect();
            w.sort_unstable();
            w.dedup();
            w
        };
        if words.is_empty() {
            return None;
        }
        let mut counts: HashMap<usize, u32> = HashMap::new();
        for w in &words {
            if let Some(&t) = self.vocab.get(*w) {
                for &k in &self.postings[t as usize] {
                    *counts.entry(k).or_insert(0) += 1;
                }
            }
        }
        let mut best: Option<(usize, f64, bool)> = None;
        for (k, c) in counts {
            let key = &self.keys[k];
            let score = 2.0 * c as f64 / (words.len() + key.tokens.len()) as f64;
            let tier = self.targets[key.target].tier;
            let better = match best {
                None => true,
                Some((bt, bs, balias)) => {
                    score > bs
                        || (score == bs && tier.rank() > self.targets[bt].tier.rank())
                        || (score == bs && tier == self.targets[bt].tier && balias && !key.alias)
                }
            };
            if better {
                best = Some((key.target, score, key.alias));
            }
        }
        best.map(|(t, s, _)| (t, s))
    }

    /// One title part: exact, alias, or fuzzy above `threshold`.
    fn match_part(&self, normalized: &str, threshold: f64) -> Option<(usize, MatchMethod, f64)> {
        if let Some((i, m)) = self.exact(normalized) {
            return Some((i, m, 1.0));
        }
        match self.fuzzy(normalized) {
            Some((i, s)) if s >= threshold => Some((i, MatchMethod::Fuzzy, s)),
            _ => None,
        }
    }

    /// Matches a raw section title (numbering included).
    pub fn match_title(&self, title: &str, threshold: f64) -> TitleMatch {
        let mut out = TitleMatch::unmatched();
        let norm = normalize_title(title);
        if is_reserved_normalized(&norm) {
            out.reserved = true;
            return out;
        }
        if norm.is_empty() {
            return out;
        }
        if let Some(n) = self.noise.get(&norm) {
            out.entry = Some(n.clone());
            out.method = MatchMethod::Exact;
            out.score = 1.0;
            out.noise = true;
            return out;
        }
        if let Some((i, m)) = self.exact(&norm) {
            return self.hit(i, m, 1.0);
        }
        let parts: Vec<String> = if title.contains([';', '/']) {
            strip_numbering(title)
                .split([';', '/'])
                .map(normalize_title)
                .filter(|p| !p.is_empty())
                .collect()
        } else {
            Vec::new()
        };
        let part_hits: Vec<Option<(usize, MatchMethod, f64)>> = if parts.len() > 1 {
            parts
                .iter()
                .map(|p| self.match_part(p, threshold))
                .collect()
        } else {
            Vec::new()
        };
        let best_part = part_hits
            .iter()
            .flatten()
            .max_by(|a, b| {
                let (ta, tb) = (self.targets[a.0].tier, self.targets[b.0].tier);
                ta.rank()
                    .cmp(&tb.rank())
                    .then(a.2.partial_cmp(&b.2).unwrap_or(std::cmp::Ordering::Equal))
            })
            .copied();
        let all_parts = !part_hits.is_empty() && part_hits.iter().all(Option::is_some);
        if all_parts {
            if let Some((i, m, s)) = best_part {
                return self.hit(i, m, s);
            }
        }
        let whole = self.fuzzy(&norm);
        if let Some((i, s)) = whole {
            if s >= threshold {
                return self.hit(i, MatchMethod::Fuzzy, s);
            }
        }
        // Some parts unknown: only trust the known ones when they already
        // send the section; otherwise the unknown part makes it new.
        if let Some((i, m, s)) = best_part {
            if self.targets[i].tier.is_sent() {
                return self.hit(i, m, s);
            }
        }
        out.score = whole.map_or(0.0, |(_, s)| s);
        out
    }

    fn hit(&self, target: usize, method: MatchMethod, score: f64) -> TitleMatch {
        let t = &self.targets[target];
        TitleMatch {
            entry: Some(t.title.clone()),
            method,
            score,
            tier: Some(t.tier),
            anchor: t.anchor,
            noise: false,
            reserved: false,
        }
    }
}

/// Normalised words that carry topic (stopwords removed).
fn content_words(normalized: &str) -> impl Iterator<Item = &str> {
    normalized
        .split(' ')
        .filter(|w| !w.is_empty() && !STOPWORDS.contains(w))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn entry(title: &str, aliases: &[&str], tier: Tier) -> IndexEntry {
        IndexEntry {
            title: title.into(),
            aliases: aliases.iter().map(|a| a.to_string()).collect(),
            note: None,
            tier,
            source: PathBuf::from("test.yaml"),
            line: 1,
        }
    }

    fn matcher() -> Matcher {
        Matcher::new(
            &[
                entry("Definitions", &["Defined Terms"], Tier::VeryHigh),
                entry("Mergers and Sales of Assets", &[], Tier::VeryHigh),
                entry("Commitment Schedule", &["Commitments"], Tier::VeryHigh),
                entry("Negative Pledge", &[], Tier::High),
                entry("Liens", &[], Tier::Medium),
                entry("Governing Law", &[], Tier::VeryLow),
                entry("Subsidiaries", &[], Tier::Medium),
                entry("Notices", &[], Tier::VeryLow),
            ],
            &["Subsidiaries".to_string(), "Guarantors".to_string()],
            &["Table of Contents".to_string()],
        )
    }

    #[test]
    fn exact_alias_fuzzy_none() {
        let m = matcher();
        let r = m.match_title("Section 1.01 Definitions", 0.82);
        assert_eq!(
            (r.method, r.entry.as_deref()),
            (MatchMethod::Exact, Some("Definitions"))
        );
        let r = m.match_title("1.01 Defined Terms", 0.82);
        assert_eq!(
            (r.method, r.tier),
            (MatchMethod::Alias, Some(Tier::VeryHigh))
        );
        let r = m.match_title("Schedule 2.01A Commitments", 0.82);
        assert_eq!(r.entry.as_deref(), Some("Commitment Schedule"));
        let r = m.match_title("Mergers, Consolidations and Sales of Assets", 0.82);
        assert_eq!(r.method, MatchMethod::Fuzzy);
        assert_eq!(r.entry.as_deref(), Some("Mergers and Sales of Assets"));
        assert!(r.score >= 0.82 && r.score < 1.0, "{}", r.score);
        let r = m.match_title("Benchmark Replacement Setting", 0.82);
        assert_eq!((r.method, r.tier, r.entry), (MatchMethod::None, None, None));
    }

    #[test]
    fn two_entries_take_the_higher_tier() {
        let m = matcher();
        let r = m.match_title("Section 5.08 Liens; Negative Pledge", 0.82);
        assert_eq!(r.tier, Some(Tier::High));
        assert_eq!(r.entry.as_deref(), Some("Negative Pledge"));
        let r = m.match_title("Negative Pledge; Liens", 0.82);
        assert_eq!(r.tier, Some(Tier::High));
    }

    #[test]
    fn unknown_part_keeps_a_skipped_title_new() {
        let m = matcher();
        // Governing Law is Very Low but the other half is unknown: sent as new.
        let r = m.match_title("Governing Law; Benchmark Replacement", 0.82);
        assert_eq!(r.method, MatchMethod::None);
        // Liens is sent anyway, so the known half decides.
        let r = m.match_title("Liens; Benchmark Replacement", 0.82);
        assert_eq!(r.tier, Some(Tier::Medium));
    }

    #[test]
    fn anchors_are_pinned_very_high() {
        let m = matcher();
        let r = m.match_title("Schedule 5.13 Subsidiaries", 0.82);
        assert!(r.anchor);
        assert_eq!(r.tier, Some(Tier::VeryHigh));
        let r = m.match_title("Guarantors", 0.82);
        assert!(r.anchor);
        assert_eq!(r.tier, Some(Tier::VeryHigh));
    }

    #[test]
    fn noise_and_reserved() {
        let m = matcher();
        assert!(m.match_title("TABLE OF CONTENTS", 0.82).noise);
        let r = m.match_title("Section 2.12 [Reserved]", 0.82);
        assert!(r.reserved && r.tier.is_none());
    }
}
