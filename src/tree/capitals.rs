//! Unnumbered capitals headings (`DEFINITIONS`, `SERVICES PROVIDED TO THE
//! CUSTOMER`, `TERM AND TERMINATION`) in text the numbered decoder left
//! loose: a document with no heading it recognised, the text before its
//! first heading, or a node that holds most of the document. Without them
//! such a contract is one `fallback` or `preamble` node, sent whole and
//! with no section titles for the index to route by.
//!
//! A line is such a heading when it is a short capitals title standing
//! alone between paragraphs (the line before ends a sentence or is page
//! furniture or a running header met again on other pages; running text
//! follows) and at least one sibling in the same
//! region stands the same way: one capitals line alone is as likely a
//! caption, a party's name or the agreement's title as a heading.

use super::assemble::Heading;
use super::decode::is_capitals_title;
use super::lines::{is_furniture, is_prose_shape};
use super::plain_signature::has_field;
use super::{NodeKind, SourceText};
use std::collections::HashMap;

/// A heading line is at most this long.
const TITLE_MAX_BYTES: usize = 80;
/// A region needs this many capitals headings (siblings in one style).
const MIN_SIBLINGS: usize = 2;
/// A node holding more than this share of the text is loose (per mille).
const LOOSE_NODE_PER_MILLE: usize = 500;
/// Non-blank lines looked at below a candidate for its running text.
const BODY_WITHIN: usize = 2;

/// Adds the capitals headings of the loose regions to `headings` (sorted by
/// line), one level below the node they fall in (level 1 in a document
/// without headings or before its first one).
pub(crate) fn add_capitals_headings(source: &SourceText, headings: &mut Vec<Heading>) {
    let lines: Vec<&str> = source.lines().map(str::trim).collect();
    let n = lines.len();
    if n == 0 {
        return;
    }
    let total = source.text.len().max(1);
    // Regions as 0-based line ranges `from..to` with the level they take.
    let mut regions: Vec<(usize, usize, u8)> = Vec::new();
    let first = headings.first().map_or(n, |h| h.line - 1);
    regions.push((0, first, 1));
    for (i, h) in headings.iter().enumerate() {
        let end = headings.get(i + 1).map_or(n, |x| x.line - 1);
        let from = h.title_end.max(h.line);
        if from >= end {
            continue;
        }
        let bytes = source.line_start(end.max(1)) - source.line_start(h.line);
        if h.kind == NodeKind::Section && bytes * 1000 > total * LOOSE_NODE_PER_MILLE {
            regions.push((from, end, h.level.saturating_add(1)));
        }
    }
    // A capitals line met twice is a running page header (`KALLO -
    // MOBILECARE` on every page): furniture, not a section.
    let mut seen: HashMap<&str, usize> = HashMap::new();
    for l in lines.iter().filter(|l| is_heading_text(l)) {
        *seen.entry(l).or_default() += 1;
    }
    let skip = |l: &str| is_furniture(l) || seen.get(l).is_some_and(|&c| c > 1);
    let mut extra = Vec::new();
    for (from, to, level) in regions {
        let found: Vec<(usize, usize)> = (from..to)
            .filter(|&k| !skip(lines[k]))
            .filter_map(|k| capitals_heading(&lines, k, from, to, &skip).map(|e| (k, e)))
            .collect();
        if found.len() < MIN_SIBLINGS {
            continue;
        }
        for (k, end) in found {
            let title = lines[k..=end].join(" ");
            let mut h = Heading::new(k + 1, level, title, NodeKind::Section);
            h.title_end = end + 1;
            extra.push(h);
        }
    }
    for h in extra {
        let at = headings.partition_point(|x| x.line < h.line);
        if headings.get(at).is_none_or(|x| x.line != h.line) {
            headings.insert(at, h);
        }
    }
}

/// Whether line `k` (0-based, in `from..to`) is a capitals heading standing
/// alone; `Some(last line of its title)` (a title may take two lines).
fn capitals_heading(
    lines: &[&str],
    k: usize,
    from: usize,
    to: usize,
    skip: &dyn Fn(&str) -> bool,
) -> Option<usize> {
    let t = lines[k];
    if !is_heading_text(t) {
        return None;
    }
    // The line before ends a sentence, or is furniture, or the region's start.
    let prev = (from..k).rev().map(|p| lines[p]).find(|l| !skip(l));
    if let Some(p) = prev {
        let ends = p.ends_with(['.', ':', ';', ')', '"', '\u{201d}']);
        if !ends || is_heading_text(p) {
            return None;
        }
    }
    // Running text below, after at most one more title line.
    let mut end = k;
    let mut seen = 0;
    for (q, &l) in lines.iter().enumerate().take(to).skip(k + 1) {
        if skip(l) {
            continue;
        }
        seen += 1;
        if seen > BODY_WITHIN {
            return None;
        }
        if is_prose_shape(l) {
            return Some(end);
        }
        if seen == 1 && is_heading_text(l) && !t.ends_with('.') {
            end = q;
            continue;
        }
        return None;
    }
    None
}

/// A short capitals title: not a field (`NAME:`), a party (`NETGEAR,
/// INC.`), a bracketed caption (`[LOGO]`) or the agreement's own name.
fn is_heading_text(t: &str) -> bool {
    if t.len() < 4 || t.len() > TITLE_MAX_BYTES || is_furniture(t) || !is_capitals_title(t) {
        return false;
    }
    if t.starts_with(['[', '*', '(', '-', '_']) || t.ends_with(',') || has_field(t) {
        return false;
    }
    let last = t
        .split_whitespace()
        .last()
        .unwrap_or("")
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_ascii_uppercase();
    // The agreement's name and a company's name are not sections.
    const NAMES: &[&str] = &[
        "AGREEMENT",
        "CONTRACT",
        "AMENDMENT",
        "ADDENDUM",
        "INC",
        "LLC",
        "LTD",
        "CORPORATION",
        "CORP",
        "COMPANY",
        "LIMITED",
        "PLC",
        "LP",
        "GMBH",
    ];
    // The opening's connectives stand alone too (`BETWEEN`, `WHEREAS`).
    const CONNECTIVES: &[&str] = &["BETWEEN", "AND", "WHEREAS", "WITNESSETH", "BY AND BETWEEN"];
    let bare = t.trim_end_matches([':', '.', ',']).to_ascii_uppercase();
    !NAMES.contains(&last.as_str()) && !CONNECTIVES.contains(&bare.as_str())
}
