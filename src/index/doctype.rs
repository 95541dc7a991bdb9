//! Document types: a folder of indices, one per type, and detection of the
//! type a document belongs to.
//!
//! Routing a lease with the credit-agreement index silently skips what a
//! lease cares about, so `--index` may name a folder (default `indices/`)
//! and each document is routed with the index of its detected type. Each
//! index says how to recognise its documents in a `detect:` block: title
//! phrases looked for in the title block, and body terms whose frequency
//! marks the type (`Borrower`, `Tenant`, `Licensee`). The heading
//! vocabulary adds a third vote: the share of headings the index matches.
//! A document none fits (a memo) is flagged `unknown` and routed with the
//! base the types extend (`indices/base/common.yaml`: cross-type
//! boilerplate skipped, everything else new) rather than forced into the
//! nearest type. An index file the user named (`--index FILE`) routes
//! every document; detection then only reports whether it fits.
//!
//! Body terms are counted in one pass over the text: one Aho-Corasick
//! automaton holds every term of every type.

use super::load::IndexError;
use super::{GraphabilityIndex, MatchContext, MatchMethod};
use crate::tree::{DocTree, NodeKind, SourceText};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The `detect:` block of an index.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DetectSpec {
    /// Phrases of the title block (`credit agreement`, `lease`).
    #[serde(default)]
    pub titles: Vec<String>,
    /// Words of the body typical of the type (`borrower`, `tenant`).
    #[serde(default)]
    pub terms: Vec<String>,
    /// Words of the family's agreement names: a title in the title block
    /// that ends in `agreement` or `contract` with one of these among its
    /// words (`CONTENT LICENSE, MARKETING AND SALES AGREEMENT`,
    /// `Real Estate Education Training Program Development Agreement`)
    /// counts as a title phrase of the type, so a family's vocabulary
    /// covers its compound names.
    #[serde(default)]
    pub title_words: Vec<String>,
}

/// The name given to a document that fits no index.
pub const UNKNOWN_TYPE: &str = "unknown";

/// Below this confidence a document fits no index.
pub const MIN_CONFIDENCE: f64 = 0.45;

/// How much of the text is the title block.
const TITLE_BLOCK_CHARS: usize = 4000;

/// A title opens its line (`AGENCY AGREEMENT This Agency Agreement is
/// made...`); a phrase deep inside a paragraph (a memo that mentions "the
/// existing credit agreement") is not one. Words of a line looked at:
const TITLE_LINE_WORDS: usize = 14;

/// The detected (or forced) type of one document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct DocTypeGuess {
    /// An index's `document_type`, or [`UNKNOWN_TYPE`].
    pub name: String,
    /// 0..1: weighted votes of title block, body terms and headings; 1.0
    /// when forced with `--doc-type`.
    pub confidence: f64,
    /// The next-best type and its confidence.
    pub runner_up: Option<String>,
    pub runner_up_confidence: f64,
    /// With an index the user named (`--index FILE`): what detection
    /// made of the document when it is not that index's type (`unknown`
    /// when it does not fit it). `None` when detection agrees.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detected: Option<String>,
}

/// The indices of a folder (or one index), one per document type.
#[derive(Debug, Clone)]
pub struct IndexSet {
    pub indices: Vec<GraphabilityIndex>,
    /// Every body term of every type in one automaton, built once.
    terms: TermCounter,
    /// The base the types extend, of type [`UNKNOWN_TYPE`]: routes a
    /// document that fits no type, so its boilerplate is still skipped.
    pub base: Option<GraphabilityIndex>,
    /// Loaded from index files the user named (`--index FILE`), not a
    /// folder: that index routes every document.
    pub explicit: bool,
}

/// Counts the body terms of every index in one pass over a text (an
/// Aho-Corasick automaton over all phrases of all types, matched without
/// regard to ASCII case, at word boundaries): a scan per phrase of the
/// lower-cased text was most of `plan`'s CPU.
#[derive(Debug, Clone)]
struct TermCounter {
    automaton: Option<aho_corasick::AhoCorasick>,
    /// Per pattern: the indices (by position) that list it.
    owners: Vec<Vec<usize>>,
    types: usize,
}

