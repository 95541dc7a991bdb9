//! Figures that tell whether a tree looks right, so a document whose
//! headings were not recognised is reported instead of being sent whole
//! without a word.

use super::label::LabelKind;
use super::{DocTree, NodeKind};
use serde::{Deserialize, Serialize};

/// Structure health of one tree.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TreeHealth {
    /// Share (0..=1) of the document's characters in preamble and fallback
    /// nodes.
    pub preamble_share: f64,
    /// Share (0..=1) of the characters in the biggest single node.
    pub biggest_share: f64,
    /// Title of the biggest node.
    pub biggest_title: String,
    /// Headings (not counting the preamble, contents, signatures).
    pub headings: usize,
    /// Section numbers skipped within an article (`2.3` after `2.1`),
    /// counted once per gap.
    pub numbering_gaps: usize,
    /// Labels that do not increase within their article.
    pub out_of_order: usize,
    /// Entries of the table of contents.
    pub toc_entries: usize,
    /// Contents entries with no matching heading in the body, as written.
    pub toc_missing: Vec<String>,
}

/// A preamble or fallback above this share of the text is a warning.
const PREAMBLE_WARN: f64 = 0.5;

impl TreeHealth {
    /// Share of contents entries found as body headings (1 without contents).
    pub fn toc_found_share(&self) -> f64 {
        if self.toc_entries == 0 {
            1.0
        } else {
            1.0 - self.toc_missing.len() as f64 / self.toc_entries as f64
        }
    }

    /// One warning line when the tree looks wrong, e.g. "96% of x.txt is
    /// one preamble node: headings not recognised".
    pub fn warning(&self, doc_name: &str) -> Option<String> {
        if self.preamble_share > PREAMBLE_WARN {
            let what = if self.headings == 0 {
                "one fallback node"
            } else {
                "one preamble node"
            };
            return Some(format!(
                "{:.0}% of {doc_name} is {what}: headings not recognised",
                self.preamble_share * 100.0
            ));
        }
        if self.toc_entries >= 5 && self.toc_found_share() < 0.9 {
            return Some(format!(
                "{doc_name}: {} of {} contents entries not found as headings",
                self.toc_missing.len(),
                self.toc_entries
            ));
        }
        None
    }
}

/// Computes the figures of a built tree. `toc` is the table of contents'
/// entries (as written) and whether each was found in the body.
pub(crate) fn measure(tree: &DocTree, toc: &[(String, bool)]) -> TreeHealth {
    let total: usize = tree.iter().map(|n| n.chars).sum::<usize>().max(1);
    let mut h = TreeHealth::default();
    let mut pre = 0usize;
    let mut biggest = 0usize;
    for n in tree.iter() {
        if matches!(n.kind, NodeKind::Preamble | NodeKind::Fallback) {
            pre += n.chars;
        } else if !matches!(n.kind, NodeKind::Toc | NodeKind::Signature) {
            h.headings += 1;
        }
        if n.chars > biggest {
            biggest = n.chars;
            h.biggest_title.clone_from(&n.title);
        }
    }
    h.preamble_share = pre as f64 / total as f64;
    h.biggest_share = biggest as f64 / total as f64;
    // Numbering within each parent: the sections' last number should go
    // up by one.
    for parent in tree.iter() {
        let seqs: Vec<&Vec<u32>> = parent
            .nodes
            .iter()
            .filter_map(|n| n.label.as_ref())
            .filter(|l| l.kind == LabelKind::Section && l.seq.len() >= 2)
            .map(|l| &l.seq)
            .collect();
        for w in seqs.windows(2) {
            let (a, b) = (w[0], w[1]);
            if b <= a {
                h.out_of_order += 1;
            } else if a.len() == b.len()
                && a[..a.len() - 1] == b[..b.len() - 1]
                && b[b.len() - 1] > a[a.len() - 1] + 1
            {
                h.numbering_gaps += 1;
            }
        }
    }
    h.toc_entries = toc.len();
    h.toc_missing = toc
        .iter()
        .filter(|(_, found)| !found)
        .map(|(t, _)| t.clone())
        .collect();
    h
}
