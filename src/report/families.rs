//! Unknown documents grouped into candidate families: a batch with
//! documents that fit no index says which of them look like one contract
//! family (a family, its size, the titles its documents share, and the
//! `kgroute index draft` command that writes its index), in summary.md,
//! summary.json and on stderr.
//!
//! Whole titles are a poor measure of kinship (two credit agreements share
//! about a tenth of their exact titles); the words of their titles are a
//! good one. Each unknown document is a TF-IDF vector of the lemmas of the
//! words of its `new` headings (words in at least two documents), compared
//! by cosine, and documents join by average linkage while the best pair of
//! groups is at least [`FAMILY_SIMILARITY`] alike. On the shared corpora
//! with no index at all, pairs of one family scored a median 0.23 (credit
//! agreements) to 0.40 (leases), pairs of different families 0.07 (90th
//! percentile 0.12).

use super::{DocumentOutcome, MatchQuality};
use crate::index::doctype::UNKNOWN_TYPE;
use crate::index::tokens::{is_stopword, lemma, raw_words};
use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::Path;

/// Average cosine at which two groups of documents are one family.
pub const FAMILY_SIMILARITY: f64 = 0.15;
/// Unknown documents clustered at most (the first in batch order): the
/// clustering is quadratic in memory.
pub const MAX_CLUSTERED: usize = 1500;
/// Shared titles shown per family.
const SHOWN_TITLES: usize = 6;

/// One candidate family of unknown documents.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UnknownFamily {
    /// 1-based, as `index draft --family N` takes it.
    pub number: usize,
    pub doc_ids: Vec<String>,
    pub doc_names: Vec<String>,
    /// The titles most of its documents share, most shared first.
    pub shared_titles: Vec<String>,
}

impl UnknownFamily {
    /// The command that drafts this family's index from `batch_dir`.
    pub fn draft_command(&self, batch_dir: &str) -> String {
        format!(
            "kgroute index draft --doc-type NAME --from {batch_dir} --family {} --out indices/NAME.yaml",
            self.number
        )
    }

    /// One line for stderr and summary.md.
    pub fn line(&self, batch_dir: &str) -> String {
        let names: Vec<&str> = self.doc_names.iter().take(4).map(String::as_str).collect();
        format!(
            "unknown family {}: {} documents ({}{}) sharing titles {}; draft its index with `{}`",
            self.number,
            self.doc_ids.len(),
            names.join(", "),
            if self.doc_names.len() > 4 {
                ", ..."
            } else {
                ""
            },
            if self.shared_titles.is_empty() {
                "-".to_string()
            } else {
                self.shared_titles.join(" / ")
            },
            self.draft_command(batch_dir)
        )
    }
}

struct UnknownDoc {
    doc_id: String,
    doc_name: String,
    /// Lemmas of the words of its new headings.
    words: BTreeSet<String>,
    /// Normalised title -> display form.
    titles: BTreeMap<String, String>,
}

/// The unknown documents of a batch, as documents finish.
#[derive(Default)]
pub struct FamilyCollector {
    docs: Vec<UnknownDoc>,
}

impl FamilyCollector {
    pub fn add(&mut self, doc: &DocumentOutcome) {
        let Some(plan) = &doc.plan else { return };
        if plan.doc_type != UNKNOWN_TYPE || self.docs.len() >= MAX_CLUSTERED {
            return;
        }
        let mut words = BTreeSet::new();
        let mut titles = BTreeMap::new();
        for v in doc.sections() {
            if v.quality != MatchQuality::New {
                continue;
            }
            let s = v.section;
            let key = crate::index::normalize_heading(s.label.as_ref(), &s.name);
            if key.is_empty() {
                continue;
            }
            for w in raw_words(&key) {
                if w.len() > 2 && !is_stopword(&w) && !w.chars().any(|c| c.is_ascii_digit()) {
                    words.insert(lemma(&w));
                }
            }
            titles
                .entry(key)
                .or_insert_with(|| super::display_heading(&s.title, s.label.as_ref(), &s.name));
        }
        self.docs.push(UnknownDoc {
            doc_id: doc.doc_id.clone(),
            doc_name: doc.doc_name.clone(),
            words,
            titles,
        });
    }

    /// The families of two or more documents, biggest first.
    pub fn finish(self) -> Vec<UnknownFamily> {
        families(&self.docs)
    }
}

fn vectors(docs: &[UnknownDoc]) -> Vec<HashMap<&str, f64>> {
    let n = docs.len() as f64;
    let mut df: HashMap<&str, usize> = HashMap::new();
    for d in docs {
        for w in &d.words {
            *df.entry(w.as_str()).or_default() += 1;
        }
    }
    docs.iter()
        .map(|d| {
            let mut v: HashMap<&str, f64> = d
                .words
                .iter()
                .filter(|w| df[w.as_str()] >= 2)
                .map(|w| (w.as_str(), (n / df[w.as_str()] as f64).ln()))
                .collect();
            let norm = v.values().map(|x| x * x).sum::<f64>().sqrt();
            if norm > 0.0 {
                v.values_mut().for_each(|x| *x /= norm);
            }
            v
        })
        .collect()
}

fn cosine(a: &HashMap<&str, f64>, b: &HashMap<&str, f64>) -> f64 {
    let (small, big) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    small
        .iter()
        .map(|(w, x)| x * big.get(w).unwrap_or(&0.0))
        .sum()
}