impl TermCounter {
    fn new(indices: &[GraphabilityIndex]) -> Self {
        let mut patterns: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        for (i, idx) in indices.iter().enumerate() {
            for t in &idx.detect.terms {
                let t = t
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ")
                    .to_lowercase();
                if t.is_empty() {
                    continue;
                }
                match patterns.iter().position(|p| *p == t) {
                    Some(k) => {
                        if !owners[k].contains(&i) {
                            owners[k].push(i)
                        }
                    }
                    None => {
                        patterns.push(t);
                        owners.push(vec![i]);
                    }
                }
            }
        }
        let automaton = (!patterns.is_empty()).then(|| {
            aho_corasick::AhoCorasick::builder()
                .ascii_case_insensitive(true)
                .match_kind(aho_corasick::MatchKind::Standard)
                .build(&patterns)
                .expect("detect terms are plain strings")
        });
        TermCounter {
            automaton,
            owners,
            types: indices.len(),
        }
    }

    /// Per index, how often its terms occur as whole words (a phrase's
    /// inner spaces match any run of one space), and the words of the text.
    fn count(&self, text: &str) -> (Vec<f64>, usize) {
        let mut hits = vec![0.0; self.types];
        let bytes = text.as_bytes();
        let is_word = |b: u8| b.is_ascii_alphanumeric() || b >= 0x80;
        if let Some(ac) = &self.automaton {
            for m in ac.find_overlapping_iter(text) {
                let before = m.start().checked_sub(1).map(|i| bytes[i]);
                let after = bytes.get(m.end()).copied();
                if before.is_some_and(is_word) || after.is_some_and(is_word) {
                    continue;
                }
                for &i in &self.owners[m.pattern().as_usize()] {
                    hits[i] += 1.0;
                }
            }
        }
        let mut words = 0;
        let mut in_word = false;
        for &b in bytes {
            let w = is_word(b);
            words += usize::from(w && !in_word);
            in_word = w;
        }
        (hits, words)
    }
}

