//! Figures that tell whether a tree looks right, so a document whose
//! headings were not recognised is reported instead of being sent whole
//! without a word.

use super::contents::EntryStatus;
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
    /// Contents entries that stand at the start of a body line but were
    /// not taken as headings (misses of the tree), as written.
    pub toc_missing: Vec<String>,
    /// Contents entries found nowhere in the body: listed in the contents,
    /// not in the filing (schedules and exhibits the SEC filing omits).
    #[serde(default)]
    pub toc_not_in_filing: Vec<String>,
    /// Contents entries whose label and name stand only inside a longer
    /// line (the extraction ran a page into one line) where no heading
    /// could be placed; those placed there are found.
    #[serde(default)]
    pub toc_inline: Vec<String>,
    /// Share (0..=1) of the characters in contents (`toc`) nodes.
    #[serde(default)]
    pub contents_share: f64,
    /// Characters of the whole document (the nodes' sum).
    #[serde(default)]
    pub chars: usize,
    /// Noise nodes (contents, signature pages) whose text reads as running
    /// sentences, not as what they claim to be: (title, kind).
    #[serde(default)]
    pub noise_running_text: Vec<(String, String)>,
}

/// At most this share of the text in preamble, fallback and contents
/// nodes for a usable tree.
pub const USABLE_UNPLACED_MAX: f64 = 0.10;
/// No node of a usable tree holds more than this share of the text.
pub const USABLE_BIGGEST_MAX: f64 = 0.50;
/// Documents shorter than this may be one node, sent whole: the usable
/// figure counts only documents of this size or more.
pub const USABLE_MIN_CHARS: usize = 15_000;

/// A preamble or fallback above this share of the text is a warning.
const PREAMBLE_WARN: f64 = 0.5;

impl TreeHealth {
    /// Whether the tree splits the document into sections routing can
    /// use: preamble + fallback + contents at most 10% of the text and no
    /// node above half of it.
    pub fn usable(&self) -> bool {
        self.preamble_share + self.contents_share <= USABLE_UNPLACED_MAX
            && self.biggest_share <= USABLE_BIGGEST_MAX
    }

    /// Contents entries chosen as body headings.
    pub fn toc_found(&self) -> usize {
        self.toc_entries
            - self.toc_missing.len()
            - self.toc_not_in_filing.len()
            - self.toc_inline.len()
    }

    /// Contents entries that are in the body: found, missing, or inside
    /// a line where no heading could be placed.
    pub fn toc_in_body(&self) -> usize {
        self.toc_found() + self.toc_missing.len() + self.toc_inline.len()
    }

    /// Share of the contents entries in the body that were found as
    /// headings, at the start of a line or inside one (1 without such
    /// entries). Entries not in the filing are reported apart.
    pub fn toc_found_share(&self) -> f64 {
        let in_body = self.toc_in_body();
        if in_body == 0 {
            1.0
        } else {
            self.toc_found() as f64 / in_body as f64
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
                "{doc_name}: {} of {} contents entries in the body not found as headings",
                self.toc_missing.len() + self.toc_inline.len(),
                self.toc_in_body()
            ));
        }
        None
    }
}

/// Computes the figures of a built tree. `toc` is the table of contents'
/// entries (as written) and what became of each.
pub(crate) fn measure(tree: &DocTree, toc: &[(String, EntryStatus)]) -> TreeHealth {
    let total: usize = tree.iter().map(|n| n.chars).sum::<usize>().max(1);
    let mut h = TreeHealth::default();
    let mut pre = 0usize;
    let mut contents = 0usize;
    let mut biggest = 0usize;
    for n in tree.iter() {
        if matches!(n.kind, NodeKind::Preamble | NodeKind::Fallback) {
            pre += n.chars;
        } else if n.kind == NodeKind::Toc {
            contents += n.chars;
        } else if !matches!(n.kind, NodeKind::Toc | NodeKind::Signature) {
            h.headings += 1;
        }
        if n.chars > biggest {
            biggest = n.chars;
            h.biggest_title.clone_from(&n.title);
        }
    }
    h.preamble_share = pre as f64 / total as f64;
    h.contents_share = contents as f64 / total as f64;
    h.chars = total;
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
    let of = |status: EntryStatus| -> Vec<String> {
        toc.iter()
            .filter(|(_, s)| *s == status)
            .map(|(t, _)| t.clone())
            .collect()
    };
    h.toc_missing = of(EntryStatus::Missing);
    h.toc_not_in_filing = of(EntryStatus::Absent);
    h.toc_inline = of(EntryStatus::Inline);
    h
}

/// Whether `text` reads as running prose: at least 600 characters and
/// half of them in sentences of 15 words or more, two in five of them
/// lower-case. A contents page (short
/// entries, labels, page numbers) or a signature page (names, titles,
/// `By:` lines, one signing formula) does not.
pub(crate) fn reads_as_running_text(text: &str) -> bool {
    let total = text.trim().len();
    if total < 600 {
        return false;
    }
    let mut prose = 0usize;
    for piece in text.split(['\n', ';']).flat_map(split_sentences) {
        // A sentence is mostly lower-case words; a run of contents
        // entries (`4.1 Pooling of Compounds 17 4.2 Obligations for
        // Development 17`) is titles and numbers.
        let (mut words, mut lower) = (0usize, 0usize);
        for w in piece.split_whitespace() {
            words += 1;
            lower += usize::from(w.starts_with(|c: char| c.is_lowercase()));
        }
        if words >= 15 && lower * 5 >= words * 2 {
            prose += piece.len();
        }
    }
    prose * 2 >= total
}

/// Pieces of one line cut after a sentence end (`. ` before a capital).
fn split_sentences(line: &str) -> impl Iterator<Item = &str> {
    let b = line.as_bytes();
    let mut start = 0;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i + 2 < b.len() {
            i += 1;
            if matches!(b[i - 1], b'.' | b'?' | b'!')
                && b[i] == b' '
                && b[i + 1].is_ascii_uppercase()
            {
                let piece = &line[start..i];
                start = i;
                return Some(piece);
            }
        }
        if start < line.len() {
            let piece = &line[start..];
            start = line.len();
            return Some(piece);
        }
        None
    })
}

/// Noise nodes whose text reads as running prose, as (title, kind).
pub(crate) fn noise_running_text(
    tree: &DocTree,
    source: &super::SourceText,
) -> Vec<(String, String)> {
    tree.iter()
        .filter(|n| matches!(n.kind, NodeKind::Toc | NodeKind::Signature))
        .filter(|n| n.end_byte > n.start_byte)
        .filter(|n| reads_as_running_text(source.byte_span_text(n.start_byte, n.end_byte)))
        .map(|n| {
            let kind = if n.kind == NodeKind::Toc {
                "contents"
            } else {
                "signature"
            };
            (n.title.clone(), kind.to_owned())
        })
        .collect()
}
