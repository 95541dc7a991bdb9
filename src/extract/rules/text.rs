//! Text plumbing for the rules: cleaning PDF-to-Markdown output,
//! paragraphs, quotes and section references.

use super::EVIDENCE_CHARS;
use once_cell::sync::Lazy;
use regex::Regex;

pub(super) static TAG: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"</?[A-Za-z][A-Za-z0-9]*[^<>]*>").unwrap());

/// Page numbers, running headers and source URLs that PDF extraction leaves
/// between paragraphs.
pub(super) fn page_furniture(p: &str) -> bool {
    p.len() <= 80 || p.contains("://")
}

/// A list clause: `(a) ...`, `(iv) ...`.
pub(super) static LIST_CLAUSE: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^\(([a-z]{1,2}|[ivx]{1,5}|\d{1,2})\)\s+").unwrap());

pub(super) static SECTION_REF: Lazy<Regex> = Lazy::new(|| {
    Regex::new(r"\b(?:Sections?|SECTIONS?)\s+(\d{1,2}(?:\.\d{1,3})+[A-Za-z]?)").unwrap()
});

/// The end of a table cell (`</td>`, `</th>`) and a line break (`<br>`):
/// PDF-to-Markdown output puts each cell on its own line, so without a mark
/// a row reads as one phrase (`Dollars JPMorgan Chase Bank, N.A.`).
pub(super) static CELL_END: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)</t[dh]\s*>").unwrap());
pub(super) static LINE_BREAK: Lazy<Regex> = Lazy::new(|| Regex::new(r"(?i)<br\s*/?>").unwrap());

/// A signature-block field (`By: /s/ ...`, `Name: ...`, `Title: ...`):
/// a line of its own, never the start of the next party's name.
pub(super) static SIGNATURE_FIELD: Lazy<Regex> =
    Lazy::new(|| Regex::new(r"^(?:By|Name|Title|Its)\s*:").unwrap());

/// Strips HTML-like tags from PDF-to-Markdown output and straightens quotes.
/// Table cells end with ` |` so that no name runs from one cell into the
/// next; line breaks become spaces.
pub(super) fn clean(text: &str) -> String {
    let t = CELL_END.replace_all(text, " |");
    let t = LINE_BREAK.replace_all(&t, " ");
    let t = TAG.replace_all(&t, "");
    t.chars()
        .map(|c| match c {
            '\u{201C}' | '\u{201D}' | '\u{201E}' | '\u{00AB}' | '\u{00BB}' => '"',
            '\u{2018}' | '\u{2019}' => '\'',
            '\u{00A0}' => ' ',
            c => c,
        })
        .collect()
}

/// Paragraphs: runs of non-blank lines, joined with spaces (wrapped plain
/// text becomes one line per paragraph). In wrapped text without blank
/// lines, a line opening with a quoted term (a definition) or a list clause
/// after `;` or `:` also starts a paragraph. A signature-block field
/// (`Title: Country Head`) is a paragraph of its own.
pub(super) fn paragraphs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur: Vec<&str> = Vec::new();
    for l in text.lines() {
        let t = l.trim();
        let starts_new = !cur.is_empty()
            && (t.starts_with('"')
                || SIGNATURE_FIELD.is_match(t)
                || cur.last().is_some_and(|p| SIGNATURE_FIELD.is_match(p))
                || (LIST_CLAUSE.is_match(t)
                    && cur.last().is_some_and(|p| p.ends_with([';', ':']))));
        if (t.is_empty() || starts_new) && !cur.is_empty() {
            out.push(normalize_ws(&cur.join(" ")));
            cur.clear();
        }
        if !t.is_empty() {
            cur.push(t);
        }
    }
    if !cur.is_empty() {
        out.push(normalize_ws(&cur.join(" ")));
    }
    out
}

pub(super) fn normalize_ws(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

pub(super) fn section_refs(p: &str) -> Vec<String> {
    SECTION_REF
        .captures_iter(p)
        .map(|c| format!("Section {}", c[1].trim_end_matches('.')))
        .collect()
}

pub(super) fn truncate(s: &str, n: usize) -> String {
    let s = s.trim();
    if s.chars().count() <= n {
        return s.to_string();
    }
    let cut: String = s.chars().take(n).collect();
    match cut.rfind(' ') {
        Some(i) if i > n / 2 => format!("{}...", &cut[..i]),
        _ => format!("{cut}..."),
    }
}

/// A short quote around the first occurrence of `needle`.
pub(super) fn snippet_around(p: &str, needle: &str) -> String {
    let Some(pos) = p.find(needle) else {
        return truncate(p, EVIDENCE_CHARS);
    };
    let start = p[..pos].char_indices().rev().nth(60).map_or(0, |(i, _)| i);
    truncate(&p[start..], EVIDENCE_CHARS)
}