/// The index files of a folder: every `*.yaml` / `*.yml` directly in it,
/// sorted (overlays live in subfolders and are not types of their own).
pub fn index_files(dir: &Path) -> Result<Vec<PathBuf>, IndexError> {
    let rd = std::fs::read_dir(dir).map_err(|source| IndexError::Io {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut files: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    Ok(files)
}

impl IndexSet {
    /// Loads `paths`: a single folder loads every `*.yaml` directly in it
    /// (overlays live in subfolders and are not types of their own); files
    /// are one index, a base then its overlays.
    pub fn load(paths: &[PathBuf]) -> Result<IndexSet, IndexError> {
        if let [dir] = paths {
            if dir.is_dir() {
                return Self::load_dir(dir);
            }
        }
        let mut set = IndexSet::new(vec![GraphabilityIndex::load(paths)?]);
        set.explicit = true;
        Ok(set)
    }

    fn load_dir(dir: &Path) -> Result<IndexSet, IndexError> {
        let files = index_files(dir)?;
        let mut indices = Vec::new();
        for f in files {
            // An empty file is no index: the one a shell leaves for
            // `kgroute index draft ... > indices/new.yaml` when the draft
            // fails. It must not stop every batch that reads the folder.
            if std::fs::read_to_string(&f).is_ok_and(|t| t.trim().is_empty()) {
                eprintln!(
                    "kgroute: warning: {}: empty, not an index; skipped (delete it, or write a draft into it with `kgroute index draft --out`)",
                    f.display()
                );
                continue;
            }
            let index = GraphabilityIndex::load(std::slice::from_ref(&f))?;
            // Two indices of one type would split its documents, the
            // second never chosen: refused, naming both files.
            if let Some(first) = indices
                .iter()
                .find(|i: &&GraphabilityIndex| i.document_type == index.document_type)
            {
                return Err(IndexError::Invalid {
                    problems: vec![super::check::Problem {
                        file: f.clone(),
                        line: 1,
                        col: 1,
                        message: format!(
                            "document_type `{}` is already indexed by {}",
                            index.document_type,
                            first
                                .sources
                                .last()
                                .map_or(String::new(), |p| p.display().to_string())
                        ),
                        fix: "one index per document type in a folder: merge the two files, \
                              or give this one another document_type"
                            .into(),
                    }],
                });
            }
            indices.push(index);
        }
        if indices.is_empty() {
            return Err(IndexError::Io {
                path: dir.to_path_buf(),
                source: std::io::Error::new(
                    std::io::ErrorKind::NotFound,
                    "no index (*.yaml) in this folder",
                ),
            });
        }
        Ok(IndexSet::new(indices))
    }

    /// A set of loaded indices, with their detection automaton.
    pub fn new(indices: Vec<GraphabilityIndex>) -> IndexSet {
        let terms = TermCounter::new(&indices);
        let base = base_of(&indices);
        IndexSet {
            indices,
            terms,
            base,
            explicit: false,
        }
    }

    /// The index of a document type.
    pub fn get(&self, name: &str) -> Option<&GraphabilityIndex> {
        self.indices.iter().find(|i| i.document_type == name)
    }

    /// The type names, in load order.
    pub fn names(&self) -> Vec<&str> {
        self.indices
            .iter()
            .map(|i| i.document_type.as_str())
            .collect()
    }

    /// Detects a document's type. With a single index the document still
    /// has to fit it (a memo is not a credit agreement).
    pub fn detect(&self, tree: &DocTree, source: &SourceText) -> DocTypeGuess {
        let votes = self.votes(tree, &source.text);
        let mut ranked: Vec<(usize, f64)> = votes.into_iter().enumerate().collect();
        ranked.sort_by(|a, b| b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal));
        let (best, conf) = ranked.first().copied().unwrap_or((0, 0.0));
        let runner = ranked.get(1).copied();
        let name = if conf >= MIN_CONFIDENCE && !self.indices.is_empty() {
            self.indices[best].document_type.clone()
        } else {
            UNKNOWN_TYPE.to_string()
        };
        let (runner_up, runner_up_confidence) = if name == UNKNOWN_TYPE {
            (
                self.indices.get(best).map(|i| i.document_type.clone()),
                conf,
            )
        } else {
            runner.map_or((None, 0.0), |(i, c)| {
                (Some(self.indices[i].document_type.clone()), c)
            })
        };
        DocTypeGuess {
            name,
            confidence: round3(conf),
            runner_up,
            runner_up_confidence: round3(runner_up_confidence),
            detected: None,
        }
    }

    /// `--doc-type NAME` forces a type; otherwise detection decides. Returns
    /// the index to route with (`None`: fits no index and no base was
    /// loaded, route all-new).
    pub fn choose(
        &self,
        tree: &DocTree,
        source: &SourceText,
        forced: Option<&str>,
    ) -> Result<(Option<&GraphabilityIndex>, DocTypeGuess), String> {
        if let Some(f) = forced {
            let idx = self.get(f).ok_or_else(|| {
                format!(
                    "--doc-type {f}: no index of that type; loaded types: {}",
                    self.names().join(", ")
                )
            })?;
            return Ok((
                Some(idx),
                DocTypeGuess {
                    name: f.to_string(),
                    confidence: 1.0,
                    runner_up: None,
                    runner_up_confidence: 0.0,
                    detected: None,
                },
            ));
        }
        // An index the user named routes every document: detection only
        // reports its guess (`detected`) and whether it fits.
        if let (true, [only]) = (self.explicit, self.indices.as_slice()) {
            let detects = !(only.detect.titles.is_empty() && only.detect.terms.is_empty());
            let g = if detects {
                self.detect(tree, source)
            } else {
                DocTypeGuess {
                    name: only.document_type.clone(),
                    confidence: 0.0,
                    runner_up: None,
                    runner_up_confidence: 0.0,
                    detected: None,
                }
            };
            let detected = (detects && g.name != only.document_type).then(|| g.name.clone());
            return Ok((
                Some(only),
                DocTypeGuess {
                    name: only.document_type.clone(),
                    detected,
                    ..g
                },
            ));
        }
        let g = self.detect(tree, source);
        let idx = self.get(&g.name).or(match g.name.as_str() {
            UNKNOWN_TYPE => self.base.as_ref(),
            _ => None,
        });
        Ok((idx, g))
    }

    /// Per index: 0.5 x title line + 0.35 x share of body terms + 0.15 x
    /// share of headings matched.
    fn votes(&self, tree: &DocTree, text: &str) -> Vec<f64> {
        let block = title_block(text);
        let (term_hits, total_words) = self.terms.count(text);
        let all_hits: f64 = term_hits.iter().sum();
        // A text that barely uses any type's terms fits none of them.
        let density = 1000.0 * all_hits / total_words.max(1) as f64;
        let dens_factor = (density / 8.0).min(1.0);
        let headings: Vec<&crate::tree::Node> = tree
            .iter()
            .filter(|n| {
                matches!(
                    n.kind,
                    NodeKind::Section | NodeKind::Schedule | NodeKind::Exhibit
                )
            })
            .collect();
        self.indices
            .iter()
            .zip(&term_hits)
            .map(|(i, &hits)| {
                let title = first_title_phrase(&block, &i.detect.titles)
                    .or_else(|| first_title_word(&block, &i.detect.title_words));
                let title_vote = title.map_or(0.0, |_| 1.0);
                let term_vote = if all_hits > 0.0 {
                    hits / all_hits * dens_factor
                } else {
                    0.0
                };
                let matched = headings
                    .iter()
                    .filter(|n| {
                        let m = i.match_heading(&n.name, &MatchContext::default());
                        m.method != MatchMethod::None && !m.noise
                    })
                    .count();
                let heading_vote = if headings.len() >= 5 {
                    matched as f64 / headings.len() as f64
                } else {
                    0.0
                };
                0.5 * title_vote + 0.35 * term_vote + 0.15 * heading_vote
            })
            .collect()
    }
}

/// The first file of the types' `extends:` chains, when it is a base of
/// type [`UNKNOWN_TYPE`] (`indices/base/common.yaml`), loaded alone.
fn base_of(indices: &[GraphabilityIndex]) -> Option<GraphabilityIndex> {
    indices
        .iter()
        .filter(|i| i.sources.len() > 1)
        .find_map(|i| GraphabilityIndex::load(&i.sources[..1]).ok())
        .filter(|b| b.document_type == UNKNOWN_TYPE)
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

/// The opening words of each line of the first characters, lower-cased,
/// whitespace and letter-spacing collapsed (`L E A S E` -> `lease`),
/// joined by ` | `. A longer line (a page that PDF extraction ran into one
/// line) also gives each run of two or more capitals words inside it (a
/// title written in capitals after a confidentiality legend: `... Exchange
/// Commission. STRATEGIC ALLIANCE AGREEMENT This Strategic ...`) and the
/// words after each `This` (the opening's naming clause).
fn title_block(text: &str) -> String {
    let head: String = text.chars().take(TITLE_BLOCK_CHARS).collect();
    let mut lines: Vec<String> = Vec::new();
    for l in head.lines() {
        let words: Vec<&str> = l.split_whitespace().collect();
        lines.push(
            words
                .iter()
                .take(TITLE_LINE_WORDS)
                .copied()
                .collect::<Vec<_>>()
                .join(" "),
        );
        if words.len() > TITLE_LINE_WORDS {
            lines.extend(capitals_runs(&words));
            // The opening's naming clause: `This Amendment #3 to the
            // Manufacturing Agreement (this "Amendment") ...`.
            for (k, w) in words.iter().enumerate() {
                if matches!(*w, "This" | "THIS") {
                    let end = (k + 1 + TITLE_LINE_WORDS / 2).min(words.len());
                    lines.push(words[k..end].join(" "));
                }
            }
        }
    }
    lines
        .iter()
        .filter(|l| !l.is_empty())
        .map(|l| title_line(l))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// Runs of two or more words in capitals (`AND`, `OF`, `,` inside allowed).
fn capitals_runs(words: &[&str]) -> Vec<String> {
    let is_caps = |w: &str| {
        let letters: Vec<char> = w.chars().filter(|c| c.is_alphabetic()).collect();
        letters.len() >= 2 && letters.iter().all(|c| c.is_uppercase())
    };
    let mut out = Vec::new();
    let mut run: Vec<&str> = Vec::new();
    for &w in words {
        if is_caps(w) {
            run.push(w);
            continue;
        }
        if run.len() >= 2 {
            out.push(run.join(" "));
        }
        run.clear();
    }
    if run.len() >= 2 {
        out.push(run.join(" "));
    }
    out
}

/// Whether (and where) the title block names an agreement (`... agreement`
/// or `... contract`) with one of `words` among the five words before it.
fn first_title_word(block: &str, words: &[String]) -> Option<usize> {
    if words.is_empty() {
        return None;
    }
    let words: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let mut at = 0;
    for line in block.split(" | ") {
        let toks: Vec<&str> = line.split(' ').collect();
        for (k, t) in toks.iter().enumerate() {
            if matches!(*t, "agreement" | "contract") {
                let from = k.saturating_sub(5);
                if toks[from..k].iter().any(|w| words.iter().any(|x| x == w)) {
                    return Some(at);
                }
            }
        }
        at += line.len() + 3;
    }
    None
}

/// One line of the title block, normalised.
fn title_line(line: &str) -> String {
    let lower = line.to_lowercase();
    let words: Vec<&str> = lower.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut run = String::new();
    for w in words {
        if w.chars().count() == 1 && w.chars().all(|c| c.is_alphabetic()) {
            run.push_str(w);
            continue;
        }
        if !run.is_empty() {
            out.push(std::mem::take(&mut run));
        }
        out.push(w.to_string());
    }
    if !run.is_empty() {
        out.push(run);
    }
    let joined = out.join(" ");
    joined
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == ' ' {
                c
            } else {
                ' '
            }
        })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether (and where) one of the phrases is in the title block.
fn first_title_phrase(block: &str, phrases: &[String]) -> Option<usize> {
    phrases
        .iter()
        .filter_map(|p| {
            let p = p.to_lowercase();
            block
                .match_indices(p.as_str())
                .find(|(i, _)| {
                    let before = block[..*i].chars().last();
                    let after = block[i + p.len()..].chars().next();
                    before.is_none_or(|c| c == ' ') && after.is_none_or(|c| c == ' ')
                })
                .map(|(i, _)| i)
        })
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_block_collapses_spaced_letters() {
        assert_eq!(
            title_block("seaport east\nL E A S E\n by and between"),
            "seaport east | lease | by and between"
        );
        assert_eq!(
            first_title_phrase("office lease by", &["lease".into()]),
            Some(7)
        );
        assert_eq!(first_title_phrase("released", &["lease".into()]), None);
    }

    /// A title in capitals inside a long first line is in the title block;
    /// a family's title words type a compound agreement name.
    #[test]
    fn capitals_title_inside_a_long_line_and_family_title_words() {
        let text = "Exhibit 10.1 Text Marked By [* * *] Has Been Omitted Pursuant To A \
                    Request For Confidential Treatment. STRATEGIC ALLIANCE AGREEMENT Effective \
                    Date: April 17, 2017 THIS STRATEGIC ALLIANCE AGREEMENT is entered into";
        let block = title_block(text);
        assert!(
            first_title_phrase(&block, &["strategic alliance agreement".into()]).is_some(),
            "{block}"
        );
        let block = title_block("CONTENT LICENSE, MARKETING AND SALES AGREEMENT\nThis agreement");
        assert!(first_title_phrase(&block, &["content license agreement".into()]).is_none());
        assert!(first_title_word(&block, &["license".into()]).is_some());
        assert!(first_title_word(&block, &["services".into()]).is_none());
        // The opening's naming clause inside a long line.
        let block = title_block(
            "Confidential treatment has been requested with respect to portions of this \
             agreement as indicated. Amendment #3 to the Manufacturing Agreement This \
             Amendment #3 to the Manufacturing Agreement (this \"Amendment\") is made",
        );
        assert!(
            first_title_word(&block, &["manufacturing".into()]).is_some(),
            "{block}"
        );
        // Not an agreement's name: the word alone.
        assert!(first_title_word("license fees", &["license".into()]).is_none());
    }
}
