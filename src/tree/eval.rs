//! Scores a tree's headings against a hand-checked heading list
//! (`tests/truth/*.json`, `../shared/corpora/gold/*.json`): precision and
//! recall by line with one line of tolerance.

use super::{DocTree, NodeKind};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One true heading.
#[derive(Debug, Clone, Deserialize)]
pub struct TrueHeading {
    pub line: usize,
    #[serde(default)]
    pub kind: String,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub title: String,
}

/// A truth file: the document (relative to `corpora/`) and its headings.
#[derive(Debug, Clone, Deserialize)]
pub struct Truth {
    pub file: String,
    /// `tuning` or `checking` (which half of the hand-checked lists).
    #[serde(default)]
    pub part: Option<String>,
    pub headings: Vec<TrueHeading>,
}

impl Truth {
    pub fn load(path: &Path) -> anyhow::Result<Truth> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        serde_json::from_str(&text)
            .map_err(|e| anyhow::anyhow!("{}: line {}: {e}", path.display(), e.line()))
    }

    /// The document, found under `corpora`.
    pub fn document(&self, corpora: &Path) -> PathBuf {
        corpora.join(&self.file)
    }
}

/// Counts of one comparison.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Score {
    pub true_pos: usize,
    pub false_pos: usize,
    pub false_neg: usize,
}

impl Score {
    pub fn add(&mut self, o: Score) {
        self.true_pos += o.true_pos;
        self.false_pos += o.false_pos;
        self.false_neg += o.false_neg;
    }
    pub fn precision(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_pos)
    }
    pub fn recall(&self) -> f64 {
        ratio(self.true_pos, self.true_pos + self.false_neg)
    }
    pub fn f1(&self) -> f64 {
        let (p, r) = (self.precision(), self.recall());
        if p + r == 0.0 {
            0.0
        } else {
            2.0 * p * r / (p + r)
        }
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

/// The heading lines of a tree: every node but the preamble, contents,
/// signature and fallback nodes.
pub fn heading_lines(tree: &DocTree) -> Vec<usize> {
    tree.iter()
        .filter(|n| {
            !matches!(
                n.kind,
                NodeKind::Preamble | NodeKind::Toc | NodeKind::Signature | NodeKind::Fallback
            )
        })
        .map(|n| n.line_num)
        .collect()
}

/// Matches predicted lines to true lines (each used once, within one
/// line); returns the score and the unmatched lines of each side.
pub fn score(predicted: &[usize], truth: &[usize]) -> (Score, Vec<usize>, Vec<usize>) {
    let mut truth: Vec<usize> = truth.to_vec();
    truth.sort_unstable();
    let mut used = vec![false; truth.len()];
    let mut s = Score::default();
    let mut extra = Vec::new();
    for &p in predicted {
        // The exact line first, then one either side.
        let hit = [p, p.wrapping_sub(1), p + 1].into_iter().find_map(|want| {
            let i = truth.partition_point(|&t| t < want);
            (i < truth.len() && truth[i] == want && !used[i]).then_some(i)
        });
        match hit {
            Some(i) => {
                used[i] = true;
                s.true_pos += 1;
            }
            None => {
                s.false_pos += 1;
                extra.push(p);
            }
        }
    }
    let missed: Vec<usize> = truth
        .iter()
        .zip(&used)
        .filter(|(_, u)| !**u)
        .map(|(t, _)| *t)
        .collect();
    s.false_neg = missed.len();
    (s, extra, missed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_tolerance_and_each_truth_once() {
        let (s, extra, missed) = score(&[10, 21, 22, 40], &[10, 20, 30]);
        assert_eq!(
            s,
            Score {
                true_pos: 2,
                false_pos: 2,
                false_neg: 1
            }
        );
        assert_eq!((extra, missed), (vec![22, 40], vec![30]));
        assert!((s.f1() - 4.0 / 7.0).abs() < 1e-9);
    }
}
