//! The `detect:` words of a drafted index: what tells this family's
//! documents from the others. Title phrases come from the title blocks of
//! the documents (short lines near the top written as titles are, every
//! longer word capitalised: `CREDIT AGREEMENT`, `Pooling and Servicing
//! Agreement`; a line of running text wrapped short by PDF extraction is
//! not one), body terms from the roles the extractions found (`Servicer`,
//! `Trustee`); both must occur in at least half the documents, and in two
//! at least (one document's words are its own, not its family's). Left
//! out, and named in the draft's comment, so the new type does not start
//! claiming other documents: any word or phrase another index already
//! detects with, a title phrase or a role common among the batches' other
//! documents (in a fifth of them or more: `delaware corporation`, `each
//! party`, `company`), and the roles every contract has (`party`).

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

/// Among the batches' other documents, a phrase in at least this share of
/// them is common to contracts, not this family's.
const COMMON_SHARE: f64 = 0.2;
/// Fewest other documents for [`COMMON_SHARE`] to mean anything.
const MIN_CONTRAST: usize = 3;

/// Roles every contract gives its signatories, whatever its type.
const EVERY_CONTRACT_ROLES: &[&str] = &[
    "party",
    "parties",
    "each party",
    "either party",
    "other party",
];

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
        if words.is_empty() || words.len() > TITLE_LINE_WORDS || !reads_as_title(line) {
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

/// A line written as a title: every word of four letters or more starts
/// with a capital (`SUPPLY AGREEMENT`, `Loan and Servicing Agreement`),
/// not running text (`the parties agree as follows`).
fn reads_as_title(line: &str) -> bool {
    let long: Vec<&str> = line
        .split(|c: char| !c.is_alphabetic())
        .filter(|w| w.chars().count() >= 4)
        .collect();
    !long.is_empty() && long.iter().all(|w| w.starts_with(char::is_uppercase))
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

/// Items in at least half of the documents and in two at least (when
/// there are two), most frequent first.
fn frequent(per_doc: &[BTreeSet<String>]) -> Vec<(String, usize)> {
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for set in per_doc {
        for p in set {
            *df.entry(p).or_default() += 1;
        }
    }
    let need = per_doc.len().div_ceil(2).max(per_doc.len().min(2));
    let mut v: Vec<(String, usize)> = df
        .into_iter()
        .filter(|(_, n)| *n >= need)
        .map(|(p, n)| (p.to_string(), n))
        .collect();
    v.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    v
}

/// The title phrases of the file at `path` (none when it cannot be read).
fn phrases_of(path: &std::path::Path) -> BTreeSet<String> {
    std::fs::read(path)
        .map(|b| title_phrases(&String::from_utf8_lossy(&b)))
        .unwrap_or_default()
}

/// The roles the extractions found in a document, lower case.
fn roles_of(d: &DraftDoc) -> BTreeSet<String> {
    d.sections
        .iter()
        .flat_map(|s| s.roles.iter().map(|r| r.to_lowercase()))
        .collect()
}

/// Marks as common (owned by all) every item in at least
/// [`COMMON_SHARE`] of the `contrast` documents' sets.
fn mark_common(owners: &mut BTreeMap<String, String>, sets: &[BTreeSet<String>], what: &str) {
    if sets.len() < MIN_CONTRAST {
        return;
    }
    let mut df: BTreeMap<&str, usize> = BTreeMap::new();
    for p in sets.iter().flatten() {
        *df.entry(p).or_default() += 1;
    }
    for (p, n) in df {
        if n as f64 >= COMMON_SHARE * sets.len() as f64 {
            owners.entry(p.to_string()).or_insert_with(|| {
                format!(
                    "common: {what} in {n} of the batches' {} other documents",
                    sets.len()
                )
            });
        }
    }
}

/// Drafts `detect:` from `docs`, leaving out what `others` detect with and
/// what is common among the `contrast` documents (the batches' other
/// documents).
pub fn draft_detect(docs: &[DraftDoc], contrast: &[DraftDoc], others: &IndexSet) -> DetectDraft {
    let mut owners = owners(others);
    // Title phrases and roles common among other contracts: owned by no
    // index, by all.
    let phrases: Vec<BTreeSet<String>> = contrast.iter().map(|d| phrases_of(&d.path)).collect();
    mark_common(&mut owners, &phrases, "a title phrase");
    let roles: Vec<BTreeSet<String>> = contrast.iter().map(roles_of).collect();
    mark_common(&mut owners, &roles, "a role");
    for r in EVERY_CONTRACT_ROLES {
        owners
            .entry(r.to_string())
            .or_insert_with(|| "common: every contract has it".to_string());
    }
    let mut out = DetectDraft::default();
    let titles: Vec<BTreeSet<String>> = docs.iter().map(|d| phrases_of(&d.path)).collect();
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
    let roles: Vec<BTreeSet<String>> = docs.iter().map(roles_of).collect();
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
    fn words_common_to_contracts_never_detect_a_family() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let p = dir.path().join(name);
            std::fs::write(&p, text).unwrap();
            p
        };
        // PDF text wraps running sentences into short lines too.
        let servicing = |party: &str| {
            format!(
                "SERVICING AGREEMENT\n\n{party}, a Delaware Corporation,\nand the Trustee\n\
                 the parties agree as follows\nset forth herein\n"
            )
        };
        let role = |r: &str| super::super::input::DraftSection {
            key: "x".into(),
            display: "x".into(),
            chars: 10,
            actual: None,
            names: Default::default(),
            roles: vec![r.into()],
            entity_types: vec![],
            relation_types: vec![],
        };
        let docs: Vec<DraftDoc> = ["Acme Loans", "Beta Credit", "Gamma Funding"]
            .iter()
            .enumerate()
            .map(|(i, p)| DraftDoc {
                doc_id: format!("s{i}"),
                doc_name: format!("s{i}.txt"),
                doc_type: "unknown".into(),
                path: write(&format!("s{i}.txt"), &servicing(p)),
                sections: vec![role("Servicer"), role("Party"), role("Company")],
                unscanned: 0,
            })
            .collect();
        // Other contracts: their title block shares the generic phrases,
        // and one in four calls a party `the Company` too.
        let contrast: Vec<DraftDoc> = (0..4)
            .map(|i| DraftDoc {
                doc_id: format!("o{i}"),
                doc_name: format!("o{i}.txt"),
                doc_type: "commercial".into(),
                path: write(
                    &format!("o{i}.txt"),
                    "SUPPLY AGREEMENT\n\nZeta Inc., a Delaware Corporation\n",
                ),
                sections: vec![role(if i == 0 { "Company" } else { "Supplier" })],
                unscanned: 0,
            })
            .collect();
        let d = draft_detect(&docs, &contrast, &IndexSet::new(Vec::new()));
        assert!(
            d.titles.contains(&"servicing agreement".to_string()),
            "{d:?}"
        );
        assert_eq!(d.terms, vec!["servicer".to_string()], "{d:?}");
        for generic in ["delaware corporation", "agree as follows", "set forth"] {
            assert!(
                !d.titles.iter().any(|t| t.contains(generic)),
                "{generic}: {d:?}"
            );
        }
        assert!(
            d.taken
                .iter()
                .any(|(p, why)| p == "delaware corporation" && why.starts_with("common")),
            "{d:?}"
        );
        assert!(d.taken.iter().any(|(p, _)| p == "party"), "{d:?}");
        assert!(
            d.taken
                .iter()
                .any(|(p, why)| p == "company" && why.starts_with("common: a role")),
            "{d:?}"
        );

        // Of a family of two, what only one document says is its own.
        let two = vec![docs[0].clone(), docs[1].clone()];
        let mut own = two.clone();
        own[0].sections.push(role("Otis Group Employee"));
        let d = draft_detect(&own, &contrast, &IndexSet::new(Vec::new()));
        assert_eq!(d.terms, vec!["servicer".to_string()], "{d:?}");
    }

    #[test]
    fn title_phrases_come_from_short_lines_only() {
        let p = title_phrases("EXHIBIT 10.1\nPOOLING AND SERVICING AGREEMENT\nThis long sentence of running text names the servicing agreement between many parties and goes on.\n");
        assert!(p.contains("servicing agreement"));
        assert!(p.contains("pooling and servicing"));
        assert!(!p.contains("running text"));
        assert!(!p.iter().any(|x| x.contains("10")));
    }
}