fn families(docs: &[UnknownDoc]) -> Vec<UnknownFamily> {
    let n = docs.len();
    if n < 2 {
        return Vec::new();
    }
    let v = vectors(docs);
    // Sum of pairwise similarities between clusters (average = sum / sizes).
    let mut sim = vec![vec![0.0f64; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let s = cosine(&v[i], &v[j]);
            sim[i][j] = s;
            sim[j][i] = s;
        }
    }
    let mut members: Vec<Vec<usize>> = (0..n).map(|i| vec![i]).collect();
    let mut alive: Vec<bool> = vec![true; n];
    loop {
        let mut best = (FAMILY_SIMILARITY, usize::MAX, usize::MAX);
        for i in 0..n {
            if !alive[i] {
                continue;
            }
            for j in i + 1..n {
                if !alive[j] {
                    continue;
                }
                let avg = sim[i][j] / (members[i].len() * members[j].len()) as f64;
                if avg >= best.0 && (best.1 == usize::MAX || avg > best.0) {
                    best = (avg, i, j);
                }
            }
        }
        let (_, i, j) = best;
        if i == usize::MAX {
            break;
        }
        let moved = std::mem::take(&mut members[j]);
        members[i].extend(moved);
        alive[j] = false;
        for k in 0..n {
            if k != i && alive[k] {
                let s = sim[i][k] + sim[j][k];
                sim[i][k] = s;
                sim[k][i] = s;
            }
        }
    }
    let mut out: Vec<Vec<usize>> = members
        .into_iter()
        .zip(alive)
        .filter(|(m, a)| *a && m.len() >= 2)
        .map(|(mut m, _)| {
            m.sort_unstable();
            m
        })
        .collect();
    out.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
    out.into_iter()
        .enumerate()
        .map(|(k, m)| {
            let mut count: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
            for &i in &m {
                for (key, disp) in &docs[i].titles {
                    count.entry(key).or_insert((0, disp)).0 += 1;
                }
            }
            let mut shared: Vec<(&str, usize, &str)> = count
                .into_iter()
                .filter(|(_, (c, _))| *c * 2 >= m.len())
                .map(|(k, (c, d))| (k, c, d))
                .collect();
            shared.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
            UnknownFamily {
                number: k + 1,
                doc_ids: m.iter().map(|&i| docs[i].doc_id.clone()).collect(),
                doc_names: m.iter().map(|&i| docs[i].doc_name.clone()).collect(),
                shared_titles: shared
                    .iter()
                    .take(SHOWN_TITLES)
                    .map(|(_, _, d)| d.to_string())
                    .collect(),
            }
        })
        .collect()
}

/// The document ids of unknown family `number` of the batch in `dir`
/// (from its summary.json).
pub fn family_docs(dir: &Path, number: usize) -> anyhow::Result<BTreeSet<String>> {
    let path = dir.join(super::SUMMARY_JSON);
    let text = std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
    let s: super::BatchSummary = serde_json::from_slice(&text)
        .with_context(|| format!("{}: not a batch summary", path.display()))?;
    let Some(f) = s.unknown_families.iter().find(|f| f.number == number) else {
        bail!(
            "{}: no unknown family {number} (the batch has {}); see `Unknown families` in its summary.md",
            path.display(),
            s.unknown_families.len()
        );
    };
    Ok(f.doc_ids.iter().cloned().collect())
}

/// The `Unknown families` section of summary.md.
pub fn render_md(families: &[UnknownFamily], batch_dir: &str) -> String {
    let mut out = String::from("## Unknown families\n\n");
    if families.is_empty() {
        out.push_str("No two documents of unknown type look like one family.\n\n");
        return out;
    }
    out.push_str(
        "Documents that fit no index, grouped by the words of their titles (TF-IDF cosine, \
         average linkage). Each family can get an index of its own from this batch \
         (ingested with `--calibrate`, so every section has an actual tier):\n\n",
    );
    for f in families {
        out.push_str("- ");
        out.push_str(&super::summary::md_text(&f.line(batch_dir)));
        out.push('\n');
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(id: &str, titles: &[&str]) -> UnknownDoc {
        let mut words = BTreeSet::new();
        let mut t = BTreeMap::new();
        for title in titles {
            let key = crate::index::normalize_title(title);
            for w in raw_words(&key) {
                if w.len() > 2 && !is_stopword(&w) {
                    words.insert(lemma(&w));
                }
            }
            t.insert(key, title.to_string());
        }
        UnknownDoc {
            doc_id: id.into(),
            doc_name: id.into(),
            words,
            titles: t,
        }
    }

    #[test]
    fn two_families_apart_and_a_stray_left_out() {
        let lease = [
            "Rent",
            "Premises",
            "Security Deposit",
            "Landlord Default",
            "Tenant Insurance",
        ];
        let loan = [
            "Events of Default",
            "Loans",
            "Interest Rate",
            "Prepayment of Loans",
            "Letters of Credit",
        ];
        let docs = vec![
            doc("l1", &lease),
            doc("c1", &loan),
            doc("l2", &lease[..4]),
            doc("c2", &loan[1..]),
            doc("x", &["Recipes", "Oven Temperatures"]),
            doc("c3", &loan[..4]),
        ];
        let f = families(&docs);
        assert_eq!(f.len(), 2, "{f:?}");
        assert_eq!(f[0].doc_ids, ["c1", "c2", "c3"]);
        assert_eq!(f[1].doc_ids, ["l1", "l2"]);
        assert!(f[0].shared_titles.contains(&"Interest Rate".to_string()));
        assert_eq!(f[0].number, 1);
    }
}
