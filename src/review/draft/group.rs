//! Titles grouped by meaning across documents, each group's tier from the
//! tiers its sections actually earned, and the ontological anchors found
//! from the names the documents' sections share.
//!
//! Grouping uses the matcher's own normal form ([`crate::index::normalize_heading`]:
//! numbering, case, punctuation, `and`/`the`, plurals off), then joins
//! normal forms made of the same words in another order or inflection
//! (`Payments and Computations` / `Computation of Payments`): a set of
//! lemmas of the content words ([`crate::index::tokens::lemma`]), never
//! stems, which would equate `Borrowers` and `Borrowings`.

use super::input::DraftDoc;
use crate::index::tokens::{is_stopword, lemma, raw_words};
use crate::index::Tier;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// A group's tier is the highest tier that at least this share of its
/// sections earned. Below a half so a title whose sections are sent-worthy
/// in a third of the documents is sent: skipping a Medium section loses
/// its relations, sending a Low one only costs tokens (the shipped
/// indices' own rule for split votes).
pub const TIER_SHARE: f64 = 1.0 / 3.0;

/// A section is an anchor of its document when the names first found in
/// it are used by at least this share of the sections after it.
pub const ANCHOR_SHARE: f64 = 0.2;

/// One group of titles.
#[derive(Debug, Clone, Default)]
pub struct TitleGroup {
    /// Display form -> occurrences.
    pub displays: BTreeMap<String, usize>,
    /// Normal forms joined in this group.
    pub keys: BTreeSet<String>,
    /// Distinct documents (indices into the input).
    pub docs: BTreeSet<usize>,
    pub sections: usize,
    pub chars: Vec<usize>,
    pub tiers: BTreeMap<Tier, usize>,
    /// Documents in which a section of the group was an anchor.
    pub anchor_docs: BTreeSet<usize>,
    /// Best anchor share seen per document.
    pub anchor_shares: Vec<f64>,
}

impl TitleGroup {
    /// The most frequent display form (ties: the first in order).
    pub fn title(&self) -> String {
        self.displays
            .iter()
            .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
            .map(|(t, _)| t.clone())
            .unwrap_or_default()
    }

    /// Tier from the actual tiers ([`TIER_SHARE`]); `None` when nothing
    /// of the group was scanned.
    pub fn actual_tier(&self) -> Option<Tier> {
        let total: usize = self.tiers.values().sum();
        if total == 0 {
            return None;
        }
        let mut seen = 0;
        for t in Tier::ALL {
            seen += self.tiers.get(&t).copied().unwrap_or(0);
            if seen as f64 >= TIER_SHARE * total as f64 {
                return Some(t);
            }
        }
        Some(Tier::VeryLow)
    }

    /// Anchor when a section of it was an anchor in at least half of its
    /// documents.
    pub fn is_anchor(&self) -> bool {
        !self.docs.is_empty() && self.anchor_docs.len() * 2 >= self.docs.len()
    }

    pub fn median_chars(&self) -> usize {
        let mut c = self.chars.clone();
        c.sort_unstable();
        c.get(c.len() / 2).copied().unwrap_or(0)
    }
}

/// The key that joins normal forms of the same words: sorted lemmas of the
/// content words (stop words dropped); the normal form itself when it has
/// no content word.
pub fn meaning_key(normal: &str) -> String {
    let mut w: Vec<String> = raw_words(normal)
        .iter()
        .filter(|w| !is_stopword(w))
        .map(|w| lemma(w))
        .collect();
    if w.is_empty() {
        return normal.to_string();
    }
    w.sort();
    w.dedup();
    w.join(" ")
}

/// For each section of a document, the share of the later sections that use
/// a name first found in it.
pub fn anchor_shares(doc: &DraftDoc) -> Vec<f64> {
    let n = doc.sections.len();
    let mut first_seen: HashMap<&str, usize> = HashMap::new();
    for (i, s) in doc.sections.iter().enumerate() {
        for name in &s.names {
            first_seen.entry(name.as_str()).or_insert(i);
        }
    }
    let mut users: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
    for (j, s) in doc.sections.iter().enumerate() {
        for name in &s.names {
            let i = first_seen[name.as_str()];
            if i < j {
                users[i].insert(j);
            }
        }
    }
    (0..n)
        .map(|i| {
            let later = n - i - 1;
            if later == 0 {
                0.0
            } else {
                users[i].len() as f64 / later as f64
            }
        })
        .collect()
}

/// Groups the sections of `docs` by meaning.
pub fn group(docs: &[DraftDoc]) -> Vec<TitleGroup> {
    let mut by_key: HashMap<String, TitleGroup> = HashMap::new();
    for (d, doc) in docs.iter().enumerate() {
        let shares = anchor_shares(doc);
        for (s, share) in doc.sections.iter().zip(shares) {
            let g = by_key.entry(meaning_key(&s.key)).or_default();
            *g.displays.entry(s.display.clone()).or_default() += 1;
            g.keys.insert(s.key.clone());
            g.docs.insert(d);
            g.sections += 1;
            g.chars.push(s.chars);
            if let Some(t) = s.actual {
                *g.tiers.entry(t).or_default() += 1;
            }
            if share >= ANCHOR_SHARE {
                g.anchor_docs.insert(d);
            }
            g.anchor_shares.push(share);
        }
    }
    let mut out: Vec<TitleGroup> = by_key.into_values().collect();
    out.sort_by(|a, b| {
        b.docs
            .len()
            .cmp(&a.docs.len())
            .then(b.sections.cmp(&a.sections))
            .then_with(|| a.title().cmp(&b.title()))
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meaning_key_joins_order_and_inflection_not_derivation() {
        assert_eq!(
            meaning_key("payment computation"),
            meaning_key("computation of payment")
        );
        assert_eq!(
            meaning_key("event of default"),
            meaning_key("default event")
        );
        assert_ne!(meaning_key("borrower"), meaning_key("borrowing"));
    }

    #[test]
    fn tier_is_the_highest_a_third_of_sections_earned() {
        let mut g = TitleGroup::default();
        g.tiers.insert(Tier::Medium, 1);
        g.tiers.insert(Tier::Low, 2);
        assert_eq!(g.actual_tier(), Some(Tier::Medium));
        g.tiers.insert(Tier::Low, 3);
        assert_eq!(g.actual_tier(), Some(Tier::Low));
        assert_eq!(TitleGroup::default().actual_tier(), None);
    }
}
