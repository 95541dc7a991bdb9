//! Signature pages of a Markdown contract that the converter left as plain
//! lines inside the last article, and the attachments after them.
//!
//! The pages are found by their structure: signature blocks (a `By:` or
//! `Name:` line with another `Name:` / `Title:` / `Its:` field within the
//! next few lines) chained with short gaps, the last such run after the
//! last numbered body heading and before the first schedule or exhibit
//! heading. They start at
//! the signing formula just above the first block (a paragraph that says
//! the parties executed or witnessed the agreement) or at the first party
//! name, and end with the last block's fields. Text with real content
//! between them and the next heading is an attachment of its own; schedule
//! and exhibit headings after the pages become top-level. Every node added
//! here is an extra node: the real headings keep the reference ids.

use super::assemble::{insert_extra, Heading};
use super::label::{split_heading, LabelKind};
use super::lines::{is_furniture, is_prose, is_title_line};
use super::{NodeKind, SourceText};
use std::collections::HashSet;

/// Non-blank lines after a `By:` / `Name:` line in which a second field
/// makes it a signature block.
const BLOCK_SPAN: usize = 4;
/// Non-blank lines (page footers, the next party's name) allowed between two
/// blocks of the same signature pages.
const BLOCK_GAP: usize = 12;
/// Non-blank lines between the signing formula and the first block (the
/// first party's name over a few lines).
const FORMULA_GAP: usize = 6;
/// Letters and digits that text after the pages needs to be an attachment
/// rather than a footer.
const ATTACHMENT_MIN_ALNUM: usize = 100;

/// Adds the `signature` node (and an attachment node for untitled content
/// after it) and lifts the schedules and exhibits after it to the top level.
/// Does nothing when the document already has a signature heading or no
/// signature blocks after its body.
pub(crate) fn signature_pages(source: &SourceText, headings: &mut Vec<Heading>) {
    let real: Vec<usize> = (0..headings.len())
        .filter(|&i| !headings[i].extra)
        .collect();
    let first_annex = real
        .iter()
        .position(|&i| is_annex(&headings[i].title))
        .unwrap_or(real.len());
    let body = &real[..first_annex];
    // The pages follow the last numbered heading; unnumbered headings after
    // it may be party names the converter marked up.
    let Some(&last_body) = body
        .iter()
        .rev()
        .find(|&&i| split_heading(&headings[i].title).0.is_some())
        .or(body.last())
    else {
        return;
    };
    if body
        .iter()
        .filter(|&&i| i >= last_body)
        .any(|&i| is_signature_title(&headings[i].title))
    {
        return;
    }
    // 0-based line range the pages may occupy.
    let from = headings[last_body].title_end.max(headings[last_body].line);
    let to = real
        .get(first_annex)
        .map_or(source.line_count(), |&i| headings[i].line - 1);
    // Only these lines are read; the ones before stay blank (indices are
    // the document's).
    let mut lines: Vec<&str> = vec![""; from];
    lines.extend((from..to).map(|k| source.line(k + 1).trim()));
    let Some((start, end)) = find_pages(&lines, from, to) else {
        return;
    };

    let mut extra = vec![Heading::new(
        start + 1,
        1,
        "Signature Pages".to_owned(),
        NodeKind::Signature,
    )];
    // Headings inside the pages (party names marked up) belong to them.
    for h in headings.iter_mut() {
        if h.line > start && h.line <= end + 1 && !h.extra {
            h.kind = NodeKind::Signature;
            if h.line > start + 1 {
                h.level = h.level.max(2);
            }
        }
    }
    let next_heading = headings
        .iter()
        .map(|h| h.line - 1)
        .find(|&l| l > end)
        .map_or(lines.len(), |l| l.min(lines.len()));
    if let Some(a) = attachment(&lines, start, end, next_heading) {
        extra.push(a);
    }
    lift_annexes(headings, end + 1);
    insert_extra(headings, extra);
}

/// First and last 0-based line of the signature pages within `from..to`:
/// the last run of blocks (a form with a signature block quoted earlier in
/// the article is a run of its own).
fn find_pages(lines: &[&str], from: usize, to: usize) -> Option<(usize, usize)> {
    let mut run: Option<(usize, usize)> = None;
    let mut k = from;
    while k < to {
        match block_at(lines, k, to) {
            Some(end) => {
                run = match run {
                    Some((first, prev_end))
                        if (prev_end + 1..k).filter(|&j| !lines[j].is_empty()).count()
                            <= BLOCK_GAP =>
                    {
                        Some((first, end))
                    }
                    _ => Some((k, end)),
                };
                k = end + 1;
            }
            None => k += 1,
        }
    }
    let (first, last) = run?;
    Some((formula_start(lines, from, first), last))
}

/// Last line of the signature block whose first field is line `k`.
fn block_at(lines: &[&str], k: usize, to: usize) -> Option<usize> {
    let head = field(lines[k])?;
    if !matches!(head, "by" | "name") {
        return None;
    }
    let mut last = None;
    let mut seen = 0;
    for (j, l) in lines.iter().enumerate().take(to).skip(k + 1) {
        if l.is_empty() {
            continue;
        }
        seen += 1;
        match field(l) {
            Some(f) if f != head && matches!(f, "name" | "title" | "its") => last = Some(j),
            _ if last.is_some() || seen >= BLOCK_SPAN => break,
            _ => {}
        }
    }
    // Further `Label:` lines (address, telephone) close the block.
    let mut end = last?;
    for (j, l) in lines.iter().enumerate().take(to).skip(end + 1) {
        if l.is_empty() {
            continue;
        }
        if !is_label_line(l) {
            break;
        }
        end = j;
    }
    Some(end)
}

