//! Where a plain-text signature page ends. A heading titled as the
//! signature pages (`Signature Page`, `Signatures`) makes a `signature`
//! node, which is noise; when the extraction lost the headings of the
//! attachments after it, that node would run on over them and drop their
//! text. The pages end after their last signature block: the run of
//! signature fields (`By:`, `Name:`, `Title:`, `Date:`, `/s/`) that starts
//! within the first lines of the node, chained over short gaps (party
//! names, addresses, page footers) and closed by running text or a long
//! gap. What follows, when it holds content, is a node of its own: titled
//! by its first line when that reads as a title, else an untitled
//! `fallback` node (never matched against the index, always sent).

use super::assemble::{insert_extra, refine_kind, Heading};
use super::label::{split_heading, LabelKind};
use super::lines::{is_furniture, is_prose, is_title_line};
use super::{NodeKind, SourceText};

/// Non-blank lines from the start of the node within which its first
/// signature field must come (the signing formula and the party names).
const FIRST_FIELD_WITHIN: usize = 20;
/// Non-blank lines without a field that close the run of blocks.
const BLOCK_GAP: usize = 12;
/// Letters and digits the text after the pages needs to be a node of its
/// own rather than footers.
const ATTACHMENT_MIN_ALNUM: usize = 100;

/// Adds a node for the content after each signature node's last block.
pub(crate) fn split_after_signatures(source: &SourceText, headings: &mut Vec<Heading>) {
    let mut extra = Vec::new();
    for (i, h) in headings.iter().enumerate() {
        if refine_kind(h.kind, h.title.trim()) != NodeKind::Signature {
            continue;
        }
        // 1-based lines the node covers after its title.
        let from = h.title_end.max(h.line);
        let to = headings
            .get(i + 1)
            .map_or(source.line_count(), |n| n.line - 1);
        if let Some(a) = attachment(source, from, to, h.level) {
            extra.push(a);
        }
    }
    insert_extra(headings, extra);
}

/// The heading of the content after the signature blocks in lines
/// `from..=to` (1-based; `from` is the signature heading's line).
fn attachment(source: &SourceText, from: usize, to: usize, level: u8) -> Option<Heading> {
    let mut last_field = None;
    let mut gap = 0usize;
    let mut seen = 0usize;
    // The heading's own line may carry the formula and the first fields.
    for k in from..=to {
        let l = source.line(k).trim();
        if l.is_empty() {
            continue;
        }
        seen += 1;
        if has_field(l) || (last_field.is_some() && has_signing_line(l)) {
            last_field = Some(k);
            gap = 0;
            continue;
        }
        match last_field {
            None if seen > FIRST_FIELD_WITHIN => return None,
            None => {}
            Some(_) if is_prose(l) => break,
            Some(_) => {
                gap += 1;
                if gap > BLOCK_GAP {
                    break;
                }
            }
        }
    }
    let end = last_field?;
    // Further `Label:` lines (address, fax, attention) close the block.
    let mut start = end + 1;
    while start <= to {
        let l = source.line(start).trim();
        if l.is_empty()
            || is_furniture(l)
            || is_label_line(l)
            || is_page_footer(l)
            || is_ordinal_residue(l)
            || (l.len() <= 160 && has_word_field(l, CONTACT_FIELDS))
            || continues(source.line(start - 1).trim())
        {
            start += 1;
        } else {
            break;
        }
    }
    if start > to {
        return None;
    }
    let alnum: usize = (start..=to)
        .map(|k| {
            source
                .line(k)
                .chars()
                .filter(|c| c.is_alphanumeric())
                .count()
        })
        .sum();
    if alnum < ATTACHMENT_MIN_ALNUM {
        return None;
    }
    let line = source.line(start).trim();
    // An annex's label and title at the start of a line that runs on into
    // its body (`Attachment A   Sponsor Benefits Schedule   WCC agrees`,
    // `SCHEDULE A        to the SPONSORSHIP AGREEMENT`): the title ends
    // at the first gap the PDF text kept.
    let first = match line.find("   ").map(|g| &line[..g]) {
        Some(head) if !is_title_line(line) && annex_kind(head).is_some() => head,
        _ => line,
    };
    let letters = first.chars().filter(|c| c.is_alphabetic()).count();
    let (title, kind) = if is_title_line(first) && letters >= 3 {
        (
            first.to_owned(),
            annex_kind(first).unwrap_or(NodeKind::Section),
        )
    } else {
        (
            "Attachment (after signature pages)".to_owned(),
            NodeKind::Fallback,
        )
    };
    Some(Heading::new(start, level, title, kind))
}

/// The node kind of a title that opens with an annex label (`Exhibit I`,
/// `SCHEDULE A`, `Attachment A`).
fn annex_kind(title: &str) -> Option<NodeKind> {
    match split_heading(title).0.map(|l| l.kind) {
        Some(LabelKind::Exhibit) => Some(NodeKind::Exhibit),
        Some(
            LabelKind::Schedule | LabelKind::Annex | LabelKind::Appendix | LabelKind::Attachment,
        ) => Some(NodeKind::Schedule),
        _ => None,
    }
}

