//! The `detect:` words of a drafted index: what tells this family's
//! documents from the others. Title phrases come from the title blocks of
//! the documents (short lines near the top: `CREDIT AGREEMENT`,
//! `POOLING AND SERVICING AGREEMENT`), body terms from the roles the
//! extractions found (`Servicer`, `Trustee`); both must occur in at least
//! half the documents, and any word or phrase another index already
//! detects with is left out (and named in the draft's comment), so the new
//! type does not start claiming the other types' documents.

use super::input::DraftDoc;
use crate::index::tokens::is_stopword;
use crate::index::IndexSet;
use std::collections::{BTreeMap, BTreeSet};

/// Characters of a document read for its title block (as detection does).
const TITLE_BLOCK_CHARS: usize = 4000;
/// A title line has at most this many words.
const TITLE_LINE_WORDS: usize = 12;
/// At most this many title phrases and body terms.
const MAX_TITLES: usize = 4;
const MAX_TERMS: usize = 10;

/// What the draft detects with, and what it left out.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DetectDraft {
    pub titles: Vec<String>,
    pub terms: Vec<String>,
    /// Phrases or terms dropped because another index uses them:
    /// (phrase, that index's type).
    pub taken: Vec<(String, String)>,
}

/// Phrases of two or three words of the short lines of the title block,
/// lower case, without digits, not ending in a stop word.
fn title_phrases(text: &str) -> BTreeSet<String> {
    let mut end = text.len().min(TITLE_BLOCK_CHARS);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = BTreeSet::new();
    for line in text[..end].lines() {
        let words: Vec<String> = line
            .split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect();
        if words.is_empty() || words.len() > TITLE_LINE_WORDS {
            continue;
        }
        for n in 2..=3 {
            for w in words.windows(n) {
                if w.iter().any(|x| x.chars().any(|c| c.is_ascii_digit()))
                    || is_stopword(&w[0])
                    || is_stopword(&w[n - 1])
                {
                    continue;
                }
                out.insert(w.join(" "));
            }
        }
    }
    out
}

/// Who already detects with a phrase (lower case) among `others`.
fn owners(others: &IndexSet) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    for idx in &others.indices {
        let d = &idx.detect;
        for p in d.titles.iter().chain(&d.terms).chain(&d.title_words) {
            m.entry(p.to_lowercase())
                .or_insert_with(|| idx.document_type.clone());
        }
    }
    m
}

/// Items in at least half of the documents, most frequent first.
fn frequent(per_doc: &[BTreeSet<String>]) -> Vec<(String, usize)> {
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for set in per_doc {
        for p in set {
            *df.entry(p).or_default() += 1;
        }
    }
    let need = per_doc.len().div_ceil(2).max(1);
    let mut v: Vec<(String, usize)> = df
        .into_iter()
        .filter(|(_, n)| *n >= need)
        .map(|(p, n)| (p.to_string(), n))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// Drafts `detect:` from `docs`, leaving out what `others` detect with.
pub fn draft_detect(docs: &[DraftDoc], others: &IndexSet) -> DetectDraft {
    let owners = owners(others);
    let mut out = DetectDraft::default();
    let titles: Vec<BTreeSet<String>> = docs
        .iter()
        .map(|d| {
            std::fs::read(&d.path)
                .map(|b| title_phrases(&String::from_utf8_lossy(&b)))
                .unwrap_or_default()
        })
        .collect();
    for (p, _) in frequent(&titles) {
        if out.titles.len() >= MAX_TITLES {
            break;
        }
        // A phrase inside one already kept adds nothing.
        if out
            .titles
            .iter()
            .any(|t| t.contains(&p) || p.contains(t.as_str()))
        {
            continue;
        }
        match owners.get(&p) {
            Some(ty) => out.taken.push((p, ty.clone())),
            None => out.titles.push(p),
        }
    }
    let roles: Vec<BTreeSet<String>> = docs
        .iter()
        .map(|d| {
            d.sections
                .iter()
                .flat_map(|s| s.roles.iter().map(|r| r.to_lowercase()))
                .collect()
        })
        .collect();
    for (r, _) in frequent(&roles) {
        if out.terms.len() >= MAX_TERMS {
            break;
        }
        match owners.get(&r) {
            Some(ty) => out.taken.push((r, ty.clone())),
            None => out.terms.push(r),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_phrases_come_from_short_lines_only() {
        let p = title_phrases("EXHIBIT 10.1\nPOOLING AND SERVICING AGREEMENT\nThis long sentence of running text names the servicing agreement between many parties and goes on.\n");
        assert!(p.contains("servicing agreement"));
        assert!(p.contains("pooling and servicing"));
        assert!(!p.contains("running text"));
        assert!(!p.iter().any(|x| x.contains("10")));
    }
}