/// Where the pages start: the signing formula above the first block when
/// there is one, else the first line after the running text before it.
fn formula_start(lines: &[&str], from: usize, first_block: usize) -> usize {
    let mut start = first_block;
    let mut seen = 0;
    let mut k = first_block;
    while k > from && seen <= FORMULA_GAP {
        k -= 1;
        let l = lines[k];
        if l.is_empty() || is_furniture(l) {
            continue;
        }
        seen += 1;
        if is_prose(l) {
            if is_signing_formula(l) {
                // The paragraph may be wrapped over several lines.
                start = k;
                while start > from && is_prose(lines[start - 1]) {
                    start -= 1;
                }
            }
            break;
        }
        start = k;
    }
    start
}

/// Content between the end of the pages and the next heading that is more
/// than footers: it starts at its first running text or table, with the
/// short line just above it as its title when that line is not one of the
/// pages' own (recurring page headers are).
fn attachment(lines: &[&str], start: usize, end: usize, next: usize) -> Option<Heading> {
    let tail = end + 1..next;
    let content = tail
        .clone()
        .find(|&k| is_prose(lines[k]) || is_table(lines[k]))?;
    let alnum: usize = (content..next)
        .map(|k| lines[k].chars().filter(|c| c.is_alphanumeric()).count())
        .sum();
    if alnum < ATTACHMENT_MIN_ALNUM {
        return None;
    }
    let own: HashSet<&str> = lines[start..=end].iter().copied().collect();
    let above = (end + 1..content).rev().find(|&k| !lines[k].is_empty());
    let titled = above.filter(|&k| {
        let l = lines[k];
        is_title_line(l) && !is_furniture(l) && !own.contains(l) && !is_label_line(l)
    });
    let (line, title) = match titled {
        Some(k) => (k, lines[k].to_owned()),
        None => (content, "Attachment (after signature pages)".to_owned()),
    };
    let kind = match split_heading(&title).0.map(|l| l.kind) {
        Some(LabelKind::Exhibit) => NodeKind::Exhibit,
        _ => NodeKind::Schedule,
    };
    let mut h = Heading::new(line + 1, 1, title, kind);
    h.title_end = line + 1;
    Some(h)
}

/// Schedules and exhibits after the pages (1-based line `after`) become
/// top-level; the headings inside each keep their depth below it.
fn lift_annexes(headings: &mut [Heading], after: usize) {
    let mut shift: Option<u8> = None;
    for h in headings.iter_mut().filter(|h| h.line > after && !h.extra) {
        if is_annex(&h.title) {
            shift = Some(h.level.saturating_sub(1));
            h.level = 1;
        } else if let Some(s) = shift {
            h.level = h.level.saturating_sub(s).max(2);
        }
    }
}

fn is_annex(title: &str) -> bool {
    // Most headings are not: look at the first word before parsing.
    let first = title.split_whitespace().next().unwrap_or("");
    let annex_word = ["schedule", "exhibit", "annex", "appendix", "attachment"]
        .iter()
        .any(|w| {
            first
                .get(..w.len())
                .is_some_and(|p| p.eq_ignore_ascii_case(w))
        });
    annex_word
        && split_heading(title).0.is_some_and(|l| {
            matches!(
                l.kind,
                LabelKind::Schedule
                    | LabelKind::Exhibit
                    | LabelKind::Annex
                    | LabelKind::Appendix
                    | LabelKind::Attachment
            )
        })
}

fn is_signature_title(title: &str) -> bool {
    let lower = title.trim_matches(|c| c == '*' || c == '_').to_lowercase();
    lower.starts_with("signature") || lower.starts_with("execution page")
}

/// The field a signature-block line opens (`by`, `name`, `title`, `its`),
/// lower-cased: `By: /s/ ...`, `**Name:** ...`, `By ________`.
fn field(line: &str) -> Option<&'static str> {
    let t = strip_markup(line);
    let word_len = t
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(t.len());
    let word = ["by", "name", "title", "its"]
        .into_iter()
        .find(|w| w.eq_ignore_ascii_case(&t[..word_len]))?;
    let rest = t[word_len..].trim_start_matches(['*', ' ', '\t']);
    (rest.starts_with(':') || (word == "by" && rest.starts_with('_'))).then_some(word)
}

/// A short `Label: value` line (`Address:`, `Telephone:`, `Attention:`).
fn is_label_line(line: &str) -> bool {
    let t = strip_markup(line);
    t.len() <= 120
        && t.split_once(':').is_some_and(|(label, _)| {
            let words = label.split_whitespace().count();
            (1..=3).contains(&words)
                && label.starts_with(|c: char| c.is_uppercase())
                && label.chars().all(|c| c.is_alphabetic() || c == ' ')
        })
}

/// Emphasis, underline tags and table bars around a line's text.
fn strip_markup(s: &str) -> &str {
    let mut t = s.trim();
    loop {
        let before = t.len();
        for tag in ["<u>", "</u>", "<b>", "</b>", "<strong>", "</strong>"] {
            t = t.strip_prefix(tag).unwrap_or(t);
        }
        t = t.trim_start_matches(['*', '_', '|', ' ', '\t']);
        if t.len() == before {
            return t;
        }
    }
}

/// The signing formula: `IN WITNESS WHEREOF, the parties have caused this
/// Agreement to be executed ...` and its variants.
fn is_signing_formula(l: &str) -> bool {
    let lower = l.to_lowercase();
    lower.contains("witness") || lower.contains("execut")
}

/// A line of a Markdown, HTML or extracted table.
fn is_table(l: &str) -> bool {
    l.starts_with('|') || l.starts_with("<table") || l.eq_ignore_ascii_case("[[table]]")
}