/// A run of this many dashes or underscores is a line to sign on.
const SIGNING_LINE_MIN: usize = 10;

/// Whether a line carries a line to sign on (`Partners, on behalf of
/// themselves and ----------`): the caption of a further block, so the run
/// of blocks goes on.
fn has_signing_line(line: &str) -> bool {
    let mut run = 0;
    for b in line.bytes() {
        if b == b'-' || b == b'_' {
            run += 1;
            if run >= SIGNING_LINE_MIN {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}

/// What PDF extraction leaves of a superscript ordinal (`23rd` split as
/// `rd` on a line of its own).
fn is_ordinal_residue(line: &str) -> bool {
    matches!(line, "st" | "nd" | "rd" | "th")
}

/// Whether a line holds a signature field: `By:`, `Name:`, `Title:`,
/// `Its:`, `Date:`, `Per:` (any case, anywhere: extraction runs the
/// blocks of both parties onto one line), `By ____`, `/s/`, or the
/// `Authorized Signatory` / `(Print name)` captions.
pub(crate) fn has_field(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    if lower.contains("/s/")
        || lower.contains("authorized signatory")
        || lower.contains("(print name)")
    {
        return true;
    }
    has_word_field(line, &["by", "name", "title", "its", "date", "per"])
}

/// Contact fields of a block's address lines.
const CONTACT_FIELDS: &[&str] = &[
    "fax",
    "attn",
    "attention",
    "tel",
    "telephone",
    "phone",
    "email",
    "e-mail",
    "address",
];

/// Whether `line` holds one of `words` (lower case) followed by a colon
/// (`By` also by a blank `__`), any case, at a word start.
fn has_word_field(line: &str, words: &[&str]) -> bool {
    let lower = line.to_ascii_lowercase();
    let b = lower.as_bytes();
    for &word in words {
        let mut at = 0;
        while let Some(p) = lower[at..].find(word) {
            let s = at + p;
            let e = s + word.len();
            at = e;
            if s > 0 && b[s - 1].is_ascii_alphanumeric() {
                continue;
            }
            let rest = lower[e..].trim_start_matches([' ', '\t', '*']);
            if rest.starts_with(':') || (word == "by" && rest.starts_with("__")) {
                return true;
            }
        }
    }
    false
}

/// A short `Label: value` line (`Address:`, `Fax:`, `Attention:`).
fn is_label_line(line: &str) -> bool {
    line.len() <= 120
        && line.split_once(':').is_some_and(|(label, _)| {
            let words = label.split_whitespace().count();
            (1..=3).contains(&words)
                && label.starts_with(|c: char| c.is_uppercase())
                && label.chars().all(|c| c.is_alphabetic() || c == ' ')
        })
}

/// Whether a line runs on into the next: a long line that ends inside a
/// sentence (the block's last field wrapped).
fn continues(line: &str) -> bool {
    line.len() >= 40 && line.ends_with(|c: char| c.is_lowercase() || c == ',')
}

/// `Page 25`, `Page 60 of 80`, a bare page number.
fn is_page_footer(line: &str) -> bool {
    let l = line.to_ascii_lowercase();
    let rest = l.strip_prefix("page").unwrap_or(&l).trim();
    !rest.is_empty()
        && rest.len() <= 12
        && rest
            .split_whitespace()
            .all(|w| w == "of" || w.chars().all(|c| c.is_ascii_digit()))
}

/// Words a sentence needs to read as a clause rather than a caption.
const CLAUSE_MIN_WORDS: usize = 8;

/// Whether a node's own text (after its title) opens with a clause of the
/// agreement: a first sentence of some length that holds no signature
/// field and is not the signing formula (`IN WITNESS WHEREOF`, `The
/// parties have executed this Agreement ...`). A section titled
/// `Signatures` whose text starts so (`This Agreement may be signed in
/// two counterparts, ...`) is a provision, not the signature pages.
pub(crate) fn opens_with_clause(own: &str) -> bool {
    let own = own.trim_start_matches(|c: char| c.is_whitespace() || c == '.' || c == ':');
    let line = own.lines().next().unwrap_or("");
    let first = first_sentence(line);
    if first.split_whitespace().count() < CLAUSE_MIN_WORDS || has_field(first) {
        return false;
    }
    let lower = first.to_lowercase();
    let formula = [
        "witness",
        "have executed",
        "has executed",
        "duly executed",
        "caused",
        "have signed",
        "has signed",
        "hereunto",
        "set their hand",
        "signature page",
        "signatures follow",
        "intentionally left blank",
    ];
    !formula.iter().any(|f| lower.contains(f))
}

/// `line` up to its first sentence end (`. ` before a capital).
fn first_sentence(line: &str) -> &str {
    let b = line.as_bytes();
    for i in 1..b.len().saturating_sub(1) {
        if b[i - 1] == b'.' && b[i] == b' ' && b[i + 1].is_ascii_uppercase() {
            return &line[..i];
        }
    }
    line
}
